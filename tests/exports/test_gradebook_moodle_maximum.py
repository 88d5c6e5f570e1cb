"""`check --gradebook moodle`: a score above 100 points is said on standard error.

Moodle's grade import (grade/import/csv/classes/load_data.php, `insert_grade_record`, read for this test)
refuses a grade above 100, or above the site's `gradepointmax` where `unlimitedgrades` is on, and stops the
whole import there (`cleanup_import(get_string('gradevaluetoobig', ...))`). The hostile tryout 28 wrote a
159-point seq2seq problem's Moodle gradebook without a word: the import of the whole class would fail.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS

# decoder-dot's weights, softmax([1, 2, 2]) to 3 decimals by hand (exp 1 = 2.718, exp 2 = 7.389: 2.718 / 17.496)
RIGHT = "weights = [0.155, 0.422, 0.422]\n"


@pytest.mark.parametrize(("points", "noted"), [(40, False), (100, False), (101, True), (150, True)])
def test_a_score_above_100_is_noted_for_moodle(cli: Any, tmp_path: Path, points: int, noted: bool) -> None:
    problem = tmp_path / "p.toml"
    shutil.copy(PROBLEMS / "decoder-dot.toml", problem)
    with problem.open("a", encoding="utf-8") as f:  # the weights step alone worth POINTS
        f.write(f"\n[grading]\ndefault = 0\n[grading.points]\nweights = {points}\n")
    (tmp_path / "s1.toml").write_text(f'problem = "p.toml"\n{RIGHT}', encoding="utf-8")
    for layout in ("moodle", "canvas"):
        out = tmp_path / f"{layout}.csv"
        done = cli("check", str(tmp_path / "s1.toml"), "--format", "csv", "--gradebook", layout, "-o", str(out))
        assert done.exit_code == 0, done.output
        row = out.read_text(encoding="utf-8-sig").splitlines()[-1].split(",")
        assert row[1 if layout == "moodle" else -1] == str(points)  # the score, whole, as the LMS reads it
        notes = [line for line in done.stderr.splitlines() if "above 100" in line]
        if layout == "moodle" and noted:
            assert notes == [
                f"attncalc: note: 1 score is above 100 points (the highest, {points} of {points}, "
                "s1.toml): Moodle's grade import refuses a grade above 100 and stops the whole "
                "import there, unless the site allows more (Site administration > Grades > General settings: "
                "Unlimited grades, then Grade point maximum); else give the problem fewer points ([grading])"
            ]
        else:  # (Canvas has no such limit)
            assert notes == []
