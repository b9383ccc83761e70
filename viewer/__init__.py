"""The viewer: what a puzzle looks like (Qt-free) and the window that shows it (`viewer._qt`).

Qt-free, importable on a machine without a display: the scene builders (`viewer.scenes`), the
renderer that turns a scene into PyVista actors (`viewer.render`), headless export
(`viewer.export`), the evented state of what is shown (`viewer.state`) and small helpers
(`drag`, `gizmo`, `inspect`, `trace_match`, `families`). Everything that needs Qt is in
`viewer._qt`, which only `tessera view` and `tessera design` import. The viewer may import
`tessera.solvers` and `tessera.models`, never `tessera.cli`.
"""
