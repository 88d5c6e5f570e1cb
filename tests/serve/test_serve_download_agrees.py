"""The practice page grades what its download writes: whatever text is typed (Unicode digits,
control characters, exponents, huge numbers) or sent as JSON, the downloaded answers file is valid
TOML that reads back to the very text sent, and ``attncalc check`` of it gives the page's verdicts;
an entry the page cannot read (``weights[01]``, ``weights[-1]``) is said, never dropped.

The verdicts compared are the page's own (the form's marked steps, the JSON route's report) and
``attncalc.api.check`` of the downloaded file: two readings of one answer, neither pasted in."""

from __future__ import annotations

import html
import itertools
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attncalc.check.report import points_text

from ..helpers import PROBLEMS, solve_file
from ..serve_support import examples_client, verdicts  # skips without the serve extra

PROBLEM = "decoder-dot"
D = solve_file(f"{PROBLEM}.toml")
NUMBERS = {s.id: k for k, s in enumerate(D.steps, 1)}
# the form's fields of decoder-dot (a vector, one number, a label), and names the page never writes
GOOD_FIELDS = ["scores[0]", "scores[2]", "weights[0]", "weights[1]", "exp_sum", "context[1]", "prediction"]
ODD_FIELDS = ["weights[01]", "weights[-1]", "weights[1][2]", "exp_sum[0]", "weights", "weights[٣]", "nope[0]"]
HOSTILE_TEXT = [
    "1.7E+1",  # 17.496 to 0 decimals: e-notation keeps what it shows
    "1.7496e1",
    "0.١٥٥",  # Arabic-Indic digits
    "0.155\x7f",  # DEL
    "\x00",
    "0.\u0085155",
    "1e308",
    "-1e308",
    "9" * 40,
    "1" + "0" * 19,  # past TOML's whole numbers
    "-0",
    "0.4220",
    "17",
    "1/3",
    "?",
    "",
    '"',
    "\\",
    "B",
    "b",
    "0,155",
    "−0.5",
    "nan",
    "inf",
]
TEXT = (
    st.sampled_from(HOSTILE_TEXT)
    | st.text(max_size=14)
    | st.from_regex(r"-?[0-9]{1,20}(\.[0-9]{0,20})?(e-?[0-9]{1,3})?", fullmatch=True)
)


def _post_form(c: Any, route: str, pairs: list[tuple[str, str]], problem: str = PROBLEM) -> Any:
    """A form as a browser sends it (the same name may come twice, in order)."""
    from urllib.parse import urlencode

    body = urlencode(pairs).encode()
    return c.post(
        f"/problems/{problem}/{route}", content=body, headers={"content-type": "application/x-www-form-urlencoded"}
    )


def _file_verdicts(tmp: Path, text: str, problem: str = PROBLEM) -> dict[str, str]:
    from attncalc.api import check

    saved = tmp / "mine.toml"
    saved.write_text(text, encoding="utf-8")
    report = check(str(PROBLEMS / f"{problem}.toml"), str(saved))
    return {r.id: r.verdict for r in report.results}


def _read_back(text: str) -> dict[str, Any]:
    """The downloaded file as any TOML reader reads it, each bare number as its literal text."""

    def texts(x: Any) -> Any:
        return [texts(v) for v in x] if isinstance(x, list) else str(x) if isinstance(x, int) else x

    return {k: texts(v) for k, v in tomllib.loads(text, parse_float=str).items()}


def _entry(raw: dict[str, Any], name: str) -> Any:
    m = re.fullmatch(r"([A-Za-z0-9_.\-]+?)((?:\[\d+\])*)", name)
    assert m is not None
    x: Any = raw.get(m.group(1))
    for i in re.findall(r"\[(\d+)\]", m.group(2)):
        x = x[int(i)] if isinstance(x, list) else None
    return str(x) if isinstance(x, int) else x


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    fields=st.lists(st.tuples(st.sampled_from(GOOD_FIELDS + ODD_FIELDS), TEXT), min_size=1, max_size=5),
)
def test_the_form_grades_what_it_downloads(fields: list[tuple[str, str]], tmp_path: Path) -> None:
    _form_agrees(PROBLEM, NUMBERS, ODD_FIELDS, fields, tmp_path)


