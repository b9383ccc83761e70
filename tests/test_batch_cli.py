"""`tessera solve FILE... --count`: a batch in one process, one line per file, bad files
reported and skipped (exit 2 at the end)."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

from tests._paths import CONFORMANCE, ROOT, needs_conformance, run_cli

CUBE = "# the Soma cube\nxxx\nxxx\nxxx\n\nxxx\nxxx\nxxx\n\nxxx\nxxx\nxxx\n"


def test_several_files_one_json_line_each_and_a_bad_one_on_stderr(capsys, tmp_path):
    good = tmp_path / "cube.soma"
    good.write_text(CUBE)
    bad = tmp_path / "broken.soma"
    bad.write_text("xxx\nx\tx\n")  # yass refuses tabs
    code, out, err = run_cli(["solve", str(good), "soma", str(bad), "--count", "--json"], capsys)
    assert code == 2
    lines = [json.loads(line) for line in out.splitlines()]
    assert {d["file"].split("/")[-1] for d in lines} == {"cube.soma", "soma"}
    for doc in lines:
        assert (doc["fixed"], doc["up_to_rotation"], doc["up_to_symmetry"]) == (11520, 480, 240)
        assert doc["seconds"] >= 0
    (error,) = err.strip().splitlines()
    assert error.startswith("tessera: error:") and "broken.soma:2" in error


def test_a_batch_needs_count(capsys, tmp_path):
    code, _, err = run_cli(["solve", "soma", "soma", "--show"], capsys)
    assert code == 2 and "--count" in err
    code, _, err = run_cli(["solve", str(tmp_path)], capsys)
    assert code == 2 and str(tmp_path) in err and "--count" in err


@needs_conformance
def test_a_folder_of_yass_figures_through_the_real_command():
    """The whole shared folder in one process: every file answered, single-part counts as
    yass's (the per-figure check is tests/test_soma_figures.py), errors one line each."""
    folder = CONFORMANCE / "soma-figures"
    proc = subprocess.run(
        [sys.executable, "-m", "tessera", "solve", str(folder), "--count", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    done = [json.loads(line) for line in proc.stdout.splitlines()]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("tessera: error:")]
    assert "Traceback" not in proc.stderr
    files = [p for p in folder.iterdir() if p.suffix in (".soma", ".toml")]
    assert len(done) + len(errors) == len(files)  # yass-counts.toml is no puzzle: an error
    assert proc.returncode == (2 if errors else 0)
    by_name = {d["file"].rsplit("/", 1)[-1].removesuffix(".soma"): d for d in done}
    yass = tomllib.loads((folder / "yass-counts.toml").read_text())["counts"]
    agree = [name for name, d in by_name.items() if yass.get(name) == d["up_to_symmetry"]]
    assert by_name["003_dog"]["up_to_symmetry"] == 10
    assert len(agree) >= 136  # every single-part figure, and some multi-part ones
