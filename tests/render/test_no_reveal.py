"""No view that asks a step shows its answer first: the practice page, the question sheet (Markdown,
HTML, LaTeX: the PDF is the LaTeX typeset) and the LMS items (Moodle XML; QTI writes the same
questions) show no value or label computed at or after the step they ask.

What counts as a reveal, and how it is decided:

* A step's secrets are its entries formatted as the views show them (the asked decimals, with "-"
  or "−"; a count with and without thousands separators), and for tokens (kind bpe) and labels the
  whole value, each item of its list ("l o w", "ne") and each token of two or more characters in
  them ("st", "est"): merge 2's pair headers "e st" hold merge 1's token "st".
* Not a secret: a value or token that the problem's own file holds (a given written out, a corpus
  word such as "low": the student reads it there anyway), a pair of adjacent characters of a word
  it holds (merge 1's candidates, listed by the givens alone), a value equal at the asked decimals to a
  given number, a whole number below 1000 (0, 1, counts of a few: as common in a page's own text
  as step numbers and sizes), and single characters.
* A secret is found only as a whole: not inside a longer number or word ("0.155" is not in
  "0.1553", "st" is not in "newest").
* The page and a question sheet show every step at once, so no step's secret may appear in them at
  all; an LMS item asks one entry, so the secrets of that step and the later ones may not appear in
  its name and question text (its feedback, shown after answering, is the worked step).
  The page's fixed instructions (the examples 0.42, -1.5, 1/3 of how numbers are typed) are the same
  on every page and are left out.
"""

from __future__ import annotations

import html
import re
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from attncalc import kinds
from attncalc.derivation import Derivation, Stated, Tokens

from ..helpers import PROBLEM_FILES, solve_file, solve_raw

SEED = 11


def _by_kind() -> list[Path]:
    seen: dict[str, Path] = {}
    for f in PROBLEM_FILES:
        kind = solve_file(f.name).problem.kind
        seen.setdefault(kind, f)
    return list(seen.values())


EXAMPLES = _by_kind()


def _number_texts(x: float, decimals: int) -> set[str]:
    out = {f"{x:.{decimals}f}"}
    if float(x).is_integer():
        out |= {f"{int(x):,}", str(int(x))}
    return out | {t.replace("-", "−") for t in out}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\s,;:()\[\]{}\"'=]+", text))


def secrets(d: Derivation, source: str) -> dict[str, set[str]]:
    """Per asked step, the texts that would give its answer away (see the module's docstring)."""
    givens = [float(v) for i in d.inputs for v in np.ravel(np.asarray(i.value, dtype=float)) if np.isfinite(v)]
    given_words = _words(source)
    # merge 1's candidates: every pair of adjacent characters of a word the problem gives
    given_words |= {f"{a} {b}" for w in list(given_words) for a, b in pairwise(w)}
    out: dict[str, set[str]] = {}
    for s in d.steps:
        if isinstance(s, Stated):
            continue
        found: set[str] = set()
        if isinstance(s.value, str):
            items = [p.strip() for p in s.value.split(", ")]
            tokens = [t for p in items for t in p.split()] if isinstance(s, Tokens) else []
            every = [s.value, *items, *tokens]
            found = {t for t in every if len(t) > 1 and t not in given_words and not re.search(_whole(t), source)}
        else:
            for v in np.ravel(np.asarray(s.value, dtype=float)):
                if not np.isfinite(v) or (float(v).is_integer() and abs(v) < 1000):
                    continue
                if any(abs(v - g) <= 0.5 * 10.0**-d.decimals for g in givens):
                    continue
                found |= {t for t in _number_texts(float(v), d.decimals) if not re.search(_whole(t), source)}
        out[s.id] = found
    return out


def _whole(t: str) -> str:
    return r"(?<![\w.])" + re.escape(t) + r"(?![\w]|\.\d)"


def _text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def _leaks(view: str, texts: set[str]) -> list[str]:
    return sorted(t for t in texts if re.search(_whole(t), view))


