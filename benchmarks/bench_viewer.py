"""The window's speed on the Soma cube: open time, time per step, orbit frames per second.

Goals (issue 3, software OpenGL): open ≤ 3 s, step ≤ 50 ms, orbit ≥ 30 fps. The window needs
a display: without one this starts its own Xvfb (normal xcb platform; never the offscreen
one, which cannot show the 3D widget) and stops it at the end. The headless exporter is timed
beside it, as the reference for what a frame costs with no window at all.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
warnings.filterwarnings("ignore")

GOALS = {"open": 3.0, "step": 0.050, "fps": 30.0}


def _ensure_display() -> subprocess.Popen | None:
    if os.environ.get("DISPLAY"):
        return None
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        sys.exit("bench_viewer: no DISPLAY and no Xvfb (install Debian's xvfb)")
    for number in range(91, 120):
        if not Path(f"/tmp/.X11-unix/X{number}").exists():
            break
    proc = subprocess.Popen(
        [xvfb, f":{number}", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.environ["DISPLAY"] = f":{number}"
    for _ in range(50):
        if Path(f"/tmp/.X11-unix/X{number}").exists():
            break
        time.sleep(0.1)
    return proc


def main() -> None:
    xvfb = _ensure_display()
    try:
        rows = run()
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(5)
    print(f"{'measure':<34}{'ours':>12}{'goal':>12}{'ratio':>9}  ok")
    for name, value, goal, unit, better in rows:
        if goal is None:
            print(f"{name:<34}{value:>10.3g} {unit:<2}{'':>12}{'':>9}")
            continue
        ratio = value / goal
        ok = value <= goal if better == "lower" else value >= goal
        sign = "≤" if better == "lower" else "≥"
        print(
            f"{name:<34}{value:>10.3g} {unit:<2}{sign:>3}{goal:>7.3g} {unit:<2}"
            f"{ratio:>7.2f}  {'yes' if ok else 'NO'}"
        )


def run() -> list[tuple]:
    t0 = time.perf_counter()
    from viewer.app import application
    from viewer.window import MainWindow

    imported = time.perf_counter() - t0
    app = application(["bench"])
    t1 = time.perf_counter()
    window = MainWindow()
    window.resize(1200, 760)
    window.show()
    window.open_puzzle("soma")
    while window.state.solution is None:  # until the first solution is on screen
        app.processEvents()
        time.sleep(0.002)
    window.plotter.render()
    app.processEvents()
    opened = time.perf_counter() - t1

    while window.solving:  # the worker finishes Soma in a moment; time the GUI alone
        app.processEvents()
        time.sleep(0.01)
    actions = window.actions
    actions["first"].trigger()
    n = 0
    t2 = time.perf_counter()
    for _ in range(10):
        for name in ["forward"] * 7 + ["back"] * 7:
            actions[name].trigger()
            app.processEvents()
            n += 1
    step = (time.perf_counter() - t2) / n

    actions["last"].trigger()
    frames = 180
    t3 = time.perf_counter()
    for _ in range(frames):
        window.renderer.orbit(2.0)
        window.plotter.render()
        app.processEvents()
    fps = frames / (time.perf_counter() - t3)

    solution_scene = window.state.scene
    window.close()
    app.processEvents()

    from viewer import export

    t4 = time.perf_counter()
    export.render_image(solution_scene, 7, (800, 600), supersample=2)
    still = time.perf_counter() - t4
    return [
        ("import Qt + PyVista + viewer", imported, None, "s", "lower"),
        ("window open, Soma on screen", opened, GOALS["open"], "s", "lower"),
        ("step (action + render)", step * 1000, GOALS["step"] * 1000, "ms", "lower"),
        ("orbit frames per second", fps, GOALS["fps"], "/s", "higher"),
        ("headless PNG 800x600, 2x SSAA", still, None, "s", "lower"),
    ]


if __name__ == "__main__":
    main()
