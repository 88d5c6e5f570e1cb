"""What ``check`` writes about an answer: the wrong entries worked out from the answerer's own numbers,
the single product that explains a difference, and the named slips in the problem's own symbols."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from ..derivation import Concat, Count, Formula, Product, Step
from ..derivation.arith import round_array, round_half_up
from ..derivation.fmt import count_text, entry_label, fixed, fmt, paren, ten_to
from ..kinds.mistakes import every_mistake
from ..parse import Problem
from ..parse.data import cell_of, output_layer_of
from ..render import expand
from .answers import UNANSWERED, UNANSWERED_DECIMALS, Answer
from .runs import as_step

if TYPE_CHECKING:
    from .runs import Runs


def _working(mine_step: Step | None, idx: tuple[int, ...], decimals: int) -> str | None:
    """The entry's working written out from the answerer's own run, or None where that run wrote none
    for it (its written lines need not cover the entry: a speculative residual after a count of −∞)."""
    if mine_step is None:
        return None
    try:
        return expand.rhs(mine_step, idx, decimals)
    except (IndexError, TypeError, KeyError):
        return None


def slip_note(ans: Answer, step: Step, runs: Runs, bad: np.ndarray, decimals: int, patched: bool = False) -> str:
    """Write out the wrong entries from the answerer's own earlier numbers. ``patched``: the step rests on
    an earlier answer with a slip named at it, whose entries the slip gives are taken at the slip's own
    value, as the verdict took them (28 · 0.0421875 = 1.1813, not 28 · 0.0422 = 1.1816 beside an
    accepted 1.1813 from the same scale)."""
    # the lines written at the problem's decimals, 3 at least (a problem asking 4 wrote σ = 0.7395 as 0.740;
    # one asking 1 must not write the operand 0.25 as 0.3)
    dec = max(3, runs.problem.settings.decimals)
    got = runs.get("float", dec, overrides=True, patched=True) if patched else None
    if got is None:
        got = runs.get("float", dec, overrides=True)
    if got is None:  # the answerer's numbers make the run fail later on (running sums that draw nothing):
        # the answers this step does not rest on left out, its own numbers still write it out
        apart = frozenset(
            k for k in (*runs.overrides, *runs.labels) if k != ans.id and ans.id not in runs.descendants(k)
        )
        got = runs.get("float", dec, overrides=True, without=apart) if apart else None
    if got is None:
        return ""
    computed, steps = got
    mine_step = steps.get(ans.id)
    value = as_step(computed.get(ans.id), mine_step)
    given = np.asarray(ans.values, dtype=float)
    if value.shape != given.shape:
        return ""
    idxs = [tuple(int(i) for i in idx) for idx in zip(*np.nonzero(bad), strict=True)] if given.ndim else [()]
    parts = [_entry_line(ans, step, mine_step, runs, value, idx, decimals) for idx in idxs[:3]]
    if len(idxs) > 3:
        more = len(idxs) - 3
        parts.append(f"and {more} more {'entry' if more == 1 else 'entries'}")
    total = _sum_note(ans, given)
    if total:
        parts.append(total)
    return "; ".join(parts) + "."


def _entry_line(
    ans: Answer,
    step: Step,
    mine_step: Step | None,
    runs: Runs,
    value: np.ndarray,
    idx: tuple[int, ...],
    decimals: int,
) -> str:
    """One wrong entry: its name, how it is worked out from the answerer's numbers, its value and what
    was written, with a guess at the slip (a single product, a rounding slip in the last digit)."""
    given = np.asarray(ans.values, dtype=float)
    decs = np.asarray(ans.decimals)
    own = int(decs[idx]) if decs.ndim else int(decs)
    if not math.isfinite(float(given[idx])):  # "-inf" has no decimals: the true value at the asked ones
        own = decimals
    k = max(own, decimals)
    label = _entry_name(runs.problem, step, idx)
    right = fmt(value[idx], own if own >= 0 else k)  # at the answer's own precision: −0.88245 is −0.882
    if isinstance(mine_step, Count) and float(value[idx]).is_integer():  # a whole number: every digit, grouped
        right = f"{_exact_count(step, mine_step, float(value[idx])):,}"
    elif isinstance(mine_step, Count) and math.isfinite(float(value[idx])):  # from a size given in a unit
        right = count_text(float(value[idx]))
    wrote = given_text(given[idx], decs[idx] if decs.ndim else decs)
    if ans.written is not None:
        wrote = np.asarray(ans.written, dtype=object)[idx] if idx else str(ans.written)
    if isinstance(mine_step, Count):
        wrote = _grouped(str(wrote), ans.exact if not idx else None)
    # the operands written with enough decimals for two significant figures of the value: 0.2 · 0.25 =
    # 0.05, never "0.2 · 0.3 = 0.1" (the operand and the result rounded to the answer's one decimal)
    wk = _two_figures(float(value[idx]), k)
    rhs = _working(mine_step, idx, wk)
    if rhs == right:  # a count given as it is (count_11 = 6): said once, not "= 6 = 6"
        rhs = None
    elif rhs is not None and _plain_number(rhs):  # a value taken as it is (p'_1 = 0.25): said once, as
        right, rhs = rhs, None  # written out, not rounded again to the answer's decimals ("= 0.25 = 0.3")
    v, at_own = float(value[idx]), own if own >= 0 else k
    if rhs and not isinstance(mine_step, Count) and abs(round_half_up(v, at_own) - v) > 0.1 * abs(v):
        # rounded to the answer's decimals the value is off by more than a tenth of itself (0.06 is 0.1):
        # the value to two figures first, then what it is at the answer's precision
        full = fmt(v, _two_figures(v, at_own))
        right = f"{full} ≈ {right}" if full != right else right  # (fmt shows a value near 0 by its digits)
    # the entry named as the views name it, by its label: count_11 (e w), ρ_c_9 (o5 t1)
    rows = step.rows if len(idx) == 1 and isinstance(step, Formula) else None
    if rows is not None and idx[0] < len(rows) and rows[idx[0]] != label and f"({rows[idx[0]]})" not in label:
        label += f" ({rows[idx[0]]})"
    if rhs and isinstance(mine_step, Formula) and mine_step.hand and math.isfinite(v):
        # a line of rounded numbers that sum to another last digit says so, as the views do
        got = expand.rounded_gives(mine_step, idx, v, wk)
        right += f" (as written: {got})" if got else ""
    line = f"{label} = {rhs} = {right}, not {wrote}" if rhs else f"{label} = {right}, not {wrote}"
    at = own if own >= 0 else k  # a slip is recognised at the precision the entry was written with
    return line + _entry_guess(given, mine_step, value, idx, rhs, wk, at)


def _exact_count(step: Step, mine: Count, value: float) -> int:
    """The count exactly, not its float's digits (6 · N · D past 2^53 is 504,000,000,000,000,000,000,000,
    not 504,000,000,000,000,016,777,216): the true count where the answerer's numbers give it, else the
    product the line writes out (whole numbers only), else the float (exact below 2^53)."""
    if isinstance(step, Count) and step.whole is not None and float(step.whole) == value:
        return step.whole
    factors = mine.written.split(" · ")
    if mine.written and all(re.fullmatch(r"[0-9]{1,3}(,[0-9]{3})*", f.strip()) for f in factors):
        product = math.prod(int(f.replace(",", "")) for f in factors)
        if float(product) == value:
            return product
    return int(value)


def _grouped(wrote: str, exact: int | None) -> str:
    """A whole number written as bare digits (540000000000000000000000) in groups, as the views write a
    count (540,000,000,000,000,000,000,000); any other form (5.4e23, 1,024, 145.5 GiB) as written."""
    digits = wrote.strip()
    if not re.fullmatch(r"-?[0-9]+", digits):
        return wrote
    return f"{exact if exact is not None else int(digits):,}"


def _two_figures(x: float, decimals: int) -> int:
    """At least ``decimals``, and enough decimals to show x to two significant figures (0.0512: 3)."""
    if not math.isfinite(x) or x == 0:
        return decimals
    return max(decimals, min(12, 1 - math.floor(math.log10(abs(x)))))


def _plain_number(text: str) -> bool:
    """Whether a written-out right-hand side is a number alone (no operation in it)."""
    try:
        float(text.replace("−", "-"))
    except ValueError:
        return False
    return True


def _entry_guess(
    given: np.ndarray, mine_step: Step | None, value: np.ndarray, idx: tuple[int, ...], rhs: str | None, k: int, at: int
) -> str:
    """A guess at one wrong entry's slip, in parentheses after it ("" when there is none)."""
    if isinstance(mine_step, Product) and bool(np.any(given[np.isfinite(given)] != 0)):  # (all zeros: no guess)
        culprit = _single_product(mine_step, idx, float(given[idx]) - float(value[idx]), k, at)
        return f" ({culprit})" if culprit else ""
    if (
        rhs
        and rhs.startswith("exp(")
        and abs(float(given[idx]) - round_half_up(float(value[idx]), at)) <= 10.0**-at * 1.01
    ):
        return " (a rounding slip in the last digit)"
    return ""