BPE = "bpe-first-tie"
BPE_NUMBERS = {s.id: k for k, s in enumerate(solve_file(f"{BPE}.toml").steps, 1)}
BPE_FIELDS = ["1.pairs[0]", "1.pairs[9]", "1.merge", "1.words", "2.merge", "merges", "vocab", "encode.1"]
BPE_ODD = ["1.pairs[00]", "1.merge[0]", "words", "1.pairs[1][1]"]
TOKENS = st.sampled_from(
    [
        "e s",
        " e  s ",
        "es t",
        "e,s",
        "l o w </w>, l o w e r </w>, w i d es t </w>, n e w es t </w>",
        "ne w est</w>",
        "ne,w,est</w>",
        "es, est, est</w>, lo, low, ne",
        "e s, es t, est </w>, l o, lo w, n e",
        "9",
        "7",
    ]
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(fields=st.lists(st.tuples(st.sampled_from(BPE_FIELDS + BPE_ODD), TOKENS | TEXT), min_size=1, max_size=4))
def test_the_form_grades_tokens_as_it_downloads_them(fields: list[tuple[str, str]], tmp_path: Path) -> None:
    """The same of a bpe problem: counts, pairs, lists of tokens (a comma in a token's text escaped)."""
    _form_agrees(BPE, BPE_NUMBERS, BPE_ODD, fields, tmp_path)


def _form_agrees(
    problem: str, numbers: dict[str, int], odd_fields: list[str], fields: list[tuple[str, str]], tmp_path: Path
) -> None:
    c = examples_client()
    page = _post_form(c, "check", [*fields, ("action", "check")], problem)
    download = _post_form(c, "answers.toml", fields, problem)
    assert page.status_code in (200, 422) and download.status_code in (200, 422), (page.text[:500], download.text[:500])
    is_file = download.headers["content-type"].startswith("application/toml")
    shown = html.unescape(page.text)
    odd = [(n, t) for n, t in fields if n in odd_fields]
    if odd:  # a field the page never writes is named, and nothing is graded or downloaded
        assert page.status_code == 422 and download.status_code == 422 and not is_file
        for name, _ in odd:
            assert repr(name) in shown, name
        assert not verdicts(page.text)
        return
    if not is_file:  # nothing typed, or an entry check cannot read: the page says so, and grades nothing
        assert not verdicts(page.text)
        assert ("Type at least one answer" in shown) or page.status_code == 422
        assert download.status_code == page.status_code
        return
    assert page.status_code == 200
    text = download.content.decode("utf-8")
    raw = _read_back(text)  # valid TOML, or this raises
    for name, typed in dict(fields).items():
        kept = typed.strip()
        if kept and kept != "?":
            assert _entry(raw, name) == kept, (name, typed, text)
    expected = {numbers[k]: v for k, v in _file_verdicts(tmp_path, text, problem).items()}
    assert verdicts(page.text) == expected, text


JSON_ENTRY = TEXT | st.integers(-(10**30), 10**30) | st.decimals(allow_nan=False, allow_infinity=False, places=None)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    answers=st.fixed_dictionaries(
        {},
        optional={
            "scores": st.lists(JSON_ENTRY, min_size=3, max_size=3),
            "exp_sum": JSON_ENTRY,
            "weights": st.lists(JSON_ENTRY, min_size=2, max_size=4),
            "prediction": TEXT,
        },
    )
)
def test_the_json_route_grades_what_it_downloads(answers: dict[str, Any], tmp_path: Path) -> None:
    import json

    # written by hand so that a Decimal keeps its digits and exponent in the JSON (1.7E+1, not 17.0)
    body = json.dumps({"answers": _jsonable(answers)}).replace('"@@D:', "").replace(':D@@"', "")
    c = examples_client()
    headers = {"content-type": "application/json"}
    report = c.post(f"/problems/{PROBLEM}/check", content=body.encode(), headers=headers)
    download = c.post(f"/problems/{PROBLEM}/answers.toml", content=body.encode(), headers=headers)
    assert report.status_code == download.status_code, (report.text[:300], download.text[:300])
    if report.status_code == 422:
        assert report.json()["error"] == download.json()["error"]
        return
    assert report.status_code == 200
    text = download.content.decode("utf-8")
    _read_back(text)
    page = {r["id"]: r["verdict"] for r in report.json()["results"]}
    assert page == _file_verdicts(tmp_path, text), text


