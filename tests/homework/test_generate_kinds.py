"""attncalc generate for every kind: rnn, lstm, gru (each layout, reset and update), seq2seq (with and
without attention), sequence and similarity. The same seed writes the same bytes, every key checks as
correct, and the guards hold when the variants are recomputed with numpy oracles (tests/cell_oracles.py)."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attncalc
from attncalc.homework.generate import Options, generate

from ..cell_oracles import num, run_recurrent, run_seq2seq

RUNS = {
    "rnn-keras-head": ["--kind", "rnn", "--layout", "keras", "--head"],
    "lstm-gates-head": ["--kind", "lstm", "--head"],
    "lstm-pytorch": ["--kind", "lstm", "--layout", "pytorch", "--values", "decimal"],
    "lstm-keras": ["--kind", "lstm", "--layout", "keras", "--values", "mixed"],
    "gru-gates-before": ["--kind", "gru"],
    "gru-gates-after-replace": ["--kind", "gru", "--reset", "after", "--update", "replace", "--head"],
    "gru-pytorch": ["--kind", "gru", "--layout", "pytorch"],
    "gru-pytorch-before": ["--kind", "gru", "--layout", "pytorch", "--reset", "before"],
    "gru-keras-replace": ["--kind", "gru", "--layout", "keras", "--update", "replace"],
    "seq2seq-luong": ["--kind", "seq2seq"],
    "seq2seq-luong-general-keras": ["--kind", "seq2seq", "--score", "general", "--layout", "keras"],
    "seq2seq-luong-additive": ["--kind", "seq2seq", "--score", "additive", "--cell", "rnn"],
    "seq2seq-bahdanau-lstm": ["--kind", "seq2seq", "--attention", "bahdanau", "--cell", "lstm"],
    "seq2seq-bahdanau-dot-pytorch": [
        "--kind",
        "seq2seq",
        "--attention",
        "bahdanau",
        "--score",
        "dot",
        "--layout",
        "pytorch",
    ],
    "seq2seq-none-lstm": ["--kind", "seq2seq", "--attention", "none", "--cell", "lstm", "--steps", "3"],
    "sequence-int": ["--kind", "sequence", "--tokens", "4"],
    "sequence-mixed": ["--kind", "sequence", "--values", "mixed"],
    "similarity-all": ["--kind", "similarity"],
    "similarity-cosine": ["--kind", "similarity", "--measure", "cosine", "--values", "decimal", "--dim", "3"],
}
RECURRENT = [k for k in RUNS if k.split("-")[0] in ("rnn", "lstm", "gru")]
SEQ2SEQ = [k for k in RUNS if k.startswith("seq2seq")]


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def options(args: list[str], **more: Any) -> Options:
    """The Options the CLI builds from these arguments."""
    keys: dict[str, Any] = {}
    flags = iter(args)
    for flag in flags:
        name = flag[2:].replace("-", "_")
        if name == "head":
            keys["head"] = True
            continue
        value = next(flags)
        keys[name] = int(value) if name in ("tokens", "dim", "steps") else value
    return Options(**{**keys, **more})


@pytest.mark.parametrize("name", list(RUNS))
def test_same_seed_same_bytes_and_keys_check_correct(cli: Any, tmp_path: Path, name: str) -> None:
    """Twice with one seed: the same files; another seed: other variants; every key is all correct."""
    args = [*RUNS[name], "--count", "3", "--format", "moodle"]
    for folder, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        result = cli("generate", *args, "--seed", seed, "--out", str(tmp_path / folder))
        assert result.exit_code == 0, result.stderr
    a, b, c = (files_of(tmp_path / x) for x in "abc")
    assert a == b
    assert a["variant-01.toml"] != c["variant-01.toml"]
    assert {"questions.md", "answers.md", "solutions.md", "answers/variant-03.toml"} <= set(a)
    quiz = sorted(f for f in a if f == "quiz.xml" or f.startswith("quiz-"))  # one file, or files under 2 MB
    assert quiz == ["quiz.xml"] or quiz == [f"quiz-{k}.xml" for k in range(1, len(quiz) + 1)], quiz
    for k in (1, 2, 3):
        key = tmp_path / "a" / "answers" / f"variant-{k:02d}.toml"
        report = attncalc.check(tmp_path / "a" / f"variant-{k:02d}.toml", key)
        assert report.all_correct, [(r.id, r.note) for r in report.results if r.verdict != "correct"]
        d = attncalc.solve(tmp_path / "a" / f"variant-{k:02d}.toml")
        assert [r.id for r in report.results] == list(d.step_ids)  # the key answers every step


def _guards_hold(raw: dict[str, Any], decimals: int, allow_ties: bool = False) -> None:
    """Recomputed with numpy: no σ outside [0.01, 0.99], no |tanh| above 0.99, no tied prediction."""
    kind = raw["kind"]
    steps = run_seq2seq(raw) if kind == "seq2seq" else run_recurrent(raw)
    for v in steps:
        for name in ("f", "i", "o", "r", "z"):
            if name in v:
                assert (v[name] >= 0.01).all() and (v[name] <= 0.99).all(), (name, v[name])
        for name in ("c_tilde", "tanh_c", "h_tilde", "attentional"):
            if name in v:
                assert (np.abs(v[name]) <= 0.99).all(), (name, v[name])
        if "probabilities" in v:
            top = np.sort(v["probabilities"])[::-1]
            assert top[0] - top[1] >= 10.0**-decimals, v["probabilities"]
        if "weights" in v and not allow_ties:
            top = np.sort(v["weights"])[::-1]
            assert top[0] - top[1] >= 10.0**-decimals
    table = raw.get("given") or raw["encoder"]
    assert all(np.any(num(row) != 0) for row in table["x"])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from(RECURRENT + SEQ2SEQ), st.sampled_from(["int", "decimal", "mixed"]))
def test_guards_hold_in_numpy(seed: int, name: str, values: str) -> None:
    """Every variant, recomputed by the numpy oracle from its problem table, keeps its gates off saturation
    and names one prediction; no two variants are the same."""
    o = options(RUNS[name], count=3, seed=seed, values=values)
    res = generate(o)
    seen = set()
    for raw in res.problems:
        _guards_hold(raw, o.decimals)
        key = repr({k: v for k, v in raw.items() if k != "title"})
        assert key not in seen
        seen.add(key)


@pytest.mark.parametrize("name", ["lstm-gates-head", "gru-pytorch", "seq2seq-bahdanau-lstm", "rnn-keras-head"])
def test_the_numpy_oracle_agrees_with_the_derivation(name: str) -> None:
    """The oracle the guards are checked with computes what attncalc computes (h at every step)."""
    res = generate(options(RUNS[name], count=2, seed=3))
    for raw, d in zip(res.problems, res.derivations, strict=True):
        if raw["kind"] == "seq2seq":
            for t, v in enumerate(run_seq2seq(raw), 1):
                np.testing.assert_allclose(np.asarray(d.step(f"decoder.{t}.h").value), v["h"], atol=1e-12)
                np.testing.assert_allclose(np.asarray(d.step(f"decoder.{t}.logits").value), v["logits"], atol=1e-12)
        else:
            for t, v in enumerate(run_recurrent(raw), 1):
                np.testing.assert_allclose(np.asarray(d.step(f"{t}.h").value), v["h"], atol=1e-12)


def test_sequence_and_similarity_variants_are_fit() -> None:
    """Probabilities in (0, 1), not all equal; similarity rows non-zero, distinct within and across A and B."""
    for seed in range(5):
        for raw in generate(Options(kind="sequence", tokens=4, count=4, seed=seed, values="mixed")).problems:
            p = [float(num(x)) for x in raw["given"]["probabilities"]]
            assert all(0 < x < 1 for x in p) and len(set(p)) > 1
        for raw in generate(Options(kind="similarity", count=4, seed=seed)).problems:
            A, B = (np.array(raw["given"][k], dtype=float) for k in "AB")
            assert (np.abs(A).sum(axis=1) > 0).all() and (np.abs(B).sum(axis=1) > 0).all()
            rows = [tuple(r) for r in A] + [tuple(r) for r in B]
            assert len(set(rows)) == len(rows)


def test_recurrent_problem_files_state_the_cell() -> None:
    """The layout, reset and update asked for are written into [cell] (and [encoder]/[decoder])."""
    raw = generate(Options(kind="gru", layout="keras", update="replace", seed=1)).problems[0]
    assert raw["cell"] == {"layout": "keras", "reset": "after", "update": "replace"}
    assert len(raw["given"]["bias"]) == 2  # a Keras GRU with the reset after has two bias rows
    raw = generate(Options(kind="seq2seq", attention="bahdanau", cell="lstm", layout="pytorch", seed=1)).problems[0]
    assert raw["encoder"]["cell"] == raw["decoder"]["cell"] == "lstm"
    assert raw["decoder"]["attention"] == "bahdanau" and raw["decoder"]["score"] == "additive"
    assert np.array(raw["decoder"]["weight_ih"]).shape == (8, 4)  # the cell reads [y; c]: 2 + 2


needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None or shutil.which("pdftotext") is None,
    reason="pdflatex and pdftotext are not installed (apt-get install texlive-latex-base texlive-latex-recommended "
    "poppler-utils)",
)


@needs_pdflatex
@pytest.mark.parametrize(
    "name",
    [
        "rnn-keras-head",
        "lstm-gates-head",
        "gru-pytorch",
        "seq2seq-bahdanau-lstm",
        "seq2seq-none-lstm",
        "sequence-mixed",
        "similarity-all",
    ],
)
def test_sheets_compile(cli: Any, tmp_path: Path, name: str) -> None:
    """--format pdf: the three sheets compile, and the answers sheet holds the key's values."""
    result = cli("generate", *RUNS[name], "--count", "2", "--seed", "2", "--format", "pdf", "--out", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    for sheet in ("questions", "answers", "solutions"):
        assert (tmp_path / f"{sheet}.pdf").read_bytes().startswith(b"%PDF")
    text = subprocess.run(
        ["pdftotext", "-layout", str(tmp_path / "answers.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    key = tomllib.loads((tmp_path / "answers" / "variant-02.toml").read_text(encoding="utf-8"), parse_float=str)
    last = [v for k, v in key.items() if k != "problem"][-1]
    while isinstance(last, dict):
        last = list(last.values())[-1]
    for v in last if isinstance(last, list) else [last]:
        for x in map(str, v if isinstance(v, list) else [v]):
            assert x.replace("-", "−") in text or x in text, x


@pytest.mark.parametrize("kind", ["lstm", "gru", "seq2seq"])
def test_no_repeated_input_or_output_rows(kind: str) -> None:
    """Two equal x rows teach nothing twice; two equal W_out rows make their labels tie at every step."""
    import attncalc

    extra = {"head": True} if kind != "seq2seq" else {}
    for v in attncalc.generate(kind=kind, tokens=2, count=12, seed=2026, **extra):
        g = v.problem["given"] if kind != "seq2seq" else {**v.problem["encoder"], **v.problem["decoder"]}
        for key in ("x", "W_out"):
            if key in g:
                rows = [tuple(r) for r in g[key]]
                assert len(set(rows)) == len(rows), (key, rows)