def _sum_note(ans: Answer, given: np.ndarray) -> str:
    """Weights or probabilities that do not add up to 1: what they add up to ("" when they do)."""
    if given.ndim == 1 and ans.id in ("weights", "probabilities"):
        with np.errstate(over="ignore"):  # answers of 1e308: their sum is past any double, said so, no warning
            total = float(np.sum(given, dtype=float))
        if abs(total) == float("inf"):
            return f"these add up to a number beyond the largest double (about 1.8·{ten_to('308')}), not 1"
        if abs(total - 1) > 0.02:
            return f"these add up to {fmt(total, 3)}, not 1"
    return ""


def hand_chain_note(
    problem: Problem,
    chains: list[tuple[str | None, int]],
    step: Step | None = None,
    seen: list[tuple[tuple[str | None, int] | None, np.ndarray]] | None = None,
    open_: np.ndarray | None = None,
) -> str:
    """Which hand chain an answer matches, so that the answerer can reproduce it: its precision, whether
    the row maximum was subtracted before exponentiating, and the ``solve --carry`` that shows it. When
    no one chain matches every entry, which chain each entry matched (``seen``: per chain, or None for
    the true value, the entries it matches)."""
    if not chains and step is not None and seen:
        return _mixed_chains_note(problem, step, seen, open_)
    if not chains:
        return "Matches the hand chain (every step rounded and carried forward)"
    shift, k = chains[0]
    return f"Matches the hand chain{_chain_words(problem, shift, k)}"