def _problems() -> list[tuple[str, Derivation, str]]:
    """Every example whose kind differs, and one generated variant per kind: (served name, derivation,
    the problem file's text)."""
    from attncalc.api import generate
    from attncalc.homework.generate import problem_toml

    out = [(f.stem, solve_file(f.name), f.read_text(encoding="utf-8")) for f in EXAMPLES]
    for kind in kinds.with_drawer():
        v = generate(kind=kind, seed=SEED)[0]
        out.append((f"variant-{kind}-{SEED}", v.derivation, problem_toml(v.problem, SEED)))
    return out


PROBLEMS = _problems()


@pytest.mark.parametrize("name,d,source", PROBLEMS, ids=[p[0] for p in PROBLEMS])
def test_the_practice_page_shows_no_answer(name: str, d: Derivation, source: str) -> None:
    from ..serve_support import examples_client

    page = examples_client().get(f"/problems/{name}")
    assert page.status_code == 200
    main = page.text.split('<main id="main">')[1]
    main = re.sub(r'<p class="how">.*?</p>', " ", main, flags=re.S)  # the fixed instructions
    view = _text(main)
    leaks = {k: _leaks(view, v) for k, v in secrets(d, source).items()}
    assert not {k: v for k, v in leaks.items() if v}


@pytest.mark.parametrize("fmt", ["markdown", "html", "latex"])
@pytest.mark.parametrize("name,d,source", PROBLEMS, ids=[p[0] for p in PROBLEMS])
def test_the_question_sheet_shows_no_answer(name: str, d: Derivation, source: str, fmt: str) -> None:
    from attncalc.render.writers import render

    sheet = render([d], fmt, "question")
    view = _text(sheet) if fmt == "html" else sheet
    leaks = {k: _leaks(view, v) for k, v in secrets(d, source).items()}
    assert not {k: v for k, v in leaks.items() if v}


@pytest.mark.parametrize("name,d,source", PROBLEMS, ids=[p[0] for p in PROBLEMS])
def test_an_lms_item_shows_no_answer_at_or_after_its_step(name: str, d: Derivation, source: str) -> None:
    from attncalc.reports.moodle import moodle_xml

    xml = moodle_xml([d], SEED)
    order = [s.id for s in d.steps]
    found = secrets(d, source)
    checked = 0
    for q in re.findall(r"<question type=\"(?:numerical|multichoice)\">(.*?)</question>", xml, flags=re.S):
        title = re.search(r"<name><text>(.*?)</text></name>", q, flags=re.S)
        asked = re.search(r"\[([^\]]+)\]", title.group(1)) if title else None
        assert title is not None and asked is not None
        step = html.unescape(asked.group(1))
        later = set().union(*(found.get(k, set()) for k in order[order.index(step) :]))
        text = re.search(r"<questiontext[^>]*><text><!\[CDATA\[(.*?)\]\]></text>", q, flags=re.S)
        assert text is not None
        view = _text(title.group(1)) + " " + _text(text.group(1))
        assert not _leaks(view, later), (step, _leaks(view, later))
        checked += 1
    assert checked


def test_the_pair_table_after_merge_1_is_headed_by_position_then_by_the_students_own_pairs() -> None:
    """CS336's example: merge 1 is s t (tests/check/test_bpe_check.py counts it by hand), so merge 2's true
    pairs include "e st"; the page heads merge 2 by position until the words are typed, then by the
    pairs of what was typed, right or wrong ("e s" and "s t" of a student who did not merge)."""
    from ..serve_support import examples_client

    c = examples_client()
    step5 = c.get("/problems/bpe-cs336").text.split('id="step-5"')[1].split("</section>")[0]
    heads = re.findall(r'<th scope="col">([^<]*)</th>', step5)
    assert heads == [str(i) for i in range(1, len(heads) + 1)] and "e st" not in step5
    unmerged = "l o w, l o w e r, w i d e s t, n e w e s t"
    r = c.post("/problems/bpe-cs336/check", data={"1.words": unmerged, "action": "check"})
    step5 = r.text.split('id="step-5"')[1].split("</section>")[0]
    heads = re.findall(r'<th scope="col">([^<]*)</th>', step5)
    # l o, o w, w e, e r, w i, i d, d e, e s, s t, n e, e w: 11 pairs, then the other fields by position
    pairs = ["l o", "o w", "w e", "e r", "w i", "i d", "d e", "e s", "s t", "n e", "e w"]
    assert heads == pairs + [str(i) for i in range(12, 17)]


