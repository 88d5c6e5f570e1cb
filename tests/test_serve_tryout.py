"""Defects a new user's tryout of `attncalc serve` found (issue 27's follow-up), each pinned."""

from __future__ import annotations

import json

import pytest

from .serve_support import examples_client  # skips without the serve extra

ROUTES = ["/problems/decoder-dot/check", "/problems/decoder-dot/answers.toml"]
JSON = {"content-type": "application/json"}
FORM = {"content-type": "application/x-www-form-urlencoded"}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("text", ["\\ud800", "A\\udfff", "\\udfff\\ud800"])
def test_a_lone_surrogate_in_json_is_422_naming_the_field(route: str, text: str) -> None:
    """A JSON string escape that is no Unicode character (a lone surrogate) cannot be graded or
    written to an answers file: 422 naming the step, never a 500."""
    body = b'{"answers":{"prediction":"' + text.encode() + b'"}}'
    r = examples_client().post(route, content=body, headers=JSON)
    assert r.status_code == 422
    message = json.loads(r.text)["error"]
    assert "prediction" in message and "Unicode" in message


@pytest.mark.parametrize("route", ROUTES)
def test_a_lone_surrogate_in_a_json_step_id_or_a_row_is_422(route: str) -> None:
    c = examples_client()
    r = c.post(route, content=b'{"answers":{"\\ud800":"1"}}', headers=JSON)
    assert r.status_code == 422 and "step id" in json.loads(r.text)["error"]
    r = c.post(route, content=b'{"answers":{"weights":["0.5","\\ud800x"]}}', headers=JSON)
    assert r.status_code == 422 and "weights" in json.loads(r.text)["error"]


@pytest.mark.parametrize("route", ROUTES)
def test_a_form_field_that_is_not_utf8_is_422_naming_it(route: str) -> None:
    """Bytes that are not UTF-8 in a field are named, not silently graded (or written) as U+FFFD."""
    r = examples_client().post(route, content=b"prediction=%ED%A0%80&action=check", headers=FORM)
    assert r.status_code == 422
    assert "prediction: not UTF-8 text" in r.text and "\ufffd" not in r.text


@pytest.mark.parametrize("route", ROUTES)
def test_a_huge_json_integer_gets_attncalcs_message(route: str) -> None:
    body = b'{"answers":{"weights":[' + b"9" * 900_000 + b"]}}"
    r = examples_client().post(route, content=body, headers=JSON)
    assert r.status_code == 422
    message = json.loads(r.text)["error"]
    assert "900000 digits" in message and "sys.set_int_max_str_digits" not in message


def test_decode_beams_kept_candidates_say_which_score_is_written() -> None:
    """decode-beam ranks by score/lp (length_penalty = 0.6) but keeps the summed log-probability:
    the kept_beams step's title and formula say so, and not only "by the length-penalised score"."""
    import html
    import re

    page = html.unescape(examples_client().get("/problems/decode-beam").text)
    section = re.search(
        r'<section class="step[^"]*" id="step-\d+"[^>]*>(?:(?!</section>).)*kept_beams.*?</section>', page, re.S
    )
    assert section is not None
    text = re.sub(r"<[^>]+>", "", section.group(0))
    assert "summed log-probabilit" in text and "not score/lp" in text
