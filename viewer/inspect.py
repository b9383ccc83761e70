"""Looking inside an assembly, without Qt: explode, hidden pieces, ghosting, a layer cut.

The scene (or Play mode) says where each piece *is*; this module decides how it is *shown*.
`InspectState` holds the user's choices (a psygnal evented dataclass, the same event system as
ViewerState and the Play model) and `Inspector` turns "base" transforms into what the actors
draw. It is Qt-free so that the off-screen exporter (viewer/export.py) applies the very same
choices to its own plotter: an exported picture shows what the window shows. The Qt dock that
edits the state is viewer/_qt/inspect_view.py.

Keeping the two transforms apart is what lets the explode slider and the layer cut work the
same in Solution, Search and Play mode, and never compound. Everything here changes actor
properties only (user_matrix, visibility, opacity, clipping planes, edge colour), never meshes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from psygnal import evented

from tessera.viewer.framing import mesh_cells as _mesh_cells
from tessera.viewer.render import SceneRenderer
from tessera.viewer.scenes.base import hex_rgb

EXPLODE_SPREAD = 1.5  # at full explode a piece moves 1.5× its distance from the centre
GHOST_OPACITY = 0.18
HIGHLIGHT = "#ffd21f"
HIGHLIGHT_WIDTH = 3.5
CUT_COLOR = "#3a3f47"  # inside faces seen through a layer cut
CUT_MARGIN = 1e-3  # above the faces on the cut plane, so they never flicker half-clipped


@evented
@dataclass
class InspectState:
    """The user's choices for looking inside (no Qt): explode 0..1, hidden piece keys, ghost
    the unselected pieces, a layer cut (axis, last layer shown, or None), the selection.

    A psygnal evented dataclass: assigning a field emits `events.<field>(new, old)` when the
    value changes, and `events.all` relays every change, so the panel and the actors follow
    without a hand-written event per setter. The `set_*` methods only validate."""

    explode: float = 0.0
    hidden: frozenset[str] = frozenset()
    ghost: bool = False
    layer_axis: int = 2
    layer: int | None = None
    selected: str | None = None

    def set_explode(self, amount: float) -> None:
        self.explode = min(max(float(amount), 0.0), 1.0)

    def set_hidden(self, key: str, hidden: bool) -> None:
        self.hidden = self.hidden | {key} if hidden else self.hidden - {key}

    def set_ghost(self, ghost: bool) -> None:
        self.ghost = bool(ghost)

    def set_layer(self, axis: int | str, layer: int | None) -> None:
        axis = "xyz".index(axis) if isinstance(axis, str) else int(axis)
        self.layer_axis, self.layer = axis, layer

    def select(self, key: str | None) -> None:
        self.selected = key

    def copy(self) -> InspectState:
        """The same choices, detached (the exporter applies them to its own plotter)."""
        return InspectState(
            self.explode, self.hidden, self.ghost, self.layer_axis, self.layer, self.selected
        )

    def reset(self) -> None:
        """A new scene or puzzle: nothing hidden or selected (explode, ghost and the cut stay
        as they are). The selection event tells every listener, so no label keeps the old
        piece's name."""
        self.hidden = frozenset()
        self.selected = None