# CS336's words as characters: low 2 adjacent places, lower 4, widest 5, newest 5
CS336_PLACES = 2 + 4 + 5 + 5
# merge 2's true counts, by hand: merge 1 is s t, so the words are l o w (5), l o w e r (2), w i d e st (3),
# n e w e st (6): l o 5+2, o w 5+2, w e 2+6, e r 2, w i 3, i d 3, d e 3, e st 3+6, n e 6, e w 6
MERGE_2 = [7, 7, 8, 2, 3, 3, 3, 9, 6, 6]


def test_a_pair_table_after_merge_1_does_not_say_how_many_pairs_there_are() -> None:
    """Merges 2 to 6 leave 10, 10, 9, 8 and 7 distinct pairs: each of their tables has the same 16
    fields (the corpus's adjacent places), so no table's size tells how an earlier merge went."""
    from ..serve_support import examples_client

    page = examples_client().get("/problems/bpe-cs336").text
    for merge in range(2, 7):
        fields = re.findall(rf'name="{merge}\.pairs\[(\d+)\]"', page)
        assert fields == [str(i) for i in range(CS336_PLACES)], merge
    step5 = page.split('id="step-5"')[1].split("</section>")[0]
    assert "leave the fields past your last pair empty" in step5


def test_the_pairs_typed_in_the_first_fields_are_graded_and_downloaded() -> None:
    from ..serve_support import examples_client, verdicts

    c = examples_client()
    form = {f"2.pairs[{i}]": str(v) for i, v in enumerate(MERGE_2)}
    r = c.post("/problems/bpe-cs336/check", data={**form, "action": "check"})
    assert r.status_code == 200 and verdicts(r.text)[5] == "correct"
    download = c.post("/problems/bpe-cs336/answers.toml", data=form)
    # all 16 fields, "?" past the 10 pairs: the file does not say how many there are
    padded = '"2.pairs" = [7, 7, 8, 2, 3, 3, 3, 9, 6, 6, "?", "?", "?", "?", "?", "?"]'
    assert download.status_code == 200 and padded in download.text


def test_a_count_typed_past_the_pairs_is_said_not_dropped() -> None:
    """An 11th count for merge 2 (a student whose words kept e s and s t apart) cannot be graded:
    the page says so for that field (422), on the page and for the download alike."""
    from ..serve_support import examples_client

    c = examples_client()
    form = {f"2.pairs[{i}]": str(v) for i, v in enumerate([*MERGE_2, 6])}
    for route in ("/problems/bpe-cs336/check", "/problems/bpe-cs336/answers.toml"):
        r = c.post(route, data={**form, "action": "check"})
        assert r.status_code == 422 and "2.pairs[10]" in r.text and "past the last pair" in r.text, route
    empty = {**form, "2.pairs[10]": "", "2.pairs[15]": "?"}
    assert c.post("/problems/bpe-cs336/check", data={**empty, "action": "check"}).status_code == 200
    beyond = {**form, "2.pairs[10]": "", "2.pairs[16]": "1"}
    assert c.post("/problems/bpe-cs336/check", data={**beyond, "action": "check"}).status_code == 422


def test_each_step_says_what_it_asks() -> None:
    from ..serve_support import examples_client

    c = examples_client()
    bpe = c.get("/problems/bpe-cs336").text
    assert "decimals" not in _text(bpe.split('<main id="main">')[1])
    assert "A count: a whole number." in bpe.split('id="step-2"')[1].split("</section>")[0]
    assert "Tokens:" in bpe.split('id="step-3"')[1].split("</section>")[0]
    dot = c.get("/problems/decoder-dot").text
    assert "To 3 decimals." in dot.split('id="step-1"')[1].split("</section>")[0]
    assert "A label:" in dot.split('id="step-9"')[1].split("</section>")[0]
    accounting = c.get("/problems/gpt2-small-accounting").text
    assert "A count: a whole number." in accounting.split('id="step-1"')[1].split("</section>")[0]


