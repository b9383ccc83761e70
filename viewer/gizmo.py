"""The axis gizmo: +x, +y, +z arrows in a corner of the 3D view that turn with the camera.

The hands-on buttons say → or ↺ but mean the world axis nearest that screen direction (their
tooltips name it), and the mouse turns pieces about the axis nearest the view, so the axes must
be readable after any orbit. It is VTK's orientation marker widget (pyvista's `add_axes`): its
own small renderer in a corner, on top of the scene, following the main camera, not pickable.
A flat board (KenKen, dominoes) turns it off (`HandsOn.scene_replaced`): it would cover a cell.
Its labels take a colour that contrasts with the background (`contrast_labels`), on adding and
on every theme change, since VTK's default black vanishes on the dark theme.
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
    contrast_labels(plotter)
    return plotter.renderer.axes_widget


def label_colour(background) -> tuple[float, float, float]:
    """Near-white labels on a dark background, near-black on a light one: the theme is read
    off the background itself, so a new theme or a custom colour never leaves them unreadable."""
    r, g, b = (float(c) for c in background[:3])
    light = 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5
    return (0.08, 0.08, 0.1) if light else (0.95, 0.95, 0.97)


def contrast_labels(plotter) -> None:
    """Colour the gizmo's +x/+y/+z labels against the scene's background now (after a theme
    change too); nothing to do before the gizmo is added."""
    axes = getattr(plotter.renderer, "axes_actor", None)
    if axes is None:
        return
    colour = label_colour(plotter.renderer.GetBackground())
    for caption in (
        axes.GetXAxisCaptionActor2D(),
        axes.GetYAxisCaptionActor2D(),
        axes.GetZAxisCaptionActor2D(),
    ):
        text = caption.GetCaptionTextProperty()
        text.SetColor(colour)
        text.SetShadow(False)