def _chain_words(problem: Problem, shift: str | None, k: int) -> str:
    setting = problem.settings.shift_max
    words = {"always": " with the maximum subtracted before exponentiating", "never": " without the maximum subtracted"}
    how = f"attncalc solve --carry --decimals {k} shows it"
    if shift is not None and shift != setting:
        how += f' with settings.shift_max = "{shift}"'
    return (
        f"{words.get(shift or '', '')}, every step rounded to {k} "
        f"{'decimal' if k == 1 else 'decimals'} and carried "
        f"forward ({how})"
    )


def _mixed_chains_note(
    problem: Problem, step: Step, seen: list[tuple[tuple[str | None, int] | None, np.ndarray]], open_: Any
) -> str:
    """The entries grouped by the first chain each matches: the true value first, then the hand chains."""
    shape = seen[0][1].shape
    skip = np.zeros(shape, dtype=bool) if open_ is None else np.asarray(open_, dtype=bool)

    def rank(i: int) -> int:  # the true value first, then the chains that say whether the maximum was subtracted
        chain = seen[i][0]
        return 0 if chain is None else 1 if chain[0] is not None else 2

    order = sorted(range(len(seen)), key=rank)
    groups: dict[tuple[str | None, int] | None, list[str]] = {}
    for idx in np.ndindex(*shape) if shape else [()]:
        if skip[idx]:
            continue
        for i in order:
            chain, mask = seen[i]
            if bool(np.asarray(mask)[idx]):
                groups.setdefault(chain, []).append(_entry_name(problem, step, tuple(int(j) for j in idx)))
                break
    parts = []
    for chain, names in groups.items():
        where = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        if chain is None:
            parts.append(f"{where} the true value")
        else:
            parts.append(f"{where} the hand chain{_chain_words(problem, *chain)}")
    return "Its entries match different chains: " + "; ".join(parts)


