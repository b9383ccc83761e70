"""Play / pause of the replay: a timer that advances the step at the chosen speed.

The step is the state's (`ViewerState.set_step`); this only decides when to move it, so pieces
glide through fractional steps. It stops by itself at the end, when a step control is pressed
(`pause`), and whenever the mode or the puzzle changes (it follows the state's events). Each
replay mode keeps its own speed: it starts at the preference (a few steps a second for a
solution, many for a search trace) and a speed the user sets stays with that mode, so
switching modes and back no longer resets it.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QStyle

from tessera.viewer.state import ViewerState

PLAY_INTERVAL_MS = 33  # ~30 frames a second while playing
#: The most one tick may advance, in seconds of play: a machine too busy to tick on time
#: shows fewer, larger steps, never a jump to the end.
MAX_TICK_SECONDS = 0.25
SPEED = {"solution": 2.0, "search": 25.0}  # steps per second when a mode is entered


class Playback(QObject):
    """Drives `state.step` from a timer; `action` is the checkable Play/Pause QAction."""

    def __init__(
        self,
        state: ViewerState,
        action: QAction,
        speed: QDoubleSpinBox,
        parent=None,
        speeds: dict[str, float] | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.action = action
        self.speed = speed
        self.speeds = dict(SPEED, **(speeds or {}))
        speed.setValue(self.speeds.get(state.replay_mode, SPEED["solution"]))
        speed.valueChanged.connect(self._speed_set)
        self._clock = 0.0
        self.timer = QTimer(self)
        self.timer.setInterval(PLAY_INTERVAL_MS)
        self.timer.timeout.connect(self._tick)
        action.toggled.connect(self.set_playing)
        state.events.puzzle.connect(self.pause)
        state.events.mode.connect(self._on_mode)

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def set_playing(self, playing: bool) -> None:
        action = self.action
        if action.isChecked() != playing:
            action.blockSignals(True)
            action.setChecked(playing)
            action.blockSignals(False)
        pixmap = QStyle.StandardPixmap
        icon = pixmap.SP_MediaPause if playing else pixmap.SP_MediaPlay
        action.setIcon(QApplication.style().standardIcon(icon))
        action.setText("Pause" if playing else "Play")
        if playing:
            if self.state.at_end:
                self.state.first()
            self._clock = time.monotonic()
            self.timer.start()
        else:
            self.timer.stop()
            if self.state.step % 1:
                self.state.set_step(round(self.state.step))

    def pause(self) -> None:
        self.set_playing(False)

    def _on_mode(self, mode: str) -> None:
        self.pause()
        if mode in self.speeds:
            self.speed.blockSignals(True)
            self.speed.setValue(self.speeds[mode])
            self.speed.blockSignals(False)

    def _speed_set(self, value: float) -> None:
        if self.state.mode in self.speeds:
            self.speeds[self.state.mode] = float(value)

    def _tick(self) -> None:
        now = time.monotonic()
        elapsed, self._clock = now - self._clock, now
        self.state.set_step(self.state.step + self.speed.value() * min(elapsed, MAX_TICK_SECONDS))
        if self.state.at_end:
            self.pause()