def _jsonable(x: Any) -> Any:
    from decimal import Decimal

    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_jsonable(v) for v in x]
    if isinstance(x, Decimal):
        return "@@D:" + str(x) + ":D@@"  # the number's own text, unquoted by the caller
    return x


# ------------------------------------------------------------------------------ the cases the hostile round found


def test_an_e_notation_number_in_json_downloads_as_written(tmp_path: Path) -> None:
    """{"exp_sum": 1.7E+1}: Z = e + 2e² = 17.496…, which is 17 to the 0 decimals 1.7E+1 shows: correct
    on the page and in the file alike (the file used to say 17, judged at 3 decimals: wrong)."""
    c = examples_client()
    body = b'{"answers": {"exp_sum": 1.7E+1}}'
    headers = {"content-type": "application/json"}
    page = c.post(f"/problems/{PROBLEM}/check", content=body, headers=headers).json()
    text = c.post(f"/problems/{PROBLEM}/answers.toml", content=body, headers=headers).text
    assert '"exp_sum" = "1.7e+1"' in text
    assert page["results"][0]["verdict"] == _file_verdicts(tmp_path, text)["exp_sum"] == "correct"


@pytest.mark.parametrize("typed", ["0.١٥٥", "0.155\x7f", "1e308", "\x00", "a\u2028b"])
def test_hostile_text_downloads_as_valid_toml_that_check_grades_as_the_page(typed: str, tmp_path: Path) -> None:
    c = examples_client()
    fields = {"weights[0]": typed, "scores[0]": "1"}
    page = c.post(f"/problems/{PROBLEM}/check", data={**fields, "action": "check"})
    download = c.post(f"/problems/{PROBLEM}/answers.toml", data=fields)
    if download.headers["content-type"].startswith("application/toml"):
        raw = _read_back(download.text)
        assert raw["weights"][0] == typed and raw["scores"][0] == "1"
        assert verdicts(page.text) == {NUMBERS[k]: v for k, v in _file_verdicts(tmp_path, download.text).items()}
    else:  # not a number check reads: the same message at the field on both
        assert page.status_code == download.status_code == 422
        assert 'aria-invalid="true"' in page.text and 'aria-invalid="true"' in download.text


def test_an_odd_index_is_said_at_the_top_and_the_typed_fields_are_kept() -> None:
    c = examples_client()
    page = c.post(f"/problems/{PROBLEM}/check", data={"weights[01]": "0.422", "weights[0]": "0.155", "action": "check"})
    assert page.status_code == 422
    text = html.unescape(page.text)
    assert "'weights[01]' is not an entry of step weights (its fields are weights[0] to weights[2])" in text
    assert 'name="weights[0]" value="0.155"' in page.text


def test_an_entry_typed_twice_differently_is_said() -> None:
    page = _post_form(examples_client(), "check", [("exp_sum", "17.496"), ("exp_sum", "17.5"), ("action", "check")])
    assert page.status_code == 422 and "typed twice" in html.unescape(page.text)


def test_a_bidirectional_override_is_written_escaped_and_reads_back_the_same(tmp_path: Path) -> None:
    """A label answered with U+202E (right-to-left override) raw in the file reordered the line in the
    TA's editor or terminal; it is written \\u202E, and the file reads back as the text sent, graded as
    on the page."""
    c = examples_client()
    typed = "A\u202eB\u2066"
    body = {"answers": {"prediction": typed}}
    page = c.post(f"/problems/{PROBLEM}/check", json=body).json()
    text = c.post(f"/problems/{PROBLEM}/answers.toml", json=body).text
    assert "\u202e" not in text and "\u2066" not in text and '"prediction" = "A\\u202EB\\u2066"' in text
    assert _read_back(text)["prediction"] == typed
    verdict = next(r["verdict"] for r in page["results"] if r["id"] == "prediction")
    assert verdict == _file_verdicts(tmp_path, text)["prediction"] == "wrong"


