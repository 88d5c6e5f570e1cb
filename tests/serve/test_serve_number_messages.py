"""The practice page refuses an answer that is no number with check's true reason: `1/3**1000` is too
small (not "too large"), `ln(0)` is undefined (not a negative number's logarithm)."""

from __future__ import annotations

import html

import pytest

from ..serve_support import examples_client  # skips without the serve extra


@pytest.mark.parametrize(
    ("typed", "words", "not_words"),
    [
        ("1/3**1000", "1/3**1000 is too small to hold as a number", "too large"),
        ("ln(0)", "ln(0) is undefined", "negative"),
    ],
)
def test_the_form_and_json_give_the_true_reason(typed: str, words: str, not_words: str) -> None:
    page = examples_client().post(
        "/problems/decoder-dot/check",
        data={"scores[0]": typed, "scores[1]": "2", "scores[2]": "2", "action": "check"},
    )
    assert page.status_code == 422
    text = html.unescape(page.text)
    assert f"entry 1: {words}" in text and not_words not in text.split("entry 1: ", 1)[1].split("</span>", 1)[0]
    reply = examples_client().post("/problems/decoder-dot/check", json={"answers": {"scores": [typed, 2, 2]}})
    assert reply.status_code == 422
    assert words in reply.json()["error"] and not_words not in reply.json()["error"]
