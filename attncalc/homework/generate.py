"""Seeded homework: hand-friendly, non-degenerate problem variants (the library behind ``generate``).

All randomness comes from one ``random.Random(seed)``, so the same options and seed give the same
variants on every machine. Each kind's drawer (:mod:`attncalc.homework`, named in the registry of
kinds) draws a problem table and says why a variant is unfit: for attention, top two weights that
tie (unless ties are allowed), a weight above 0.95 or below 0.01, exact forms that stop being readable
before the weights; for the recurrent kinds and seq2seq, a saturated gate (σ above 0.99 or below
0.01, |tanh| above 0.99); for every kind, top output probabilities that tie (the key names one
prediction), an input row of zeros, a dead unit (:mod:`attncalc.homework.dead`: a column of X, of V,
of an FFN pre-activation or of a LayerNorm's normalized rows that is all zeros or the same for every
token; a row of zeros in an output layer), or a repeat of an earlier variant. An unfit draw is redrawn.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from .. import kinds
from ..derivation import Derivation
from ..errors import ProblemError
from ..mechanisms import solve
from ..parse import parse_problem
from .base import Drawer, draws_advice, refuse_unread
from .dead import dead_input, dead_unit
from .options import Options, Result

__all__ = [
    "Options",
    "Result",
    "answer_key",
    "answers_toml",
    "check_options",
    "default_dim",
    "drawer",
    "generate",
    "problem_toml",
]

MAX_DRAWS_PER_VARIANT = 500
FLOAT_OPTIONS = (
    "clip_norm",
    "label_smoothing",
    "slip_share",
    "carried_share",
)  # the options given as a number with decimals
OTHER_SHAPE = "another shape than variant 1 (an LMS quiz asks every variant the same questions)"


def drawer(kind: str) -> Drawer:
    """The homework drawer of a kind (``--kind``), or bad input naming the kinds covered."""
    covered = kinds.with_drawer()  # the kinds whose registry entry names a drawer
    if kind not in covered:
        choose = f"{', '.join(covered[:-1])} or {covered[-1]}"
        raise ProblemError("generate", "--kind", f"unknown kind {kind!r}; choose {choose}")
    found: Drawer = kinds.entry(kind).load("drawer")
    return found


def default_dim(kind: str) -> int:
    """--dim when it is not given: the kind's own (a transformer layer needs 4), else 2."""
    return drawer(kind).default_dim if kind in kinds.KINDS else 2


def check_options(o: Options) -> Drawer:
    """The kind's drawer, once every option is in range (bad input naming the option otherwise).

    Cheap: callers run it before anything else (the output folder's check lists ``o.count`` names).
    """
    where = "generate"
    draw = drawer(o.kind)
    for name in FLOAT_OPTIONS:  # inf or nan would reach a variant file, and its error would name that file
        value = getattr(o, name)
        if isinstance(value, float) and not math.isfinite(value):
            flag = "--" + name.replace("_", "-")
            raise ProblemError(where, flag, f"{flag} {value}: not a finite number")
    draw.check(o)
    refuse_unread(o, draw)
    if not draw.min_tokens <= o.tokens <= draw.max_tokens:
        raise ProblemError(where, "--tokens", f"choose {draw.min_tokens} to {draw.max_tokens} tokens")
    if not 1 <= o.dim <= 6:
        raise ProblemError(where, "--dim", "choose a dimension from 1 to 6 (a hand calculation)")
    if o.count < 1 or o.count > 1000:
        raise ProblemError(where, "--count", "choose 1 to 1000 variants")
    for option, share in (("--slip-share", o.slip_share), ("--carried-share", o.carried_share)):
        if share is not None and not (isinstance(share, float | int) and 0 <= share <= 1):
            raise ProblemError(where, option, f"choose a share from 0 to 1 (0.5: half a step's points), got {share!r}")
    if o.values not in ("int", "decimal", "mixed"):
        raise ProblemError(where, "--values", "choose int, decimal or mixed")
    return draw


def draw_problem(o: Options, rng: random.Random, number: int) -> dict[str, Any]:
    """One random problem table of ``o.kind`` (not yet checked for degeneracy)."""
    return drawer(o.kind).draw(o, rng, number)


def degeneracy(o: Options, raw: dict[str, Any], d: Derivation) -> str | None:
    """Why a variant is not fit for a worksheet, or None."""
    draw = drawer(o.kind)
    return draw.reject(o, raw) or dead_input(raw) or draw.degeneracy(o, raw, d) or dead_unit(d, o.decimals)


