"""File ▸ Open folder's gallery: thumbnails and counts filled by a background batch, sorted by
a click on a column header, filtered by typing, and a click on a row opens that figure."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tessera.viewer._qt.gallery import GalleryDialog, isometric_thumbnail

CUBE = "xxx\nxxx\nxxx\n\nxxx\nxxx\nxxx\n\nxxx\nxxx\nxxx\n"
# The cube with the V ('3') pre-placed in its bottom layer: 207 (yass's count for the mirror
# image, see tests/test_soma_figures.py); a flat 3x9 slab has no Soma solution.
V_CORNER = "xxx\nxxx\nxxx\n\n" * 2 + "x33\nx3x\nxxx\n"
SLAB = "xxxxxxxxx\nxxxxxxxxx\nxxxxxxxxx\n"


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "cube.soma").write_text(CUBE)
    (tmp_path / "v-corner.soma").write_text(V_CORNER)
    (tmp_path / "slab.soma").write_text(SLAB)
    (tmp_path / "broken.soma").write_text("xxx\nx\tx\n")
    return tmp_path


@pytest.fixture
def gallery(qtbot, folder):
    dialog = GalleryDialog(folder)
    qtbot.addWidget(dialog)
    dialog.resize(640, 480)
    dialog.show()
    qtbot.waitExposed(dialog)
    with qtbot.waitSignal(dialog.finished_counting, timeout=120_000):
        pass
    yield dialog
    dialog.close()


def rows(dialog) -> list[tuple[str, str]]:
    proxy = dialog.proxy
    return [(proxy.index(r, 0).data(), proxy.index(r, 1).data()) for r in range(proxy.rowCount())]


def test_every_file_is_answered_with_counts_thumbnails_and_errors(gallery):
    counts = dict(rows(gallery))
    assert counts == {"broken": "error", "cube": "240", "slab": "0", "v-corner": "207"}
    assert gallery.answered == 4
    assert "1 could not be read" in gallery.status.text()
    thumb = next(r for r in gallery.model.rows if r.path.stem == "cube").thumbnail
    assert thumb is not None and not thumb.isNull()
    opaque = sum(
        thumb.pixelColor(x, y).alpha() > 0
        for x in range(thumb.width())
        for y in range(thumb.height())
    )
    assert opaque > thumb.width() * thumb.height() // 4  # a drawn cube, not an empty square


def test_a_header_click_sorts_by_count_and_typing_filters(qtbot, gallery):
    header = gallery.table.horizontalHeader()
    x = header.sectionViewportPosition(1) + header.sectionSize(1) // 2
    qtbot.mouseClick(
        header.viewport(), Qt.MouseButton.LeftButton, pos=header.rect().center().__class__(x, 5)
    )
    order = [name for name, _ in rows(gallery)]
    qtbot.mouseClick(
        header.viewport(), Qt.MouseButton.LeftButton, pos=header.rect().center().__class__(x, 5)
    )
    reverse = [name for name, _ in rows(gallery)]
    assert order != reverse and order[-1] == "cube" or reverse[-1] == "cube"
    assert {order[0], reverse[0]} & {"cube", "broken"}
    qtbot.keyClicks(gallery.filter, "cor")
    assert [name for name, _ in rows(gallery)] == ["v-corner"]


def test_a_click_on_a_row_opens_that_figure(qtbot, gallery):
    gallery.filter.setText("slab")
    table = gallery.table
    rect = table.visualRect(gallery.proxy.index(0, 1))
    with qtbot.waitSignal(gallery.open_requested, timeout=5000) as opened:
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert opened.args[0].endswith("slab.soma")


def test_an_empty_shape_gives_an_empty_thumbnail(qapp):
    image = isometric_thumbnail([])
    assert image.pixelColor(10, 10).alpha() == 0


def test_file_open_folder_opens_the_clicked_figure_in_the_window(qtbot, window, folder):
    gallery = window.open_gallery(str(folder))
    with qtbot.waitSignal(gallery.finished_counting, timeout=120_000):
        pass
    gallery.filter.setText("v-corner")
    rect = gallery.table.visualRect(gallery.proxy.index(0, 1))
    with qtbot.waitSignal(gallery.open_requested, timeout=5000):
        qtbot.mouseClick(gallery.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.state.family is not None, timeout=30_000)
    assert window.state.family.source.endswith("v-corner.soma")
    assert "open_folder" in window.actions and "design" in window.actions


def test_design_opens_on_the_puzzle_shown(qtbot, window):
    assert window.open_puzzle("soma-bathtub")
    design = window.open_design()
    qtbot.waitExposed(design)
    assert "Design" in design.windowTitle() and "bathtub" in design.windowTitle().lower()
    design.close()