def test_decode_kept_flags_are_asked_as_whole_numbers() -> None:
    """decode's ``kept`` is a 0/1 flag per token: the page and the LMS items ask a whole number, not
    3 decimals (its value [1, 1, 0, 0, 0] for top-k with k = 2 is whole by its meaning)."""
    from attncalc.reports.lms import questions

    from ..serve_support import examples_client

    page = examples_client().get("/problems/decode-top-k").text
    kept = next(s for s in page.split('<section class="step"')[1:] if 'name="kept[0]"' in s).split("</section>")[0]
    assert "A flag: 1 if kept, 0 if not." in kept and "decimals" not in kept
    d = solve_file("decode-top-k.toml")
    asked = [q for q in questions(d, SEED) if q.step_id == "kept"]
    assert asked and all(q.precision == "Give 1 if kept, 0 if not." for q in asked)


def _choices(xml: str) -> dict[str, list[tuple[bool, str]]]:
    """Each multichoice item's name and its options (right or not)."""
    out = {}
    for q in re.findall(r'<question type="multichoice">(.*?)</question>', xml, flags=re.S):
        name = html.unescape(re.search(r"<name><text>(.*?)</text>", q, flags=re.S).group(1))  # type: ignore[union-attr]
        found = re.findall(r'<answer fraction="(\d+)"><text>(.*?)</text>', q, flags=re.S)
        out[name] = [(f == "100", html.unescape(t)) for f, t in found]
    return out


def test_a_bpe_list_is_chosen_item_by_item_among_wrong_items_too() -> None:
    """CS336's words after merge 1 (s t): low stays l o w, newest is n e w e st (tests/check/test_bpe_check.py
    counts them by hand). Each word is asked among options that are not all true items: the word as
    it was (n e w e s t), merged by another candidate (n e w es t for e s), its own first pair merged
    (lo w); a choice of one option, or of the true items only, would give the answer away (a word that
    is one token by now is chosen among its earlier cuts: low among l ow, l o w)."""
    from attncalc.reports.moodle import moodle_xml

    d = solve_file("bpe-cs336.toml")
    items = _choices(moodle_xml([d], SEED))
    newest = next(v for k, v in items.items() if '[1.words] words, rank 4 (the word "newest")' in k)
    assert (True, "n e w e st") in newest and (False, "n e w e s t") in newest
    # merged by another candidate: a wrong item, or the cut of a named slip's chain (the tie broken the other
    # way at merge 1 merges e s), at full marks with its note as check carries it (docs/lms.md)
    assert any(text == "n e w es t" for _, text in newest)
    xml = moodle_xml([d], SEED)
    for ok, text in newest:
        if ok and text != "n e w e st":
            item = re.search(
                rf'<answer fraction="100"><text>{re.escape(html.escape(text))}</text><feedback format="html"><text>'
                r"<!\[CDATA\[<p>This follows from an earlier step where it looks like",
                xml,
            )
            assert item is not None, text
    low = next(v for k, v in items.items() if '[1.words] words, rank 1 (the word "low")' in k)
    assert (True, "l o w") in low and (False, "lo w") in low
    for name, options in items.items():
        right = [text for ok, text in options if ok]
        assert right and len(options) >= 2, name
    encoded = next(v for k, v in items.items() if "[encode.1]" in k)
    assert (True, "ne, west") in encoded and (False, "n, e, w, e, s, t") in encoded


