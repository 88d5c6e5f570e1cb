"""`attncalc serve` at its edges: odd encodings in JSON and form fields, a comma for a decimal point, copy steps, a variant's title, the favicon."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS
from ..serve_support import examples_client  # skips without the serve extra

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


@pytest.mark.parametrize(
    ("problem", "step", "text"),
    [
        ("decoder-dot", "prediction", "\\ud800"),
        ("decoder-dot", "weights", "0.5\\udfff"),
        ("bpe-first-tie", "1.merge", "\\ud800 a"),
    ],
)
def test_a_lone_surrogate_is_said_by_the_route_as_check_says_it_of_a_json_file(
    cli: Any, tmp_path: Path, problem: str, step: str, text: str
) -> None:
    """The JSON route's error is the line `attncalc check` prints for the same answers in a JSON file
    (docs/interface.md: `{"error": LINE}`), naming them `<answers>`: check refuses a lone surrogate in a
    label, a merge's tokens or a number as the route does (it graded the label and the merge wrong before)."""
    shutil.copy(PROBLEMS / f"{problem}.toml", tmp_path / f"{problem}.toml")
    value = f'["{text}", "0.5"]' if step == "weights" else f'"{text}"'
    (tmp_path / "a.json").write_text(f'{{"problem": "{problem}.toml", "{step}": {value}}}', encoding="utf-8")
    done = cli("check", str(tmp_path / "a.json"))
    assert done.exit_code == 2, done.output
    line = done.stderr.strip()
    assert (
        line == f"attncalc: error: {tmp_path / 'a.json'}: {step}: not Unicode text (a lone surrogate such as \\ud800)"
    )
    body = f'{{"answers": {{"{step}": {value}}}}}'.encode()
    r = examples_client().post(f"/problems/{problem}/check", content=body, headers=JSON)
    said = line.split(f"{tmp_path / 'a.json'}: ", 1)[1]  # (check's words after the file's name)
    assert r.status_code == 422 and json.loads(r.text)["error"] == f"<answers>: {said}"


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
    # (three entries, as the step has: a list of another shape is refused for its shape, unread)
    body = b'{"answers":{"weights":[' + b"9" * 900_000 + b", 0.5, 0.5]}}"
    r = examples_client().post(route, content=body, headers=JSON)
    assert r.status_code == 422
    message = json.loads(r.text)["error"]
    assert "digits" in message and "sys.set_int_max_str_digits" not in message  # attncalc's own, naming the length


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


def test_a_comma_for_a_decimal_point_is_said_once_with_the_hint() -> None:
    """ "17,496" in a one-number step (decoder-dot's exp_sum, named by its step id) and in a vector
    entry: check's message once, at the field, with the hint to use a decimal point."""
    import html

    c = examples_client()
    for field in ("exp_sum", "scores[0]"):
        r = c.post("/problems/decoder-dot/check", data={field: "17,496", "action": "check"})
        assert r.status_code == 422
        text = html.unescape(r.text)
        assert text.count("unexpected character ','") == 1, field
        assert "use a decimal point" in text


def test_the_command_gives_the_comma_hint_too(cli: Any, tmp_path: Path) -> None:
    from ..helpers import PROBLEMS

    answers = tmp_path / "a.toml"
    answers.write_text('exp_sum = "17,496"\n', encoding="utf-8")
    r = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(answers))
    assert r.exit_code == 2 and "use a decimal point" in r.output


def test_a_copy_step_says_it_is_not_graded() -> None:
    """layer-encoder's self.head.1.Q is columns 1-2 of Q (computes nothing, worth 0 points): the
    page says it is not graded instead of "Points 0 / 0"."""
    import html
    import re

    fields = {f"self.head.1.Q[{i}][{j}]": "0" for i in range(3) for j in range(2)}
    r = examples_client().post("/problems/layer-encoder/check", data={**fields, "action": "check"})
    assert r.status_code == 200
    text = html.unescape(r.text)
    section = re.search(
        r'<section[^>]*>(?:(?!</section>).)*<code class="id">self\.head\.1\.Q</code>.*?</section>', text, re.S
    )
    assert section is not None
    assert "Not graded: nothing is computed here" in section.group(0)
    assert "Points 0 / 0" not in text