class Inspector:
    """Applies an `InspectState` to the piece actors of a `SceneRenderer`."""

    def __init__(self, renderer: SceneRenderer, state: InspectState) -> None:
        self.renderer = renderer
        self.state = state
        self.bases: dict[str, tuple[np.ndarray, bool]] = {}
        self._centres: dict[str, np.ndarray] = {}
        self._peeling = False
        self._cells: dict[str, tuple[np.ndarray, np.ndarray] | None] = {}
        self._cuts: dict[str, tuple[tuple, object]] = {}
        self.translucent_guides = False  # e.g. a hint's ghost piece is on screen
        #: Blend ghosts by depth peeling (the window's still frames); False: by
        #: order-independent transparency, which an off-screen plotter with MSAA needs (peeling
        #: with MSAA drops every translucent piece there, as it does on Mesa in the window).
        self.peel = True

    def piece_keys(self) -> list[str]:
        return [k for k, s in self.renderer.specs.items() if s.role == "piece"]

    @property
    def centre(self) -> np.ndarray:
        """What pieces explode away from: the middle of the scene's camera bounds (the target)."""
        scene = self.renderer.scene
        if scene is None:
            return np.zeros(3)
        b = np.array(scene.bounds, float)
        return (b[0::2] + b[1::2]) / 2

    def capture(self) -> None:
        """Take the actors' transforms and visibility as the new bases (after the renderer
        moved them to a step)."""
        for key in self.piece_keys():
            actor = self.renderer.actors[key]
            self.bases[key] = (np.array(actor.user_matrix, float), bool(actor.visibility))
        self.refresh()

    def set_base(self, key: str, matrix: np.ndarray, visible: bool = True) -> None:
        self.bases[key] = (np.asarray(matrix, float), visible)

    def forget(self) -> None:
        """A new scene: drop the old bases and mesh centres."""
        self.bases.clear()
        self._centres.clear()
        self._cells.clear()
        self._cuts.clear()

    def shown_matrix(self, key: str) -> np.ndarray:
        """Where the piece is drawn: its base, pushed out from the centre by the explode."""
        matrix, _ = self.bases[key]
        if self.state.explode <= 0:
            return matrix
        if key not in self._centres:
            self._centres[key] = np.asarray(self.renderer.specs[key].mesh.center, float)
        centre = matrix[:3, :3] @ self._centres[key] + matrix[:3, 3]
        out = matrix.copy()
        out[:3, 3] += (centre - self.centre) * self.state.explode * EXPLODE_SPREAD
        return out

    def refresh(self, keys=None) -> None:
        """Bring the actors (all pieces, or `keys`) in line with the bases and the state."""
        state = self.state
        translucent = state.ghost and state.selected is not None
        self._depth_peeling(translucent or self.translucent_guides)
        plane = self._plane()
        for key in self.piece_keys() if keys is None else keys:
            actor = self.renderer.actors.get(key)
            if actor is None or key not in self.bases:
                continue
            spec = self.renderer.specs[key]
            _, visible = self.bases[key]
            actor.user_matrix = self.shown_matrix(key)
            actor.visibility = visible and key not in state.hidden
            prop = actor.prop
            ghosted = translucent and key != state.selected
            faded = self.renderer.faded.get(key, 1.0)  # a removed piece fading out
            prop.opacity = GHOST_OPACITY if ghosted else spec.opacity * faded
            if key == state.selected:
                prop.edge_color = HIGHLIGHT
                prop.line_width = HIGHLIGHT_WIDTH
                prop.show_edges = True
            else:
                prop.edge_color = spec.edge_color
                active = getattr(self.renderer, "_emphasis", {}).get(key) == "active"
                prop.line_width = spec.line_width * (2.5 if active else 1.0)
            self._cut(key, actor, plane)

    def _cut(self, key: str, actor, plane) -> None:
        """Hide what lies above the layer. Pieces made of unit cells show their cells at or
        below it as closed solids (a cached small mesh; the piece's own mesh comes back when the
        cut is off); anything else is clipped by a plane, its inside drawn dark."""
        spec = self.renderer.specs[key]
        mapper = actor.mapper
        mapper.RemoveAllClippingPlanes()
        cells = self._cells_of(key) if plane is not None else None
        if cells is None:
            if mapper.dataset is not spec.mesh:
                mapper.dataset = spec.mesh
            if plane is not None:
                mapper.AddClippingPlane(plane)
                actor.backface_prop.color = CUT_COLOR  # the clipped shape's inside, dark
                actor.backface_prop.opacity = actor.prop.opacity
            else:
                actor.SetBackfaceProperty(None)  # translucent ghosts show their own colour
            return
        base, _ = self.bases[key]
        base = np.rint(base)  # the cell the piece is on (mid-glide: where it goes)
        world = cells @ base[:3, :3].T + base[:3, 3]
        keep = world[:, self.state.layer_axis] <= self.state.layer
        if not keep.any():
            actor.visibility = False  # wholly above the cut
            return
        colours = spec.mesh.cell_data["rgb"].tobytes() if spec.rgb else b""
        cache_key = (keep.tobytes(), colours)
        sub = self._cuts.get(key)
        if sub is None or sub[0] != cache_key:
            self._cuts[key] = sub = (cache_key, self._sub_mesh(spec, cells, keep))
        if mapper.dataset is not sub[1]:
            mapper.dataset = sub[1]

    def _cells_of(self, key: str) -> np.ndarray | None:
        """The unit cells (integer centres) a piece mesh is made of, or None if it is not such
        a mesh (dice, boards: those are clipped instead)."""
        if key not in self._cells:
            spec = self.renderer.specs[key]
            self._cells[key] = _mesh_cells(spec.mesh) if spec.role == "piece" else None
        found = self._cells[key]
        return None if found is None else found[0]

    def _sub_mesh(self, spec, cells: np.ndarray, keep: np.ndarray):
        """The piece's kept cells as their own closed mesh, coloured like the piece."""
        from tessera.viewer.scenes.polycube import piece_mesh

        sub = piece_mesh(cells[keep])
        if spec.rgb:
            _, owner = self._cells[spec.key]
            colours = np.asarray(spec.mesh.cell_data["rgb"])
            per_cell = np.zeros((len(cells), 3), np.uint8)
            per_cell[:] = np.array(hex_rgb(spec.color), np.uint8)
            per_cell[owner] = colours  # each cell takes the colour of (one of) its faces
            _, sub_owner = _mesh_cells(sub, cells[keep])
            sub.cell_data["rgb"] = per_cell[keep][sub_owner]
        return sub

    def _plane(self):
        if self.state.layer is None:
            return None
        import vtk

        plane = vtk.vtkPlane()
        origin = [0.0, 0.0, 0.0]
        normal = [0.0, 0.0, 0.0]
        # cell centres are integers: the layer's outer faces lie at +0.5, kept (just) inside
        origin[self.state.layer_axis] = self.state.layer + 0.5 + CUT_MARGIN
        normal[self.state.layer_axis] = -1.0  # keep the side at or below the layer
        plane.SetOrigin(origin)
        plane.SetNormal(normal)
        return plane

    def _depth_peeling(self, on: bool) -> None:
        """Translucent pieces need depth peeling (the window has MSAA off for it: on Mesa the
        two together render wrongly); off again when nothing is translucent, since it costs."""
        if on == self._peeling:
            return
        self._peeling = on
        plotter = self.renderer.plotter
        if not self.peel:
            if on:
                plotter.renderer.SetUseOIT(True)
            return
        if on:
            plotter.enable_depth_peeling(number_of_peels=6)
        else:
            plotter.disable_depth_peeling()

    def layer_range(self, axis: int) -> tuple[int, int]:
        """The first and last cell layer of the scene along an axis."""
        scene = self.renderer.scene
        if scene is None:
            return 0, 0
        b = np.array(scene.bounds, float)
        return int(np.ceil(b[2 * axis])), int(np.floor(b[2 * axis + 1]))
