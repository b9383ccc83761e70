"""The axis gizmo: +x, +y, +z arrows in a corner of the 3D view that turn with the camera.

The hands-on buttons say → or ↺ but mean the world axis nearest that screen direction (their
tooltips name it), and the mouse turns pieces about the axis nearest the view, so the axes must
be readable after any orbit. It is VTK's orientation marker widget (pyvista's `add_axes`): its
own small renderer in a corner, on top of the scene, following the main camera, not pickable.
A flat board (KenKen, dominoes) turns it off (`HandsOn.scene_replaced`): it would cover a cell.
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