def test_an_lms_pair_table_after_merge_1_asks_every_place_not_every_pair() -> None:
    """The LMS items asked one count per true pair: 10 items for merge 2 after merge 1's 11 said how
    merge 1 went. Each table after merge 1 asks CS336's 16 places: the true counts (merge 2's by hand
    above), then 0 for each place past them, and says so."""
    from attncalc.reports.lms import questions
    from attncalc.reports.moodle import moodle_xml

    d = solve_file("bpe-cs336.toml")
    tables = {q.step_id: q for q in questions(d, SEED) if q.step_id.endswith(".pairs")}
    assert len(tables["1.pairs"].entries) == 11  # merge 1's pairs: the corpus gives them
    for merge in range(2, 7):
        q = tables[f"{merge}.pairs"]
        assert len(q.entries) == CS336_PLACES and "0 for each place past your last pair" in q.precision
    keys = [e.key for e in tables["2.pairs"].entries]  # type: ignore[union-attr]
    assert keys == [str(v) for v in MERGE_2] + ["0"] * (CS336_PLACES - len(MERGE_2))
    assert len(re.findall(r"<name><text>[^<]*\[2\.pairs\]", moodle_xml([d], SEED))) == CS336_PLACES


def _speculative_rounds() -> list[tuple[str, Derivation]]:
    """The example (the second draft rejected), drawn rounds that accept 0, 1 and 2 of 3 drafts (a drawn
    round always rejects one), and a round written here that accepts all 3 (min(1, 0.3/0.4) = 0.75 is
    above every uniform)."""
    from attncalc.api import generate

    out = [("speculative-two-drafts", solve_file("speculative-two-drafts.toml"))]
    out += [
        (f"variant-speculative-{SEED}-{i}", v.derivation)
        for i, v in enumerate(generate(kind="speculative", seed=SEED, count=4), 1)
    ]
    every = {
        "draft": [[0.4, 0.3, 0.2, 0.1]] * 3,
        "target": [[0.3, 0.4, 0.2, 0.1]] * 3 + [[0.25] * 4],
        "drafted": ["a", "a", "a"],
        "uniforms": [0.1, 0.2, 0.3],
        "resample": 0.35,
    }
    out.append(("speculative-all-accepted", solve_raw({"kind": "speculative", "vocab": list("abcd"), "given": every})))
    return out


SPECULATIVE = _speculative_rounds()
# an index of p or q written as a number (p_2, p_{2}, q<sub>2</sub>, p_(3)): the residual's row names
# the first rejected position, which says how the accept tests went
_INDEXED = re.compile(r"[pq](?:</i>)?(?:_|<sub>)\{?\(?\s*\d")


def _residual_part(view: str, fmt: str) -> str:
    """The part of a question view that asks the residual: its line of the Compute table."""
    lines = [line for line in view.splitlines() if "[residual]" in line]
    assert lines, fmt
    return " ".join(lines)


@pytest.mark.parametrize("fmt", ["markdown", "html", "latex"])
@pytest.mark.parametrize("name,d", SPECULATIVE, ids=[s[0] for s in SPECULATIVE])
def test_a_speculative_residual_asked_does_not_say_which_draft_was_rejected(name: str, d: Derivation, fmt: str) -> None:
    """The residual is drawn from p_j − q_j at the first rejected position j = n + 1 (or p_(γ+1) when
    all are accepted): a question that wrote j as a number (p_2) answered the accept tests and the
    count asked before it. The question sheet, the practice page and the LMS items write j."""
    from attncalc.render.writers import render
    from attncalc.reports.lms import questions

    assert {int(float(np.asarray(d["n_accepted"], dtype=float))) for _, d in SPECULATIVE} == {0, 1, 2, 3}
    sheet = render([d], fmt, "question")
    part = _residual_part(sheet, fmt)
    assert not _INDEXED.search(part), part
    asked = [q for q in questions(d, SEED) if q.step_id == "residual"]
    assert asked and not any(_INDEXED.search(q.formula) for q in asked)


def test_the_practice_page_asks_the_residual_without_the_rejected_position() -> None:
    from ..serve_support import examples_client

    page = examples_client().get("/problems/speculative-two-drafts").text
    section = next(s for s in page.split('<section class="step"')[1:] if "residual[0]" in s).split("</section>")[0]
    formula = re.search(r'<p class="formula">(.*?)</p>', section, flags=re.S)
    assert formula is not None and "<sub>j</sub>" in formula.group(1)
    assert not _INDEXED.search(formula.group(1)), formula.group(1)
