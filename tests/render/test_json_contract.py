"""The JSON contract (docs/interface.md, "JSON"): labels beside a step's value, lists as JSON lists,
whole numbers as JSON integers, in `solve -f json` and `check -f json`. Every expected value is
worked out here from the papers' definitions or by hand, never read from attncalc."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.render import json_forms

from ..helpers import PROBLEMS, json_of

# CS336's worked example (assignment 1, §2.4): "low low low low low lower lower widest widest widest
# newest newest newest newest newest newest"
CS336_WORDS = {"low": 5, "lower": 2, "widest": 3, "newest": 6}
CS336_MERGES = ["s t", "e st", "o w", "l ow", "w est", "n e"]  # the handout's six merges


def _steps(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in data["steps"]}


def _all_ints(x: Any) -> bool:
    return all(_all_ints(v) for v in x) if isinstance(x, list) else type(x) is int


def _pair_counts(words: dict[str, int], segs: dict[str, list[str]]) -> dict[str, int]:
    """Sennrich et al.'s get_stats: adjacent pairs inside each word, weighted by its count, in the
    order they first occur."""
    out: dict[str, int] = {}
    for w, n in words.items():
        s = segs[w]
        for a, b in itertools.pairwise(s):
            out[f"{a} {b}"] = out.get(f"{a} {b}", 0) + n
    return out


@pytest.fixture(scope="module")
def bpe() -> dict[str, dict[str, Any]]:
    from typer.testing import CliRunner

    from attncalc.cli import app

    r = CliRunner().invoke(app, ["solve", str(PROBLEMS / "bpe-cs336.toml"), "-f", "json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return _steps(json.loads(r.stdout))


def test_bpe_word_counts_are_integers_labelled_by_word(bpe: Any) -> None:
    words = bpe["words"]
    assert words["labels"] == list(CS336_WORDS)
    assert words["value"] == list(CS336_WORDS.values()) and _all_ints(words["value"])


def test_bpe_pair_counts_are_integers_labelled_by_pair(bpe: Any) -> None:
    segs = {w: list(w) for w in CS336_WORDS}
    expected = _pair_counts(CS336_WORDS, segs)
    first = bpe["1.pairs"]
    assert first["labels"] == list(expected)
    assert first["value"] == list(expected.values()) and _all_ints(first["value"])
    for r in range(1, 7):
        assert _all_ints(bpe[f"{r}.pairs"]["value"]), r
        assert len(bpe[f"{r}.pairs"]["labels"]) == len(bpe[f"{r}.pairs"]["value"])


def _merge(seg: list[str], pair: str) -> list[str]:
    a, b = pair.split(" ")
    out: list[str] = []
    i = 0
    while i < len(seg):
        if i + 1 < len(seg) and seg[i] == a and seg[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(seg[i])
            i += 1
    return out


def test_bpe_words_after_each_merge_are_token_lists_labelled_by_word(bpe: Any) -> None:
    segs = {w: list(w) for w in CS336_WORDS}
    for r, pair in enumerate(CS336_MERGES, 1):
        segs = {w: _merge(s, pair) for w, s in segs.items()}
        step = bpe[f"{r}.words"]
        assert step["labels"] == list(CS336_WORDS)
        assert step["value"] == [segs[w] for w in CS336_WORDS], r
        assert step["exact"] == step["value"] and step["shown"] == step["value"]


def test_bpe_merges_vocab_and_encodings_are_lists(bpe: Any) -> None:
    assert bpe["merges"]["value"] == CS336_MERGES
    assert bpe["vocab"]["value"] == [m.replace(" ", "") for m in CS336_MERGES]
    assert bpe["merges"]["shown"] == CS336_MERGES and bpe["merges"]["exact"] == CS336_MERGES
    # the handout: "newest" becomes [ne, west]
    assert bpe["encode.1"]["value"] == ["ne", "west"]
    assert bpe["1.merge"]["value"] == "s t"  # one pair stays one string


def _softmax(z: list[float]) -> np.ndarray:
    e = np.exp(np.asarray(z, dtype=float) - max(z))
    return e / e.sum()


def test_decode_sorted_steps_are_labelled_in_sorted_order(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_text(
        'kind = "decode"\nstrategy = "top-p"\n[given]\nlogits = [1, 3, 2, 0]\nvocab = ["a", "b", "c", "d"]\n'
        "p = 0.9\nu = 0.5\n",
        encoding="utf-8",
    )
    steps = _steps(json_of(cli("solve", str(f), "-f", "json")))
    p = dict(zip("abcd", _softmax([1, 3, 2, 0]), strict=True))
    ranked = sorted(p, key=lambda t: -p[t])  # b, c, a, d
    assert ranked == ["b", "c", "a", "d"]
    assert steps["probabilities"]["labels"] == ["a", "b", "c", "d"]
    assert steps["sorted"]["labels"] == ranked
    assert steps["sorted"]["value"] == pytest.approx([p[t] for t in ranked], rel=1e-12)
    assert steps["cumulative"]["labels"] == ranked
    assert steps["cumulative"]["value"] == pytest.approx(np.cumsum([p[t] for t in ranked]).tolist(), rel=1e-12)
    # every labelled step's entries line up with its labels: the kept tokens (running sum before them
    # below 0.9: b 0, c 0.644, a 0.881; not d, 0.968) renormalised, whatever order the step lists them in
    kept = {"b", "c", "a"}
    total = p["b"] + p["c"] + p["a"]
    renorm = steps["renormalized"]
    for label, v in zip(renorm["labels"], renorm["value"], strict=True):
        assert v == pytest.approx(p[label] / total if label in kept else 0.0, abs=1e-12), label


def test_decode_beam_kept_labels_are_a_list(cli: Any) -> None:
    steps = _steps(json_of(cli("solve", str(PROBLEMS / "decode-beam.toml"), "-f", "json")))
    # candidates = beam score + next-token log p: beam 1 [-1.1, -1.8, -3.4], beam 2 [-2.3, -2.0, -3.5];
    # one length penalty for all keeps the order: the best two are beam 1's cat and dog
    assert steps["kept_labels"]["value"] == ["beam 1: cat", "beam 1: dog"]
    assert steps["kept_beams"]["labels"] == ["beam 1: cat", "beam 1: dog"]
    assert steps["kept_beams"]["value"] == pytest.approx([-1.1, -1.8], abs=1e-12)
    assert steps["candidates"]["labels"] == {"rows": ["beam 1", "beam 2"], "columns": ["cat", "dog", "mat"]}


def test_a_matrix_is_labelled_by_rows_and_columns(cli: Any) -> None:
    steps = _steps(json_of(cli("solve", str(PROBLEMS / "self-attention-scaled.toml"), "-f", "json")))
    tokens = ["x1", "x2", "x3"]
    assert steps["weights"]["labels"] == {"rows": tokens, "columns": tokens}
    # Q = K = V = X: row i of the weights is softmax(x_i · x_j / √2) over j
    X = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
    want = np.array([_softmax(list(X[i] @ X.T / np.sqrt(2))) for i in range(3)])
    assert np.allclose(steps["weights"]["value"], want, rtol=1e-12)
    assert steps["Q"]["labels"] == {"rows": tokens}  # the columns (dimensions) carry no labels
    assert steps["exp_sum"]["labels"] == tokens  # one sum per row: a vector labelled by its rows


def test_an_unlabelled_step_has_no_labels(cli: Any) -> None:
    steps = _steps(json_of(cli("solve", str(PROBLEMS / "decoder-dot.toml"), "-f", "json")))
    assert "labels" not in steps["context"] and "labels" not in steps["exp_sum"]
    assert steps["weights"]["labels"] == ["x1", "x2", "x3"]


def test_counts_are_integers_in_bleu_and_lr_schedule(cli: Any) -> None:
    bleu = _steps(json_of(cli("solve", str(PROBLEMS / "bleu-papineni.toml"), "-f", "json")))
    assert _all_ints(bleu["ngram_counts"]["value"]) and _all_ints(bleu["clipped_counts"]["value"])
    assert bleu["ngram_counts"]["labels"] == ["1-grams", "2-grams", "3-grams", "4-grams"]
    noam = _steps(json_of(cli("solve", str(PROBLEMS / "noam-schedule.toml"), "-f", "json")))
    assert noam["peak_step"]["value"] == 4000 and type(noam["peak_step"]["value"]) is int  # the warmup steps
    assert type(bleu["precisions"]["value"][0]) is float  # a ratio stays a float


def test_check_gives_counts_as_integers_and_token_lists_as_lists(cli: Any, tmp_path: Path) -> None:
    acc = tmp_path / "acc.toml"
    acc.write_text('embedding = 38597376.0\nparameters = "124,439,808"\n', encoding="utf-8")
    r = json.loads(cli("check", str(PROBLEMS / "gpt2-small-accounting.toml"), str(acc), "-f", "json").stdout)
    by_id = {x["id"]: x for x in r["results"]}
    # GPT-2 small: V · d_model = 50257 · 768
    assert by_id["embedding"]["given"] == 50257 * 768 and type(by_id["embedding"]["given"]) is int
    assert type(by_id["parameters"]["given"]) is int and type(by_id["parameters"]["expected"]) is int
    bpe = tmp_path / "bpe.toml"
    bpe.write_text(
        'words = [5, 2, 3, 6]\n"1.words" = ["l o w", "l o w e r", "w i d e st", "n e w e st"]\nvocab = "st est ow low west ne"\n',
        encoding="utf-8",
    )
    r = json.loads(cli("check", str(PROBLEMS / "bpe-cs336.toml"), str(bpe), "-f", "json").stdout)
    by_id = {x["id"]: x for x in r["results"]}
    assert by_id["words"]["given"] == [5, 2, 3, 6] and _all_ints(by_id["words"]["expected"])
    assert by_id["1.words"]["expected"] == [
        list("low"),
        list("lower"),
        ["w", "i", "d", "e", "st"],
        ["n", "e", "w", "e", "st"],
    ]
    assert by_id["vocab"]["given"] == ["st", "est", "ow", "low", "west", "ne"]
    assert all(x["verdict"] == "correct" for x in r["results"])


def test_the_forms_name_step_ids_of_one_kind_each(cli: Any) -> None:
    """check's report knows its steps by id only: an id listed as tokens or a count is a step of one kind,
    or of kinds where it is the same whole numbers (decode's and moe's `kept`: 0/1 flags in both)."""
    listing = json_of(cli("list", "--format", "json"))["step_ids"]
    ids_by_kind = {k: {s if isinstance(s, str) else s[0] for s in v} for k, v in listing.items()}
    shared = {"kept": ["decode", "moe"]}
    for sid in (*json_forms.token_lists(), *json_forms.word_segments(), *json_forms.counts()):
        owners = [k for k, ids in ids_by_kind.items() if sid in ids]
        assert owners == shared.get(sid, owners) and len(owners) == len(shared.get(sid, [sid])), (sid, owners)


def test_tokens_that_hold_commas_are_listed_as_they_are(cli: Any, tmp_path: Path) -> None:
    """Tokens with commas ("a," "b,"): check's report lists the items solve lists, not cut at the commas."""
    problem = tmp_path / "p.toml"
    problem.write_text(
        'kind = "bpe"\n[given]\ncorpus = "a, a, a, b, b, ab,"\nmerges = 2\ntie = "greater"\nencode = ["ab,"]\n',
        encoding="utf-8",
    )
    # by hand: words "a," ×3 = a ,; "b," ×2 = b ,; "ab," ×1 = a b ,. Pairs: "a ," 3, "b ," 2 + 1 = 3, "a b" 1;
    # the tie 3 = 3 goes to the greater pair, ("b", ",") > ("a", ","): merge 1 is "b ,". Then a , | b, | a b,:
    # "a ," 3, "a b," 1: merge 2 is "a ,". "ab," encoded: a b , -> a b, (merge 1; merge 2 finds no "a ,")
    merges, vocab, encoded = ["b ,", "a ,"], ["b,", "a,"], ["a", "b,"]
    steps = _steps(json_of(cli("solve", str(problem), "-f", "json")))
    assert steps["merges"]["value"] == merges and steps["vocab"]["value"] == vocab
    assert steps["encode.1"]["value"] == encoded
    assert steps["2.words"]["value"] == [["a,"], ["b,"], ["a", "b,"]]
    answers = tmp_path / "a.toml"
    answers.write_text(
        f'merges = {json.dumps(merges)}\nvocab = {json.dumps(vocab)}\n"encode.1" = {json.dumps(encoded)}\n',
        encoding="utf-8",
    )
    r = json.loads(cli("check", str(problem), str(answers), "-f", "json").stdout)
    by_id = {x["id"]: x for x in r["results"]}
    assert by_id["merges"]["expected"] == merges and by_id["merges"]["given"] == merges
    assert by_id["vocab"]["expected"] == vocab and by_id["vocab"]["given"] == vocab
    assert by_id["encode.1"]["expected"] == encoded and by_id["encode.1"]["given"] == encoded
    assert all(x["verdict"] == "correct" for x in r["results"])
