"""`attncalc serve`: every route through Starlette's TestClient, and the page's verdicts against
`attncalc check` (the same answers as a form, as JSON and as the downloaded answers file)."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ..helpers import PROBLEM_FILES, PROBLEMS, solve_file
from ..serve_support import examples_client, field_value, verdicts  # skips without the serve extra


def form_of(answers: dict[str, Any]) -> dict[str, str]:
    """An answers mapping as the page's form fields (weights[1], scores[0][2])."""
    out: dict[str, str] = {}
    for step_id, value in answers.items():
        a = np.asarray(value, dtype=object)
        for idx in np.ndindex(*a.shape):
            out[step_id + "".join(f"[{i}]" for i in idx)] = str(a[idx])
    return out


def cli_json(cli: Any, problem: Path, answers_file: Path) -> dict[str, Any]:
    result = cli("check", str(problem), str(answers_file), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


# ------------------------------------------------------------------------------ the index


def test_index_lists_every_example_with_title_kind_and_link() -> None:
    """GET / names every problem file served, its kind, and links its practice page."""
    page = examples_client().get("/")
    assert page.status_code == 200
    for f in PROBLEM_FILES:
        d = solve_file(f.name)
        assert f'href="/problems/{f.stem}"' in page.text
        assert d.problem.title in html.unescape(page.text)
    assert "multi-head" in page.text and "attention (dot)" in page.text


def test_practice_index_links_a_seeded_variant_per_generated_kind() -> None:
    """--practice: a "new variant" link per kind generate covers, its seed in the URL; the link
    works and draws the same variant each time (a page can be shared)."""
    from attncalc import kinds

    page = examples_client().get("/").text
    links = re.findall(r'href="/problems/(variant-([a-z0-9-]+)-(\d+))"', page)
    assert sorted(k for _, k, _ in links) == sorted(kinds.with_drawer())
    # below 61 problems, so the top of the index links to them
    assert page.index('<a href="#variants">') < page.index("<table") < page.index('<h2 id="variants">')
    name = next(n for n, k, _ in links if k == "attention")
    first, again = examples_client().get(f"/problems/{name}"), examples_client().get(f"/problems/{name}")
    assert first.status_code == 200 and first.text.count("<input") == again.text.count("<input")
    seed = int(name.rsplit("-", 1)[1])
    from attncalc.api import generate

    variant = generate(kind="attention", seed=seed)[0]
    for value in np.ravel(variant.problem["given"]["query"]):
        assert f"{value}" in first.text


def test_without_practice_variants_are_not_served() -> None:
    """Variant names are 404 unless the server was started with --practice."""
    c = examples_client(practice=False)
    assert c.get("/problems/variant-attention-3").status_code == 404
    assert "variant" not in c.get("/").text.lower()


def test_healthz() -> None:
    assert examples_client().get("/healthz").text == "ok"


# ------------------------------------------------------------------------------ the practice page


def _adjacent_places(path: Path) -> int:
    """The adjacent symbols of a bpe problem's distinct words, its end-of-word marker one symbol more."""
    import tomllib

    given = tomllib.loads(path.read_text())["given"]
    words = set(given["words"]) if "words" in given else set(given["corpus"].split())
    extra = 1 if given.get("end_of_word") else 0
    return sum(len(w) + extra - 1 for w in words)


@pytest.mark.parametrize("path", PROBLEM_FILES, ids=lambda p: p.stem)
def test_every_example_has_one_labelled_input_per_asked_entry(path: Path) -> None:
    """Every step in derivation order, one input per entry (a masked −∞ shown, not asked; a stated
    value not asked), each with a <label for> naming it."""
    from attncalc.derivation import Stated

    d = solve_file(path.name)
    html = examples_client().get(f"/problems/{path.stem}").text
    asked = [s for s in d.steps if not isinstance(s, Stated)]

    def inputs(s: Any) -> int:
        if isinstance(s.value, str):
            return 1
        if re.fullmatch(r"([2-9]|\d\d+)\.pairs", s.id):  # bpe after merge 1: a field per adjacent place
            return _adjacent_places(path)  # of the corpus's words (docs/practice-page.md), not per true pair
        return int(np.isfinite(np.asarray(s.value, dtype=float)).sum())

    expected = sum(inputs(s) for s in asked)
    ids = re.findall(r'<input id="([^"]+)" name="', html)
    assert len(ids) == expected
    labels = set(re.findall(r'<label for="([^"]+)"', html))
    assert set(ids) <= labels
    numbers = [int(n) for n in re.findall(r'<section class="step" id="step-(\d+)"', html)]
    assert numbers == sorted(numbers) and len(numbers) == len(asked)
    titles = re.findall(r'<span class="n">\d+\.</span> (.*?) <code class="id">(.*?)</code>', html)
    assert [i for _, i in titles] == [s.id for s in asked]


def test_the_question_shows_givens_as_tables_and_the_decimals() -> None:
    html = examples_client().get("/problems/decoder-dot").text
    assert "<table>" in html and "Given" in html
    assert "<b>3 decimals</b>" in html
    # the keys h_i as a table labelled with the tokens x1, x2, x3
    assert all(f'<td class="label">x{i}</td>' in html for i in (1, 2, 3))


def test_masked_scores_are_shown_not_asked() -> None:
    """causal-self-attention: the −∞ entries of masked_scores appear as −∞ with no field."""
    d = solve_file("causal-self-attention.toml")
    masked = np.asarray(d["masked_scores"])
    html = examples_client().get("/problems/causal-self-attention").text
    assert html.count('<span class="fixed"') == int(np.isinf(masked).sum()) > 0
    i, j = map(int, np.argwhere(np.isinf(masked))[0])
    assert field_value(html, f"masked_scores[{i}][{j}]") is None


# ------------------------------------------------------------------------------ check


SLIP = {  # decoder-dot: s = [1, 1], h = [[1, 0], [0, 2], [1, 1]]; scores by hand 1, 2, 2
    "scores": ["1", "2", "2"],
    # the exponentials not divided by their sum: e, e², e² to 3 decimals (the slip, by hand)
    "weights": [f"{math.e:.3f}", f"{math.e**2:.3f}", f"{math.e**2:.3f}"],
    # right for those weights: c = 2.718·[1, 0] + 7.389·[0, 2] + 7.389·[1, 1]
    "context": [f"{math.e + math.e**2:.3f}", f"{2 * math.e**2 + math.e**2:.3f}"],
}


def test_check_form_marks_each_step_names_the_slip_and_keeps_the_typed_values() -> None:
    """The form POST (no JavaScript): correct, wrong with the slip named, carried with where the
    error began, the score; what was typed stays in the fields."""
    r = examples_client().post("/problems/decoder-dot/check", data={**form_of(SLIP), "action": "check"})
    assert r.status_code == 200
    marks = verdicts(r.text)
    assert marks == {1: "correct", 4: "wrong", 5: "carried"}
    step4 = r.text.split('id="step-4"')[1].split("</section>")[0]
    assert "the exponentials were not divided by their sum" in step4
    step5 = r.text.split('id="step-5"')[1].split("</section>")[0]
    assert "Go to step 4 (weights), where the error began" in step5
    assert "1 correct" in r.text and "1 carried" in r.text and "1 wrong" in r.text and "Score " in r.text
    for name, value in form_of(SLIP).items():
        assert field_value(r.text, name) == value


def test_check_json_is_the_commands_json(cli: Any, tmp_path: Path) -> None:
    """POST JSON returns exactly `attncalc check --format json` for the same answers, numbers read
    as written (0.330 is judged to 3 decimals)."""
    body = '{"answers": {"scores": [1, 2, 2], "weights": [0.155, 0.42, "?"], "exp_sum": 17.50}}'
    r = examples_client().post(
        "/problems/decoder-dot/check", content=body, headers={"content-type": "application/json"}
    )
    assert r.status_code == 200
    answers = tmp_path / "a.toml"
    answers.write_text('scores = [1, 2, 2]\nweights = [0.155, 0.42, "?"]\nexp_sum = 17.50\n')
    assert r.json() == cli_json(cli, PROBLEMS / "decoder-dot.toml", answers)
    exp_sum = next(x for x in r.json()["results"] if x["id"] == "exp_sum")
    assert exp_sum["verdict"] == "correct"  # 17.50 to 2 decimals: e + 2e² = 17.4966...


def test_check_json_keeps_trailing_zeros() -> None:
    """0.1550 is an answer to 4 decimals (wrong: the weight is 0.15536), 0.155 to 3 (right)."""
    post = examples_client().post
    four = post(
        "/problems/decoder-dot/check",
        content='{"answers": {"weights": [0.1550, 0.4223, 0.4223]}}',
        headers={"content-type": "application/json"},
    ).json()
    three = post("/problems/decoder-dot/check", json={"answers": {"weights": ["0.155", "0.422", "0.422"]}}).json()
    assert three["results"][0]["verdict"] == "correct"
    assert four["results"][0]["verdict"] == "wrong"  # 1/(1+2e) = 0.155362...: 0.1554 to 4 decimals


@pytest.mark.parametrize("path", PROBLEM_FILES, ids=lambda p: p.stem)
def test_page_verdicts_and_downloaded_file_agree_with_check(path: Path, cli: Any, tmp_path: Path) -> None:
    """Every example: the answer key with one entry changed, posted as the form; the page's verdicts
    are those `attncalc check` gives on the downloaded answers file."""
    from attncalc.homework.generate import answer_key

    d = solve_file(path.name)
    key = answer_key(d)
    fields = form_of(key)
    from attncalc.derivation import Stated

    stated = {s.id for s in d.steps if isinstance(s, Stated)}  # shown by the page, not asked
    fields = {k: ("?" if v == "-inf" else v) for k, v in fields.items() if k.split("[")[0] not in stated}
    for name, value in fields.items():  # the first number with decimals: off by 3 in the last place
        if re.fullmatch(r"-?\d+\.\d+", value):
            places = len(value.split(".")[1])
            fields[name] = f"{float(value) + 3 * 10**-places:.{places}f}"
            break
    else:  # whole numbers only (bpe's and accounting's counts): the first one off by 3
        name = next(k for k, v in fields.items() if re.fullmatch(r"-?\d+", v))
        fields[name] = str(int(fields[name]) + 3)
    c = examples_client()
    page = c.post(f"/problems/{path.stem}/check", data={**fields, "action": "check"})
    assert page.status_code == 200, page.text[:2000]
    download = c.post(f"/problems/{path.stem}/answers.toml", data=fields)
    assert download.status_code == 200
    assert download.headers["content-disposition"] == f'attachment; filename="{path.stem}-answers.toml"'
    saved = tmp_path / "mine.toml"
    saved.write_bytes(download.content)
    report = cli_json(cli, path, saved)
    numbers = {s.id: k for k, s in enumerate(d.steps, 1)}
    assert verdicts(page.text) == {numbers[r["id"]]: r["verdict"] for r in report["results"]}
    assert any(r["verdict"] != "correct" for r in report["results"])


def test_downloaded_answers_keep_what_was_typed() -> None:
    """The answers file writes numbers as typed (0.420 keeps its zero), fractions and ? quoted,
    and an entry left empty as "?"."""
    import tomllib

    fields = {"weights[0]": "0.420", "weights[1]": "1/3", "weights[2]": "", "scores[0]": "?", "scores[1]": "2"}
    r = examples_client().post("/problems/decoder-dot/answers.toml", data=fields)
    text = r.text
    assert '"weights" = [0.420, "1/3", "?"]' in text
    assert '"scores" = ["?", 2, "?"]' in text
    assert r.headers["content-type"].startswith("application/toml")
    assert tomllib.loads(text)["weights"][1] == "1/3"
    # the command to grade it names the served file (the TA's), not only its name in the URL: by its
    # path relative to the folder served, never the server's absolute path
    source = examples_client().get("/problems/decoder-dot").text
    assert "# Grade them with: attncalc check decoder-dot.toml THIS_FILE" in text
    assert "decoder-dot.toml" in source and str(PROBLEMS) not in source + text


def test_download_from_json(cli: Any, tmp_path: Path) -> None:
    r = examples_client().post(
        "/problems/decoder-dot/answers.toml",
        content='{"answers": {"weights": [0.155, 0.4220, "?"]}}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 200 and '"weights" = [0.155, 0.4220, "?"]' in r.text


def test_check_with_nothing_typed_asks_for_an_answer() -> None:
    r = examples_client().post("/problems/decoder-dot/check", data={"action": "check", "weights[0]": " "})
    assert r.status_code == 200 and "Type at least one answer" in r.text and not verdicts(r.text)


# ------------------------------------------------------------------------------ reveal, solution


def test_reveal_opens_the_next_step_in_the_reveal_stages_and_keeps_the_fields() -> None:
    """Reveal the next step: step 1's working and value, closed in <details> as --reveal stages them;
    again: step 2 too; what was typed stays; no verdict unless Check was pressed."""
    c = examples_client()
    one = c.post("/problems/decoder-dot/check", data={"action": "reveal", "reveal": "0", "weights[0]": "0.2"})
    assert one.status_code == 200
    assert one.text.count('class="revealed"') == 1
    step1 = one.text.split('id="step-1"')[1].split("</section>")[0]
    assert "<summary>Show the working</summary>" in step1 and "<summary>Show the value</summary>" in step1
    assert "1·1 + 1·0 = ?" in step1  # the working before its value, as --reveal writes it
    assert field_value(one.text, "weights[0]") == "0.2" and not verdicts(one.text)
    assert 'name="reveal" value="1"' in one.text
    two = c.post("/problems/decoder-dot/check", data={"action": "reveal", "reveal": "1"})
    assert two.text.count('class="revealed"') == 2
    assert c.get("/problems/decoder-dot?reveal=3").text.count('class="revealed"') == 3


def test_reveal_after_check_keeps_the_verdicts() -> None:
    r = examples_client().post(
        "/problems/decoder-dot/check", data={**form_of(SLIP), "action": "reveal", "reveal": "0", "checked": "1"}
    )
    assert verdicts(r.text) == {1: "correct", 4: "wrong", 5: "carried"}


def test_solution_is_the_html_sheet_and_reveal_stages_it(cli: Any) -> None:
    c = examples_client()
    sheet = c.get("/problems/decoder-dot/solution")
    assert sheet.status_code == 200
    icon = '\n<link rel="icon" href="data:,">'  # the page's own (empty) icon: no request for /favicon.ico
    back = '\n<p><a href="/problems/decoder-dot">Back to the practice page</a></p>'  # the way back
    assert sheet.text.count(icon) == 1 and sheet.text.count(back) == 1
    served = sheet.text.replace(icon, "").replace(back, "")
    assert served == cli("solve", str(PROBLEMS / "decoder-dot.toml"), "--format", "html").stdout
    staged = c.get("/problems/decoder-dot/solution?reveal=1").text.replace(icon, "").replace(back, "")
    assert staged == cli("solve", str(PROBLEMS / "decoder-dot.toml"), "--format", "html", "--reveal").stdout


def test_static_files_are_served_and_others_are_not() -> None:
    c = examples_client()
    js = c.get("/static/practice.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert c.get("/static/practice.css").status_code == 200
    assert c.get("/static/__init__.py").status_code == 404
    assert c.get("/static/../app.py").status_code == 404


def test_a_variant_of_every_kind_is_a_practice_page_and_grades_its_key() -> None:
    """--practice: variant-KIND-SEED for every kind generate covers is served, and its answer key
    (generate's own, the true values) is all correct through the JSON route."""
    from attncalc import kinds
    from attncalc.api import generate

    c = examples_client()
    for kind in kinds.with_drawer():
        assert c.get(f"/problems/variant-{kind}-7").status_code == 200, kind
        key = generate(kind=kind, seed=7)[0].key
        report = c.post(f"/problems/variant-{kind}-7/check", json={"answers": key}).json()
        assert report["summary"]["wrong"] == report["summary"]["carried"] == 0, kind


def test_behind_a_proxy_every_link_has_the_root_path() -> None:
    """--root-path /attncalc: links, the form's actions and the static files are under the prefix."""
    from attncalc.serve.app import create_app

    from ..serve_support import TestClient

    c = TestClient(create_app([str(PROBLEMS / "decoder-dot.toml")]), root_path="/attncalc")
    page = c.get("/problems/decoder-dot").text
    links = re.findall(r'(?:href|action|formaction|src)="(/[^"]*)"', page)
    assert links and all(link.startswith("/attncalc/") for link in links)
    assert "/attncalc/problems/decoder-dot/answers.toml" in links


def test_a_prediction_is_written_quoted(cli: Any, tmp_path: Path) -> None:
    """A label typed for the prediction is a TOML string even when it looks like a number (a
    vocabulary of "0.5" and "2"), so that check reads it as the label it is."""
    from ..serve_support import client

    problem = tmp_path / "p.toml"
    problem.write_text(
        'kind = "attention"\nscore = "dot"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2], [1, 1]]\n'
        '[head]\ncombine = "add"\nW_out = [[1, 0], [0, 1]]\nvocab = ["0.5", "2"]\n'
    )
    r = client([str(problem)]).post("/problems/p/answers.toml", data={"prediction": "2"})
    assert '"prediction" = "2"' in r.text
    saved = tmp_path / "a.toml"
    saved.write_text(r.text)
    # s + c = [1, 1] + [0.577.., 1.267..]: the logits favour the second label, "2"
    assert cli_json(cli, problem, saved)["results"][0]["verdict"] == "correct"


def test_a_variant_downloads_as_a_problem_file_that_check_grades_with_the_answers(cli: Any, tmp_path: Path) -> None:
    """problem.toml: the variant as `generate` writes it, so its downloaded answers can be graded by
    the command; a served file is never given out (it may hold a key)."""
    c = examples_client()
    problem = tmp_path / "variant-attention-5.toml"
    r = c.get("/problems/variant-attention-5/problem.toml")
    assert r.status_code == 200 and "seed 5" in r.text
    problem.write_text(r.text)
    from attncalc.api import generate

    key = generate(kind="attention", seed=5)[0].key
    answers = tmp_path / "mine.toml"
    answers.write_text(c.post("/problems/variant-attention-5/answers.toml", data=form_of(key)).text)
    report = cli_json(cli, problem, answers)
    assert report["summary"]["wrong"] == report["summary"]["carried"] == 0 and report["summary"]["correct"] > 0
    assert c.get("/problems/decoder-dot/problem.toml").status_code == 404


def test_each_entrys_verdict_is_read_out_with_its_field() -> None:
    """A screen reader hears an entry's verdict with the field: aria-describedby names the verdict."""
    r = examples_client().post("/problems/decoder-dot/check", data={**form_of(SLIP), "action": "check"})
    for name, heard in (("scores[0]", "correct"), ("weights[1]", "wrong"), ("context[0]", "carried")):
        m = re.search(r'name="' + re.escape(name) + r'"[^>]*aria-describedby="([^"]+)"', r.text)
        assert m is not None, name
        assert re.search(r'<span class="sr" id="' + re.escape(m.group(1)) + r'">' + heard + "</span>", r.text), name


def test_token_fields_say_how_tokens_are_written_and_any_spacing_is_read() -> None:
    """bpe's answers are tokens, not numbers: each such field says how they are written (and is
    described by it), and what a student types with other spacing is read as the same tokens. CS336's
    first merge is s t (widest 3 + newest 6 = 9, the greater of the ties) and the words after it are
    l o w, l o w e r, w i d e st, n e w e st (counted by hand in tests/check/test_bpe_check.py)."""
    client = examples_client()
    page = client.get("/problems/bpe-cs336").text
    step = page.split('id="step-3"')[1].split("</section>")[0]  # 1.merge
    assert "Tokens: its tokens separated by spaces." in step  # a pair
    words = page.split('id="step-4"')[1].split("</section>")[0]
    assert "a space between the tokens of each item, a comma between the items" in words
    field = re.search(r'<input id="(f-3)"[^>]*>', step)
    assert field is not None and 'aria-describedby="h-step-3-hint"' in field.group(0)
    assert 'id="h-step-3-hint"' in step and "inputmode" not in page  # phones show a minus and a slash
    assert 'autocapitalize="off"' in field.group(0)  # "s t", not "S t"
    typed = {"1.merge": " s  t", "1.words": "l o w,l o w e r, w i d e  st,n e w e st"}
    r = client.post("/problems/bpe-cs336/check", data={**typed, "action": "check"})
    assert verdicts(r.text) == {3: "correct", 4: "correct"}
    assert field_value(r.text, "1.merge") == "s  t"  # what was typed stays (the field trimmed)


def test_a_number_in_e_notation_is_graded_at_the_decimals_it_shows() -> None:
    """A calculator's 1.7496e1 is 17.496: Z = e + 2e² = 17.49639… to 3 decimals (decoder-dot)."""
    assert f"{math.e + 2 * math.e**2:.3f}" == "17.496"
    r = examples_client().post("/problems/decoder-dot/check", json={"answers": {"exp_sum": "1.7496e1"}})
    assert r.status_code == 200 and r.json()["results"][0]["verdict"] == "correct"
