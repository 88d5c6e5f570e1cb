"""Issue 26, the tryout of the second round's fixes: each case found there is bad input (one line
naming the file and the key, exit 2) or output that is right, never a traceback or a non-JSON number."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.helpers import one_line_refusal

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ a total over files past the largest double


def test_points_whose_sum_over_files_overflows_are_bad_input(cli: Any, tmp_path: Path) -> None:
    """Each file's total (its steps × 1.9e307) is finite, the sum
    over the files is not: `check -f json` printed `"out_of": Infinity`, which is not JSON."""
    problem = tmp_path / "gr2.toml"
    shutil.copy(ROOT / "problems" / "decoder-dot.toml", problem)
    with problem.open("a") as f:
        f.write("\n[grading]\ndefault = 1.9e307\n")
    steps = len(json.loads(cli("solve", str(problem), "-f", "json").stdout)["steps"])
    assert steps * 1.9e307 < 1.7976931348623157e308 < 2 * steps * 1.9e307  # one file finite, two not
    for name in ("gra.toml", "grb.toml"):
        (tmp_path / name).write_text("scores = [1,2,2]\n")
    files = [str(problem), str(tmp_path / "gra.toml"), str(tmp_path / "grb.toml")]
    for fmt in ("json", "text"):
        err = one_line_refusal(cli("check", *files, "-f", fmt), str(problem), "grading.default")
        assert "add up to more than the largest number" in err
    one = cli("check", *files[:2], "-f", "json")  # one file: finite, JSON that parses strictly
    json.loads(one.stdout, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
