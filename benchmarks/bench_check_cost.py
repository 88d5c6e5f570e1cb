"""Time whole ``attncalc check`` commands on the costliest answers files, against a baseline measured in
the same run (``attncalc solve`` of the same problem), and print ratios and peak memory.

    python benchmarks/bench_check_cost.py [--runs N]

The cases (docs/grading-limits.md): every step of a BPE problem at every limit (100 distinct words of
40 characters, 50 merges, 20 words to encode) answered wrong, and every token step of it answered with
its tokens altered (both refused up front), every count of it wrong, and 16 of its token steps altered
(the most its ceiling admits, graded); every step of a 32-head, 45-token
attention-backward pass answered with whole numbers (mostly wrong; a 980 KB answers file), which
check refuses up front (its work passes the ceiling); and the largest such backward pass it grades,
8 heads of 12 tokens, every step answered the same way; top-k over 99,000 logits written to two
decimals, every step answered with 1s (was about 30 s: equal logits ordered by comparing fractions
pairwise on every rerun), and a bleu problem of 100 references of 1,000 tokens to N = 9, every step
answered its true value + 1 (was about 17 s: the references' n-grams counted again on every
rerun); quantization of 49,000 × 2 weights in groups of 1 with its two scalar steps answered wrong
(was about 44 s: every rerun rounded each weight and wrote each scale in Python), and contrastive at
its limit with two steps written to 17 digits, one entry + 1 (was about 28 s: hand chains at 16
decimals rounded every entry one by one). Before the ceiling and the shared runs the
first took about 300 s and the second minutes and over 5 GB. Targets: each a few seconds, under
1 GB. No test asserts timings: this script reports.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable


def bpe_problem(folder: Path, words: int = 100, merges: int = 50, length: int = 40, encode: int = 20) -> Path:
    """A BPE problem at every limit: distinct words of ``length`` letters of a four-letter alphabet (so
    that every merge finds a pair), the corpus within its 5,000 characters."""
    rng = random.Random(5)
    seen: list[str] = []
    while len(seen) < words:
        w = "".join(rng.choice("abcd") for _ in range(length))
        if w not in seen:
            seen.append(w)
    new = ["".join(rng.choice("abcd") for _ in range(length)) for _ in range(encode)]
    path = folder / f"bpe-{words}-{merges}.json"
    given = {"corpus": " ".join(seen), "merges": merges, "encode": new}
    path.write_text(json.dumps({"title": f"BPE, {words} words, {merges} merges", "kind": "bpe", "given": given}))
    return path


def bpe_wrong_answers(folder: Path, problem: Path) -> Path:
    """Every step answered wrong: each count one more, another pair merged, the words as before the
    merge, the merges and the new tokens in reverse order, each encoded word as its characters."""
    from attncalc.mechanisms import solve
    from attncalc.parse import load_problem

    d = solve(load_problem(problem), exact=False, carry_rounded=False)
    out: dict[str, object] = {}
    before = None
    for s in d.steps:
        if s.id == "words" or s.id.endswith(".pairs"):
            out[s.id] = [int(v) + 1 for v in s.value]
        elif s.id.endswith(".merge"):
            out[s.id] = next(label for label in reversed(s.labels) if label != s.value) if len(s.labels) > 1 else "z z"
        elif s.id.endswith(".words"):
            out[s.id] = before if before is not None else "z"
            before = s.value
        elif s.id in ("merges", "vocab"):
            out[s.id] = ", ".join(reversed(s.value.split(", ")))
        elif s.id.startswith("encode."):
            out[s.id] = " ".join(s.value.replace(", ", ""))
    path = folder / f"{problem.stem}-wrong.json"
    path.write_text(json.dumps(out))
    return path


def bpe_token_answers(folder: Path, problem: Path, which: str = "all", count: int | None = None) -> Path:
    """Token steps answered with each true token string altered (an "x" added: no merge, word or
    encoding the problem can give), the most costly way to answer them (each slip is tried on each as a
    run of its own): ``which`` "all" (every step: the counts one more, as :func:`bpe_wrong_answers`),
    "tokens" (the token steps only, the first ``count`` of them when given) or "counts" (the counts
    only, one more each)."""
    from attncalc.mechanisms import solve
    from attncalc.parse import load_problem

    d = solve(load_problem(problem), exact=False, carry_rounded=False)
    out: dict[str, object] = {}
    for s in d.steps:
        if isinstance(s.value, str) and which in ("all", "tokens"):
            out[s.id] = s.value + "x"
        elif not isinstance(s.value, str) and which in ("all", "counts"):
            out[s.id] = [int(v) + 1 for v in s.value]
    if count is not None:
        out = dict(list(out.items())[:count])
    path = folder / f"{problem.stem}-{which}-{count or 'every'}.json"
    path.write_text(json.dumps(out))
    return path


def backward_problem(folder: Path, heads: int = 32, n: int = 45) -> Path:
    """An attention-backward problem of ``heads`` heads (d_k = 1) and ``n`` tokens, with W_O: at the
    limits (32 heads; 32 · 45 · 45 = 64,800 scores)."""
    rng = random.Random(3)

    def m(r: int, c: int) -> list[list[float]]:
        return [[round(rng.uniform(-1, 1), 1) for _ in range(c)] for _ in range(r)]

    d = heads
    given = {"X": m(n, d), "heads": heads, "W_Q": m(d, d), "W_K": m(d, d), "W_V": m(d, d), "W_O": m(d, d)}
    given["grad_output"] = m(n, d)
    path = folder / f"backward-{heads}-{n}.json"
    raw = {
        "title": f"backward, {heads} heads, {n} tokens",
        "kind": "attention-backward",
        "score": "dot",
        "given": given,
    }
    path.write_text(json.dumps(raw))
    return path


def whole_answers(folder: Path, problem: Path, how: str = "whole") -> Path:
    """Every numeric step answered: each entry its true value rounded to a whole number (``whole``:
    mostly wrong; a masked score "-inf"), 1 (``ones``), or its true value + 1 (``plus1``)."""
    import numpy as np

    from attncalc.mechanisms import solve
    from attncalc.parse import load_problem

    d = solve(load_problem(problem), exact=False, carry_rounded=False)
    out = {}
    for s in d.steps:
        if isinstance(s.value, str) or np.asarray(s.value).dtype.kind not in "fiu":
            continue
        v = np.asarray(s.value, dtype=float)
        if how == "ones":
            out[s.id] = np.ones(v.shape, dtype=int).tolist()
        elif how == "plus1":
            out[s.id] = np.where(np.isfinite(v), v + 1, 1.0).tolist()
        else:
            whole = np.rint(np.where(np.isinf(v), 0.0, v)).astype(int)
            out[s.id] = np.where(np.isneginf(v), "-inf", whole.astype(object)).tolist()
    path = folder / f"{problem.stem}-{how}.json"
    path.write_text(json.dumps(out, separators=(",", ":")))
    return path


def decode_problem(folder: Path, n: int = 99_000) -> Path:
    """Top-k over n logits written to two decimals (a few hundred distinct values, runs of hundreds of
    equal ones, ordered by their exact values), k = n − 1."""
    rng = random.Random(5)
    given = {"logits": [round(rng.uniform(-3, 3), 2) for _ in range(n)], "k": n - 1, "u": 0.5}
    path = folder / f"decode-top-k-{n}.json"
    path.write_text(
        json.dumps({"title": f"top-k over {n} logits", "kind": "decode", "strategy": "top-k", "given": given})
    )
    return path


def bleu_problem(folder: Path, length: int = 1000, refs: int = 100, max_n: int = 9) -> Path:
    """A candidate of ``length`` tokens over 30 words, ``refs`` references as long, orders to ``max_n``."""
    rng = random.Random(9)
    words = [f"w{i}" for i in range(30)]

    def sentence() -> list[str]:
        return [rng.choice(words) for _ in range(length)]

    given = {"candidate": sentence(), "references": [sentence() for _ in range(refs)], "max_n": max_n}
    path = folder / f"bleu-{refs}-{length}-{max_n}.json"
    path.write_text(json.dumps({"title": "bleu", "kind": "bleu", "given": given}))
    return path


def quantization_problem(folder: Path, rows: int = 49_000) -> Path:
    """W of ``rows`` × 2 weights of two decimals, 4-bit zero point in groups of 1 (a scale per weight)."""
    rng = random.Random(3)
    W = [[round(rng.uniform(-1, 1), 2) for _ in range(2)] for _ in range(rows)]
    given = {"W": W, "bits": 4, "scheme": "zeropoint", "granularity": "group", "group": 1}
    path = folder / f"quantization-{rows}x2.json"
    path.write_text(json.dumps({"title": "quantization", "kind": "quantization", "given": given}))
    return path


def contrastive_problem(folder: Path, pairs: int = 256, width: int = 190) -> Path:
    """``pairs`` query and key rows of ``width`` entries of two decimals, temperature 0.07."""
    rng = random.Random(2)

    def rows() -> list[list[float]]:
        return [[round(rng.uniform(-1, 1), 2) for _ in range(width)] for _ in range(pairs)]

    given = {"queries": rows(), "keys": rows(), "temperature": 0.07}
    path = folder / f"contrastive-{pairs}x{width}.json"
    path.write_text(json.dumps({"title": "contrastive", "kind": "contrastive", "given": given}))
    return path


def some_answers(folder: Path, problem: Path, ids: list[str], how: str) -> Path:
    """Only the steps ``ids`` answered: 1 (``one``), or the true values written in full (17 significant
    digits) with the first entry + 1 (``first+1``)."""
    import numpy as np

    from attncalc.mechanisms import solve
    from attncalc.parse import load_problem

    d = solve(load_problem(problem), exact=False, carry_rounded=False)
    out: dict[str, object] = {}
    for i in ids:
        v = np.asarray(d[i], dtype=float).copy()
        if how == "one":
            out[i] = 1
        else:
            v.flat[0] += 1
            out[i] = v.tolist()
    path = folder / f"{problem.stem}-{how}.json"
    path.write_text(json.dumps(out, separators=(",", ":")))
    return path


def timed(cmd: list[str], runs: int) -> tuple[float, int]:
    """Median wall time of ``cmd`` (each run a fresh process), and the exit code."""
    times, code = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False).returncode
        times.append(time.perf_counter() - t0)
    return statistics.median(times), code


def peak_mb(cmd: list[str]) -> float:
    """The peak resident memory of one run of ``cmd`` (in a child that runs it, so that earlier runs do
    not count), in MB."""
    probe = (
        "import resource,subprocess,sys;"
        "subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([PY, "-c", probe, *cmd], capture_output=True, text=True, check=True).stdout
    return int(out.strip()) / 1024  # (kilobytes on Linux)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    attncalc = shutil.which("attncalc") or f"{PY} -m attncalc"
    exe = attncalc.split()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bpe = bpe_problem(folder)
        backward = backward_problem(folder)
        graded = backward_problem(folder, 8, 12)
        decode = decode_problem(folder)
        bleu = bleu_problem(folder)
        quant = quantization_problem(folder)
        contrastive = contrastive_problem(folder)
        cases = [
            ("bpe 100 words, 50 merges, every step wrong", bpe, bpe_wrong_answers(folder, bpe)),
            ("bpe 100 words, 50 merges, every step wrong, tokens altered", bpe, bpe_token_answers(folder, bpe)),
            ("bpe 100 words, 50 merges, every count wrong", bpe, bpe_token_answers(folder, bpe, "counts")),
            ("bpe 100 words, 50 merges, 16 token steps altered", bpe, bpe_token_answers(folder, bpe, "tokens", 16)),
            ("backward 32 heads x 45 tokens, every step whole numbers", backward, whole_answers(folder, backward)),
            ("backward 8 heads x 12 tokens, every step whole numbers", graded, whole_answers(folder, graded)),
            ("decode top-k over 99,000 logits, every step 1s", decode, whole_answers(folder, decode, "ones")),
            ("bleu 100 references x 1,000 tokens, N = 9, every step + 1", bleu, whole_answers(folder, bleu, "plus1")),
            (
                "quantization 49,000 x 2 in groups of 1, two scalars wrong",
                quant,
                some_answers(folder, quant, ["max_error", "mse"], "one"),
            ),
            (
                "contrastive 256 x 256, width 190, two steps written in full, one entry + 1",
                contrastive,
                some_answers(folder, contrastive, ["query_norms", "row_losses"], "first+1"),
            ),
        ]
        for name, problem, answers in cases:
            check = [*exe, "check", str(problem), str(answers), "-f", "json"]
            solve = [*exe, "solve", str(problem), "--no-exact", "-f", "json"]
            t, code = timed(check, args.runs)
            base, _ = timed(solve, args.runs)
            size = answers.stat().st_size / 1024
            rows.append((f"check {name} ({size:.0f} KB, exit {code})", t, base, peak_mb(check)))
    width = max(len(r[0]) for r in rows)
    print(f"{'command':<{width}}  {'time':>8}  {'its solve':>9}  {'ratio':>6}  {'peak MB':>8}")
    for name, t, base, mb in rows:
        print(f"{name:<{width}}  {t:7.2f}s  {base:8.2f}s  {t / base:6.1f}  {mb:8.0f}")
    print("targets: each check a few seconds and under 1 GB (exit 2: refused up front, the ceiling)")


if __name__ == "__main__":
    main()
