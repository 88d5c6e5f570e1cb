"""Kind bpe: CS336's worked example recomputed by hand, a reference implementation written here from
Sennrich et al. 2016's Algorithm 1 (its get_stats and merge_vocab, on space-separated symbols) run on
random corpora with both tie rules, and Hugging Face ``tokenizers``' BPE trainer where its conventions
match (corpora with no tie: its trainer breaks ties by token ids, neither rule here)."""

from __future__ import annotations

import collections
import json
import random
import re
from typing import Any

import pytest

import attncalc
from attncalc.errors import ProblemError

from ..helpers import PROBLEMS, solve_raw

CS336 = "low low low low low lower lower widest widest widest newest newest newest newest newest newest"


# ----------------------------------------------------------------- the reference (Sennrich et al. 2016)
def get_stats(vocab: dict[str, int]) -> dict[tuple[str, str], int]:
    pairs: dict[tuple[str, str], int] = collections.defaultdict(int)
    for word, freq in vocab.items():
        symbols = word.split()
        for i in range(len(symbols) - 1):
            pairs[symbols[i], symbols[i + 1]] += freq
    return dict(pairs)


def merge_vocab(pair: tuple[str, str], v_in: dict[str, int]) -> dict[str, int]:
    bigram = re.escape(" ".join(pair))
    p = re.compile(r"(?<!\S)" + bigram + r"(?!\S)")
    return {p.sub("".join(pair), word): freq for word, freq in v_in.items()}


def reference(counts: dict[str, int], merges: int, tie: str, eow: str = "") -> dict[str, Any]:
    """Algorithm 1: count pairs, take the best, merge it; the tie rule as CS336 (max over (count, pair))
    or as the paper's own `max(pairs, key=pairs.get)` over pairs in the order they first occur."""
    vocab = {" ".join([*w, *([eow] if eow else [])]): n for w, n in counts.items()}
    out: dict[str, Any] = {"pairs": [], "merge": [], "words": []}
    for _ in range(merges):
        pairs = get_stats(vocab)
        if not pairs or max(pairs.values()) < 2:
            break
        best = max(pairs, key=lambda q: (pairs[q], q)) if tie == "greater" else max(pairs, key=pairs.get)  # type: ignore[arg-type]
        out["pairs"].append({f"{a} {b}": c for (a, b), c in pairs.items()})
        out["merge"].append(best)
        vocab = merge_vocab(best, vocab)
        out["words"].append(list(vocab))
    return out


def encode_ref(word: str, merges: list[tuple[str, str]], eow: str = "") -> list[str]:
    v = {" ".join([*word, *([eow] if eow else [])]): 1}
    for pair in merges:
        v = merge_vocab(pair, v)
    return next(iter(v)).split()


def _steps(d: Any) -> dict[str, Any]:
    return {s.id: s for s in d.steps}


# ----------------------------------------------------------------- CS336's example, by hand
def test_cs336_example_by_hand() -> None:
    """CS336 assignment 1 §2.5: {low: 5, lower: 2, widest: 3, newest: 6}; the merges s t, e st, o w,
    l ow, w est, n e. The first pair table and the encodings are counted here by hand."""
    d = attncalc.solve(str(PROBLEMS / "bpe-cs336.toml"))
    st = _steps(d)
    assert dict(zip(st["words"].rows, d["words"], strict=True)) == {"low": 5, "lower": 2, "widest": 3, "newest": 6}
    # lo: low 5 + lower 2; we: lower 2 + newest 6; es, st: widest 3 + newest 6; ...
    hand = {
        "l o": 7,
        "o w": 7,
        "w e": 8,
        "e r": 2,
        "w i": 3,
        "i d": 3,
        "d e": 3,
        "e s": 9,
        "s t": 9,
        "n e": 6,
        "e w": 6,
    }
    assert dict(zip(st["1.pairs"].rows, d["1.pairs"], strict=True)) == hand
    assert list(st["1.pairs"].rows) == list(hand)  # in the order the pairs first occur
    assert [d[f"{r}.merge"] for r in range(1, 7)] == ["s t", "e st", "o w", "l ow", "w est", "n e"]
    assert d["merges"] == "s t, e st, o w, l ow, w est, n e"
    assert d["vocab"] == "st, est, ow, low, west, ne"
    assert d["6.words"] == "low, low e r, w i d est, ne west"
    # newest: n e w e s t → n e w e st → n e w est → n e west → ne west
    assert d["encode.1"] == "ne, west"
    # nest: n e s t → n e st → n est (n e never meets: e is inside est by then)
    assert d["encode.2"] == "n, est"
    # lowest: ... → l o w est → l ow est → low est (w est does not apply: w is inside low)
    assert d["encode.3"] == "low, est"
    assert "A tie: e s, s t both have 9" in st["1.merge"].note
    assert "lexicographically greatest" in st["1.merge"].note