# ------------------------------------------------------------------------------ a bpe pair table at the page's size


def _hand_pairs(words: list[tuple[list[str], int]]) -> list[tuple[str, int]]:
    """The adjacent pairs of segmented words with their counts (each word weighted by how often the
    corpus has it), in the order the pairs first occur: counted here, not by attncalc."""
    counts: dict[str, int] = {}
    for symbols, n in words:
        for a, b in itertools.pairwise(symbols):
            counts[f"{a} {b}"] = counts.get(f"{a} {b}", 0) + n
    return list(counts.items())


# CS336's corpus: low 5, lower 2, widest 3, newest 6; merge 1 is s t (9, the greater of the 9s)
CS336_WORDS = [("low", 5), ("lower", 2), ("widest", 3), ("newest", 6)]
MERGE_1 = _hand_pairs([(list(w), n) for w, n in CS336_WORDS])
AFTER_1 = [
    (["l", "o", "w"], 5),
    (["l", "o", "w", "e", "r"], 2),
    (["w", "i", "d", "e", "st"], 3),
    (["n", "e", "w", "e", "st"], 6),
]
MERGE_2 = _hand_pairs(AFTER_1)
CS336_PLACES = sum(len(w) - 1 for w, _ in CS336_WORDS)  # a pair table's fields after merge 1
EXTRAS = ["", "?", " ", " ? ", "?", ""]  # what a student leaves past their last pair


def _check_cli(tmp: Path, text: str) -> tuple[int, dict[str, Any]]:
    """``attncalc check bpe-cs336.toml FILE --format json`` of a downloaded file, as a TA runs it."""
    import json

    from typer.testing import CliRunner

    from attncalc.cli import app

    saved = tmp / "download.toml"
    saved.write_text(text, encoding="utf-8")
    out = CliRunner().invoke(app, ["check", str(PROBLEMS / "bpe-cs336.toml"), str(saved), "--format", "json"])
    return out.exit_code, json.loads(out.stdout)


def test_a_pair_table_downloads_and_checks_at_the_pages_size(tmp_path: Path) -> None:
    """Merge 2's table has 16 fields on the page (the corpus's adjacent places) and 10 true pairs; a
    student fills the 10 (one count off) and leaves the other 6 empty or "?". The download writes all
    16 (the 6 as "?": the file does not say how many pairs there are), and ``attncalc check`` of it
    gives the page's verdicts and score; the JSON route takes the same 16-entry layout, with the report
    check gives the file, and the same grades as the 10 alone (no credit lost or given)."""
    assert len(MERGE_1) == 11 and len(MERGE_2) == 10 and CS336_PLACES == 16
    c = examples_client()
    page_fields = re.findall(r'name="2\.pairs\[(\d+)\]"', c.get("/problems/bpe-cs336").text)
    assert len(page_fields) == CS336_PLACES
    counts = [n for _, n in MERGE_2]
    counts[3] += 3  # e r: 5, not 2
    form = [(f"1.pairs[{i}]", str(n)) for i, (_, n) in enumerate(MERGE_1)]
    form += [("1.merge", "s t"), ("1.words", "l o w, l o w e r, w i d e st, n e w e st")]
    form += [(f"2.pairs[{i}]", str(n)) for i, n in enumerate(counts)]
    form += [(f"2.pairs[{len(counts) + k}]", x) for k, x in enumerate(EXTRAS)]
    page = _post_form(c, "check", [*form, ("action", "check")], "bpe-cs336")
    download = _post_form(c, "answers.toml", form, "bpe-cs336")
    assert page.status_code == 200 and download.status_code == 200, (page.text[:300], download.text[:300])
    raw = _read_back(download.text)
    assert raw["2.pairs"] == [str(n) for n in counts] + ["?"] * len(EXTRAS)
    assert len(raw["1.pairs"]) == len(MERGE_1)  # merge 1's table: the corpus gives its pairs
    code, report = _check_cli(tmp_path, download.text)
    assert code == 1  # a wrong step
    numbers = {s.id: k for k, s in enumerate(solve_file("bpe-cs336.toml").steps, 1)}
    by_cli = {numbers[r["id"]]: r["verdict"] for r in report["results"]}
    assert verdicts(page.text) == by_cli
    assert by_cli[numbers["2.pairs"]] == "wrong" and by_cli[numbers["1.pairs"]] == "correct"
    pairs_2 = next(r for r in report["results"] if r["id"] == "2.pairs")
    assert pairs_2["expected"] == [n for _, n in MERGE_2]
    # the page writes points as check's text view does (two decimals at most: 15/16 of a step is 0.94)
    shown = f"{points_text(report['score']['points'])} / {points_text(report['score']['out_of'])}"
    assert shown in html.unescape(page.text)

    padded = {"2.pairs": [*counts, *["?"] * len(EXTRAS)], "1.merge": "s t"}
    by_json = c.post("/problems/bpe-cs336/check", json={"answers": padded})
    assert by_json.status_code == 200, by_json.text
    as_file = c.post("/problems/bpe-cs336/answers.toml", json={"answers": padded}).text
    assert _check_cli(tmp_path, as_file)[1] == by_json.json()
    true_length = c.post("/problems/bpe-cs336/check", json={"answers": {**padded, "2.pairs": counts}}).json()
    assert true_length == by_json.json()


