"""Design mode: draw pieces and target shapes, with a live solution count (issue 14).

Design is a mode of the main window (viewer/window.py): `DesignMode` (viewer/design/mode.py)
holds the editor's parts; `run()` (viewer/design/app.py) is what `tessera design` calls, the
window opened in that mode. The document itself is Qt-free: `tessera.models.design`.
"""
