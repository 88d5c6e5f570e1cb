"""`attncalc plot` keeps matplotlib to itself: its configuration and font cache in a temporary folder of
attncalc's (MPLCONFIGDIR, removed afterwards), nothing on standard error but the "wrote" line, nothing
written outside -o; and numpy's overflow warnings from writing out a step (attncalc/render/expand.py)
become attncalc's own handling: the line stops before a sum past the largest double."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from attncalc.derivation import Norm
from attncalc.render import expand

from ..helpers import PROBLEMS, run_cli

pytest.importorskip("matplotlib")


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def test_a_first_plot_writes_nothing_but_its_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A home with no matplotlib cache: matplotlib built its font cache there and said so on stderr."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "XDG_CONFIG_HOME": str(home / ".config")}
    monkeypatch.delenv("MPLCONFIGDIR", raising=False)
    result = run_cli("plot", str(PROBLEMS / "decoder-dot.toml"), "-o", "w.svg", cwd=work, env=env, timeout=180)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "attncalc: wrote w.svg\n"
    assert _files(home) == set() and _files(work) == {"w.svg"}


def test_the_temporary_folder_is_removed(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    result = run_cli(
        "plot", str(PROBLEMS / "decoder-dot.toml"), "-o", str(tmp_path / "w.png"), env={"TMPDIR": str(tmp)}
    )
    assert result.returncode == 0, result.stderr
    assert _files(tmp) == set()


def _norm(arg: list[list[float]], value: list[float]) -> Norm:
    return Norm(id="norm", title="norm", formula="", latex="", symbol="n", value=np.array(value), arg=np.array(arg))


def test_a_sum_of_squares_past_the_largest_double_is_not_numpy_s_warning() -> None:
    """‖(1e160, 1e160)‖: its squares (1e320) pass the largest double; the line writes the squares and stops."""
    step = _norm([[1e160, 1e160]], [math.hypot(1e160, 1e160)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's RuntimeWarning would fail the test
        line = expand.rhs(step, (0,), 3)
    assert line is not None and line.startswith("√(") and line.endswith(")") and "=" not in line
    small = _norm([[3.0, 4.0]], [5.0])
    assert expand.rhs(small, (0,), 3) == "√(3² + 4²) = √25"  # 9 + 16, by hand


def test_solve_of_large_vectors_is_quiet(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(
        'kind = "similarity"\nmeasure = "cosine"\n[given]\nA = [[1e160, 1e160], [1, 0]]\nB = [[1, 1], [0, 2]]\n'
    )
    result = run_cli("solve", str(f))
    assert result.returncode == 0 and "Warning" not in result.stderr, result.stderr
