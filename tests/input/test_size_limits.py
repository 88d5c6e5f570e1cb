"""Size limits (docs/interface.md, "Limits"): small admitted files that took half a minute or
gigabytes are refused when the problem is read, in one line naming the file, the key and the limit,
before anything is computed. The slow files themselves are replayed through the real CLI
by the fuzz corpus (tests/fuzz/corpus/cases.toml); these tests hold each limit at its edge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import attncalc
from attncalc.errors import ProblemError
from attncalc.parse.types import Layer, MultiHead

from ..helpers import one_line_refusal


def test_generate_checks_count_before_the_output_folder(cli: Any, tmp_path: Path) -> None:
    """generate --count 1000000 listed a million file names for the folder's check (past 30 s) before
    refusing the count: the count is now checked first. A file where the folder should be would
    otherwise be named first."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    err = one_line_refusal(cli("generate", "--count", "1000000", "--out", str(afile)), "generate", "--count")
    assert "choose 1 to 1000 variants" in err
    with pytest.raises(ProblemError, match="--count: choose 1 to 1000"):
        attncalc.generate(count=10**6, out=afile)
    with pytest.raises(ProblemError, match="--count: choose 1 to 1000"):
        attncalc.generate(count=0, out=afile)
    assert afile.read_text() == "x"


# ------------------------------------------------------------------ TOML: a dotted key's parts

DEEP = "is nested too deeply (more than 20 levels of tables and lists)"


def _toml(text: str) -> Any:
    from attncalc.parse.formats import parse_text

    return parse_text("deep.toml", text, ".toml")


@pytest.mark.parametrize(
    ("text", "line", "parts"),
    [
        ("a" + ".a" * 29_999 + " = 1\n", 1, 30_000),  # 60 KB: 25 s and 3.5 GB inside tomllib
        ("kind = 'softmax'\n[" + "a" + ".a" * 99_999 + "]\n", 2, 100_000),  # a table header: 13 s
        ("[[" + ".".join(["t"] * 22) + "]]\n", 1, 22),  # an array of tables
        ("x = { " + " . ".join(['"q.q"'] * 22) + " = 1 }\n", 1, 22),  # quoted parts, in an inline table
        ("[t]\n" + ".\t".join(["'lit'"] * 25) + " = 2\n", 2, 25),
    ],
    ids=["key", "table header", "array of tables", "inline table", "literal parts"],
)
def test_a_dotted_key_too_deep_is_refused_before_tomllib(text: str, line: int, parts: int) -> None:
    with pytest.raises(ProblemError) as exc:
        _toml(text)
    assert str(exc.value) == f"deep.toml: {DEEP}: line {line} holds a dotted key of {parts:,} parts"


def test_dots_in_strings_comments_and_numbers_are_not_a_key() -> None:
    """Only keys count: a string, a multi-line string, a comment or a row of decimals may hold any
    number of dots, and a key of 21 parts (20 dots) is left to the nesting check, which counts its
    tables with the file's own."""
    dots = ".".join(["a"] * 40)
    text = (
        f'title = "{dots}"  # {dots}\n'
        f"note = '{dots}'\n"
        f'long = """\n{dots} = 1\n"{dots}"\n"""\n'
        f"lit = '''\n{dots} = 1\n'''\n"
        f"row = [{', '.join(['0.5'] * 40)}]\n"
        f'"{dots}" = 3\n'
    )
    raw = _toml(text)
    assert raw["title"] == dots and raw["long"].startswith(dots) and len(raw["row"]) == 40 and raw[dots] == 3
    nested = _toml(".".join(["k"] * 19) + " = 1\n")  # 20 levels with the top table: admitted
    assert nested["k"]["k"]["k"]
    with pytest.raises(
        ProblemError, match=r"deep.toml: is nested too deeply \(more than 20 levels of tables and lists\)$"
    ):
        _toml(".".join(["k"] * 21) + " = 1\n")  # 22 levels: the nesting check's own message


# ------------------------------------------------------------------ the problem's size

