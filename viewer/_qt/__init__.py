"""The window: every module that needs Qt (PySide6, pyvistaqt, superqt) lives here.

These widgets listen to the Qt-free models one level up (`viewer.state`, the scenes of
`viewer.scenes`, the renderer of `viewer.render`) and forward what the user does to them;
nothing here decides what a scene shows. Only `tessera view` and `tessera design` import this
package, so headless export and the command line never load Qt (import-linter checks it).
"""
