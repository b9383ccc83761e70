"""The desktop viewer: Qt window, PyVista scenes, headless export.

Importing this package stays cheap and display-free (no Qt, no VTK): the command line imports
`viewer.export` for `tessera render` on machines without a display, and only `tessera view`
pulls in Qt through `viewer.app`.
"""
