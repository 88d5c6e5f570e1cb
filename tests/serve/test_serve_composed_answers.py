"""The practice page reads typed text composed (Unicode NFC), as ``attncalc check`` reads an answers
file: its 200-character limit on a field counts the composed text, so a label the problem writes in
150 characters ("é" written as "e" and a combining accent: 300 code points) is taken by the form and
the JSON route as check takes it, and the download holds the composed text, graded the same by check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..serve_support import client, verdicts

DECOMPOSED = "e\u0301"  # "é" as two code points
COMPOSED = "\u00e9"


def _problem(tmp_path: Path, label: str) -> Path:
    """decoder-dot's numbers with a two-label vocabulary; s + c = [1, 1] + [0.577.., 1.267..] gives
    logits z = u (W_out the identity), so the second label is the prediction (by hand)."""
    problem = tmp_path / "p.toml"
    problem.write_text(
        'kind = "attention"\nscore = "dot"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2], [1, 1]]\n'
        f'[head]\ncombine = "add"\nW_out = [[1, 0], [0, 1]]\nvocab = ["A", "{label}"]\n',
        encoding="utf-8",
    )
    return problem


def _graded_by_check(cli: Any, problem: Path, text: str, tmp_path: Path) -> dict[str, str]:
    saved = tmp_path / "answers.toml"
    saved.write_text(text, encoding="utf-8")
    result = cli("check", str(problem), str(saved), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return {r["id"]: r["verdict"] for r in json.loads(result.stdout)["results"]}


@pytest.mark.parametrize("typed", [DECOMPOSED * 150, COMPOSED * 150])
def test_a_label_of_150_composed_characters_is_taken_by_the_json_route(cli: Any, tmp_path: Path, typed: str) -> None:
    problem = _problem(tmp_path, COMPOSED * 150)
    c = client([str(problem)])
    r = c.post("/problems/p/check", json={"answers": {"prediction": typed}})
    assert r.status_code == 200, r.text
    assert {x["id"]: x["verdict"] for x in r.json()["results"]} == {"prediction": "correct"}
    download = c.post("/problems/p/answers.toml", json={"answers": {"prediction": typed}})
    assert download.status_code == 200, download.text
    assert f'"prediction" = "{COMPOSED * 150}"' in download.text and DECOMPOSED not in download.text
    assert _graded_by_check(cli, problem, download.text, tmp_path) == {"prediction": "correct"}


def test_a_label_of_150_composed_characters_is_taken_by_the_form(cli: Any, tmp_path: Path) -> None:
    problem = _problem(tmp_path, DECOMPOSED * 150)  # (check reads the problem's label composed too)
    c = client([str(problem)])
    typed = DECOMPOSED * 150
    page = c.post("/problems/p/check", data={"prediction": typed, "action": "check", "reveal": "0"})
    assert page.status_code == 200 and "more than 200 characters" not in page.text
    assert "correct" in verdicts(page.text).values()
    download = c.post("/problems/p/answers.toml", data={"prediction": typed, "reveal": "0"})
    assert download.status_code == 200, download.text[:300]
    assert f'"prediction" = "{COMPOSED * 150}"' in download.text and DECOMPOSED not in download.text
    assert _graded_by_check(cli, problem, download.text, tmp_path) == {"prediction": "correct"}


def test_check_takes_the_same_label_from_an_answers_file(cli: Any, tmp_path: Path) -> None:
    """The agreement the page keeps: check reads the decomposed label written in a file, composed."""
    problem = _problem(tmp_path, COMPOSED * 150)
    text = f'prediction = "{DECOMPOSED * 150}"\n'
    assert _graded_by_check(cli, problem, text, tmp_path) == {"prediction": "correct"}


def test_over_200_composed_characters_is_still_refused(tmp_path: Path) -> None:
    c = client([str(_problem(tmp_path, "B"))])
    typed = DECOMPOSED * 201
    r = c.post("/problems/p/check", json={"answers": {"prediction": typed}})
    assert r.status_code == 422 and "more than 200 characters" in r.json()["error"]
    page = c.post("/problems/p/check", data={"prediction": typed, "action": "check", "reveal": "0"})
    assert page.status_code == 422 and "more than 200 characters" in page.text
