"""JSON answers posted to `attncalc serve` are read by attncalc's own JSON reader
(attncalc.parse.formats.read_json): Python's own error texts never reach the user."""

from __future__ import annotations

from ..serve_support import examples_client  # skips without the serve extra


def post(body: bytes) -> tuple[int, str]:
    r = examples_client().post(
        "/problems/decoder-dot/check", content=body, headers={"content-type": "application/json"}
    )
    return r.status_code, r.json()["error"] if r.status_code == 422 else r.text


def test_a_5000_digit_integer_is_named_by_its_field() -> None:
    """Was 422 "Exceeds the limit (4300 digits) ... use sys.set_int_max_str_digits()"."""
    status, error = post(b'{"answers": {"scores": [' + b"9" * 5000 + b", 2, 2]}}")
    assert status == 422 and "set_int_max_str_digits" not in error
    assert error.startswith("<answers>: scores: entry 1:") and "digits" in error


def test_a_100000_deep_array_is_one_line() -> None:
    """Was 422 "maximum recursion depth exceeded while decoding a JSON array from a unicode string"."""
    status, error = post(b'{"answers": {"scores": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}")
    assert status == 422 and "recursion" not in error
    assert error == "<request>: is nested too deeply (more than 20 levels of tables and lists)"


def test_nan_is_still_refused_and_a_bom_is_read() -> None:
    status, error = post(b'{"answers": {"scores": [NaN, 2, 2]}}')
    assert status == 422 and error == "<request>: not JSON: NaN is not a number an answer can be"
    status, _ = post('\ufeff{"answers": {"scores": [1, 2, 2]}}'.encode())
    assert status == 200


def test_a_format_error_on_a_tokens_step_gives_no_answer_away() -> None:
    """Was 422 "expected a vocabulary label such as 'low, low e r, w i d est, ne west'": the true words
    after CS336's six merges (s t, e st, o w, l ow, w est, n e, by hand from the handout)."""
    r = examples_client().post(
        "/problems/bpe-cs336/check",
        content=b'{"answers": {"6.words": [["zzz", 5]]}}',  # ([["zzz"]], one word's tokens, is taken: graded)
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422
    error = r.json()["error"]
    assert error.startswith("<answers>: 6.words: expected tokens"), error
    said = error.split(": ", 2)[2]  # (after "<answers>: 6.words: ")
    for piece in ("low", "est", "ne west", "w i d"):  # none of the true tokens
        assert piece not in said, error