def test_reference_gives_cs336s_merges() -> None:
    """The reference written above is CS336's example too (else it could not judge anything)."""
    counts = dict(collections.Counter(CS336.split()))
    ref = reference(counts, 6, "greater")
    assert ref["merge"] == [("s", "t"), ("e", "st"), ("o", "w"), ("l", "ow"), ("w", "est"), ("n", "e")]
    first = reference(counts, 6, "first")
    assert first["merge"][0] == ("e", "s")  # the tie that matters: the first occurring of e s, s t


def test_the_first_tie_example_by_hand() -> None:
    """problems/bpe-first-tie.toml: the words with the marker </w>, ties to the first occurring pair.
    By hand: e s (9, before s t and t </w>), es t (9), est </w> (9), l o (7), lo w (7), n e (6, before
    e w and w est</w>)."""
    d = attncalc.solve(str(PROBLEMS / "bpe-first-tie.toml"))
    assert d["merges"] == "e s, es t, est </w>, l o, lo w, n e"
    assert d["encode.1"] == "ne, w, est</w>"
    assert d["encode.2"] == "low, est</w>"


# ----------------------------------------------------------------- random corpora against the reference
def _random_counts(rng: random.Random) -> dict[str, int]:
    words = {"".join(rng.choice("abcde") for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 6))}
    return {w: rng.randint(1, 4) for w in sorted(words, key=lambda _: rng.random())}


@pytest.mark.parametrize("seed", range(6))
def test_random_corpora_agree_with_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        counts = _random_counts(rng)
        merges, tie, eow = rng.randint(1, 8), rng.choice(("greater", "first")), rng.choice(("", "</w>"))
        enc = ["".join(rng.choice("abcdef") for _ in range(rng.randint(1, 7))) for _ in range(2)]
        raw = {
            "kind": "bpe",
            "given": {"words": counts, "merges": merges, "tie": tie, "end_of_word": eow, "encode": enc},
        }
        d = solve_raw(raw)
        st = _steps(d)
        ref = reference(counts, merges, tie, eow)
        learned = len(ref["merge"])
        assert sum(1 for k in st if k.endswith(".merge")) == learned, raw
        for r in range(1, learned + 1):
            assert dict(zip(st[f"{r}.pairs"].rows, d[f"{r}.pairs"], strict=True)) == ref["pairs"][r - 1], raw
            assert d[f"{r}.merge"] == " ".join(ref["merge"][r - 1]), raw
            assert st[f"{r}.words"].labels == tuple(ref["words"][r - 1]), raw
        assert d["merges"] == ", ".join(" ".join(m) for m in ref["merge"])
        assert d["vocab"] == ", ".join("".join(m) for m in ref["merge"])
        for i, w in enumerate(enc, 1):
            assert st[f"encode.{i}"].labels == tuple(encode_ref(w, ref["merge"], eow)), raw
        if learned < merges:
            assert any(f"Only {learned} merge" in n for n in d.notes)


def test_exact_and_float_agree() -> None:
    raw = {"kind": "bpe", "given": {"corpus": CS336, "merges": 6}}
    exact, floats = solve_raw(raw, exact=True), solve_raw(raw, exact=False)
    for a, b in zip(exact.steps, floats.steps, strict=True):
        assert a.id == b.id and (a.value == b.value if isinstance(a.value, str) else list(a.value) == list(b.value))
        if not isinstance(a.value, str):
            assert a.exact is not None and [int(x) for x in a.exact] == [int(x) for x in a.value]


# ----------------------------------------------------------------- Hugging Face tokenizers (no ties)
def _tie_free(counts: dict[str, int], merges: int) -> bool:
    vocab = {" ".join(w): n for w, n in counts.items()}
    for _ in range(merges):
        pairs = get_stats(vocab)
        if not pairs or max(pairs.values()) < 2:
            return True
        top = max(pairs.values())
        if sum(1 for c in pairs.values() if c == top) > 1:
            return False
        vocab = merge_vocab(max(pairs, key=pairs.get), vocab)  # type: ignore[arg-type]
    return True