def test_a_count_past_the_pairs_is_refused_alike_by_the_page_the_json_route_and_check(tmp_path: Path) -> None:
    """An 11th count for merge 2 (CS336 has 10 pairs after s t): the page marks 2.pairs[10]; the JSON
    route and ``attncalc check`` of a file name the same entry (entry 11) with the same words, exit 2."""
    c = examples_client()
    counts = [str(n) for _, n in MERGE_2] + ["4"] + ["?"] * 5
    page = c.post(
        "/problems/bpe-cs336/check", data={**{f"2.pairs[{i}]": x for i, x in enumerate(counts)}, "action": "check"}
    )
    said = "past the last pair: the words after merge 1 have fewer distinct pairs than this"
    assert page.status_code == 422 and said in html.unescape(page.text) and "2.pairs[10]" in page.text
    by_json = c.post("/problems/bpe-cs336/check", json={"answers": {"2.pairs": counts}})
    assert by_json.status_code == 422 and by_json.json()["error"].startswith(f"<answers>: 2.pairs: entry 11: {said}")
    (tmp_path / "mine.toml").write_text('"2.pairs" = [' + ", ".join(f'"{x}"' for x in counts) + "]\n")
    from typer.testing import CliRunner

    from attncalc.cli import app

    out = CliRunner().invoke(app, ["check", str(PROBLEMS / "bpe-cs336.toml"), str(tmp_path / "mine.toml")])
    assert out.exit_code == 2 and f"2.pairs: entry 11: {said}" in out.output and "Traceback" not in out.output


@pytest.mark.parametrize(
    ("char", "escape"),
    [
        ("\u061c", "\\u061C"),  # ARABIC LETTER MARK: a bidirectional mark, written raw before
        ("\u200b", "\\u200B"),  # zero width space
        ("\ufeff", "\\uFEFF"),
        ("\u00ad", "\\u00AD"),  # soft hyphen
        ("\U000e0041", "\\U000E0041"),  # a tag character, above U+FFFF
        ("\u3000", "\\u3000"),  # ideographic space
        ("\u00a0", "\\u00A0"),  # no-break space
    ],
)
def test_a_character_that_is_not_printable_text_is_written_escaped(char: str, escape: str) -> None:
    """Every character that is not printable text is written as TOML's escape (by hand from TOML's
    spec: \\uXXXX, or \\UXXXXXXXX above U+FFFF), and the file reads back as the text sent."""
    c = examples_client()
    typed = f"A{char}B"
    body = {"answers": {"prediction": typed}}
    text = c.post(f"/problems/{PROBLEM}/answers.toml", json=body).text
    assert char not in text and f'"prediction" = "A{escape}B"' in text
    assert _read_back(text)["prediction"] == typed