FILE = "test.toml"


def _parse(raw: dict[str, Any]) -> Any:
    from attncalc.parse import parse_problem

    return parse_problem(raw, FILE)


def _refused(raw: dict[str, Any]) -> str:
    with pytest.raises(ProblemError) as exc:
        _parse(raw)
    text = str(exc.value)
    assert text.startswith(f"{FILE}: ") and "\n" not in text
    return text


def _rows(n: int, width: int, value: int = 1) -> list[list[int]]:
    return [[value] * width for _ in range(n)]


def test_at_most_100000_numbers_in_a_problem() -> None:
    """A softmax over 520,000 logits took 21 s in text (5,000,000 with --max-file-size 16M, past 30 s)."""
    assert _parse({"kind": "softmax", "given": {"logits": [0] * 100_000}}).given["logits"].shape == (100_000,)
    assert _refused({"kind": "softmax", "given": {"logits": [0] * 100_001}}) == (
        f"{FILE}: given.logits: 100,001 entries: a problem gives at most 100,000 numbers in its vectors and matrices"
    )
    # every key counts: X's 200 × 300 and W_Q's 300 × 150 are 60,000 + 45,000
    raw = {"kind": "self-attention", "given": {"X": _rows(200, 300), "W_Q": _rows(300, 150)}}
    assert _refused(raw) == (
        f"{FILE}: given.W_Q: 45,000 entries (105,000 with the vectors and matrices before it): "
        "a problem gives at most 100,000 numbers in its vectors and matrices"
    )


def test_a_layer_counts_its_rows_once() -> None:
    """A transformer layer's sublayers read X again: it counts once. X 250 × 60 (15,000), four 60 × 60
    projections (14,400) and a feed-forward network of d_ff 500 (60,000) make 89,400; X counted three
    times would be 119,400."""
    raw = {
        "kind": "transformer-layer",
        "given": {"X": _rows(250, 60), "heads": 1},
        "self_attention": {k: _rows(60, 60) for k in ("W_Q", "W_K", "W_V", "W_O")},
        "ffn": {"W_1": _rows(60, 500), "W_2": _rows(500, 60)},
    }
    assert _parse(raw).payload(Layer).W_1.shape == (60, 500)


LSTM_WEIGHTS = {k: [[0.5, 0.5]] for k in ("W_f", "W_i", "W_c", "W_o")}


def test_at_most_256_time_steps() -> None:
    """A 1-d LSTM over 1,000 steps (6.5 KB) took 21-30 s in text."""
    assert _parse({"kind": "lstm", "given": {"x": _rows(256, 1), **LSTM_WEIGHTS}}).data.steps == 256
    assert _refused({"kind": "lstm", "given": {"x": _rows(257, 1), **LSTM_WEIGHTS}}) == (
        f"{FILE}: given.x: 257 rows, one per time step: a sequence has at most 256 steps"
    )
    gates = [{"f": [0.5], "i": [0.5], "c_tilde": [0.5], "o": [0.5]}] * 257
    assert _refused({"kind": "lstm", "given": {"h0": [0], "gates": gates}}) == (
        f"{FILE}: given.gates: 257 tables, one per time step: a sequence has at most 256 steps"
    )


def _seq2seq(source: int, target: int) -> dict[str, Any]:
    w = _rows(1, 2)
    return {
        "kind": "seq2seq",
        "encoder": {"cell": "rnn", "x": _rows(source, 1), "W": w},
        "decoder": {"cell": "rnn", "attention": "none", "inputs": _rows(target, 1), "W": w},
    }


def test_a_seq2seq_encoder_has_at_most_256_steps_and_its_decoder_64() -> None:
    p = _parse(_seq2seq(256, 64)).data
    assert (p.x.shape[0], p.steps) == (256, 64)
    assert (
        _refused(_seq2seq(257, 1))
        == f"{FILE}: encoder.x: 257 rows, one per time step: a sequence has at most 256 steps"
    )
    assert _refused(_seq2seq(1, 65)) == (
        f"{FILE}: decoder.inputs: 65 rows, one per time step: a decoder takes at most 64 steps"
    )


