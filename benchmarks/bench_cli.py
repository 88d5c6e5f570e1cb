"""Time whole attncalc commands against baselines measured in the same run, and print ratios.

    python benchmarks/bench_cli.py [--runs N]

Each command runs N times in a fresh process (the way a person runs it); the median wall time is
reported. Targets (issue 2): --help within 1.5x of `import typer`; solving the Luong problem in
exact mode under half the time of a PyTorch one-liner printing the same numbers; a 256-token
self-attention with exact mode off under a second; 200 generated variants with Markdown sheets in a
few seconds. Issue 13: a 64-token, d_model = 64, 8-head self-attention with --no-exact under a second,
and the 3-token 2-head example in exact mode within 1.2x the single-head Luong example. Issue 14: a
64-token, d_model = 64, 8-head, d_ff = 256 encoder layer with --no-exact under 1.5 s. Issue 29: the
backward pass of that 8-head self-attention with --no-exact within 3x its forward multi-head solve.
No test asserts timings: this script reports.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

TORCH_ONE_LINER = (
    "import torch;H=torch.tensor([[.3,.7,-.2],[.5,.4,.6],[.2,-.3,.8]]);"
    "W=torch.tensor([[.8,-.2,.3],[.5,.6,-.1],[-.3,.4,.7]]);q=torch.tensor([.6,-.4,.5]);"
    "a=torch.softmax(H@W@q,0);print(a.tolist(),(a@H).tolist())"
)


def median_time(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def big_problem(folder: Path, n: int = 256, d: int = 16) -> Path:
    import random

    rng = random.Random(0)
    X = [[round(rng.uniform(-1, 1), 2) for _ in range(d)] for _ in range(n)]
    W = [[round(rng.uniform(-1, 1), 2) for _ in range(d)] for _ in range(d)]
    path = folder / "self-attention-256.json"
    path.write_text(
        json.dumps(
            {
                "title": f"{n}-token self-attention",
                "kind": "self-attention",
                "given": {"X": X, "W_Q": W, "W_K": W, "W_V": W, "mask": "causal"},
                "settings": {"exact": False},
            }
        )
    )
    return path


def layer_problem(folder: Path, n: int = 64, d: int = 64, heads: int = 8, d_ff: int = 256) -> Path:
    import random

    rng = random.Random(2)

    def m(r: int, c: int) -> list[list[float]]:
        return [[round(rng.uniform(-1, 1), 2) for _ in range(c)] for _ in range(r)]

    path = folder / "encoder-layer-64.json"
    layer = {
        "title": f"{n}-token {heads}-head encoder layer",
        "kind": "transformer-layer",
        "given": {"X": m(n, d), "heads": heads},
        "self_attention": {"W_Q": m(d, d), "W_K": m(d, d), "W_V": m(d, d), "W_O": m(d, d)},
        "ffn": {"W_1": m(d, d_ff), "W_2": m(d_ff, d)},
    }
    path.write_text(json.dumps(layer))
    return path


def multi_head_problem(folder: Path, n: int = 64, d: int = 64, heads: int = 8) -> Path:
    import random

    rng = random.Random(1)

    def m(r: int, c: int) -> list[list[float]]:
        return [[round(rng.uniform(-1, 1), 2) for _ in range(c)] for _ in range(r)]

    path = folder / "multi-head-64.json"
    given = {"X": m(n, d), "heads": heads, "W_Q": m(d, d), "W_K": m(d, d), "W_V": m(d, d), "W_O": m(d, d)}
    path.write_text(
        json.dumps({"title": f"{n}-token {heads}-head self-attention", "kind": "multi-head", "given": given})
    )
    return path


def backward_problem(folder: Path, forward: Path) -> Path:
    """The multi-head problem's givens with an upstream gradient: kind attention-backward."""
    import random

    raw = json.loads(forward.read_text())
    rng = random.Random(2)
    n, d = len(raw["given"]["X"]), len(raw["given"]["W_O"][0])
    raw["given"]["grad_output"] = [[round(rng.uniform(-1, 1), 2) for _ in range(d)] for _ in range(n)]
    path = folder / "attention-backward-64.json"
    path.write_text(json.dumps(raw | {"kind": "attention-backward", "title": f"backward: {raw['title']}"}))
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    attncalc = shutil.which("attncalc") or f"{PY} -m attncalc"
    exe = attncalc.split()
    rows: list[tuple[str, float, str, float, str]] = []

    typer_t = median_time([PY, "-c", "import typer"], args.runs)
    help_t = median_time([*exe, "--help"], args.runs)
    rows.append(("attncalc --help", help_t, "python -c 'import typer'", typer_t, "target ≤ 1.5"))

    luong = str(ROOT / "problems" / "luong-general.toml")
    solve_t = median_time([*exe, "solve", luong, "--exact"], args.runs)
    try:
        torch_t = median_time([PY, "-c", TORCH_ONE_LINER], args.runs)
        rows.append(
            ("attncalc solve luong-general.toml (exact)", solve_t, "PyTorch one-liner", torch_t, "target ≤ 0.5")
        )
    except subprocess.CalledProcessError:
        print("PyTorch is not installed: the Luong solve is reported without its baseline.")
        rows.append(("attncalc solve luong-general.toml (exact)", solve_t, "(no torch)", float("nan"), ""))

    with tempfile.TemporaryDirectory() as tmp:
        big = big_problem(Path(tmp))
        big_t = median_time([*exe, "solve", str(big), "--no-exact"], args.runs)
        py_t = median_time([PY, "-c", "pass"], args.runs)
        rows.append(
            ("attncalc solve 256-token self-attention (--no-exact)", big_t, "python -c pass", py_t, "target: under 1 s")
        )
        mh = multi_head_problem(Path(tmp))
        mh_t = median_time([*exe, "solve", str(mh), "--no-exact"], args.runs)
        rows.append(
            (
                "attncalc solve 64-token 8-head multi-head (--no-exact)",
                mh_t,
                "python -c pass",
                py_t,
                "target: under 1 s",
            )
        )
        backward = backward_problem(Path(tmp), mh)
        backward_t = median_time([*exe, "solve", str(backward), "--no-exact"], args.runs)
        rows.append(
            (
                "attncalc solve 64-token 8-head attention-backward (--no-exact)",
                backward_t,
                "its forward",
                mh_t,
                "target ≤ 3",
            )
        )
        layer = layer_problem(Path(tmp))
        layer_t = median_time([*exe, "solve", str(layer), "--no-exact"], args.runs)
        rows.append(
            (
                "attncalc solve 64-token d_model 64 8-head d_ff 256 encoder layer (--no-exact)",
                layer_t,
                "python -c pass",
                py_t,
                "target: under 1.5 s",
            )
        )
    two_heads = str(ROOT / "problems" / "mh-self-attention.toml")
    two_t = median_time([*exe, "solve", two_heads, "--exact"], args.runs)
    rows.append(
        ("attncalc solve mh-self-attention.toml (exact)", two_t, "luong-general.toml (exact)", solve_t, "target ≤ 1.2")
    )

    width = max(len(r[0]) for r in rows)
    print(f"{'command':<{width}}  {'time':>8}  {'baseline':<26} {'time':>8}  {'ratio':>6}")
    for name, t, base, bt, target in rows:
        ratio = t / bt if bt == bt else float("nan")
        print(f"{name:<{width}}  {t:8.3f}s  {base:<26} {bt:8.3f}s  {ratio:6.2f}  {target}")


if __name__ == "__main__":
    main()
