"""Issue 22 in the window: the camera follows the steps until the user takes it, exports draw
the window's layers (the ghost too), and no control or label outlives its mode or puzzle."""

from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from tessera.viewer import framing
from tests.test_viewer_truth import open_and_wait

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def active(qtbot, window) -> None:
    """Keys go to the active window (shortcuts are the window's)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def camera(window) -> framing.Shot:
    window.replay.settle_camera()
    return framing.shot_of(window.plotter.camera)


def test_the_camera_follows_the_steps_until_the_user_orbits(qtbot, window):
    open_and_wait(qtbot, window, "soma")
    window.state.set_step(2)
    at_two = camera(window)
    window.state.set_step(3)
    at_three = camera(window)
    assert not framing.same(at_two, at_three)  # a new step, a new framing
    # piece A goes in at the back at step 3: the camera turned to see it
    assert framing.same(at_three, window.renderer.shot())

    # a real drag on empty space orbits the camera
    widget = window.plotter.interactor
    corner = QPoint(12, widget.height() // 2)
    QTest.mousePress(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, corner)
    for dx in range(10, 120, 10):
        QTest.mouseMove(widget, corner + QPoint(dx, 4))
    QTest.mouseRelease(
        widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, corner + QPoint(120, 4)
    )
    orbited = camera(window)
    assert not framing.same(orbited, at_three)
    window.state.set_step(4)
    assert framing.same(camera(window), orbited)  # the user's camera wins
    assert not window.export_view().follow

    active(qtbot, window)
    QTest.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)  # re-frame
    assert framing.same(camera(window), window.renderer.shot())
    window.state.set_step(5)
    assert framing.same(camera(window), window.renderer.shot())
    assert window.export_view().follow


def test_png_export_with_the_ghost_shown_has_the_ghost(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, "soma")
    exporter = window.exporter
    state = window.handson.state
    others = [k for k in window.handson.inspector.piece_keys() if k != "piece-0-0"]
    window.handson.select("piece-0-0")
    state.hidden = frozenset(others)
    without = exporter.export_image(tmp_path / "alone.png", (320, 240), True, supersample=1)
    state.hidden = frozenset()
    active(qtbot, window)
    QTest.keyClick(window, Qt.Key.Key_G)
    assert state.ghost
    ghosted = exporter.export_image(tmp_path / "ghost.png", (320, 240), True, supersample=1)
    saved = iio.imread(tmp_path / "ghost.png")
    assert np.array_equal(saved, ghosted)
    drawn_alone = without[..., 3] > 0
    drawn = saved[..., 3] > 0
    ghost_pixels = drawn & ~drawn_alone
    assert ghost_pixels.sum() > 2000  # the ghosted pieces are in the picture...
    alpha = saved[..., 3][ghost_pixels]
    assert np.median(alpha) < 200  # ...see-through, as on screen
