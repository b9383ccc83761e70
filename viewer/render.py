"""Puts a `Scene` on any PyVista plotter: the window's QtInteractor or an off-screen Plotter.

Actors are added once per scene; a step only changes the transforms, visibility and colours
that differ from the step before, which is why stepping and animating cost a render and nothing
else. At each render the pieces that stand still are drawn merged by look, without the faces
they hide (`StaticMerge`, below), which is what makes an orbit of a 64-cube assembly cheap on
software OpenGL. The camera is derived from the step as drawn (`viewer.framing`, the one
framing of the window, the exports and the tests).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pyvista as pv
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkRenderingCore import vtkActor, vtkMapper, vtkPolyDataMapper, vtkProp, vtkProperty

from tessera.viewer import framing
from tessera.viewer.scenes.base import ActorSpec, Pose, Scene, hex_rgb

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


# -- pieces that stand still, merged (StaticMerge) ------------------------------------------
# Pieces that stand still drawn as a few merged meshes, without the faces they hide.
#
# Software OpenGL (llvmpipe) spends an orbit frame shading faces, not managing actors: off screen
# at the window's size, Bedlam's assembled cube (13 actors, 282 faces) drew in 35 ms; back faces
# culled, 23 ms; also without the 186 faces where two pieces touch, never visible, 15 ms; merging
# the 13 actors into one changed nothing more (benchmarks/bench_viewer.py --variants measures it
# again). So at each render of a `SceneRenderer`'s plotter, the actors that may be merged are
# drawn by merged stand-ins: each look's static pieces in one mesh (a few, see below), without
# the faces two of them share, back faces culled.
#
# An actor may be merged when its spec says it is a closed solid (`ActorSpec.closed`) and it is
# drawn plainly now: visible, opaque, unclipped, showing its own mesh. Actors that look alike
# (the same property: colour, edges, line width, lighting, interpolation) share a stand-in,
# which copies that property and the mapper's colouring, so the picture is the same pixel for
# pixel: a dimmed piece, the active one (thicker edges), the inspector's highlighted piece each
# have their own.
#
# The swap lasts exactly one render: the render window's StartEvent shows the stand-ins and hides
# the actors they stand for, its EndEvent puts everything back. Everything else (the inspector,
# picking, framing, Play and Design) sees the actors as the renderer and the inspector left them,
# and what the inspector changes (explode, ghosts, a layer cut, a selection) is seen at the next
# render, which merges what still qualifies. A hardware selection render is left alone.
#
# Stepping redraws only what changed: a look's stand-in is a stack of batches. A batch stays as
# long as its members and the pieces whose touching faces it left out (its partners) are where
# and as they were; members that left or changed dissolve their batch, and the loose members of
# a look form one new batch, so a step builds a batch of the piece or two that changed, not the
# whole assembly. Batches merge like a binary counter (the newest with the one before when it is
# at least half as large): at most about log2(n) per look, and a piece is re-merged about
# log2(n) times over a replay.

#: Faces are matched on their corners, rounded to 1/QUANTUM of a unit: touching cells share
#: their corners exactly up to floating-point noise far below this.
QUANTUM = 4096.0
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], np.uint64)


@dataclass
class _Piece:
    """One mergeable actor as it is drawn now: its mesh in world space, faces keyed."""

    signature: tuple  # (place, look)
    look: tuple
    points: np.ndarray  # (P, 3) world
    normals: np.ndarray | None  # (P, 3) world, for meshes shaded with their own normals
    offsets: np.ndarray  # (F + 1,) into connectivity
    connectivity: np.ndarray  # point indices, each face wound outwards in world space
    keys: np.ndarray  # (F,) uint64: the face's corner set
    rgb: np.ndarray | None  # (F, 3) uint8 face colours, for actors coloured by them

    @property
    def place(self) -> tuple:
        """Where its faces are (the matrix and the mesh), whatever it looks like."""
        return self.signature[0]


@dataclass
class _Batch:
    members: dict[str, tuple]  # key -> signature
    #: the pieces whose shared faces it left out -> where their faces are (not how they look:
    #: a neighbour dimmed or highlighted hides the same faces)
    partners: dict[str, tuple]
    actor: vtkActor
    faces: int = 0


@dataclass
class _Look:
    batches: list[_Batch] = field(default_factory=list)


class StaticMerge:
    """Stands in for the plainly drawn closed actors of `renderer` during each render."""

    MAX_FACES = 400_000  # beyond this many faces in all, nothing is merged (upload cost)

    def __init__(self, renderer: SceneRenderer) -> None:
        self.renderer = renderer
        self.enabled = True
        self.builds = 0  # batches built (tests count them: a step builds few)
        self._looks: dict[tuple, _Look] = {}
        #: per key: the actor's modification stamps when last examined, and what it was then
        #: (None: not mergeable), so an unchanged actor costs four calls a render
        self._seen: dict[str, tuple[tuple, _Piece | None]] = {}
        self._swapped: list[tuple[vtkProp, bool]] = []
        self._members: list[str] = []
        window = getattr(renderer.plotter, "ren_win", None)
        if window is not None:
            window.AddObserver("StartEvent", self._before)
            window.AddObserver("EndEvent", self._after)

    # -- the scene changes ----------------------------------------------------------------------
    def reset(self) -> None:
        """A new scene (or none): drop every stand-in."""
        self._restore()
        vtk_renderer = self.renderer.plotter.renderer
        for look in self._looks.values():
            for batch in look.batches:
                vtk_renderer.RemoveActor(batch.actor)
        self._looks.clear()
        self._seen.clear()

    @property
    def stand_ins(self) -> int:
        """How many merged actors there are now (each drawn in place of several)."""
        return sum(len(look.batches) for look in self._looks.values())

    @property
    def merged(self) -> int:
        """How many actors the stand-ins drew in the last render."""
        return sum(len(b.members) for look in self._looks.values() for b in look.batches)

    # -- each render ----------------------------------------------------------------------------
    def _before(self, *_args) -> None:
        if self._swapped:  # a render inside a render: the swap of the outer one holds
            return
        vtk_renderer = self.renderer.plotter.renderer
        if not self.enabled or vtk_renderer.GetSelector() is not None:
            return
        pieces = self._current()
        if sum(len(p.keys) for p in pieces.values()) > self.MAX_FACES:
            pieces = {}
        self._update(pieces)
        actors = self.renderer.actors
        for look in self._looks.values():
            for batch in look.batches:
                batch.actor.SetVisibility(True)
                self._swapped.append((batch.actor, False))
                for key in batch.members:
                    actors[key].SetVisibility(False)
                    self._swapped.append((actors[key], True))
                    self._members.append(key)

    def _after(self, *_args) -> None:
        self._restore()

    def _restore(self) -> None:
        swapped, self._swapped = self._swapped, []
        for prop, visible in swapped:
            prop.SetVisibility(visible)
        members, self._members = self._members, []
        for key in members:  # hidden and shown again: as they were, whatever the stamps say
            seen, actor = self._seen.get(key), self.renderer.actors.get(key)
            if seen is not None and actor is not None:
                self._seen[key] = (_stamp(actor, self.renderer.specs[key].mesh), seen[1])

    # -- which actors, and as what ------------------------------------------------------------
    def _current(self) -> dict[str, _Piece]:
        """The actors that may be merged now, each as a `_Piece` (cached while unchanged)."""
        out: dict[str, _Piece] = {}
        seen: dict[str, tuple[tuple, _Piece | None]] = {}
        for key, spec in self.renderer.specs.items():
            if not spec.closed or spec.opacity < 1.0:
                continue
            actor = self.renderer.actors.get(key)
            if actor is None:
                continue
            stamp = _stamp(actor, spec.mesh)
            before = self._seen.get(key)
            if before is not None and before[0] == stamp:
                piece = before[1]
            else:
                piece = _examine(actor, spec, before[1] if before else None)
            seen[key] = (stamp, piece)
            if piece is not None:
                out[key] = piece
        self._seen = seen
        return out

    def _update(self, pieces: dict[str, _Piece]) -> None:
        """Keep the batches that still hold; merge the loose pieces of each look anew."""
        signatures = {k: p.signature for k, p in pieces.items()}
        places = {k: p.place for k, p in pieces.items()}
        by_look: dict[tuple, list[str]] = {}
        for key, piece in pieces.items():
            by_look.setdefault(piece.look, []).append(key)
        vtk_renderer = self.renderer.plotter.renderer
        for look_key in [k for k in self._looks if k not in by_look]:
            for batch in self._looks.pop(look_key).batches:
                vtk_renderer.RemoveActor(batch.actor)
        index: _KeyIndex | None = None
        for look_key, keys in by_look.items():
            look = self._looks.setdefault(look_key, _Look())
            kept = []
            for batch in look.batches:
                if all(signatures.get(k) == s for k, s in batch.members.items()) and all(
                    places.get(k) == s for k, s in batch.partners.items()
                ):
                    kept.append(batch)
                else:
                    vtk_renderer.RemoveActor(batch.actor)
            look.batches = kept
            covered = {k for batch in kept for k in batch.members}
            loose = [k for k in keys if k not in covered]
            if not loose:
                continue
            index = index or _KeyIndex(pieces)
            look.batches.append(self._batch(loose, pieces, index))
            while len(look.batches) > 1 and 2 * look.batches[-1].faces >= look.batches[-2].faces:
                top, below = look.batches.pop(), look.batches.pop()
                for batch in (top, below):
                    vtk_renderer.RemoveActor(batch.actor)
                keys_both = [*below.members, *top.members]
                look.batches.append(self._batch(keys_both, pieces, index))

    def _batch(self, keys: list[str], pieces: dict[str, _Piece], index: _KeyIndex) -> _Batch:
        """One stand-in for `keys`, without the faces they share with any mergeable piece."""
        self.builds += 1
        points, normals, sizes, connectivity, rgb = [], [], [], [], []
        partners: set[str] = set()
        base = 0
        for key in keys:
            piece = pieces[key]
            hidden = index.shared(piece.keys)
            if hidden.any():
                partners |= index.owners(piece.keys[hidden])
            keep = ~hidden
            kept_sizes = np.diff(piece.offsets)[keep]
            connectivity.append(
                piece.connectivity[_ranges(piece.offsets[:-1][keep], kept_sizes)] + base
            )
            sizes.append(kept_sizes)
            points.append(piece.points)
            if piece.normals is not None:
                normals.append(piece.normals)
            if piece.rgb is not None:
                rgb.append(piece.rgb[keep])
            base += len(piece.points)
        all_sizes = np.concatenate(sizes)
        offsets = np.zeros(len(all_sizes) + 1, np.int64)
        np.cumsum(all_sizes, out=offsets[1:])
        mesh = pv.PolyData()  # not PolyData(points): that adds a vertex cell per point
        mesh.points = np.concatenate(points)
        mesh.polys = pv.CellArray.from_arrays(offsets, np.concatenate(connectivity))
        if normals and len(normals) == len(keys):
            mesh.point_data["Normals"] = np.concatenate(normals)
            mesh.point_data.active_normals_name = "Normals"
        if rgb and len(rgb) == len(keys):
            mesh.cell_data["rgb"] = np.concatenate(rgb)
        actor = _stand_in(self.renderer.actors[keys[0]], mesh)
        self.renderer.plotter.renderer.AddActor(actor)
        members = {k: pieces[k].signature for k in keys}
        others = {k: pieces[k].place for k in partners if k not in members}
        return _Batch(members, others, actor, len(all_sizes))


class _KeyIndex:
    """Every mergeable piece's face keys, sorted, with their owners: which faces two pieces
    share, and whose they are (sorted look-ups: a step's few pieces cost little)."""

    def __init__(self, pieces: dict[str, _Piece]) -> None:
        self.names = list(pieces)
        keys = [p.keys for p in pieces.values()]
        all_keys = np.concatenate(keys) if keys else np.zeros(0, np.uint64)
        owner = np.repeat(np.arange(len(keys)), [len(k) for k in keys])
        order = np.argsort(all_keys, kind="stable")
        self.keys, self.owner = all_keys[order], owner[order]

    def shared(self, keys: np.ndarray) -> np.ndarray:
        """Per key: is that face held by two pieces or more (hidden between them)?"""
        lo = np.searchsorted(self.keys, keys, side="left")
        hi = np.searchsorted(self.keys, keys, side="right")
        return hi - lo > 1

    def owners(self, keys: np.ndarray) -> set[str]:
        lo = np.searchsorted(self.keys, keys, side="left")
        hi = np.searchsorted(self.keys, keys, side="right")
        found = self.owner[_ranges(lo, hi - lo)]
        return {self.names[i] for i in np.unique(found)}


def _ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The concatenated ranges starts[i] .. starts[i] + sizes[i] - 1."""
    sizes = np.asarray(sizes, np.int64)
    if not len(sizes):
        return np.zeros(0, np.int64)
    before = np.zeros(len(sizes), np.int64)
    np.cumsum(sizes[:-1], out=before[1:])
    return np.repeat(np.asarray(starts, np.int64) - before, sizes) + np.arange(int(sizes.sum()))


def _stamp(actor: vtkActor, mesh) -> tuple:
    """What changes when anything about how the actor is drawn changes."""
    mapper = actor.GetMapper()
    return (
        actor.GetMTime(), actor.GetProperty().GetMTime(),
        mapper.GetMTime() if mapper is not None else 0,
        id(mapper.GetInput()) if mapper is not None else 0, mesh.GetMTime(),
    )  # fmt: skip


def _examine(actor: vtkActor, spec, before: _Piece | None) -> _Piece | None:
    """The actor as a `_Piece` if it may be merged now (`before`, if it is still that)."""
    if not actor.GetVisibility():
        return None
    prop, mapper = actor.GetProperty(), actor.GetMapper()
    if prop.GetOpacity() < 1.0 or mapper is None or mapper.GetInput() is not spec.mesh:
        return None
    planes = mapper.GetClippingPlanes()
    if planes is not None and planes.GetNumberOfItems():
        return None
    matrix = _matrix(actor)
    look = _look_of(prop, mapper)
    signature = ((matrix.tobytes(), id(spec.mesh), spec.mesh.GetMTime()), look)
    if before is not None and before.signature == signature:
        return before
    if before is not None and before.place == signature[0]:  # restyled where it was
        return replace(before, signature=signature, look=look)
    return _piece(spec.mesh, matrix, signature, look, spec.rgb)


# -- geometry -------------------------------------------------------------------------------------
def _matrix(actor: vtkActor) -> np.ndarray:
    m = actor.GetMatrix()
    return np.array([[m.GetElement(i, j) for j in range(4)] for i in range(4)])


def _look_of(prop: vtkProperty, mapper: vtkMapper) -> tuple:
    """Everything of an actor's property and colouring that shows in the picture."""
    return (
        prop.GetColor(), prop.GetAmbientColor(), prop.GetDiffuseColor(),
        prop.GetSpecularColor(), prop.GetAmbient(), prop.GetDiffuse(), prop.GetSpecular(),
        prop.GetSpecularPower(), prop.GetEdgeVisibility(), prop.GetEdgeColor(),
        prop.GetLineWidth(), prop.GetInterpolation(), prop.GetRepresentation(),
        prop.GetLighting(), prop.GetBackfaceCulling(), prop.GetFrontfaceCulling(),
        mapper.GetScalarVisibility(), mapper.GetScalarMode(), mapper.GetColorMode(),
        mapper.GetArrayName(),
    )  # fmt: skip


def _piece(
    mesh: pv.DataSet, matrix: np.ndarray, signature: tuple, look: tuple, rgb: bool
) -> _Piece | None:
    """The mesh as `matrix` places it, faces keyed by their corners, or None when it is not a
    plain polygon mesh."""
    if not isinstance(mesh, pv.PolyData) or mesh.n_lines or mesh.n_strips or mesh.n_verts:
        return None
    polys = mesh.GetPolys()
    offsets = vtk_to_numpy(polys.GetOffsetsArray()).astype(np.int64)
    connectivity = vtk_to_numpy(polys.GetConnectivityArray()).astype(np.int64)
    if len(offsets) < 2:
        return None
    rotation, shift = matrix[:3, :3], matrix[:3, 3]
    points = np.asarray(mesh.points, float) @ rotation.T + shift
    normals = None
    if mesh.point_data.active_normals is not None:
        normals = np.asarray(mesh.point_data.active_normals, float) @ rotation.T
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    if np.linalg.det(rotation) < 0:  # a mirror image: wind every face the other way round
        connectivity = _reversed_faces(offsets, connectivity)
    colours = None
    if rgb:
        if "rgb" not in mesh.cell_data:
            return None
        colours = np.asarray(mesh.cell_data["rgb"], np.uint8)
    keys = _face_keys(points, offsets, connectivity)
    return _Piece(signature, look, points, normals, offsets, connectivity, keys, colours)


def _reversed_faces(offsets: np.ndarray, connectivity: np.ndarray) -> np.ndarray:
    sizes = np.diff(offsets)
    face = np.repeat(np.arange(len(sizes)), sizes)
    position = np.arange(len(connectivity)) - offsets[face]
    return connectivity[offsets[face] + sizes[face] - 1 - position]


def _face_keys(points: np.ndarray, offsets: np.ndarray, connectivity: np.ndarray) -> np.ndarray:
    """Per face a 64-bit key of its set of corners: two faces get one key exactly when they
    have the same corners (whatever their order), as where two cells touch."""
    q = np.round(points * QUANTUM).astype(np.int64).view(np.uint64)
    corner = _mix((q * _MIX).sum(axis=1, dtype=np.uint64))
    sizes = np.diff(offsets)
    keys = np.zeros(len(sizes), np.uint64)
    for size in np.unique(sizes):
        faces = np.flatnonzero(sizes == size)
        index = offsets[faces][:, None] + np.arange(size)
        ordered = np.sort(corner[connectivity[index]], axis=1)
        key = np.full(len(faces), np.uint64(size))
        for column in range(size):
            key = _mix(key ^ ordered[:, column])
        keys[faces] = key
    return keys


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every bit of the input reaches every bit of the output."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _stand_in(model: vtkActor, mesh: pv.PolyData) -> vtkActor:
    """An actor drawing `mesh` exactly as `model` draws its own, back faces culled."""
    source = model.GetMapper()
    mapper = vtkPolyDataMapper()  # not pyvista's mapper: its lookup table costs 2 ms
    mapper.ShallowCopy(source)
    mapper.SetInputData(mesh)
    if source.GetScalarVisibility() and source.GetArrayName():
        mesh.cell_data.active_scalars_name = source.GetArrayName()
    actor = vtkActor()
    actor.SetMapper(mapper)
    actor.GetProperty().DeepCopy(model.GetProperty())
    actor.GetProperty().SetBackfaceCulling(True)
    actor.PickableOff()
    actor.SetVisibility(False)
    return actor
