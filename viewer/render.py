"""Puts a `Scene` on any PyVista plotter: the window's QtInteractor or an off-screen Plotter.

Actors are added once per scene; a step only changes the transforms, visibility and colours
that differ from the step before, which is why stepping and animating cost a render and nothing
else. At each render the pieces that stand still are drawn merged by look, without the faces
they hide (`viewer.static_merge`), which is what makes an orbit of a 64-cube assembly cheap on
software OpenGL. The camera is derived from the step as drawn (`viewer.framing`, the one
framing of the window, the exports and the tests).
"""

from __future__ import annotations

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingCore import vtkProperty

from tessera.viewer import framing
from tessera.viewer.scenes.base import ActorSpec, Pose, Scene, hex_rgb
from tessera.viewer.static_merge import StaticMerge

BACKGROUND_BOTTOM = "#f5f7fa"
BACKGROUND_TOP = "#aebdd3"
#: The scene's gradient per theme (Preferences ▸ theme): a dark window gets a dark scene.
BACKGROUNDS = {"light": (BACKGROUND_BOTTOM, BACKGROUND_TOP), "dark": ("#1b1e23", "#3a4150")}
DIM_TOWARDS = np.array((0.86, 0.87, 0.89))
DIM_AMOUNT = 0.45
ISOMETRIC = (1.0, -1.0, 1.0)
#: A warm key light beside the camera (the colour of VTK's light-kit key light). With the
#: headlight below and `viewer.export.add_lights`' one it looks like pyvista's five-light kit
#: plus that headlight (fitted on three views of the Soma cube: mean difference under 1/255 on
#: the pieces) with 3 lights instead of 6: llvmpipe shades every pixel once per light (an
#: orbit frame of the window went from 32 to 28 ms with the machine half loaded).
KEY_LIGHT = dict(intensity=0.75, color=(1.0, 0.9723, 0.9022), elevation=35.0, azimuth=10.0)
HEADLIGHT = 0.35  # plus add_lights' 0.35: the fitted 0.7


def style_plotter(
    plotter: pv.Plotter, anti_aliasing: str | None = "fxaa", theme: str = "light"
) -> None:
    """The default look: gradient background, soft lights, anti-aliasing.

    On a `viewer.perf.ViewerInteractor` FXAA is drawn in still frames only.
    """
    set_theme(plotter, theme)
    set_lights(plotter)
    if anti_aliasing:
        plotter.enable_anti_aliasing(anti_aliasing)


def set_theme(plotter: pv.Plotter, theme: str) -> None:
    """The background gradient of `theme` ('light' or 'dark')."""
    bottom, top = BACKGROUNDS.get(theme, BACKGROUNDS["light"])
    plotter.set_background(bottom, top=top)


def set_lights(plotter: pv.Plotter) -> None:
    """Replace pyvista's light kit by the key light and a headlight (see KEY_LIGHT)."""
    plotter.remove_all_lights()
    key = pv.Light(light_type="camera light", intensity=KEY_LIGHT["intensity"])
    key.diffuse_color = key.specular_color = KEY_LIGHT["color"]
    key.SetDirectionAngle(KEY_LIGHT["elevation"], KEY_LIGHT["azimuth"])
    plotter.add_light(key)
    plotter.add_light(pv.Light(light_type="headlight", intensity=HEADLIGHT))


def _translucent_surface(spec: ActorSpec) -> bool:
    if spec.opacity >= 1.0 or spec.style == "wireframe":
        return False
    return not (isinstance(spec.mesh, pv.PolyData) and spec.mesh.n_faces == 0)


def _carries_normals(mesh: pv.DataSet) -> bool:
    """A mesh that brings its own point normals (balls, `scenes._surface.drawn`) is shaded
    smoothly with them; every other piece keeps flat faces, so cube edges stay crisp."""
    return isinstance(mesh, pv.PolyData) and mesh.point_data.active_normals is not None


def _same_drawing(a: ActorSpec, b: ActorSpec) -> bool:
    """Whether an actor added for `a` draws `b` once put back as added."""
    return a.mesh is b.mesh and (
        a.color,
        a.rgb,
        a.opacity,
        a.show_edges,
        a.edge_color,
        a.line_width,
        a.style,
        a.pickable,
    ) == (b.color, b.rgb, b.opacity, b.show_edges, b.edge_color, b.line_width, b.style, b.pickable)


def _rgb(color: str) -> np.ndarray:
    return np.array(hex_rgb(color), float) / 255.0