def test_tokenizers_trainer_agrees_where_no_tie_decides() -> None:
    tk = pytest.importorskip("tokenizers", reason="Hugging Face tokenizers is the BPE oracle (pip install tokenizers)")
    rng = random.Random(31)
    tried = 0
    while tried < 25:
        counts = _random_counts(rng)
        merges = rng.randint(1, 6)
        if not _tie_free(counts, merges):
            continue
        tried += 1
        corpus = " ".join(w for w, n in counts.items() for _ in range(n))
        alphabet = sorted(set(corpus.replace(" ", "")))
        tok = tk.Tokenizer(tk.models.BPE())
        tok.pre_tokenizer = tk.pre_tokenizers.WhitespaceSplit()
        trainer = tk.trainers.BpeTrainer(
            vocab_size=len(alphabet) + merges, min_frequency=2, show_progress=False, special_tokens=[]
        )
        tok.train_from_iterator([corpus], trainer)
        theirs = [m if isinstance(m, str) else " ".join(m) for m in json.loads(tok.to_str())["model"]["merges"]]
        words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(2)]
        d = solve_raw({"kind": "bpe", "given": {"corpus": corpus, "merges": merges, "encode": words}})
        mine = [s.value for s in d.steps if s.id.endswith(".merge")]
        assert mine == theirs, corpus
        for i, w in enumerate(words, 1):
            assert list(d.step(f"encode.{i}").labels) == tok.encode(w).tokens, (corpus, w)


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("given", "key", "words"),
    [
        ({"merges": 2}, "given", "exactly one of corpus"),
        ({"corpus": "a b", "words": {"a": 1}, "merges": 2}, "given", "exactly one of corpus"),
        ({"corpus": "   ", "merges": 2}, "given.corpus", "no words"),
        ({"words": {"a b": 2}, "merges": 2}, "given.words.a b", "whitespace"),
        ({"words": {"ab": 0}, "merges": 2}, "given.words.ab", "from 1"),
        ({"words": {"ab": "2"}, "merges": 2}, "given.words.ab", "count"),
        ({"words": {}, "merges": 2}, "given.words", "empty"),
        ({"corpus": "ab", "merges": 0}, "given.merges", "from 1"),
        ({"corpus": "ab", "merges": 2, "tie": "last"}, "given.tie", "greater, first"),
        ({"corpus": "ab", "merges": 2, "end_of_word": "< w>"}, "given.end_of_word", "whitespace"),
        ({"corpus": "ab", "merges": 2, "encode": ["a b"]}, "given.encode", "whitespace"),
        ({"corpus": "x" * 41, "merges": 2}, "given.corpus", "at most 40"),
    ],
)
def test_bad_input_names_the_key(given: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ProblemError) as err:
        solve_raw({"kind": "bpe", "given": given})
    assert err.value.key == key
    assert words in str(err.value)


def test_bad_input_is_one_line_from_the_cli(cli: Any, tmp_path: Any) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('kind = "bpe"\n[given]\ncorpus = "ab ab"\nmerges = 2\ntie = "last"\n', encoding="utf-8")
    r = cli("solve", str(f))
    assert r.exit_code == 2
    assert "given.tie" in r.output and "Traceback" not in r.output


# ----------------------------------------------------------------- every view
@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "html", "json"])
def test_every_view_shows_the_tokens(cli: Any, fmt: str) -> None:
    """Each view writes the tie rule, the chosen merges and the encodings; the marker </w> is escaped
    where the format needs it; the text view fits 80 columns."""
    r = cli("solve", str(PROBLEMS / "bpe-first-tie.toml"), "-f", fmt, "--width", "80")
    assert r.exit_code == 0, r.output
    out = r.stdout
    if fmt == "json":
        data = json.loads(out)
        steps = {s["id"]: s for s in data["steps"]}
        assert steps["1.merge"]["value"] == "e s" and steps["1.merge"]["exact"] == "e s"
        assert steps["1.pairs"]["value"][:3] == [7.0, 7.0, 5.0] and steps["1.pairs"]["exact"][:3] == ["7", "7", "5"]
        assert steps["encode.1"]["value"] == ["ne", "w", "est</w>"]  # a list of tokens (docs/interface.md, JSON)
        assert "occurs first" in steps["1.merge"]["note"]
        return
    assert "e s" in out and "occurs first" in out
    if fmt == "html":
        assert "&lt;/w&gt;" in out and "</w>" not in out.replace("</p>", "")
    if fmt == "text":
        assert max(len(line) for line in out.splitlines()) <= 80
        assert "ne, w, est</w>" in out


def test_reveal_stages_every_step(cli: Any) -> None:
    r = cli("solve", str(PROBLEMS / "bpe-cs336.toml"), "-f", "html", "--reveal")
    assert r.exit_code == 0, r.output
    d = attncalc.solve(str(PROBLEMS / "bpe-cs336.toml"))
    for s in d.steps:
        assert f"[{s.id}]" in r.stdout
    assert "merge 6 = n e" in r.stdout


def test_api_and_list(cli: Any) -> None:
    d = attncalc.solve(kind="bpe", corpus="ab ab ab", merges=3)
    assert d["merges"] == "a b" and d.headline == "Merges: a b"
    assert any("Only 1 merge of the 3" in n for n in d.notes)
    listed = cli("list").stdout
    assert "bpe" in listed and "t.merge" in listed
    schema = json.loads(cli("schema", "bpe").stdout)
    assert "tie" in json.dumps(schema)


def test_a_long_corpus_keeps_its_exact_counts() -> None:
    """1,350 words (4,049 characters): the exact bound counts the 3 distinct words, not the corpus's
    positions; the counts by hand: 450 each; b c occurs in abc and bca (900), a b in ab and abc (900)."""
    d = solve_raw({"kind": "bpe", "given": {"corpus": " ".join(["ab", "abc", "bca"] * 450), "merges": 1}})
    assert not any("Exact forms skipped" in n for n in d.notes)
    assert d["words"] == [450, 450, 450]
    assert dict(zip(d.step("1.pairs").rows, d["1.pairs"], strict=True)) == {"a b": 900, "b c": 900, "c a": 450}
    assert d["1.merge"] == "b c"  # the tie of a b and b c at 900 goes to the greater
