"""The window's panels and where they sit: the puzzle browser (left), the solutions and Inside
(right), the step bar (bottom), the hands-on bar and Design's toolbar (top), Design's Shapes
(left) and Layers (right) docks.

The panels are built here and handed back; which of them shows in which mode is
`modes.ModeSwitch`'s job, and what they show comes from the state they follow.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow

from tessera.viewer._qt.controls import HandsOnBar, PuzzleBrowser, SolutionPanel, StepBar
from tessera.viewer._qt.design.mode import DesignMode
from tessera.viewer._qt.handson import HandsOn
from tessera.viewer._qt.inspect_view import InspectPanel
from tessera.viewer.state import MODES, ViewerState

LEFT, RIGHT = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea


@dataclass
class Panels:
    browser: PuzzleBrowser
    solution_panel: SolutionPanel
    step_bar: StepBar
    inspect_panel: InspectPanel
    handson_bar: HandsOnBar
    docks: dict[str, QDockWidget]


def add_dock(window: QMainWindow, title: str, name: str, widget, area=RIGHT) -> QDockWidget:
    """A fixed dock (no floating, closing or moving: the mode decides what shows)."""
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(widget)
    dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
    window.addDockWidget(area, dock)
    return dock


def build_panels(
    window: QMainWindow, state: ViewerState, actions: dict, handson: HandsOn, design: DesignMode
) -> Panels:
    """Every panel and toolbar of the window, docked and added in their places."""
    docks: dict[str, QDockWidget] = {}
    browser = PuzzleBrowser()
    docks["puzzles"] = add_dock(window, "Puzzles", "puzzles", browser, LEFT)
    solution_panel = SolutionPanel(state)
    docks["solutions"] = add_dock(window, "Solutions", "solutions", solution_panel)
    modes = {name: actions[f"mode_{name}"] for name in MODES}
    step_bar = StepBar(actions, modes, window)
    step_bar.addSeparator()
    step_bar.addAction(actions["reset_camera"])
    step_bar.addAction(actions["isometric"])
    window.addToolBar(Qt.ToolBarArea.BottomToolBarArea, step_bar)
    inspect_panel = InspectPanel(handson.state, handson.inspector)
    docks["inside"] = add_dock(window, "Inside", "inside", inspect_panel)
    handson_bar = HandsOnBar(actions, window)
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, handson_bar)
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, design.toolbar)
    docks["shapes"] = add_dock(window, "Shapes", "shapes", design.panel, LEFT)
    docks["layers"] = add_dock(window, "Layers", "layers", design.layers)
    return Panels(browser, solution_panel, step_bar, inspect_panel, handson_bar, docks)
