"""The hands-on controller: picking, selection, the Play table, hints and solved checks.

It owns no puzzle facts. The mode and the Play table (`models.play.PlayModel`) live in
`viewer.state.ViewerState`, display choices in `viewer.inspect_view.InspectState`; this object
turns clicks and QActions into calls on them and their psygnal events into actor changes and
status text. Solver work (a hint, "which solution is
this?") runs in a `background.Worker` so the window never waits on it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QObject, Signal

from tessera.models.play import PlayModel, axis_turn
from tessera.viewer._qt.background import Worker
from tessera.viewer._qt.inspect_view import Inspector, InspectState
from tessera.viewer._qt.mouse import MouseHands, screen_axes
from tessera.viewer._qt.play_view import PlayView, key_of
from tessera.viewer.gizmo import add_gizmo
from tessera.viewer.state import ViewerState

#: The screen's directions the Play buttons are named by: "right" across the screen, "up" it,
#: "toward" out of it (at you). Each means, at any moment, the world axis nearest to it
#: (`viewer.mouse.screen_axes`, the one the mouse's drags and wheel turns use too).
SCREEN = ("toward", "right", "up")
MOVE_KEYS = {  # action name -> (screen direction, cells)
    "move_x_pos": ("right", 1),
    "move_x_neg": ("right", -1),
    "move_y_pos": ("up", 1),
    "move_y_neg": ("up", -1),
    "move_z_pos": ("toward", 1),
    "move_z_neg": ("toward", -1),
}
TURN_KEYS = {  # action name -> (screen direction turned about, quarter turns, right-handed)
    "turn_x_pos": ("right", 1),
    "turn_x_neg": ("right", -1),
    "turn_y_pos": ("up", 1),
    "turn_y_neg": ("up", -1),
    "turn_z_pos": ("toward", 1),
    "turn_z_neg": ("toward", -1),
}
#: action name -> (button text, menu text, tip) in the view's terms; the tip gets the world
#: axis it means now. A right-handed quarter turn about "right" brings the top towards you
#: (the front goes down), about "up" takes the front to the right, about "toward" turns
#: anticlockwise as seen.
VIEW_LABELS = {
    "move_x_pos": ("→", "Move right", "one cell to the right on screen"),
    "move_x_neg": ("←", "Move left", "one cell to the left on screen"),
    "move_y_pos": ("↑", "Move up", "one cell up the screen"),
    "move_y_neg": ("↓", "Move down", "one cell down the screen"),
    "move_z_pos": ("Toward", "Move toward you", "one cell toward you, out of the screen"),
    "move_z_neg": ("Away", "Move away", "one cell away from you, into the screen"),
    "turn_x_pos": ("Tip ↓", "Tip forward", "a quarter turn: the top comes toward you"),
    "turn_x_neg": ("Tip ↑", "Tip back", "a quarter turn: the top goes away from you"),
    "turn_y_pos": ("Spin →", "Spin right", "a quarter turn: the front goes to the right"),
    "turn_y_neg": ("Spin ←", "Spin left", "a quarter turn: the front goes to the left"),
    "turn_z_pos": ("↺", "Turn anticlockwise", "a quarter turn anticlockwise, as you see it"),
    "turn_z_neg": ("↻", "Turn clockwise", "a quarter turn clockwise, as you see it"),
}


#: How a hint says each move and turn action, with the piece's name: the buttons' own words.
HINT_WORDS = {
    "move_x_pos": "slide {} right",
    "move_x_neg": "slide {} left",
    "move_y_pos": "slide {} up",
    "move_y_neg": "slide {} down",
    "move_z_pos": "slide {} toward you",
    "move_z_neg": "slide {} away from you",
    "turn_x_pos": "tip {} forward",
    "turn_x_neg": "tip {} back",
    "turn_y_pos": "turn {} right",
    "turn_y_neg": "turn {} left",
    "turn_z_pos": "turn {} anticlockwise",
    "turn_z_neg": "turn {} clockwise",
}
_WHERE = re.compile(r" at \(-?\d+, -?\d+, -?\d+\)")


def spoken_path(
    ops: list[tuple[str, int, int]], meanings: dict[str, tuple[str, int, int]], name: str
) -> list[str]:
    """`PlayModel.path_to`'s operations (world axes) in the view's words for the camera the
    `meanings` (`action_meanings`) were taken from: "turn B left", "slide B toward you 2 cells".
    Each phrase is what pressing the button of that name does, in order."""
    by_meaning = {meaning: action for action, meaning in meanings.items()}
    words = []
    for op, axis, amount in ops:
        action = by_meaning[(op, axis, 1 if amount > 0 else -1)]
        phrase = HINT_WORDS[action].format(name)
        n = abs(amount)
        if n > 1:
            phrase += f" {n} cells" if op == "move" else (" twice" if n == 2 else f" {n} times")
        words.append(phrase)
    return words


def world_terms(camera) -> dict[str, tuple[int, int]]:
    """Each screen direction (`SCREEN`) as (world axis, sign) for a camera."""
    return dict(zip(SCREEN, screen_axes(camera), strict=True))


def action_meanings(terms: dict[str, tuple[int, int]]) -> dict[str, tuple[str, int, int]]:
    """What each move and turn action does under `terms`: (op, world axis, amount), op being
    "move" or "rotate" as in `PlayModel.path_to`."""
    out = {}
    for op, keys in (("move", MOVE_KEYS), ("rotate", TURN_KEYS)):
        for name, (direction, amount) in keys.items():
            axis, sign = terms[direction]
            out[name] = (op, axis, sign * amount)
    return out


def turn_words(grid, axis: int) -> str:
    """How far the grid's smallest turn about an axis goes, in words ("a quarter turn", "a
    sixth of a turn", "no turn" when the grid has none)."""
    g = axis_turn(grid, axis, 1)
    if g is None:
        return "no turn"
    angle = float(np.arccos(np.clip((np.trace(grid.matrices[g]) - 1) / 2, -1.0, 1.0)))
    parts = round(2 * np.pi / angle)
    names = {2: "a half turn", 3: "a third of a turn", 4: "a quarter turn", 6: "a sixth of a turn"}
    return names.get(parts, f"a 1/{parts} turn")