def test_similarity_compares_at_most_10000_pairs_of_250000_entries() -> None:
    """3,000 rows of 2-d vectors (34 KB) took 40 s and 3 GB; 300 × 300 ones, euclidean, 30 s and 2.6 GB."""
    assert _parse({"kind": "similarity", "given": {"A": _rows(100, 1)}}).given["A"].shape == (100, 1)
    assert _refused({"kind": "similarity", "measure": "euclidean", "given": {"A": _rows(101, 1)}}) == (
        f"{FILE}: given.A: A's 101 rows compared with themselves make 10,201 pairs: at most 10,000 pairs are compared"
    )
    # 50 × 100 pairs of 50 entries: 250,000
    assert _parse({"kind": "similarity", "given": {"A": _rows(50, 50), "B": _rows(100, 50)}}).given["B"].shape == (
        100,
        50,
    )
    assert _refused({"kind": "similarity", "given": {"A": _rows(50, 50), "B": _rows(101, 50)}}) == (
        f"{FILE}: given.B: A's 50 rows times B's 101 make 5,050 pairs of 50 entries each, 252,500 in all: "
        "at most 250,000 (pairs × width) are compared"
    )


def _self_attention(n: int) -> dict[str, Any]:
    return {"kind": "self-attention", "given": {"X": _rows(n, 1), "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}}


def _multi_head(n: int, heads: int, **more: Any) -> dict[str, Any]:
    w = _rows(1, heads)
    return {"kind": "multi-head", "given": {"X": _rows(n, 1), "heads": heads, "W_Q": w, "W_K": w, "W_V": w, **more}}


def test_an_attention_computes_at_most_65536_scores_in_32_heads() -> None:
    """Self-attention over 692 rows of width 1 took 9 s in text, over 1,000 rows 27 s and 1.5 GB as
    JSON; 2,000 heads over 2 tokens 38 s in text."""
    assert _parse(_self_attention(256)).given["X"].shape == (256, 1)
    assert _refused(_self_attention(257)) == (
        f"{FILE}: given.X: 257 rows make 257 × 257 = 66,049 scores: at most 65,536 (256 × 256) are computed"
    )
    assert _parse(_multi_head(128, 4)).payload(MultiHead).heads == 4  # 4 × 128 × 128
    cache = {"K": [[1] * 4], "V": [[1] * 4]}
    raw = _multi_head(128, 4) | {"cache": cache}  # 128 queries × 129 keys
    assert (
        _refused(raw)
        == f"{FILE}: given.X: 128 queries × 129 keys × 4 heads make 66,048 scores: at most 65,536 are computed"
    )
    raw = _multi_head(1, 1, memory=_rows(65_537, 1))
    assert (
        _refused(raw)
        == f"{FILE}: given.memory: 1 query × 65,537 keys × 1 head make 65,537 scores: at most 65,536 are computed"
    )
    assert _parse(_multi_head(2, 32)).payload(MultiHead).heads == 32
    assert (
        _refused(_multi_head(2, 33)) == f"{FILE}: given.heads: 33 heads: at most 32 are computed (each is written out)"
    )


def test_a_positional_encoding_is_at_most_1024_wide() -> None:
    """Width 20,000 over 4 positions ran past 30 s inside one sympy step; RoPE with d_k 100,000 too."""
    raw = {"kind": "positional-encoding", "given": {"positions": 4, "d_model": 1024}}
    assert _parse(raw).data.d == 1024
    raw["given"]["d_model"] = 1026
    assert _refused(raw) == f"{FILE}: given.d_model: is 1,026: a positional encoding is at most 1,024 wide"
    raw = {"kind": "positional-encoding", "type": "rope", "given": {"positions": 2, "d_k": 1026}}
    assert _refused(raw) == f"{FILE}: given.d_k: is 1,026: a positional encoding is at most 1,024 wide"
    raw = {"kind": "positional-encoding", "type": "rope", "given": {"positions": 2, "k": _rows(2, 1026)}}
    assert _refused(raw) == f"{FILE}: given.k: has rows of width 1,026: a positional encoding is at most 1,024 wide"


def test_the_exact_bound_counts_a_positional_encodings_angles() -> None:
    """Only the inputs were counted (here the 4 positions), so the angles' exact forms were unbounded:
    4 positions of width 4,000 took 7 s in sympy. 4 positions and 4 · 198/2 = 396 angles are 400."""
    from attncalc.mechanisms import solve

    raw = {"kind": "positional-encoding", "given": {"positions": 4, "d_model": 198}}
    d = solve(_parse(raw))
    assert all(s.exact is not None for s in d.steps) and not any("Exact forms" in n for n in d.notes)
    raw["given"]["d_model"] = 200  # 4 + 4 · 100 = 404
    d = solve(_parse(raw))
    assert all(s.exact is None for s in d.steps)
    assert (
        "Exact forms skipped: the problem has 404 input entries and angles (more than 400); "
        "all values are computed numerically."
    ) in d.notes


# ------------------------------------------------------------------ what the limits admit, and say


def test_the_benchmarks_problems_are_admitted(tmp_path: Path) -> None:
    """The limits admit benchmarks/bench_cli.py's problems: a 256-token self-attention, a 64-token,
    d_model 64, 8-head self-attention and a 64-token, 8-head, d_ff 256 encoder layer (53,248 numbers)."""
    import importlib.util

    from attncalc.parse import load_problem

    from ..helpers import ROOT

    spec = importlib.util.spec_from_file_location("bench_cli", ROOT / "benchmarks" / "bench_cli.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    sizes = {}
    for make in (bench.big_problem, bench.multi_head_problem, bench.layer_problem):
        p = load_problem(make(tmp_path))
        sizes[p.kind] = p.given["X"].shape
    assert sizes == {"self-attention": (256, 16), "multi-head": (64, 64), "transformer-layer": (64, 64)}


def test_the_limits_table_states_each_limit() -> None:
    from attncalc.parse import limits

    from ..helpers import ROOT

    text = (ROOT / "docs" / "interface.md").read_text(encoding="utf-8")
    section = text[text.index("## Limits") :]
    section = section[: section.index("\n## ", 1)]
    for name in [n for n in dir(limits) if n.startswith("MAX_")]:
        assert f"{getattr(limits, name):,}" in section, name


def _uniform(n: int) -> list[float]:
    return [1 / n] * n


def test_speculative_drafts_and_vocabulary_are_bounded() -> None:
    """docs/interface.md, Limits: at most 16 drafted tokens and 256 vocabulary entries."""
    vocab = [f"t{i}" for i in range(4)]
    draft = [_uniform(4)] * 17
    raw = {"kind": "speculative", "vocab": vocab, "given": {"draft": draft, "target": [_uniform(4)] * 18,
           "drafted": ["t0"] * 17, "uniforms": [0.5] * 17, "resample": 0.5}}  # fmt: skip
    assert _refused(raw) == f"{FILE}: given.draft: has 17 rows: at most 16 drafted tokens are worked"
    big = [f"t{i}" for i in range(257)]
    raw = {"kind": "speculative", "vocab": big, "given": {"draft": [_uniform(257)], "target": [_uniform(257)] * 2,
           "drafted": ["t0"], "uniforms": [0.5], "resample": 0.5}}  # fmt: skip
    assert _refused(raw) == f"{FILE}: vocab: has 257 entries: at most 256 are worked"


def test_a_grpo_group_is_bounded_by_its_tokens() -> None:
    """docs/interface.md, Limits: at most 64 tokens over the whole group."""
    logprobs = [[-0.5] * 33, [-0.5] * 32]
    raw = {"kind": "grpo", "given": {"rewards": [1, 0], "logprobs": logprobs, "old_logprobs": logprobs}}
    assert _refused(raw) == f"{FILE}: given.logprobs: has 65 tokens: at most 64 over the group"
