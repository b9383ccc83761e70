"""Design mode: draw pieces and target shapes, with a live solution count (issue 14).

`DesignWindow` (viewer/design/window.py) is the editor; `run()` (viewer/design/app.py) is what
`tessera design` calls. The document itself is Qt-free: `tessera.models.design`.
"""