class SceneRenderer:
    """Owns the actors of one scene on one plotter."""

    def __init__(self, plotter: pv.Plotter) -> None:
        self.plotter = plotter
        self.scene: Scene | None = None
        self.actors: dict[str, pv.Actor] = {}
        self.specs: dict[str, ActorSpec] = {}
        self._emphasis: dict[str, str] = {}
        #: per actor, the opacity factor its pose asks for (a piece fading out); the
        #: inspector multiplies it into what it shows
        self.faded: dict[str, float] = {}
        #: per actor, the matrix its pose last set, as (array, the vtkMatrix4x4, its mtime)
        self._matrices: dict[str, tuple] = {}
        self._added: dict[str, vtkProperty] = {}  # each actor's property as added
        self.step = 0.0
        self.merge = StaticMerge(self)

    # -- building --------------------------------------------------------------------------
    def show(self, scene: Scene, step: float = 0.0, frame: bool = True) -> None:
        """Replace whatever was shown by `scene` at `step`.

        An actor of the old scene whose key and drawing (the same mesh object, colour, style)
        the new one has again is kept, put back as it was added (another solution of the same
        puzzle: its pieces' meshes are built once per puzzle), so no mesh is uploaded again."""
        old_actors, old_specs = self.actors, self.specs
        self.clear(keep=True)
        self.scene = scene
        for spec in scene.actors:
            actor = old_actors.pop(spec.key, None)
            if actor is not None and _same_drawing(old_specs[spec.key], spec):
                self._put_back(actor, spec)
            else:
                if actor is not None:
                    self.plotter.remove_actor(actor, render=False)
                actor = self._add(spec)
            self.actors[spec.key] = actor
            self.specs[spec.key] = spec
        for key, actor in old_actors.items():
            self.plotter.remove_actor(actor, render=False)
            self._added.pop(key, None)
        # VTK blends translucent geometry by order-independent transparency unless told not to:
        # two extra full-window passes (~35 ms a frame on llvmpipe) that only translucent
        # *surfaces* need. Faint guide lines blend correctly in any order. (Depth peeling, where
        # the hands-on viewer turns it on for ghosts, takes precedence over both.)
        self.plotter.renderer.SetUseOIT(any(_translucent_surface(s) for s in scene.actors))
        self.apply(step)
        if frame:
            self.frame_camera()

    def clear(self, keep: bool = False) -> None:
        """Take the scene's actors off the plotter (`keep`: leave them to `show`)."""
        self.merge.reset()
        if not keep:
            for actor in self.actors.values():
                self.plotter.remove_actor(actor, render=False)
            self._added.clear()
        self.actors = {}
        self.specs = {}
        self._emphasis.clear()
        self.faded.clear()
        self._matrices.clear()
        self.scene = None

    def _add(self, spec: ActorSpec) -> pv.Actor:
        kwargs = dict(
            name=spec.key,
            opacity=spec.opacity,
            pickable=spec.pickable,
            render=False,
            reset_camera=False,
            line_width=spec.line_width,
        )
        if spec.rgb:
            kwargs.update(scalars="rgb", rgb=True)
        else:
            kwargs["color"] = spec.color
        lines_only = isinstance(spec.mesh, pv.PolyData) and spec.mesh.n_faces == 0
        if spec.style == "wireframe":
            kwargs["style"] = "wireframe"
        elif not lines_only:
            kwargs.update(
                show_edges=spec.show_edges,
                edge_color=spec.edge_color,
                ambient=0.25,
                diffuse=0.8,
                specular=0.15,
                specular_power=20,
            )
        actor = self.plotter.add_mesh(spec.mesh, **kwargs)
        if not lines_only and _carries_normals(spec.mesh):
            actor.prop.interpolation = "gouraud"  # a round cell: its own normals, smooth
        added = vtkProperty()
        added.DeepCopy(actor.GetProperty())
        self._added[spec.key] = added
        return actor

    def _put_back(self, actor: pv.Actor, spec: ActorSpec) -> None:
        """An actor kept for a new scene, as `_add` made it: whatever a pose, the inspector
        or Play changed since (colour, edges, opacity, a cut, a matrix) is undone."""
        actor.GetProperty().DeepCopy(self._added[spec.key])
        actor.SetBackfaceProperty(None)
        actor.SetUserMatrix(None)
        actor.SetVisibility(True)
        actor.SetPickable(spec.pickable)
        mapper = actor.GetMapper()
        mapper.RemoveAllClippingPlanes()
        if mapper.GetInput() is not spec.mesh:
            mapper.SetInputData(spec.mesh)

    # -- stepping --------------------------------------------------------------------------
    def apply(self, step: float) -> None:
        """Move every actor to where the scene says it is at `step` (no render)."""
        if self.scene is None:
            return
        self.step = step
        for key, pose in self.scene.pose(step).items():
            actor = self.actors.get(key)
            if actor is not None:
                self._set_pose(key, actor, pose)

    def _set_pose(self, key: str, actor: pv.Actor, pose: Pose) -> None:
        # an actor that keeps its place is not touched (the merge keeps its batch); "its place"
        # is the matrix this set, unless another hand (the inspector, Play) set one since
        last = self._matrices.get(key)
        current = actor.GetUserMatrix()
        if (
            last is None or last[1] is not current or last[2] != current.GetMTime()
            or not np.array_equal(last[0], pose.matrix)
        ):  # fmt: skip
            actor.user_matrix = pose.matrix
            current = actor.GetUserMatrix()
            self._matrices[key] = (pose.matrix, current, current.GetMTime())
        actor.visibility = pose.visible
        if self.faded.get(key, 1.0) != pose.opacity:
            self.faded[key] = pose.opacity
            actor.prop.opacity = self.specs[key].opacity * pose.opacity
            if pose.opacity < 1.0:  # a fading surface blends correctly only with OIT
                self.plotter.renderer.SetUseOIT(True)
        if self._emphasis.get(key) == pose.emphasis:
            return
        self._emphasis[key] = pose.emphasis
        spec = self.specs[key]
        if spec.rgb:
            return
        base = _rgb(spec.color)
        prop = actor.prop
        if pose.emphasis == "dim":
            prop.color = tuple(base * (1 - DIM_AMOUNT) + DIM_TOWARDS * DIM_AMOUNT)
            prop.line_width = spec.line_width
        elif pose.emphasis == "active":
            prop.color = tuple(base)
            prop.line_width = spec.line_width * 2.5
        else:
            prop.color = tuple(base)
            prop.line_width = spec.line_width

    # -- camera ----------------------------------------------------------------------------
    @property
    def aspect(self) -> float:
        w, h = self.plotter.window_size
        return w / max(h, 1)

    def shot(
        self, view: tuple[float, float, float] | None = None, follow_moving: bool = True
    ) -> framing.Shot:
        """The camera `viewer.framing` gives this step as drawn now (the actors after any
        inspector's explode and hidden pieces), seen from `view` (default: the scene's own,
        or the one that keeps the moving piece in sight)."""
        if self.scene is None:
            return framing.shot_of(self.plotter.camera)
        return framing.shot_at(
            self.scene, self.step, self.aspect, direction=view, points=self.visible_corners(),
            follow_moving=follow_moving,
        )  # fmt: skip

    def frame_camera(self, view: tuple[float, float, float] | None = None) -> None:
        """Frame what is on screen now (`viewer.framing`): a flat board straight down with a
        parallel projection, anything else from `view` or the direction that shows the piece
        under way."""
        if self.scene is None:
            return
        self.aim(self.shot(view, follow_moving=view is None))

    def aim(self, shot: framing.Shot) -> None:
        framing.apply(self.plotter.camera, shot, self.plotter.renderer)

    def visible_corners(self) -> np.ndarray:
        """The corners of every visible actor's bounding box as drawn now, (8k, 3)."""
        corners = []
        for actor in self.actors.values():
            if not actor.visibility or actor.GetMapper() is None:
                continue
            b = actor.GetBounds()
            if b[0] > b[1]:
                continue
            matrix = np.asarray(actor.user_matrix, float)
            if not framing.keeps_boxes(matrix):  # VTK's bounds: the moved box, too wide
                mesh = actor.GetMapper().GetInput()
                points = pv.wrap(mesh).points if mesh is not None else None
                if points is not None and len(points):
                    corners.extend(map(tuple, framing.placed_corners(points, matrix)))
                    continue
            corners.extend((x, y, z) for x in b[0:2] for y in b[2:4] for z in b[4:6])
        return np.array(corners, float).reshape(-1, 3)

    def isometric(self) -> None:
        self.frame_camera(ISOMETRIC)

    def orbit(self, degrees: float) -> None:
        """Turn the camera about the scene's up axis (a turntable)."""
        self.plotter.camera.Azimuth(degrees)
        self.plotter.renderer.ResetCameraClippingRange()

    def project(self, points: np.ndarray) -> np.ndarray:
        """Pixel (row, column) of world points in the last rendered image, for tests."""
        import vtk

        coordinate = vtk.vtkCoordinate()
        coordinate.SetCoordinateSystemToWorld()
        renderer = self.plotter.renderer
        height = self.plotter.window_size[1]
        out = []
        for p in np.atleast_2d(points):
            coordinate.SetValue(*map(float, p))
            x, y = coordinate.GetComputedDoubleDisplayValue(renderer)
            out.append((height - y, x))
        return np.array(out)
