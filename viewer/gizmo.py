"""The axis gizmo: +x, +y, +z arrows in a corner of the 3D view that turn with the camera.

Every hands-on control is named after an axis (X↻, −y, Ctrl+PgUp = +z) and the mouse turns
pieces about the axis nearest the view, so the axes must be readable after any orbit. It is
VTK's orientation marker widget (pyvista's `add_axes`): its own small renderer in a corner, on
top of the scene, following the main camera, not pickable.
"""

from __future__ import annotations

#: Where the gizmo sits: the lower left corner, (x0, y0, x1, y1) in viewport fractions.
VIEWPORT = (0.0, 0.0, 0.2, 0.26)


def add_gizmo(plotter) -> object:
    """Add the gizmo to a plotter with an interactor (once); returns the widget."""
    existing = getattr(plotter.renderer, "axes_widget", None)
    if existing is not None:
        return existing
    plotter.add_axes(
        interactive=False,
        line_width=3,
        xlabel="+x",
        ylabel="+y",
        zlabel="+z",
        viewport=VIEWPORT,
    )
    return plotter.renderer.axes_widget
