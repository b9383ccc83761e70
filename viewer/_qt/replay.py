"""The replay on screen (Solution and Search modes): the scene the state built, drawn when the
state says it changed, and the ways through it that are more than one step.

It follows `ViewerState.events.scene` and `.step` and puts them on the renderer (pieces are
separate actors placed by `user_matrix`, viewer/render.py); in Play and Design the table or the
editor owns the view and the replay waits. Beyond the state's own stepping it adds what a
person sees: a backtrack fades its piece out (fractional steps under a `QVariantAnimation`;
`step_shown` fires only where the fade ends), Search mode's jumps to the next backtrack or
solution of the trace, and which listed solution the list highlights (the state's in Solution
mode, the trace's in Search mode: `viewer/trace_match.py`).

The camera follows the action (`viewer.framing`): each step is framed on what it shows, from
a direction that keeps the moving piece in sight, the camera easing there over `CAMERA_MS`.
Once the user orbits or zooms (the camera is no longer where it was last put) their camera
wins and stays, until View ▸ Reset camera (`reframe`) hands it back.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QVariantAnimation, Signal

from tessera.viewer import framing
from tessera.viewer._qt.controls import SolutionPanel, StepBar
from tessera.viewer._qt.handson import HandsOn
from tessera.viewer._qt.playback import Playback
from tessera.viewer.render import SceneRenderer
from tessera.viewer.scenes.base import Timeline
from tessera.viewer.state import ASIDE_MODES, ViewerState

FADE_MS = 320  # a piece Search mode takes back fades out over this long
CAMERA_MS = 260  # the camera eases to a new step's framing over this long


class Replay(QObject):
    """Draws the state's replay scene and step; `step_shown(step)` once a step is on screen
    (the end of a fade, not its frames)."""

    step_shown = Signal(float)

    def __init__(
        self,
        state: ViewerState,
        renderer: SceneRenderer,
        handson: HandsOn,
        step_bar: StepBar,
        panel: SolutionPanel,
        playback: Playback,
        render_now: Callable[[], None],
        parent=None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.renderer = renderer
        self.handson = handson
        self.step_bar = step_bar
        self.panel = panel
        self.playback = playback
        self.render_now = render_now
        self.frame_next = True  # the next scene shown frames the camera
        self.following = True  # the camera follows the steps (False: the user's camera)
        self._put: framing.Shot | None = None  # where the camera was last put
        self._ease_from: framing.Shot | None = None
        self._ease_to: framing.Shot | None = None
        self._ease = QVariantAnimation(self)
        self._ease.setDuration(CAMERA_MS)
        self._ease.setStartValue(0.0)
        self._ease.setEndValue(1.0)
        self._ease.valueChanged.connect(self._ease_frame)
        self._fade_target: int | None = None  # where a running fade ends
        self._fade = QVariantAnimation(self)
        self._fade.setDuration(FADE_MS)
        self._fade.valueChanged.connect(self._fade_frame)
        self._fade.finished.connect(lambda: self._fade_frame(self._fade.endValue(), True))
        self._trace_row_key = None
        self._trace_row_cache: int | None = None
        state.events.scene.connect(self._on_scene)
        state.events.step.connect(self._on_step)

    # -- following the state --------------------------------------------------------------------
    def _on_scene(self, scene) -> None:
        if self.state.mode in ASIDE_MODES:
            return  # the Play table or the editor owns the view; this scene waits
        self.stop_fade()
        if self.frame_next:
            self.following = True  # a new puzzle, or back from Play or Design
        self._ease.stop()
        self.renderer.show(scene, self.state.step, frame=False)
        self.handson.scene_replaced()
        if self.following or scene.flat:
            self._put_camera(self.renderer.shot())
        self.frame_next = False
        self.step_bar.depth_map.set_timeline(
            scene.timeline if self.state.mode == "search" else None
        )
        self.sync_list()

    def _on_step(self, step: float) -> None:
        if self.state.mode in ASIDE_MODES:
            return
        self.renderer.apply(step)
        self.handson.stepped()
        self.follow_step()
        self.render_now()
        scene = self.state.scene
        depth = scene.depth(step) if scene is not None else None
        self.step_bar.show_step(step, self.state.n_steps, depth)
        if self.state.mode == "search":
            self.sync_list()
        target = self._fade_target
        if target is not None and step != target:
            return  # a frame of a fade: `step_shown` is for where it ends
        self._fade_target = None
        self.step_shown.emit(step)

    # -- the camera -----------------------------------------------------------------------------
    def _put_camera(self, shot: framing.Shot) -> None:
        self.renderer.aim(shot)
        self._put = framing.shot_of(self.renderer.plotter.camera)

    def user_moved(self) -> bool:
        """Whether the camera is not where the replay last put it (an orbit, a zoom)."""
        if self._put is None:
            return False
        return not framing.same(framing.shot_of(self.renderer.plotter.camera), self._put)

    def follow_step(self) -> None:
        """Ease the camera to this step's framing, unless the user's camera holds."""
        if self.renderer.scene is None:
            return
        if self.following and self.user_moved():
            self.following = False
            self._ease.stop()
        if not self.following:
            return
        self._ease_from = framing.shot_of(self.renderer.plotter.camera)
        self._ease_to = self.renderer.shot()
        if framing.same(self._ease_from, self._ease_to):
            return
        self._ease.stop()
        self._ease.start()
        self._ease_frame(0.0)

    def _ease_frame(self, t) -> None:
        if self._ease_from is None or self._ease_to is None or self.renderer.scene is None:
            return
        if self.following and self.user_moved():  # the user took the camera mid-ease
            self.following = False
            self._ease.stop()
            return
        shot = framing.blend(self._ease_from, self._ease_to, framing._smooth(float(t)))
        shot = framing.contain(shot, self.renderer.visible_corners(), self.renderer.aspect)
        self._put_camera(shot)
        if float(t) > 0:
            self.render_now()

    def reframe(self) -> None:
        """View ▸ Reset camera: frame this step now and follow the steps again."""
        self._ease.stop()
        self.following = True
        if self.renderer.scene is not None:
            self._put_camera(self.renderer.shot())

    def stop_camera(self) -> None:
        self._ease.stop()

    def settle_camera(self) -> None:
        """Finish a running camera ease at once (a screenshot, an export, a test)."""
        if self._ease.state() == QVariantAnimation.State.Running:
            self._ease.stop()
            self._ease_frame(1.0)

    # -- stepping -------------------------------------------------------------------------------
    def timeline(self) -> Timeline | None:
        """Search mode's trace timeline (None in other modes)."""
        scene = self.state.scene
        if self.state.mode != "search" or scene is None:
            return None
        return scene.timeline

    def forward(self) -> None:
        self.playback.pause()
        timeline = self.timeline()
        k = int(self.state.step)
        if (
            timeline is not None and self.state.step == k and k < len(timeline.kinds)
            and timeline.kinds[k] == Timeline.REMOVE
        ):  # fmt: skip
            self.fade_to(k + 1)  # a backtrack: the piece fades out rather than vanishing
            return
        self.state.forward()

    def back(self) -> None:
        self.playback.pause()
        self.state.back()

    def go_to_step(self, step: int) -> None:
        self.playback.pause()
        self.stop_fade()
        self.state.set_step(step)

    def _fade_frame(self, value, finished: bool = False) -> None:
        """A frame of a fade (Qt also reports values while one is being set up: ignored)."""
        if finished or self._fade.state() == QVariantAnimation.State.Running:
            self.state.set_step(float(value))

    def stop_fade(self) -> None:
        self._fade.stop()
        self._fade_target = None

    def fade_to(self, step: int) -> None:
        """Go to `step` (one past a REMOVE event) through the fractional steps between, so
        the scene's fade plays; `step_shown` fires for `step` only."""
        self.stop_fade()
        self._fade_target = step
        self.state.set_step(step - 1)
        self._fade.setStartValue(float(step - 1))
        self._fade.setEndValue(float(step))
        self._fade.start()

    def jump(self, kind: int, direction: int) -> bool:
        """Search mode: go to the next (+1) or previous (-1) step reached by an event of
        `kind` (Timeline.REMOVE: a backtrack; Timeline.SOLUTION: a solution found)."""
        timeline = self.timeline()
        if timeline is None:
            return False
        self.playback.pause()
        self.stop_fade()
        step = self.state.step
        target = (
            timeline.next_step(step, kind) if direction > 0 else timeline.previous_step(step, kind)
        )
        if target is None:
            what = "backtrack" if kind == Timeline.REMOVE else "solution"
            self.state.say(f"no {'further' if direction > 0 else 'earlier'} {what} in the trace")
            return False
        if kind == Timeline.REMOVE:
            self.fade_to(target)
        else:
            self.state.set_step(target)
        return True

    # -- the solution list ----------------------------------------------------------------------
    def list_row_changed(self, row: int) -> None:
        if row >= 0:
            self.state.set_solution(row)

    def trace_row(self) -> int | None:
        """The listed solution the search trace shows now (None before its first solution,
        or when it cannot be matched): what the list highlights in Search mode."""
        from tessera.viewer.trace_match import solution_row

        timeline = self.timeline()
        if timeline is None:
            return None
        done = timeline.kinds[: int(self.state.step)] == Timeline.SOLUTION
        if not done.any():
            return None
        at = int(done.nonzero()[0][-1]) + 1  # the step of the last solution event so far
        key = (id(self.state.scene), at, len(self.state.solutions))
        if self._trace_row_key != key:
            from tessera.solvers.trace import stack_at

            stack = stack_at(self.state.trace.events, at)
            self._trace_row_cache = solution_row(
                self.state.family, self.state.trace, stack, self.state.solutions
            )
            self._trace_row_key = key
        return self._trace_row_cache

    def sync_list(self, *_args) -> None:
        """The list highlights the solution shown: the state's in Solution mode, the trace's
        (or none) in Search mode, so the two never disagree."""
        if self.state.mode == "search":
            self.panel.highlight(self.trace_row())
        elif self.state.mode == "solution":
            row = self.state.solution_index
            if row >= 0 and self.panel.list.currentRow() != row:
                self.panel.highlight(row)