def generate(o: Options, shape: Callable[[Derivation], Any] | None = None) -> Result:
    """Draw ``o.count`` distinct, non-degenerate variants from one seeded generator; with
    ``o.one_shape``, each of the same ``shape`` as variant 1 (what a quiz asks of it: the caller gives
    the LMS exports' :func:`attncalc.reports.lms.shape`, a layer above this one)."""
    draw = check_options(o)
    rng = random.Random(o.seed)
    out = Result()
    seen: set[str] = set()
    for number in range(1, o.count + 1):
        shaped = out.rejected[OTHER_SHAPE]  # draws of another shape before this variant's
        for _ in range(MAX_DRAWS_PER_VARIANT):
            raw = draw.draw(o, rng, number)
            if o.slip_share is not None:  # [grading] slip: what check and every LMS give a named slip
                raw = {**raw, "grading": {**raw.get("grading", {}), "slip": float(o.slip_share)}}
            if o.carried_share is not None:  # [grading] carried: what they give a step carried from a slip
                raw = {**raw, "grading": {**raw.get("grading", {}), "carried": float(o.carried_share)}}
            key = repr({k: v for k, v in raw.items() if k != "title"})
            if key in seen:
                out.rejected["a repeat of an earlier variant"] += 1
                continue
            why = draw.reject(o, raw) or dead_input(raw)  # before parsing: a zero row would make a cosine undefined
            d = None
            if why is None:
                problem = parse_problem(raw, f"variant-{number:02d}.toml")
                floats = solve(problem, exact=False)  # cheap checks first
                why = draw.degeneracy(o, raw, floats) or dead_unit(floats, o.decimals)
                d = solve(problem) if why is None else None
                if d is not None:
                    why = draw.degeneracy(o, raw, d)
            quiz = o.one_shape and shape is not None and out.derivations
            if why is None and d is not None and quiz and shape(d) != shape(out.derivations[0]):  # type: ignore[misc]
                why = OTHER_SHAPE
            if why is None and d is not None:
                seen.add(key)
                out.problems.append(raw)
                out.derivations.append(d)
                break
            out.rejected[why or "exact forms too long"] += 1
        else:
            shapes = out.rejected[OTHER_SHAPE] - shaped
            raise ProblemError(
                "generate",
                "--seed",
                f"no fit variant {number} in {MAX_DRAWS_PER_VARIANT} draws; {draws_advice(o, draw, shapes)}",
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
    from ..render.json import to_dict

    key: dict[str, Any] = {}
    for s in to_dict(d)["steps"]:
        step = d.step(s["id"])
        if isinstance(step.value, str):  # a label, or tokens: written as the views write them ("ne, west")
            key[s["id"]] = step.shown if isinstance(step.shown, str) else step.value
            continue
        key[s["id"]] = _whole(step.value, s["shown"]) if d.decimals == 0 else s["shown"]
    return key


def answers_toml(d: Derivation, problem_file: str) -> str:
    """The key for one variant as an answers file for ``attncalc check``."""
    # check reads a problem outside the answers file's folder only when told where (--problems)
    where = "; check it from the set's folder: attncalc check --problems . answers/THIS_FILE"
    head = f"# Key for {problem_file}: the true values at {d.decimals} decimals"
    lines = [head + (where if problem_file.startswith("../") else "."), f'problem = "{problem_file}"']
    ids = set(d.step_ids)
    for step_id, shown in answer_key(d).items():
        # a step under another step's id (accounting's layer.attention beside layer) is quoted: dotted, TOML
        # would make layer a table and refuse layer = … (check reads a quoted dotted id as the step's)
        parts = step_id.split(".")
        key = f'"{step_id}"' if any(".".join(parts[:k]) in ids for k in range(1, len(parts))) else step_id
        if isinstance(d.step(step_id).value, str):  # a prediction, a choice: a label
            lines.append(f'{key} = "{shown}"')
            continue
        lines.append(f"{key} = {_shown_toml(shown)}")
    return "\n".join(lines) + "\n"


def _whole(value: Any, shown: Any) -> Any:
    """Numbers rounded half up to whole numbers, as strings (a masked −∞ stays "-inf"); a label (a
    prediction, a chosen token) stays as shown."""
    import numpy as np

    from ..derivation.arith import round_half_up

    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return shown
    return _whole_strings(a, round_half_up)


def _whole_strings(a: Any, rnd: Any) -> Any:
    if a.ndim:
        return [_whole_strings(v, rnd) for v in a]
    x = float(a)
    return "-inf" if x == -math.inf else str(int(rnd(x, 0)))


def _shown_toml(x: Any) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_shown_toml(v) for v in x) + "]"
    return '"-inf"' if x == "-inf" else x