def _entry_name(problem: Problem, step: Step, idx: tuple[int, ...]) -> str:
    """e_2, or for a similarity the vectors' names: cos(C, C′)."""
    from ..kinds import entry_namer

    named = entry_namer(problem)
    if named is not None:
        return named(step.id, idx)
    if isinstance(step, Concat) and len(idx) == 1 and step.parts:  # entry 5 of [h_0; x_1] (x_1,2)
        j = idx[0]
        for part, name in zip(step.parts, step.part_names, strict=False):
            n = int(np.asarray(part).shape[0]) if np.ndim(part) else 1
            if j < n:
                return f"entry {idx[0] + 1} of {step.symbol} ({entry_label(name, (j,))})"
            j -= n
    return entry_label(step.symbol, idx)


def _single_product(step: Product, idx: tuple[int, ...], delta: float, k: int, at: int) -> str:
    """Name one miscomputed product that explains the whole difference, if there is one: the entry
    recomputed with that product flipped, left out or mistyped is the answer at its precision ``at``
    (the products are written to ``k`` decimals)."""
    tol = 0.5 * 10.0**-at * (1 + 1e-9) + 1e-12
    for a, b in step.pairs(idx):
        p = a * b
        term = f"{paren(fmt(a, k))}·{paren(fmt(b, k))}"
        if abs(p) > 1e-12 and abs(delta + 2 * p) <= tol:
            return f"the sign of {term} = {fmt(p, k)} was flipped"
        if abs(p) > 1e-12 and abs(delta + p) <= tol:
            return f"the term {term} = {fmt(p, k)} was left out"
        for wrong in (p * 10, p / 10, -p):
            if abs(wrong - p) > tol and abs(delta - (wrong - p)) <= tol:
                return f"{term} = {fmt(p, k)}, not {fmt(wrong, k)}"
    return ""


def given_text(given: np.ndarray, decs: np.ndarray) -> Any:
    """The answer as it was written: 1.760 keeps its trailing zero."""
    if given.ndim == 0:
        d = int(decs)
        if d == UNANSWERED_DECIMALS:
            return UNANSWERED
        return fmt(float(given), 6) if d < 0 or not math.isfinite(float(given)) else fixed(float(given), d)
    return [given_text(g, d) for g, d in zip(given, decs, strict=True)]


def nested_list(x: np.ndarray) -> Any:
    if x.ndim == 0:
        v = float(x)
        if math.isnan(v):
            return UNANSWERED
        return v if math.isfinite(v) else None
    return [nested_list(v) for v in x]


def rounded_list(x: np.ndarray, decimals: int) -> Any:
    """Rounded half up, as nested lists (None where not finite); whole arrays at once."""
    r = round_array(np.asarray(x, dtype=float), decimals)
    if r.ndim == 0:
        return float(r) if math.isfinite(float(r)) else None
    out = r.astype(object)
    out[~np.isfinite(r)] = None
    return out.tolist()


def fmt_nested(x: Any) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(fmt_nested(v) for v in x) + "]"
    return "−∞" if x is None else fmt(x, 6)


_STEP = re.compile(r"^(?:(encoder|decoder)\.)?(?:fwd\.|bwd\.)?(\d+)\.")