class HandsOn(QObject):
    """Picking, the hands-on operations, the Play table and the inspector, following the
    viewer state: `events.mode` shows or hides the table, `events.puzzle` drops what belonged
    to the old puzzle. Status text goes to `ViewerState.say`, never to a widget.

    Qt signals, for widgets and tests: `selection_changed(name)` ('' for none),
    `actions_changed()` when what the hands-on actions may do changed (selection, undo/redo),
    `scene_shown()` when a new set of pieces is on the renderer (the piece list refills),
    `frame()` when actors changed and need a render, `hint_ready(hint)`, `solved_as(number)`."""

    selection_changed = Signal(str)  # the selected piece's name ("" for none)
    actions_changed = Signal()
    scene_shown = Signal()
    frame = Signal()
    hint_ready = Signal(object)  # a solvers.polycube_hint.Hint
    solved_as = Signal(int)  # the distinct solution number of a solved table (0: unknown)
    #: the camera turned far enough that a screen direction means another world axis: the
    #: move and turn buttons are relabelled (`action_labels`)
    view_terms_changed = Signal()

    def __init__(self, state: ViewerState, renderer, parent=None) -> None:
        super().__init__(parent)
        self.viewer = state
        self.renderer = renderer
        self.plotter = renderer.plotter
        self.state = InspectState()
        self.inspector = Inspector(self.renderer, self.state)
        self.model: PlayModel | None = None  # the table wired to this controller
        self.view: PlayView | None = None
        self.last_hint = None
        self.solved_number: int | None = None
        self._index = None
        self._index_lock = threading.Lock()
        self._tasks: list[Worker] = []
        self._hint_actors: list = []
        self._moves = 0  # bumped on every move: answers about an older table are dropped
        self.state.events.selected.connect(self._on_selected)
        self.state.events.all.connect(self._on_inspect_changed)
        state.events.puzzle.connect(self._on_puzzle)
        state.events.mode.connect(self._on_mode)
        self.mouse: MouseHands | None = None
        widget = getattr(self.plotter, "interactor", None)
        if widget is not None and hasattr(widget, "installEventFilter"):
            self.mouse = MouseHands(self, widget)  # clicks, drags and wheel turns
            add_gizmo(self.plotter)
        self._camera = self.plotter.renderer.GetActiveCamera()
        self.terms = world_terms(self._camera)
        # every camera change (an orbit sends several per mouse move) costs a few cross
        # products; the buttons change only when the nearest axes do
        self._camera_tag = self._camera.AddObserver("ModifiedEvent", self._on_camera)

    # -- the view's terms ---------------------------------------------------------------------
    def _on_camera(self, _camera=None, _event=None) -> None:
        terms = world_terms(self._camera)
        if terms != self.terms:
            self.terms = terms
            self.view_terms_changed.emit()

    def action_meanings(self) -> dict[str, tuple[str, int, int]]:
        """Each move and turn action's (op, world axis, amount) from the camera now."""
        return action_meanings(world_terms(self._camera))

    def action_labels(self) -> dict[str, tuple[str, str, str]]:
        """Each move and turn action's (button text, menu text, tip) from the camera now; the
        tip names the world axis it means, as the gizmo shows it, and how far the grid turns
        about it (a quarter on cubes, a sixth about z on prisms)."""
        out = {}
        model = self.model if self.playing else None
        for name, (op, axis, amount) in self.action_meanings().items():
            button, text, tip = VIEW_LABELS[name]
            if op == "rotate" and model is not None:
                tip = tip.replace("a quarter turn", turn_words(model.grid, axis))
            sign = "+" if amount > 0 else "−"
            what = f"along {sign}{'xyz'[axis]}" if op == "move" else f"about {sign}{'xyz'[axis]}"
            out[name] = (button, text, f"{tip}; {what} now")
        return out

    # -- modes --------------------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return self.viewer.mode == "play"

    def can_play(self) -> bool:
        return self.viewer.can_play

    def _on_mode(self, mode: str) -> None:
        if mode == "play":
            self._show_table()
        else:
            self._hide_table()
        self.actions_changed.emit()

    def _on_puzzle(self) -> None:
        """A new puzzle: the old table, hint and selection go; a new table if still playing."""
        self._hide_table()
        self.state.reset()
        if self._index is not None and self._index.puzzle is not self.viewer.family.puzzle:
            self._index.cancel()
            self._index = None
        if self.playing:
            self._show_table()
        self.actions_changed.emit()

    def _show_table(self) -> None:
        """Show the Play table (a new one for a new puzzle, else the one left behind)."""
        model = self.viewer.play
        if model is None:
            return
        if model is not self.model:
            self._wire(model)
        if self.view is None:
            self.view = PlayView(model, self.renderer, self.inspector, self)
            self.view.frame.connect(self.frame)
        self.state.reset()
        self.view.show(frame_camera=True)
        self.scene_shown.emit()
        if model.selected is not None:
            self.state.select(key_of(model.selected))
        self._report_fit()

    def _hide_table(self) -> None:
        if self.view is None:
            return
        self.view.detach()
        self.view.frame.disconnect(self.frame)
        self.view.deleteLater()
        self.view = None
        self.clear_hint()
        self.state.reset()

    def _wire(self, model: PlayModel) -> None:
        """Follow a new table's events (and stop following the old one's)."""
        old, self.model = self.model, model
        for signal, slot in self._model_slots():
            if old is not None:
                getattr(old.events, signal).disconnect(slot)
            getattr(model.events, signal).connect(slot)
        self.solved_number = None

    def _model_slots(self) -> tuple[tuple[str, Callable], ...]:
        return (
            ("moved", self._on_moved),
            ("selected", self._on_model_selected),
            ("history", self._on_history),
            ("solved", self._on_solved),
            ("refused", self.say),  # interlocking puzzles: why a move or turn did not happen
        )

    def _on_history(self) -> None:
        self.actions_changed.emit()

    def scene_replaced(self) -> None:
        """The window put a new replay scene (a solution or a trace) on the renderer. The
        selection goes; the pieces the user hid stay hidden, being the same puzzle's pieces
        under the same keys (a new puzzle has cleared them already: `_on_puzzle`)."""
        specs = self.renderer.specs
        hidden = frozenset(k for k in self.state.hidden if k in specs and specs[k].role == "piece")
        self.state.reset()
        self.state.hidden = hidden
        self.inspector.forget()
        self.inspector.capture()
        # a flat board (KenKen, dominoes) is read like a page: the axes mean nothing there,
        # and the gizmo's corner would cover a cell's digits and pencil marks
        gizmo = getattr(self.plotter.renderer, "axes_widget", None)
        scene = self.renderer.scene
        if gizmo is not None:
            gizmo.SetEnabled(not (scene is not None and scene.flat))
        self.scene_shown.emit()

    def stepped(self) -> None:
        """The renderer moved the scene's actors to a new step: re-apply explode and the rest."""
        self.inspector.capture()

    # -- selection ----------------------------------------------------------------------------
    def on_pick(self, actor) -> None:
        """pyvista's mesh picking callback. pyvista picks on the *press*, so an orbit that
        started on a piece selected it; with the mouse filter installed (`viewer.mouse`) a
        selection waits for a click (press and release in place) and this does nothing."""
        if self.mouse is not None:
            return
        for key, candidate in self.renderer.actors.items():
            if candidate is actor or (
                actor is not None
                and candidate.GetAddressAsString("vtkActor") == actor.GetAddressAsString("vtkActor")
            ):
                if self.renderer.specs[key].role == "piece":
                    self.select(key)
                return

    def select(self, key: str | None) -> None:
        self.state.select(key)

    @property
    def selected_piece(self) -> int | None:
        """The Play model's index of the selected piece (Play mode only)."""
        return self.model.selected if self.playing and self.model is not None else None

    def _on_model_selected(self, piece: int | None) -> None:
        if self.playing:
            self.state.select(None if piece is None else key_of(piece))

    def _on_selected(self, key: str | None) -> None:
        if self.playing and self.model is not None:
            self.model.select(None if key is None else int(key.split("-")[1]))
        spec = self.renderer.specs.get(key) if key is not None else None
        name = "" if spec is None else spec.name or key
        if name:
            self.viewer.say(f"{name} selected")
        self.selection_changed.emit(name)
        self.actions_changed.emit()

    def _on_inspect_changed(self) -> None:
        self.inspector.refresh()
        self.frame.emit()

    # -- play operations ----------------------------------------------------------------------
    def turn(self, direction: str, turns: int) -> None:
        """The grid's smallest turn (`turns` of them; a quarter on cubes) of the selected piece
        about the world axis nearest the screen `direction` ("right", "up" or "toward") now."""
        if self.selected_piece is not None:
            axis, sign = world_terms(self._camera)[direction]
            self.model.rotate(self.selected_piece, axis, sign * turns)

    def move(self, direction: str, cells: int) -> None:
        """Move the selected piece along the world axis nearest the screen `direction`."""
        if self.selected_piece is not None:
            axis, sign = world_terms(self._camera)[direction]
            self.model.move(self.selected_piece, axis, sign * cells)

    def undo(self) -> None:
        if self.playing:
            self.model.undo()

    def redo(self) -> None:
        if self.playing:
            self.model.redo()

    def reset(self) -> None:
        if self.playing:
            self.model.reset()

    def _on_moved(self) -> None:
        self._moves += 1
        self.clear_hint()
        if self.playing:
            self._report_fit()

    def _report_fit(self) -> None:
        fit = self.model.fit()
        placed = sum(fit.in_target)
        text = f"{placed} of {len(self.model.pieces)} pieces in the target"
        names = [p.name for p in self.model.pieces]
        colour = set(fit.colour_pieces)
        bad = [names[k] for k in fit.bad_pieces if k not in colour or self._misplaced(fit, k)]
        if bad:
            text += f"; outlined (outside or overlapping): {', '.join(bad)}"
        if colour:
            wrong = ", ".join(names[k] for k in sorted(colour))
            text += f"; outlined (its colour is not allowed on that target cell): {wrong}"
        if fit.solved:
            text = "solved!" + (
                f" distinct solution {self.solved_number}" if self.solved_number else ""
            )
        self.say(text)

    @staticmethod
    def _misplaced(fit, piece: int) -> bool:
        """Whether the piece sticks out or overlaps (not only a wrong colour)."""
        return bool(fit.outside[piece].any() or fit.overlap[piece].any())

    def _on_solved(self, solved: bool) -> None:
        if not solved:
            self.solved_number = None
            if self.view is not None:
                self.view.hide_solved()
            return
        if self.view is not None:
            self.view.show_solved(None)
        assembly = self.model.assembly()
        index = self._solution_index()
        moves = self._moves

        def identify() -> int | None:
            with self._index_lock:
                return index.number(assembly)

        def done(number) -> None:
            if moves != self._moves:
                return
            self.solved_number = number or 0
            if self.view is not None and self.model.solved:
                total = len(index.solutions) if index.complete else None
                self.view.show_solved(self.solved_number, total)
            self.say(
                f"solved! This is distinct solution {number}"
                if number
                else "solved! (not one of the listed solutions)"
            )
            self.solved_as.emit(self.solved_number)

        self.say("solved! finding which solution it is…")
        self._run(identify, done)

    def _solution_index(self):
        from tessera.solvers.polycube.identify import SolutionIndex

        if self._index is None:
            self._index = SolutionIndex(self.model.puzzle)
        return self._index

    # -- hints --------------------------------------------------------------------------------
    def ask_hint(self) -> None:
        """Ask the solver (in a thread) whether the table can still be completed."""
        if not self.playing:
            return
        from tessera.solvers.polycube.hint import hint

        puzzle, assembly, moves = self.model.puzzle, self.model.assembly(), self._moves
        self.say("thinking…")

        def done(answer) -> None:
            if moves != self._moves:
                return  # the table changed while the solver thought
            self.last_hint = answer
            self.clear_hint()
            if answer.completable and answer.next is not None:
                self.show_hint(puzzle.target.cells[list(answer.next.cells)])
            self.say(f"hint: {self.hint_text(answer)}")
            self.hint_ready.emit(answer)

        self._run(lambda: hint(puzzle, assembly, time_limit=5.0), done)

    def _hinted_piece(self, answer) -> int | None:
        """The table piece a hint means: the selected one if it is of the hinted kind and not
        in place yet, else the first such."""
        fit = self.model.fit()
        candidates = [
            p.index
            for p in self.model.pieces
            if p.piece == answer.next.piece and not fit.in_target[p.index]
        ]
        if self.model.selected in candidates:
            return self.model.selected
        return candidates[0] if candidates else None

    def hint_text(self, answer) -> str:
        """The hint in the view's words, as the Play buttons name them from the camera now
        ("turn V left, then slide V toward you"), never grid coordinates: a person sees the
        pieces, not the numbers."""
        if not (answer.completable and answer.next is not None):
            return _WHERE.sub("", answer.reason)
        piece = self._hinted_piece(answer)
        name = self.model.puzzle.pieces[answer.next.piece].name
        if piece is None:
            return f"{name} goes next"
        pose = self._hinted_pose(piece, answer)
        if pose is None:
            return f"{name} goes next"
        try:
            ops = self.model.path_to(piece, pose)
        except ValueError:  # the grid's axis turns and steps do not say it (a sphere's sixth)
            return f"{name} goes next (Place hint puts it there)"
        words = spoken_path(ops, self.action_meanings(), name)
        how = ", then ".join(words) if words else "put it in place"
        return f"{name} goes next: {how} (Place hint does it)"

    def apply_hint(self) -> None:
        """Put a piece where the last hint said it goes (one undoable move)."""
        answer = self.last_hint
        if not self.playing or answer is None or answer.next is None:
            return
        piece = self._hinted_piece(answer)
        if piece is None:
            return
        pose = self._hinted_pose(piece, answer)
        if pose is None:
            return
        self.model.select(piece)
        self.model.place(piece, pose)

    def _hinted_pose(self, piece: int, answer):
        """The table piece's pose on the hint's cells, with each colour where the hint's
        placement has it (`Placement.colours`): a domino with one red end fills the same
        cells turned either way, and only one of them may be what the hint found."""
        cells = self.model.puzzle.target.cells[list(answer.next.cells)]
        return self.model.pose_for(piece, cells, answer.next.colours)

    def show_hint(self, cells: np.ndarray) -> None:
        plotter = self.plotter
        for spec in self.view.hint_actors(cells):
            kwargs = dict(color=spec.color, opacity=spec.opacity, line_width=spec.line_width)
            actor = plotter.add_mesh(
                spec.mesh, name=spec.key, pickable=False, reset_camera=False, render=False,
                **kwargs,
            )  # fmt: skip
            self._hint_actors.append(actor)
        self.inspector.translucent_guides = True
        self.inspector.refresh()
        self.frame.emit()

    def clear_hint(self) -> None:
        if not self._hint_actors:
            return
        for actor in self._hint_actors:
            self.plotter.remove_actor(actor, render=False)
        self._hint_actors.clear()
        self.inspector.translucent_guides = False
        self.inspector.refresh()
        self.frame.emit()

    @property
    def hint_shown(self) -> bool:
        return bool(self._hint_actors)

    # -- plumbing -----------------------------------------------------------------------------
    def say(self, text: str) -> None:
        self.viewer.say(text)

    def _run(self, fn: Callable[[], object], done: Callable[[object], None]) -> Worker:
        """`fn` in a worker thread, then `done(result)` here. The worker's signals go to this
        object's methods (not to `done` itself), so Qt queues them to the GUI thread."""
        task = Worker(lambda _worker: fn(), self)
        task.callback = done
        task.returned.connect(self._task_done)
        task.failed.connect(self._task_failed)
        task.finished.connect(self._reap)
        self._tasks.append(task)
        task.start()
        return task

    def _task_done(self, result: object) -> None:
        task = self.sender()
        if isinstance(task, Worker):
            task.callback(result)

    def _task_failed(self, message: str) -> None:
        self.say(f"solver failed: {message}")

    def _reap(self) -> None:
        for task in [t for t in self._tasks if t.isFinished()]:
            self._tasks.remove(task)
            task.deleteLater()

    @property
    def busy(self) -> bool:
        return any(t.isRunning() for t in self._tasks)

    def shutdown(self) -> None:
        """Before the window closes: stop the solution index and wait for threads."""
        self._camera.RemoveObserver(self._camera_tag)
        if self.mouse is not None:
            self.mouse.detach()
        if self.view is not None:
            self.view.detach()
        if self._index is not None:
            self._index.cancel()
        for task in list(self._tasks):
            task.abandon()
            task.wait(6000)
