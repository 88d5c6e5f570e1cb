"""Seeded homework: hand-friendly, non-degenerate problem variants (the library behind ``generate``).

All randomness comes from one ``random.Random(seed)``, so the same options and seed give the same
variants on every machine. A draw is rejected and redrawn when its top two weights tie (unless
ties are allowed) or its top two output probabilities tie (always: the key names one prediction), its largest weight is above 0.95 or its smallest below 0.01, an input row is all
zeros, it repeats an earlier variant, or its exact forms stop being readable before the weights.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import kinds
from .derivation import Argmax, Derivation
from .errors import ProblemError
from .mechanisms import solve
from .problem import parse_problem

MAX_DRAWS_PER_VARIANT = 500
VOCAB = ("A", "B", "C", "D", "E", "F")
TOKENS = ("the", "cat", "sat", "on", "a", "mat", "and", "slept", "all", "day", "long", "today")


@dataclass(frozen=True)
class Options:
    kind: str = "attention"
    score: str = "dot"
    tokens: int = 3
    dim: int = 2
    head: bool = False
    mask: str | None = None
    count: int = 1
    seed: int = 0
    values: str = "int"  # int | decimal | mixed
    allow_ties: bool = False
    decimals: int = 3


@dataclass
class Result:
    problems: list[dict[str, Any]] = field(default_factory=list)
    derivations: list[Derivation] = field(default_factory=list)
    rejected: Counter[str] = field(default_factory=Counter)


class _Draw:
    def __init__(self, rng: random.Random, values: str) -> None:
        self.rng = rng
        self.values = values

    def number(self) -> int | float:
        style = self.values if self.values != "mixed" else self.rng.choice(("int", "decimal"))
        if style == "int":
            return self.rng.choice((-2, -1, 0, 1, 1, 2))
        return self.rng.choice((-10, -8, -5, -4, -2, 0, 2, 3, 4, 5, 6, 8, 10)) / 10

    def vector(self, n: int) -> list[int | float]:
        return [self.number() for _ in range(n)]

    def matrix(self, rows: int, cols: int) -> list[list[int | float]]:
        return [self.vector(cols) for _ in range(rows)]


def _check_options(o: Options) -> None:
    where = "generate"
    covered = kinds.with_drawer()  # the kinds whose registry entry names a drawer
    if o.kind not in covered:
        choose = f"{', '.join(covered[:-1])} or {covered[-1]}"
        raise ProblemError(where, "--kind", f"unknown kind {o.kind!r}; choose {choose}")
    if o.kind == "attention" and o.score not in ("dot", "scaled-dot", "general", "additive", "concat"):
        raise ProblemError(where, "--score", f"unknown score {o.score!r}")
    if o.kind == "self-attention" and o.score not in ("dot", "scaled-dot"):
        raise ProblemError(where, "--score", "self-attention takes dot or scaled-dot")
    if not 2 <= o.tokens <= len(TOKENS):
        raise ProblemError(where, "--tokens", f"choose 2 to {len(TOKENS)} tokens")
    if not 1 <= o.dim <= 6:
        raise ProblemError(where, "--dim", "choose a dimension from 1 to 6 (a hand calculation)")
    if o.count < 1 or o.count > 1000:
        raise ProblemError(where, "--count", "choose 1 to 1000 variants")
    if o.values not in ("int", "decimal", "mixed"):
        raise ProblemError(where, "--values", "choose int, decimal or mixed")
    if o.mask is not None and (o.kind != "self-attention" or o.mask != "causal"):
        raise ProblemError(where, "--mask", "--mask causal applies to self-attention")
    if o.head and o.kind != "attention":
        raise ProblemError(where, "--head", "--head applies to attention")


def draw_problem(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    """One random problem table (not yet checked for degeneracy)."""
    d = _Draw(rng, o.values)
    n, k = o.tokens, o.dim
    tokens = list(TOKENS[:n])
    raw: dict[str, Any] = {
        "title": f"Variant {number}",
        "kind": o.kind,
        "tokens": tokens,
        "settings": {"decimals": o.decimals},
    }
    if o.kind == "softmax":
        labels = list(VOCAB[:n]) if n <= len(VOCAB) else tokens
        raw.pop("tokens")
        raw["given"] = {"logits": d.vector(n), "vocab": labels, "target": rng.choice(labels)}
        return raw
    raw["score"] = o.score
    if o.kind == "self-attention":
        g: dict[str, Any] = {"X": d.matrix(n, k), "W_Q": d.matrix(k, k), "W_K": d.matrix(k, k), "W_V": d.matrix(k, k)}
        if o.mask:
            g["mask"] = o.mask
        raw["given"] = g
        return raw
    g = {"query": d.vector(k), "keys": d.matrix(n, k)}
    if o.score == "general":
        g["W"] = d.matrix(k, k)
    elif o.score == "additive":
        g.update(W_q=d.matrix(k, k), W_k=d.matrix(k, k), v=d.vector(k))
    elif o.score == "concat":
        g.update(W=d.matrix(k, 2 * k), v=d.vector(k))
    raw["given"] = g
    if o.head:
        vocab = list(VOCAB[:3])
        raw["head"] = {"combine": "add", "W_out": d.matrix(len(vocab), k), "vocab": vocab}
    return raw


def degeneracy(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    """Why a variant is not fit for a worksheet, or None.

    Ties are judged at the decimals asked for, but at least one: weights and probabilities lie
    between 0 and 1, so at --decimals 0 every pair would tie.
    """
    apart = 10.0 ** (-max(o.decimals, 1))  # top values closer than this tie
    g = raw["given"]
    for key in ("keys", "X"):
        if key in g and any(all(x == 0 for x in row) for row in g[key]):
            return "a row of zeros"
    if "query" in g and all(x == 0 for x in g["query"]):
        return "a row of zeros"
    for step in d.steps:  # a key must name one prediction: top probabilities that tie have none
        if isinstance(step, Argmax) and len(step.tied(tol=apart)) > 1:
            return "top probabilities tie (no single prediction)"
    final = "weights" if "weights" in d.step_ids else "probabilities"
    w = np.atleast_2d(np.asarray(d.step(final).value, dtype=float))
    for row in w:
        live = row[row > 0] if o.mask else row
        if len(live) < 2:
            continue
        top = np.sort(live)[::-1]
        if not o.allow_ties and top[0] - top[1] < apart:
            return "top weights tie"
        if top[0] > 0.95:
            return "a weight above 0.95"
        if top[-1] < 0.01:
            return "a weight below 0.01"
    if any("Exact forms stop" in n for n in d.notes):
        stopped = next(n for n in d.notes if "Exact forms stop" in n).split("'")[1]
        if d.step_ids.index(stopped) <= d.step_ids.index(final):
            return "exact forms too long"
    return None


def generate(o: Options) -> Result:
    """Draw ``o.count`` distinct, non-degenerate variants from one seeded generator."""
    _check_options(o)
    rng = random.Random(o.seed)
    out = Result()
    seen: set[str] = set()
    for number in range(1, o.count + 1):
        for _ in range(MAX_DRAWS_PER_VARIANT):
            raw = draw_problem(o, rng, number)
            key = repr(raw["given"])
            if key in seen:
                out.rejected["a repeat of an earlier variant"] += 1
                continue
            problem = parse_problem(raw, f"variant-{number:02d}.toml")
            why = degeneracy(o, raw, solve(problem, exact=False))  # cheap checks first
            d = solve(problem) if why is None else None
            if d is not None:
                why = degeneracy(o, raw, d)
            if why is None and d is not None:
                seen.add(key)
                out.problems.append(raw)
                out.derivations.append(d)
                break
            out.rejected[why or "exact forms too long"] += 1
        else:
            raise ProblemError(
                "generate",
                "--seed",
                f"no fit variant {number} in {MAX_DRAWS_PER_VARIANT} draws; "
                "try other options (more tokens, another --values, --allow-ties)",
            )
    return out


# ------------------------------------------------------------------------------ files


def _toml_value(v: Any) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        if v and isinstance(v[0], list):
            return "[" + ",\n  ".join(_toml_value(r) for r in v) + "]"
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def problem_toml(raw: dict[str, Any], seed: int) -> str:
    """A problem table as a commented TOML file (tables last, as TOML requires)."""
    lines = [f"# Generated by attncalc generate (seed {seed}); solve with: attncalc solve THIS_FILE"]
    for key, v in raw.items():
        if not isinstance(v, dict):
            lines.append(f"{key} = {_toml_value(v)}")
    for key, v in raw.items():
        if isinstance(v, dict):
            lines.append(f"\n[{key}]")
            lines += [f"{k} = {_toml_value(x)}" for k, x in v.items()]
    return "\n".join(lines) + "\n"


def answer_key(d: Derivation) -> dict[str, Any]:
    """Step id -> the true value as shown at the derivation's decimals (strings, nested as the value).

    At 0 decimals every value is a whole number: a "0.27" among them would make check judge each
    whole number to 2 decimals.
    """
    from .render.json import to_dict

    key: dict[str, Any] = {}
    for s in to_dict(d)["steps"]:
        zero = d.decimals == 0 and s["id"] != "prediction"
        key[s["id"]] = _whole(d.step(s["id"]).value) if zero else s["shown"]
    return key


def answers_toml(d: Derivation, problem_file: str) -> str:
    """The key for one variant as an answers file for ``attncalc check``."""
    lines = [f"# Key for {problem_file}: the true values at {d.decimals} decimals.", f'problem = "{problem_file}"']
    for step_id, shown in answer_key(d).items():
        if step_id == "prediction":
            lines.append(f'prediction = "{shown}"')
            continue
        lines.append(f"{step_id} = {_shown_toml(shown)}")
    return "\n".join(lines) + "\n"


def _whole(value: Any) -> Any:
    """Values rounded half up to whole numbers, as strings (a masked −∞ stays "-inf")."""
    from .arith import round_half_up

    a = np.asarray(value, dtype=float)
    if a.ndim:
        return [_whole(v) for v in a]
    x = float(a)
    return "-inf" if x == -math.inf else str(int(round_half_up(x, 0)))


def _shown_toml(x: Any) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_shown_toml(v) for v in x) + "]"
    return '"-inf"' if x == "-inf" else x
