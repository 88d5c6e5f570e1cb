"""Kind ``speculative``: one round of speculative decoding (Leviathan et al. 2023, Algorithm 1; Chen et
al. 2023, "Accelerating LLM decoding with speculative sampling").

The draft model proposed γ tokens x_1 … x_γ, drawing x_i from q_i; the target model, in one pass, gave
p_1 … p_(γ+1). Token x_i is accepted when r_i ≤ min(1, p_i(x_i) / q_i(x_i)); the run stops at the first
rejection j. The token after the run is drawn from the residual max(0, p_j − q_j) normalised (from
p_(γ+1) when every draft was accepted), here by the inverse CDF: the first token, in vocabulary order,
whose running sum is greater than the given draw. The acceptance rate α_i = Σ_x min(p_i(x), q_i(x)) is
the chance that draft i passes its test; the expected number of tokens one target pass yields is
1 + Σ_(j=1..γ) Π_(i≤j) α_i: for a constant α, (1 − α^(γ+1)) / (1 − α), the paper's expected number
of tokens a run yields.

Every decision (a test, the draw) is made on exact numbers: in exact mode on the exact values, in
float mode on the floats unless two compared numbers are within ``TIE`` of each other, when the exact
run decides. A student's own numbers (``check``) are compared as written.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..derivation import Formula, Input, Pick, Step, Tokens
from ..derivation.arith import Chain, ExactStopped, MistakeNotApplicable, SlipProbe, to_float
from ..derivation.fmt import fmt, fmt_given
from ..numbers import to_exact
from ..numbers import to_float as node_float
from ..parse import Problem
from ..parse.speculative import Speculative
from .common import whole_numbers
from .speculative_rates import rate_steps

# the named slips of this kind (attncalc/kinds/mistakes.py)
RATIO_INVERTED = "speculative_ratio_inverted"
NOT_NORMALISED = "speculative_residual_not_normalised"
NO_MAX = "speculative_residual_no_max"
CONTINUED = "speculative_continued_after_rejection"
FROM_TARGET = "speculative_next_from_target"
RESIDUAL_SLIPS = (NOT_NORMALISED, NO_MAX, FROM_TARGET)

# The residual's formula names the first rejected position by a symbol, j, not by its number: the
# number says which draft was rejected, the answer to the accept tests asked before it (a question
# sheet, the practice page and the LMS items show a step's formula). The worked lines and the
# explanation of a solution say which j it is.
RESIDUAL_FORMULA = "p' = max(0, p_j − q_j) / Σ max(0, p_j − q_j), j = n + 1 (p' = p_(γ+1) if n = γ)"
TIE = 1e-9  # floats this close are compared by their exact values
LOST = "?"  # the label drawn from not-a-number (check tracing what depends on a step)


def inputs(p: Problem) -> list[Input]:
    d = p.payload(Speculative)
    g = d.gamma
    return [
        Input("drafted", "x", np.arange(1.0, g + 1), None, rows=d.drafted_labels, role="the drafted tokens", words=True),
        Input("draft", "q", d.draft.floats, None, rows=tuple(f"q_{i}" for i in range(1, g + 1)), cols=d.vocab,
              role="the draft model's distributions, one row per drafted token"),
        Input("target", "p", d.target.floats, None, rows=tuple(f"p_{i}" for i in range(1, g + 2)), cols=d.vocab,
              role="the target model's distributions (one pass): γ + 1 rows"),
        Input("uniforms", "r", d.uniforms.floats, None, rows=tuple(f"r_{i}" for i in range(1, g + 1)),
              role="the uniform draws of the accept tests"),
        Input("resample", "u", np.asarray(node_float(d.resample)), None, role="the draw for the token after the run"),
    ]  # fmt: skip


def header(p: Problem) -> list[str]:
    d = p.payload(Speculative)
    return [p.kind, f"γ = {d.gamma} drafted token{'s' if d.gamma != 1 else ''}", f"V = {len(d.vocab)}"]


def headline(steps: tuple[Step, ...]) -> str:
    by_id = {s.id: s for s in steps}
    out, n, nxt = by_id.get("output"), by_id.get("n_accepted"), by_id.get("next_token")
    if out is None or n is None or nxt is None:
        return ""
    k = round(float(to_float(np.asarray(n.value))))
    return f"Output: {' '.join(out.labels) if isinstance(out, Tokens) else out.value}  ·  {k} drafted accepted, then {nxt.value}"


def _f(x: Any) -> float:
    return float(to_float(np.asarray(x)))


def _n(x: Any, dec: int) -> str:
    return fmt(_f(x), dec)


class _Decide:
    """The run's comparisons: exact when the values are exact; floats otherwise, noting (``close``) when
    two floats are within TIE, so that the exact run can decide instead. ``forced``: decisions given
    (the accepted flags, then the drawn token's index) by that exact run."""

    def __init__(self, chain: Chain, forced: tuple[list[int], int] | None = None) -> None:
        self.exact = chain.mode == "exact" and chain.degraded_at is None
        self.close = False
        self.forced = forced

    def le(self, a: Any, b: Any) -> bool:
        """a ≤ b."""
        if self.exact:
            return bool(a <= b)
        x, y = _f(a), _f(b)
        if abs(x - y) <= TIE:
            self.close = True
            return True
        return x < y

    def gt(self, a: Any, b: Any) -> bool:
        """a > b."""
        return not self.le(a, b)


def _choose(cond: list[bool], a: list[Any], b: list[Any], like: np.ndarray) -> np.ndarray:
    return np.asarray([x if c else y for c, x, y in zip(cond, a, b, strict=True)], dtype=like.dtype)


def _ratios(d: Speculative, chain: Chain, q: np.ndarray, P: np.ndarray) -> Step:
    num = [P[i, x] for i, x in enumerate(d.drafted)]
    den = [q[i, x] for i, x in enumerate(d.drafted)]
    sym = "p_i(x_i) / q_i(x_i)"
    if chain.mistake == RATIO_INVERTED:
        if any(_f(v) == 0 for v in num) or all(abs(_f(a) - _f(b)) < TIE for a, b in zip(num, den, strict=True)):
            raise MistakeNotApplicable  # p(x) = 0 has no inverse; p = q gives 1 either way
        num, den, sym = den, num, "q_i(x_i) / p_i(x_i)"
    value = np.asarray([a / b for a, b in zip(num, den, strict=True)], dtype=q.dtype)
    labels = d.drafted_labels
    return chain.step(
        Formula, "ratios", value, title="Ratios of the target to the draft", formula=f"ratio_i = {sym}",
        latex="", symbol="ratio", rows=labels,
        written=tuple(f"{_n(a, chain.decimals)} / {_n(b, chain.decimals)}" for a, b in zip(num, den, strict=True)),
        explain="How much more (or less) the target likes each drafted token than the draft model did.",
    )  # fmt: skip


def _accept_probabilities(chain: Chain, dec: _Decide, ratios: np.ndarray, labels: tuple[str, ...]) -> Step:
    one = whole_numbers(chain, [1])[0]
    capped = [dec.le(one, x) for x in ratios]
    value = _choose(capped, [one] * len(ratios), list(ratios), ratios)
    return chain.step(
        Formula, "accept_probabilities", value, title="Acceptance probabilities", formula="a_i = min(1, ratio_i)",
        latex="", symbol="a", rows=labels,
        written=tuple(f"min(1, {_n(x, chain.decimals)})" for x in ratios),
        explain="A token the target likes at least as much as the draft is always kept; otherwise it is kept "
        "with probability p/q, which makes the output follow p exactly.",
    )  # fmt: skip


def _accepted(d: Speculative, chain: Chain, dec: _Decide, accept: np.ndarray) -> Step:
    r = chain.given(d.uniforms)
    flags, written, stopped = [], [], False
    for i in range(d.gamma):
        if not (np.isfinite(_f(r[i])) and np.isfinite(_f(accept[i]))):  # not-a-number, carried on
            flags.append(np.nan)
            written.append("?")
            continue
        ok = dec.le(r[i], accept[i])
        flags.append(float(ok and (not stopped or chain.mistake == CONTINUED)))
        test = "[{} ≤ {}]".format(*_test_written(r[i], accept[i], ok, chain.decimals))
        written.append(f"{test} · 0 (after a rejection)" if stopped else test)
        stopped = stopped or not ok
    if dec.forced is not None:
        flags = list(dec.forced[0])
    if chain.mistake == CONTINUED:
        cut = flags.index(0.0) if 0.0 in flags else len(flags)
        if not any(flags[cut:]):
            raise MistakeNotApplicable  # no test after the first rejection passes
    value = np.asarray(flags) if any(np.isnan(flags)) else whole_numbers(chain, [int(f) for f in flags])
    return chain.step(
        Formula, "accepted", value, title="Accept tests", formula="accepted_i = [r_i ≤ a_i] · accepted_(i−1), "
        "accepted_0 = 1", latex="", symbol="accepted",
        rows=d.drafted_labels, written=tuple(written),
        explain="Each drafted token is tested in order; the first rejection ends the run, and the tokens "
        "drafted after it are thrown away (they were drafted from a prefix that is no longer kept).",
    )  # fmt: skip


def _test_written(r: Any, a: Any, ok: bool, decimals: int) -> tuple[str, str]:
    """r_i and a_i as an accept test writes them: the draw as given, the probability to as many more
    decimals as it takes for the written comparison to say what the test decided (0.667 ≤ 0.6667 is
    false where 0.667 ≤ 0.667 would read true)."""
    written = fmt_given(_f(r), decimals)
    for places in range(decimals, decimals + 13):
        shown = fmt(_f(a), places)
        try:
            if (float(written.replace("−", "-")) <= float(shown.replace("−", "-"))) == ok:
                break
        except ValueError:
            break  # (∞ or nan: not a comparison this draws)
    return written, shown


def _whole(x: Any, what: str, hi: int) -> int:
    """A count read back from the chain (a student's own, under check): whole, from 0 to hi."""
    v = _f(x)
    if not v.is_integer() or not 0 <= v <= hi:
        raise ValueError(f"{what} is {v:g}: not a whole number from 0 to {hi}")
    return int(v)


def _residual(d: Speculative, chain: Chain, dec: _Decide, q: np.ndarray, P: np.ndarray, n: int) -> Step:
    """At the first rejection (row n + 1): max(0, p − q) over its sum; after a full run: p_(γ+1)."""
    labels, k = d.vocab, chain.decimals
    fields: dict[str, Any] = {"title": "The residual distribution", "latex": "", "symbol": "p'", "rows": labels,
                              "defines": (f"γ = {d.gamma}, the drafted tokens",)}  # fmt: skip
    if n == d.gamma:
        if chain.mistake in RESIDUAL_SLIPS:
            raise MistakeNotApplicable  # every draft accepted: the target's last row, no residual
        j = d.gamma + 1
        return chain.step(
            Formula, "residual", np.asarray(P[d.gamma], dtype=P.dtype), formula=RESIDUAL_FORMULA,
            written=tuple(_n(x, k) for x in P[d.gamma]), **fields,
            explain=f"Every drafted token was accepted (n = γ = {d.gamma}): the target's pass already gave p_{j}, "
            "the distribution of the token after them, so one more token comes for free.",
        )  # fmt: skip
    j = n + 1
    diff = np.asarray(P[n] - q[n], dtype=P.dtype)
    zero = whole_numbers(chain, [0])[0]
    pos = _choose([dec.gt(x, zero) for x in diff], list(diff), [zero] * len(diff), diff)
    total = sum(pos.tolist())
    if _f(total) <= 0:
        raise ValueError(f"max(0, p_{j} − q_{j}) is all zeros: no residual to draw from")
    if chain.mistake == NOT_NORMALISED:
        if abs(_f(total) - 1) < TIE:
            raise MistakeNotApplicable
        value = pos
    elif chain.mistake == NO_MAX:
        value = np.asarray(diff / total, dtype=diff.dtype)
    elif chain.mistake == FROM_TARGET:
        value = np.asarray(P[n], dtype=P.dtype)
        if np.allclose(to_float(value), to_float(pos) / _f(total)):
            raise MistakeNotApplicable
    else:
        value = np.asarray(pos / total, dtype=pos.dtype)
    tot = _n(total, k)
    written = tuple(f"max(0, {_n(a, k)} − {_n(b, k)}) / {tot}" for a, b in zip(P[n], q[n], strict=True))
    return chain.step(
        Formula, "residual", value, formula=RESIDUAL_FORMULA, written=written, **fields,
        explain=f"Token {j} was the first rejected (j = n + 1 = {j}): the next token is drawn from what p_{j} has beyond q_{j}, normalised "
        "(the mass the draft under-proposed), so that the output still follows the target exactly.",
    )  # fmt: skip


def _cumulative(d: Speculative, chain: Chain, res: np.ndarray) -> Step:
    k = chain.decimals
    running: list[Any] = []
    parts: list[str] = []
    for i, x in enumerate(res):
        running.append(x if i == 0 else running[-1] + x)
        parts.append(_n(x, k) if i == 0 else f"{_n(running[-2], k)} + {_n(x, k)}")
    return chain.step(
        Formula, "residual_cumulative", np.asarray(running, dtype=res.dtype), title="Running sum in vocabulary order",
        formula="F_k = F_(k−1) + p'_k", latex="", symbol="F", rows=d.vocab, written=tuple(parts),
        explain="Token k owns the stretch from F_(k−1) to F_k of [0, 1): the draw lands in it with probability p'_k.",
    )  # fmt: skip


def _draw(d: Speculative, chain: Chain, dec: _Decide, res: np.ndarray, cum: np.ndarray) -> Pick:
    """The first token whose running sum is greater than u. Running sums read back from a student's
    answers (``check``) that are not all numbers, or of which none is greater than u, draw nothing: the
    run ends there (the draw cannot follow them)."""
    f = to_float(np.asarray(cum)).ravel()
    lost = not np.all(np.isfinite(f))  # not-a-number carried on (check tracing what depends on a step)
    if (
        not lost
        and {"residual", "residual_cumulative"} & set(chain.overrides)
        and not np.any(f > node_float(d.resample))
    ):
        raise ValueError("no running sum is greater than the draw: nothing is drawn")
    u = chain.number(lambda: to_exact(d.resample), node_float(d.resample))
    hit = next((i for i, x in enumerate(cum) if dec.gt(x, u)), len(cum) - 1) if not lost else 0
    if dec.forced is not None:
        hit = dec.forced[1]
    return Pick(
        id="next_token", title="The token after the run", formula="the first token (vocabulary order) with F_k > u",
        latex=r"\text{the first } k \text{ with } F_k > u", symbol="next token", value=LOST if lost else d.vocab[hit], rows=d.vocab,
        probs=to_float(res), labels=d.vocab, cumulative=to_float(cum), u=node_float(d.resample), what="Next token",
        explain="Inverse-CDF sampling: the draw u picks the token whose stretch of [0, 1) contains it.",
    )  # fmt: skip


def _output(d: Speculative, chain: Chain, flags: list[float], nxt: str) -> Tokens:
    kept = [d.drafted_labels[i] for i, f in enumerate(flags) if f == 1]
    said = chain.chosen("next_token", list(d.vocab))  # a student's own next token, under check
    last = d.vocab[said] if said is not None else nxt
    if last == LOST or any(not np.isfinite(f) for f in flags):
        kept, last = [], LOST
    tokens = (*kept, last)
    table = tuple((f"{i} (drafted, accepted)", t) for i, t in enumerate(kept, 1))
    return Tokens(
        id="output", title="The tokens this round yields", formula="the accepted drafted tokens, then the next token",
        latex=r"x_1 \dots x_n,\ y", symbol="output", value=", ".join(tokens), labels=tokens, rows=d.vocab,
        probs=np.zeros(len(tokens)), table=(*table, (f"{len(tokens)} (drawn)", last)), heads=("position", "token"),
        what="Output", explain="One target pass yields the n accepted tokens and one more: between 1 and γ + 1 tokens.",
    )  # fmt: skip


def _run(p: Problem, chain: Chain, forced: tuple[list[int], int] | None = None) -> tuple[list[Step], bool]:
    d = p.payload(Speculative)
    dec = _Decide(chain, forced)
    q, P = chain.coerce(chain.given(d.draft), chain.given(d.target))
    steps: list[Step] = [_ratios(d, chain, q, P)]
    steps.append(_accept_probabilities(chain, dec, steps[-1].value, d.drafted_labels))
    steps.append(_accepted(d, chain, dec, steps[-1].value))
    raw = [_f(x) for x in np.asarray(steps[-1].value).ravel()]
    lost = not all(np.isfinite(raw))  # not-a-number carried on (check tracing what depends on a step)
    flags: list[float] = list(raw) if lost else [float(_whole(x, "an accept flag", 1)) for x in raw]
    n_value = np.asarray(np.nan) if lost else np.asarray(whole_numbers(chain, [int(sum(flags))])[0])
    steps.append(
        chain.step(
            Formula, "n_accepted", n_value, title="Tokens accepted", formula="n = Σ_i accepted_i", latex="",
            symbol="n", written=" + ".join("?" if lost else str(int(f)) for f in flags),
            explain="How many drafted tokens the target kept, from the first on, up to the first rejection.",
        )
    )  # fmt: skip
    if lost or not np.isfinite(_f(steps[-1].value)):
        steps.append(chain.step(Formula, "residual", np.full(len(d.vocab), np.nan), title="The residual distribution",
                                formula="p' (from n = ?)", latex="", symbol="p'", rows=d.vocab, written=()))  # fmt: skip
    else:
        steps.append(_residual(d, chain, dec, q, P, _whole(steps[-1].value, "n_accepted", d.gamma)))
    steps.append(_cumulative(d, chain, steps[-1].value))
    steps.append(_draw(d, chain, dec, steps[-2].value, steps[-1].value))
    steps.append(_output(d, chain, flags, str(steps[-1].value)))
    steps += rate_steps(d, chain, dec.le, q, P)
    return steps, dec.close


def run(p: Problem, chain: Chain) -> list[Step]:
    steps, close = _run(p, chain)
    # (the truth run check makes with a probe of the slips consulted is the truth: it is decided alike)
    slip = chain.mistake is not None and not isinstance(chain.mistake, SlipProbe)
    if not close or chain.mode != "float" or chain.overrides or slip or chain.stop_after is not None:
        return steps
    try:  # two floats too close to call: the exact run decides the tests and the draw
        exact_steps, _ = _run(p, Chain("exact", chain.decimals))
    except ExactStopped:
        return steps
    by_id = {s.id: s for s in exact_steps}
    flags = [int(_f(x)) for x in np.asarray(by_id["accepted"].value).ravel()]
    hit = p.payload(Speculative).vocab.index(str(by_id["next_token"].value))
    fresh = Chain("float", chain.decimals)
    steps, _ = _run(p, fresh, (flags, hit))
    chain.computed.update(fresh.computed)
    chain.notes.extend(fresh.notes)
    return steps
