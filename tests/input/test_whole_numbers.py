"""A whole-number key written with an exponent: TOML reads 1.4e12 as a float, but it is a whole number as
written (Chinchilla's 1.4e12 training tokens, 70e9 parameters), so it is read as one; a fraction, or an
exponent past any count (1e999999999), is still refused in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from attncalc.errors import ProblemError
from attncalc.parse import load_problem


def _write(tmp_path: Path, given: str) -> Path:
    path = tmp_path / "p.toml"
    path.write_text(f'kind = "accounting"\n[given]\n{given}\n', encoding="utf-8")
    return path


def test_chinchilla_written_with_exponents_is_read_exactly(tmp_path: Path) -> None:
    from attncalc.mechanisms import solve

    d = solve(load_problem(str(_write(tmp_path, "parameters = 70e9\ntraining_tokens = 1.4e12"))))
    # Hoffmann et al. 2022: C = 6 N D with N = 70e9, D = 1.4e12, as integers
    assert int(d["flops.training_total"]) == 6 * 70 * 10**9 * 14 * 10**11 == 588 * 10**21


def test_an_exponent_and_the_digits_give_the_same_problem(tmp_path: Path) -> None:
    a = load_problem(str(_write(tmp_path, "parameters = 70e9\ntraining_tokens = 1.4e12")))
    b = load_problem(str(_write(tmp_path, "parameters = 70_000_000_000\ntraining_tokens = 1_400_000_000_000")))
    assert a.data == b.data


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("parameters = 70.5e0\ntraining_tokens = 10", "expected a whole number, got the number 70.5"),
        ("parameters = 1e999999999\ntraining_tokens = 10", "expected a whole number"),
        ("parameters = 1.5\ntraining_tokens = 10", "expected a whole number, got the number 1.5"),
    ],
)
def test_a_fraction_or_an_endless_exponent_is_still_refused(tmp_path: Path, given: str, said: str) -> None:
    with pytest.raises(ProblemError, match=said):
        load_problem(str(_write(tmp_path, given)))


def test_the_cli_reads_the_exponent_form(tmp_path: Path) -> None:
    path = _write(tmp_path, "parameters = 70e9\ntraining_tokens = 1.4e12")
    run = subprocess.run([sys.executable, "-m", "attncalc", "solve", str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "588,000,000,000,000,000,000,000" in run.stdout