def mistake_note(name: str, arg: int | None, problem: Problem, step_id: str) -> str:
    """A named slip in the problem's own terms: which way this GRU resets and updates, which entry's
    probability was taken."""
    m = _STEP.match(step_id)
    part, t = (m.group(1), int(m.group(2))) if m else (None, None)
    text = _slip_words(name, arg, problem, part, t)
    if t is None:
        return text
    text = text.replace("_(t−1)", f"_{t - 1}").replace("h_prev", f"h_{t - 1}")  # the step's own time indices
    return re.sub(r"_t\b", f"_{t}", text)


def _slip_words(name: str, arg: int | None, problem: Problem, part: str | None, t: int | None) -> str:
    given = getattr(problem, "given", None)
    if name == "no_scale" and isinstance(given, dict) and "scale" in given:  # a scale given in the file, by value
        return f"the given scale {fmt(float(given['scale'].floats[0]), 6)} was left out"
    if name == "bpe_tie_other":  # kind bpe: which rule was used, which the problem asks for
        asked = getattr(getattr(problem, "data", None), "tie", "greater")
        first, greatest = "the pair that occurs first", "the lexicographically greatest pair"
        used, wanted = (first, greatest) if asked == "greater" else (greatest, first)
        return f"the tie was broken the other way: {used} was merged, but this problem takes {wanted}"
    kind = getattr(problem, "kind", None)
    if kind is not None:  # a kind's own words for its slips (accounting's ZeRO stage and units), if it has them
        from ..mechanisms import MECHANISMS

        hook = getattr(MECHANISMS[kind], "slip_words", None) if kind in MECHANISMS else None
        words = hook(problem, name, arg) if hook is not None else None
        if words is not None:
            return str(words)
    cell = _cell_of(problem, part)
    if name == "reset_swapped" and cell is not None:
        if cell.reset == "after":
            return (
                "the reset gate was applied before the product, W_h [r ⊙ h; x] (as Cho et al. write the GRU), "
                "but this GRU applies it after: h̃ = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))"
            )
        return (
            "the reset gate was applied after the product, r ⊙ (W_hn h + b_hn) (as PyTorch computes it), "
            "but this GRU applies it before: h̃ = tanh(W_h [r ⊙ h; x] + b_h)"
        )
    if name == "gru_update_swapped" and cell is not None:
        keep, replace = "(1 − z) ⊙ h̃ + z ⊙ h_prev", "z ⊙ h̃ + (1 − z) ⊙ h_prev"
        used, wanted = (replace, keep) if cell.update == "keep" else (keep, replace)
        return f"z and 1 − z were swapped: h = {used} was used, but this GRU computes h = {wanted}"
    if name == "wrong_vocab_row" and arg is not None:
        out = output_layer_of(problem)
        if out is not None and out.targets is not None:
            labels = out.vocab or tuple(f"w{k + 1}" for k in range(out.W_out.shape[0]))
            if t is not None and t <= len(out.targets):
                right = labels[out.targets[t - 1]]
                return (
                    f"the probability of {labels[arg]} was used instead of that of the target {right} "
                    f"(L_{t} = −ln p_{t}({right}), and p − y puts the 1 of y on {right}'s row)"
                )
            return f"the probability of {labels[arg]} was used instead of the target's at some step"
    return every_mistake()[name]


def _cell_of(problem: Problem, part: str | None) -> Any:
    return cell_of(problem, part)


def transposed_hint(matches: Any, true: np.ndarray) -> str:
    """A square answer that is the step's transpose (a softmax over columns written in the scores' own
    orientation): say so, once, after the wrong entries ("" otherwise, and for a symmetric value)."""
    if true.ndim != 2 or true.shape[0] != true.shape[1] or true.shape[0] < 2:
        return ""
    if np.allclose(true, true.T, rtol=1e-9, atol=1e-12) or not bool(np.all(matches(true.T))):
        return ""
    return (
        " Every entry is right in the other orientation: this is the transpose of the answer (its row i is "
        "the step's column i); write it as the step lays it out."
    )
