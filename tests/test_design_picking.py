"""Design's picking is exact: a 3x3x3 block built front to back with 27 real clicks, at face
centres and near the faces' edges and corners, before and after a zoom, gets 27 cubes in the
cells aimed at; a right click near an edge removes the cube under it."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tessera.viewer import framing
from tests.test_design_window import _screen_pos, design  # noqa: F401 - a fixture

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

BLOCK = [(x, y, z) for z in range(3) for y in range(3) for x in range(3)]  # front to back
AXES = np.eye(3)
#: Where on a face each click lands, in half-widths from its centre: the centre, then
#: 0.05 of a cell inside each edge, then near the corners.
SPOTS = [(0, 0), (0.9, 0), (-0.9, 0), (0, 0.9), (0, -0.9), (0.88, 0.88), (-0.88, 0.88),
         (0.88, -0.88), (-0.88, -0.88)]  # fmt: skip


def spot(point: np.ndarray, normal: np.ndarray, k: int) -> np.ndarray:
    """The k-th spot of the face centred on `point` with `normal`."""
    axis = int(np.flatnonzero(normal)[0])
    a, b = AXES[(axis + 1) % 3], AXES[(axis + 2) % 3]
    s, t = SPOTS[k % len(SPOTS)]
    return point + 0.5 * (s * a + t * b)


def seen(win, point: np.ndarray, normal: np.ndarray, built: set) -> bool:
    """Whether `point` on a face with `normal` faces the camera and no built cube hides it."""
    eye = np.asarray(win.plotter.camera.position)
    to_eye = eye - point
    if to_eye @ normal <= 0.05 * np.linalg.norm(to_eye):
        return False
    if not built:
        return True
    start = point + normal * 1e-3
    direction = to_eye / np.linalg.norm(to_eye)
    cubes = np.array(sorted(built), float)
    return not framing._blocked(start[None], direction, cubes)[0]


def aim(win, cell, built: set, k: int):
    """A face a click at spot k adds `cell` against: a built neighbour's face, or the ground
    square under it; None if none is in sight."""
    cell = np.array(cell, float)
    options = []
    if cell[2] == 0:
        options.append((cell - (0, 0, 0.5), np.array((0.0, 0.0, 1.0))))
    for axis in range(3):
        for sign in (1.0, -1.0):
            normal = AXES[axis] * sign
            neighbour = cell - normal
            if tuple(int(v) for v in neighbour) in built:
                options.append((neighbour + 0.5 * normal, normal))
    for centre, normal in options:
        point = spot(centre, normal, k)
        if seen(win, point, normal, built):
            return point, k % len(SPOTS)
    return None


def test_27_clicks_build_a_3x3x3_block_front_to_back(qtbot, design):  # noqa: F811
    win = design
    doc = win.design.doc
    editor = win.design.editor
    qtbot.mouseClick(win.design.panel.add_button, Qt.MouseButton.LeftButton)
    assert doc.current == 0 and not doc.cells()
    built: set = set()
    clicks = 0
    spots_used: set[int] = set()
    while len(built) < len(BLOCK):
        if clicks in (9, 18):  # zoom out, then in: picking holds at any zoom
            win.plotter.camera.zoom(0.7 if clicks == 9 else 2.2)
            editor.render_now()
        for _turn in range(4):
            cell = BLOCK[len(built)]  # strictly in order
            found = next(
                (
                    (cell, f)
                    for j in range(len(SPOTS))  # spot k, else the next spot in sight
                    if (f := aim(win, cell, built, clicks + j)) is not None
                ),
                None,
            )
            if found is not None:
                break
            # the back of the top layer hides behind its front: look down more, as a person
            # would orbit
            win.plotter.camera.Elevation(20)
            win.plotter.camera.Azimuth(35)
            win.plotter.camera.OrthogonalizeViewUp()
            editor.render_now()
        else:
            pytest.fail(f"no face in sight for {set(BLOCK) - built} at spot {clicks % len(SPOTS)}")
        cell, (point, used) = found
        spots_used.add(used)
        pos = _screen_pos(win, point)
        qtbot.mouseClick(win.plotter.interactor, Qt.MouseButton.LeftButton, pos=pos)
        clicks += 1
        built.add(cell)
        assert doc.cells() == built, (clicks, cell, SPOTS[used])
    assert clicks == 27 and doc.cells() == set(BLOCK)
    # centres, near edges and near corners were all clicked
    assert 0 in spots_used
    assert len(spots_used & {1, 2, 3, 4}) >= 3 and len(spots_used & {5, 6, 7, 8}) >= 3

    # a right click near an edge of a face removes that face's cube, not its neighbour
    top = np.array((1.0, 0.0, 2.5))
    pos = _screen_pos(win, spot(top, np.array((0.0, 0.0, 1.0)), 1))
    qtbot.mouseClick(win.plotter.interactor, Qt.MouseButton.RightButton, pos=pos)
    assert doc.cells() == set(BLOCK) - {(1, 0, 2)}