def test_a_variant_is_titled_by_kind_and_seed_and_has_one_name() -> None:
    c = examples_client()
    page = c.get("/problems/variant-multi-head-1")
    assert page.status_code == 200
    assert "Practice: multi-head, seed 1" in page.text and "Variant 1" not in page.text
    for other in ("variant-multi-head-01", "variant-multi-head-00001"):
        assert c.get(f"/problems/{other}").status_code == 404
    assert c.get("/problems/variant-multi-head-0").status_code == 200


def test_the_solution_sheet_has_an_icon_so_no_favicon_is_asked_for() -> None:
    text = examples_client().get("/problems/decoder-dot/solution").text
    assert '<link rel="icon" href="data:,">' in text.split("</head>")[0]


@pytest.mark.parametrize(
    ("problem", "field", "typed", "said"),
    [
        ("moe-switch", "expert_outputs[1][0][1]", "zz", "matrix 2, row 1, entry 2: unknown name"),
        ("moe-switch", "expert_outputs[1][0][1]", "1_0", "matrix 2, row 1, entry 2: units and suffixes"),
        ("moe-mixtral", "expert_outputs[3][1][1]", "1_0", "matrix 4, row 2, entry 2: units and suffixes"),
    ],
)
def test_an_unreadable_entry_of_a_list_of_matrices_is_marked_on_its_field(
    problem: str, field: str, typed: str, said: str
) -> None:
    """moe's expert outputs (a matrix per token): check named "row 1, entry 2" without the matrix, and the
    page took it for a field of a matrix: a 500 (IndexError) on moe-switch, invented errors on moe-mixtral
    (hostile tryout 29). Now the matrix is named, and the page marks the field typed."""
    import html as html_lib

    body = f"{field}={typed}&action=check".replace("[", "%5B").replace("]", "%5D").encode()
    r = examples_client().post(f"/problems/{problem}/check", content=body, headers=FORM)
    assert r.status_code == 422
    text = html_lib.unescape(r.text)
    assert said in text and "could not be read: see the marked field" in text
    r = examples_client().post(
        f"/problems/{problem}/check",
        content=json.dumps({"answers": {"expert_outputs": _one(problem, field, typed)}}),
        headers=JSON,
    )
    assert r.status_code == 422 and json.loads(r.text)["error"].startswith(f"<answers>: expert_outputs: {said}")


def _one(problem: str, field: str, typed: str) -> list[Any]:
    """The expert outputs with one entry typed, the rest "?": moe-switch 4 tokens × 1 × 2, moe-mixtral 4 × 2 × 2."""
    import re

    b, r, e = (int(i) for i in re.findall(r"\[(\d+)\]", field))
    rows = 1 if problem == "moe-switch" else 2  # (top_k rows per token)
    value: list[Any] = [[["?", "?"] for _ in range(rows)] for _ in range(4)]
    value[b][r][e] = typed
    return value


@pytest.mark.parametrize(
    ("problem", "answers", "step"),
    [
        # tryout 30: an angle of 1e25 or more: the interval of its sines looped without end (all memory, a 500)
        (
            "positions-sinusoidal",
            {"angles": [[1e308, 1e308], [1e308, 1e308], [1e308, 1e308], [1e308, 1e308]]},
            "angles",
        ),
        # tryout 30: a count of -inf beside a residual of -inf: the working looked up past its lines (a 500)
        ("speculative-two-drafts", {"n_accepted": "-inf", "residual": ["-inf", "-inf", "-inf", "-inf"]}, "residual"),
    ],
)
def test_extreme_answers_on_the_json_route_are_graded(problem: str, answers: dict[str, Any], step: str) -> None:
    r = examples_client().post(f"/problems/{problem}/check", json={"answers": answers})
    assert r.status_code == 200, r.text
    verdicts = {x["id"]: x["verdict"] for x in r.json()["results"]}
    assert verdicts[step] == "wrong"
