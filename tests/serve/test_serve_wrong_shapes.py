"""An answer of another shape than its step is refused for its shape before any of its entries is read,
by the JSON route and the form alike, with the message it always had: 140,000 entries "1/3" for a step
of 3 took 1.5 to 2 s of the grading thread to read, one by one, before being refused. And a form with
more fields than the problem's page has is refused counted, before any field is read. No timings:
the entry reader's calls are counted."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ..helpers import PROBLEMS
from ..serve_support import client

DOT = "decoder-dot"  # three tokens: scores, exponentials and weights have 3 entries each (by hand)
JSON = {"content-type": "application/json"}


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every entry read: the number grammar's reader, and the decimals an entry is written to."""
    from attncalc.check import answers

    calls: list[Any] = []
    parse, decimals = answers.parse_number, answers._decimals_of

    def counted_parse(x: Any) -> Any:
        calls.append(x)
        return parse(x)

    def counted_decimals(x: Any, default: int) -> int:
        calls.append(x)
        return decimals(x, default)

    monkeypatch.setattr(answers, "parse_number", counted_parse)
    monkeypatch.setattr(answers, "_decimals_of", counted_decimals)
    return calls


def _c() -> Any:
    return client([str(PROBLEMS / f"{DOT}.toml")])


@pytest.mark.parametrize("route", ["check", "answers.toml"])
@pytest.mark.parametrize(
    ("answer", "shape"),
    [
        (["1/3"] * 20_000, "a list of 20000 numbers"),
        ([1] * 20_000, "a list of 20000 numbers"),
        (["exp(1)"] * 5_000, "a list of 5000 numbers"),
        ([["1/3"] * 100] * 200, "a 200×100 matrix"),
    ],
)
def test_an_answer_of_another_shape_is_refused_unread(reads: list[Any], route: str, answer: Any, shape: str) -> None:
    r = _c().post(f"/problems/{DOT}/{route}", json={"answers": {"scores": answer}})
    assert r.status_code == 422
    assert r.json() == {"error": f"<answers>: scores: expected a list of 3 numbers, got {shape}"}
    assert len(reads) <= 3  # at most the step's entries: none of the answer's 20,000 read


def test_a_right_answer_beside_one_of_another_shape_is_read_and_the_shape_refused(reads: list[Any]) -> None:
    """exp_sum (one number) read; scores refused for its shape, its entries unread."""
    body = {"answers": {"exp_sum": "17.496", "scores": ["1/3"] * 10_000}}
    r = _c().post(f"/problems/{DOT}/check", json=body)
    assert r.status_code == 422 and r.json()["error"].endswith(
        "expected a list of 3 numbers, got a list of 10000 numbers"
    )
    assert len(reads) <= 1 + 3


def test_a_list_of_question_marks_of_another_shape_is_an_answer_left_out(reads: list[Any]) -> None:
    """Every entry "?" is not answered, whatever its length, as check reads it: the other answer is
    graded (exp_sum = e^1 + e^2 + e^2, the scores 1, 2, 2 by hand: 17.496) and the "?" are never read."""
    import math

    exp_sum = f"{math.e + 2 * math.e**2:.3f}"
    body = {"answers": {"exp_sum": exp_sum, "scores": ["?"] * 50_000}}
    r = _c().post(f"/problems/{DOT}/check", json=body)
    assert r.status_code == 200
    assert [(x["id"], x["verdict"]) for x in r.json()["results"]] == [("exp_sum", "correct")]
    assert "scores" in r.json()["unanswered"]
    assert len(reads) <= 4


def _page_fields(c: Any) -> int:
    """The answer fields the page's form has, counted in the page itself."""
    page = c.get(f"/problems/{DOT}").text
    return len(set(re.findall(r'<input id="[^"]*" name="([^"]+)"', page)))


@pytest.mark.parametrize("route", ["check", "answers.toml"])
def test_a_form_with_more_fields_than_the_page_is_refused_before_any_is_read(
    reads: list[Any], monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    from attncalc.serve import answers as form

    c = _c()
    n = _page_fields(c)
    seen: list[int] = []
    typed = form.typed_from_form
    monkeypatch.setattr(form, "typed_from_form", lambda pairs, d: seen.append(1) or typed(pairs, d))
    own = "action=check&reveal=0&checked=0"
    fields = "&".join(f"scores%5B{i}%5D=1%2F3" for i in range(n + 1))  # one more than the page has
    r = c.post(
        f"/problems/{DOT}/{route}",
        content=f"{fields}&{own}",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 413
    assert r.text == f"More than {n + 3} fields: this problem's page has {n} answer fields.\n"
    assert seen == [] and reads == []
    # the page's own fields, every one of them: read (and graded)
    every = "&".join(
        f"{name}="
        for name in sorted(set(re.findall(r'<input id="[^"]*" name="([^"]+)"', c.get(f"/problems/{DOT}").text)))
    )
    full = c.post(
        f"/problems/{DOT}/check",
        content=f"{every}&{own}",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert full.status_code == 200 and seen == [1]


def test_a_form_of_fields_the_page_does_not_have_is_422_each_named_unread(reads: list[Any]) -> None:
    """Within the page's count, fields past a step's entries are each named (as before), nothing read."""
    c = _c()
    data = {f"scores[{i}]": "1/3" for i in range(6)} | {"action": "check", "reveal": "0"}
    r = c.post(f"/problems/{DOT}/check", data=data)
    assert r.status_code == 422
    for i in (3, 4, 5):
        assert f"&#39;scores[{i}]&#39; is not an entry of step scores (its fields are scores[0] to scores[2])" in r.text
    assert reads == []
