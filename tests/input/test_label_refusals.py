"""Labels that an answer could never match are refused at the problem parser (file, key, entry, exit
2): an empty label, one with white space at an end (an answer is read trimmed: "cat " was never
matched), and "?" (an answer "?" is one not answered), in a list of labels an answer may be (a
vocabulary, targets; attention's row labels are only shown and taken as written, " [CLS]"); a bpe word of only "?" (its item "?" read as not
answered, capping the full key) likewise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

DECODE = (
    'kind = "decode"\nstrategy = "top-k"\n[given]\nlogits = [3, 2, 1]\nvocab = [{v}, "dog", "mat"]\nk = 2\nu = 0.7\n'
)
RNN = (
    'kind = "rnn"\n[given]\nx = [[1, 0], [0, 1]]\nW = [[0.5, -0.5, 1, 0], [0.25, 0.5, 0, 1]]\nb = [0, 0.1]\n'
    'W_out = [[1, 0], [0, 1], [1, -1]]\nvocab = ["a", "b", "c"]\ntargets = [{v}, "b"]\n'
)


@pytest.mark.parametrize("template,key", [(DECODE, "given.vocab"), (RNN, "given.targets")], ids=["vocab", "targets"])
@pytest.mark.parametrize("label", ['"cat "', '" cat"', '""', '"   "', '"?"', '"\\tcat"'])
def test_a_label_no_answer_can_match_is_refused(cli: Any, tmp_path: Path, template: str, key: str, label: str) -> None:
    f = tmp_path / "p.toml"
    f.write_text(template.format(v=label), encoding="utf-8")
    result = cli("solve", str(f))
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"attncalc: error: {f}: {key}: entry 1: ")


@pytest.mark.parametrize("label", ['"the cat"', '"?!"', '"a?"', "5"])
def test_labels_with_inner_spaces_or_a_question_mark_inside_are_taken(cli: Any, tmp_path: Path, label: str) -> None:
    f = tmp_path / "p.toml"
    f.write_text(DECODE.format(v=label), encoding="utf-8")
    assert cli("solve", str(f)).exit_code == 0


@pytest.mark.parametrize("word", ["?", "??"])
def test_a_bpe_word_of_only_question_marks_is_refused(cli: Any, tmp_path: Path, word: str) -> None:
    f = tmp_path / "p.toml"
    f.write_text(f'kind = "bpe"\n[given]\nmerges = 1\n[given.words]\nlow = 5\n"{word}" = 2\n', encoding="utf-8")
    result = cli("solve", str(f))
    assert result.exit_code == 2 and f"{f}: given.words" in result.stderr and "holds '?'" in result.stderr


@pytest.mark.parametrize(
    "label",
    ['"\\u2800"', '"\\u3164"', '"a\\u200b"', '"\\u0301"', '"' + "x" * 201 + '"'],
    ids=["braille-blank", "hangul-filler", "zero-width-space", "lone-mark", "201-characters"],
)
def test_a_label_that_shows_nothing_hides_a_character_or_outgrows_a_field_is_refused(
    cli: Any, tmp_path: Path, label: str
) -> None:
    """A label drawn as nothing, one holding a character that shows nothing (a\\u200b looks like a), or
    longer than a practice-page field (200 characters: no student could type it there)."""
    f = tmp_path / "p.toml"
    f.write_text(DECODE.format(v=label), encoding="utf-8")
    result = cli("solve", str(f))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"attncalc: error: {f}: given.vocab: entry 1: "), result.stderr


def test_a_bpe_word_holding_a_question_mark_is_refused(cli: Any, tmp_path: Path) -> None:
    """encode = ["x?"] tokenizes to x, ?: its item "?" is read as not answered, so the key could not earn
    full marks."""
    f = tmp_path / "b.toml"
    f.write_text('kind = "bpe"\n[given]\ncorpus = "ab ab ab cd"\nmerges = 1\nencode = ["x?"]\n', encoding="utf-8")
    result = cli("solve", str(f))
    assert result.exit_code == 2 and "holds '?'" in result.stderr, result.stderr


@pytest.mark.parametrize("label", ['"\\ufffc"', '"\\U0001d159"'], ids=["object-replacement", "null-notehead"])
def test_other_blank_glyphs_are_no_label(cli: Any, tmp_path: Path, label: str) -> None:
    f = tmp_path / "p.toml"
    f.write_text(DECODE.format(v=label), encoding="utf-8")
    assert cli("solve", str(f)).exit_code == 2


@pytest.mark.parametrize(
    "given", ['corpus = "ab ab cd"\nend_of_word = "?"', 'corpus = "ab ab cd"\nend_of_word = "\\u2800"',
              'corpus = "a\\u2800 a\\u2800 b"', 'corpus = "\\u0301\\u0301 ab"'],
    ids=["marker-?", "marker-blank", "word-blank", "word-marks"],
)  # fmt: skip
def test_bpe_words_and_markers_answers_write_follow_the_label_rules(cli: Any, tmp_path: Path, given: str) -> None:
    """An end-of-word marker '?' made the key's item '?' (read as not answered: 0.67 of a right answer); a
    word or marker that shows nothing is a token no student sees."""
    f = tmp_path / "b.toml"
    f.write_text(f'kind = "bpe"\n[given]\n{given}\nmerges = 1\n', encoding="utf-8")
    result = cli("solve", str(f))
    assert result.exit_code == 2 and "\n" not in result.stderr.strip(), result.stderr


def test_a_label_written_composed_or_decomposed_is_one_label(cli: Any, tmp_path: Path) -> None:
    """café as U+00E9 or as e + U+0301 looks the same: two such labels are one (refused as a repeat), and
    an answer written either way is the label (NFC, as the problem's labels are read)."""
    import tomllib

    from attncalc.check import check
    from attncalc.parse import parse_problem

    f = tmp_path / "p.toml"
    f.write_text(DECODE.format(v='"caf\\u00e9"').replace('"dog"', '"cafe\\u0301"'), encoding="utf-8")
    assert cli("solve", str(f)).exit_code == 2
    raw = tomllib.loads(DECODE.format(v='"caf\\u00e9"'))
    results = check(parse_problem(raw, "p.toml"), {"choice": "cafe\u0301"}, "a.toml").results
    assert results[0].verdict == "correct", results[0].note


def test_every_string_of_a_problem_and_its_answers_is_read_composed() -> None:
    """decode's tokens written decomposed, an answer composed (and the other way round); a bpe corpus
    mixing both forms of café counts one word (3, not 2 + 1)."""
    from attncalc.check import check
    from attncalc.parse import parse_problem

    tokens = {
        "kind": "decode",
        "strategy": "greedy",
        "tokens": ["cafe\u0301", "b", "c"],
        "given": {"logits": [3, 2, 1]},
    }
    p = parse_problem(tokens, "p.json")
    for written in ("caf\u00e9", "cafe\u0301"):
        assert check(p, {"choice": written}, "a.json").results[0].verdict == "correct"
    bpe = parse_problem(
        {"kind": "bpe", "given": {"corpus": "caf\u00e9 cafe\u0301 caf\u00e9 cafe", "merges": 1}}, "b.json"
    )
    import attncalc

    assert attncalc.solve(bpe)["words"] == [3, 1]


@pytest.mark.parametrize("vocab", ['["A", "A"]', '["mat", "hat", "hat"]', '["caf\\u00e9", "cafe\\u0301"]'])
def test_a_repeated_vocabulary_label_is_refused(cli: Any, tmp_path: Path, vocab: str) -> None:
    """An attention head's vocabulary ["A", "A"]: a prediction "A" would be right whichever row was meant
    (decode's vocabularies refused repeats already; targets may repeat)."""
    f = tmp_path / "p.toml"
    f.write_text(
        'kind = "attention"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2]]\n[head]\n'
        f"W_out = [[1, 0], [0, 1], [1, 1]]\nvocab = {vocab}\n",
        encoding="utf-8",
    )
    result = cli("solve", str(f))
    assert result.exit_code == 2 and "head.vocab: entry " in result.stderr and "is repeated" in result.stderr


@pytest.mark.parametrize("suffix", ["toml", "json"])
def test_two_keys_one_word_composed_are_refused_as_a_repeated_key(cli: Any, tmp_path: Path, suffix: str) -> None:
    """A bpe words table {"café": 3, "cafe\\u0301": 2}: both keys are "café" composed, and the 3 was silently
    replaced by the 2 (a literal repeated key was already refused by the TOML reader)."""
    import json

    f = tmp_path / f"p.{suffix}"
    if suffix == "toml":
        f.write_text('kind = "bpe"\nmerges = 2\n[words]\n"caf\\u00e9" = 3\n"cafe\\u0301" = 2\n', encoding="utf-8")
    else:
        f.write_text(
            json.dumps({"kind": "bpe", "merges": 2, "words": {"caf\u00e9": 3, "cafe\u0301": 2}}), encoding="utf-8"
        )
    result = cli("solve", str(f))
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert str(f) in line and "words.caf\u00e9" in line and "appears twice" in line


def test_two_answer_keys_one_label_composed_are_refused(tmp_path: Path) -> None:
    """The same in an answers file: two keys that are one step id or label composed."""
    import attncalc

    problem = {"kind": "bpe", "given": {"words": {"caf\u00e9": 3, "ab": 2}, "merges": 1}}
    with pytest.raises(attncalc.AttncalcError, match="appears twice"):
        attncalc.check(problem, {"1.words": {"caf\u00e9": "c a f é", "cafe\u0301": "c af é"}})
    with pytest.raises(attncalc.AttncalcError, match="appears twice"):
        attncalc.solve(kind="bpe", words={"caf\u00e9": 3, "cafe\u0301": 2}, merges=2)
