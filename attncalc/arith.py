"""The three ways a mechanism's arithmetic is carried out.

A mechanism is written once against :class:`Chain` and run in up to two passes:

* ``exact``: inputs are sympy expressions in numpy object arrays; each step's result is
  simplified a little and checked against the exact budget (:mod:`attncalc.budget`: size, work,
  magnitude); a result that exceeds it ends the pass (:class:`ExactStopped`, with a one-line
  note), and that step and every later one are computed numerically.
* ``float``: plain float64 numpy arrays (exact mode off, or too large a problem).
* ``hand``: float64, but every step's result is rounded to ``decimals`` (half away from zero) and
  carried forward, the way a worked example is done with a pen.

An array's dtype says what it is: ``object`` holds exact values, ``float64`` holds numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any

import numpy as np

from .budget import (
    MAX_EXACT_ENTRIES,
    MAX_EXACT_PRODUCT,
    MAX_EXACT_SIZE,
    Budget,
    expr_size,
    fast_float,
    matmul_size,
)
from .parse import Given

__all__ = ["MAX_EXACT_ENTRIES", "MAX_EXACT_SIZE", "Chain", "expr_size", "is_exact", "to_float"]


def is_exact(x: np.ndarray) -> bool:
    return x.dtype == object


def to_float(x: np.ndarray) -> np.ndarray:
    """Evaluate an array (exact or not) to float64: exact entries at 40 digits (budget.fast_float)."""
    if not is_exact(x):
        return np.asarray(x, dtype=float)
    return fast_float(x)


# Enough digits for any double (309 before the point) at any number of decimals an answer can be
# written with (a literal has at most 40 digits and an exponent of at most 400): quantize never
# needs more, and with no traps it could not raise if it did.
_ROUNDING = Context(prec=1000, rounding=ROUND_HALF_UP, traps=[])


def round_half_up(x: float, decimals: int) -> float:
    """Round as people do by hand: 0.0625 -> 0.063 at 3 decimals (not banker's rounding)."""
    if not math.isfinite(x):
        return x
    # 12 significant digits first, to absorb binary noise: sums of decimals carry it (0.1645 is
    # stored as 0.16449999999999998), and by hand 0.1645 rounds up. Never fewer than 3 digits past
    # the asked decimals, so the pre-rounding can only move a value lying within noise of a tie
    # (3.003366813946857 at 10 decimals is 3.0033668139, not 3.0033668140 via 3.00336681395); where
    # that would take more digits than a double holds (17), the float's exact decimal is rounded.
    whole = len(str(int(abs(x)))) if abs(x) >= 1 else 0
    digits = max(12, whole + decimals + 3)
    exact = Decimal(x) if digits > 17 else Decimal(f"{x:.{digits}g}")
    q = _ROUNDING.quantize(exact, Decimal(1).scaleb(-decimals))
    return float(q) + 0.0  # + 0.0 turns -0.0 into 0.0


_round_vec = np.vectorize(round_half_up, otypes=[float])


def round_array(x: np.ndarray, decimals: int) -> np.ndarray:
    """:func:`round_half_up` of every entry, the same floats, in numpy for all but the entries near a
    tie (half a unit of the last place, within the 12-digit pre-rounding's reach), the very large and
    the non-finite, which take the exact function (the hand chain rounds whole matrices at every step)."""
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return x
    if decimals > 15:
        return np.asarray(_round_vec(x, decimals), dtype=float)
    shape, x = x.shape, x.reshape(-1)
    unit = 10.0**decimals
    with np.errstate(all="ignore"):
        scaled = np.abs(x) * unit
        n = np.floor(scaled)
        # (below 1e9, |x| has at most 9 digits to the asked decimals: round_half_up keeps 12 first)
        huge = ~np.isfinite(scaled) | (scaled >= 1e9)
        near = np.abs(scaled - n - 0.5) <= 1e-6 + 1e-11 * scaled  # near a tie: where the 12 digits decide
        up = np.floor(scaled + 0.5)
        # near a tie t: the 12 significant digits round_half_up keeps first make x the tie itself when
        # |x − t| is below half their last place (5e-13·t at least), and leave x on its side when above it
        # (5e-12·t at most); between the two bounds used here, the exact function decides
        t = (n + 0.5) / unit
        d = np.abs(x) - t
        tie = np.abs(d) <= 1e-15 * t
        side = np.abs(d) >= 1e-11 * t
        up = np.where(near & tie, n + 1, np.where(near & side, n + (d > 0), up))
        slow = huge | (near & ~tie & ~side)
        out = np.sign(x) * up / unit + 0.0
    if slow.any():
        out[slow] = _round_vec(x[slow], decimals)
    return np.asarray(out, dtype=float).reshape(shape)


def _sqrt(n: int) -> Any:
    import sympy as sp

    return sp.sqrt(n)


def _has_fraction_terms(e: Any) -> bool:
    """True for a sum with a term like x/(1 + 2e), whose terms together() can combine."""
    import sympy as sp

    if not isinstance(e, sp.Add):
        return any(_has_fraction_terms(a) for a in getattr(e, "args", ()))
    return any(isinstance(sp.fraction(t)[1], sp.Add) for t in e.args)


MISTAKES: dict[str, str] = {
    "no_scale": "the 1/√d_k scale was left out",
    # before dk_not_sqrt: with d_k = 2 and d_model = 4 the two slips give the same numbers
    "sqrt_d_model": "the scores were divided by √d_model instead of √d_k, the width of one head",
    "dk_not_sqrt": "the scores were divided by d_k instead of √d_k",
    "softmax_wrong_axis": "the softmax was taken down each column instead of along each row",
    "qk_transposed": "the scores were computed as K Qᵀ instead of Q Kᵀ (the score matrix is transposed)",
    "w_transposed": "Wᵀ was used instead of W: the row and column conventions were mixed up",
    "not_normalised": "the exponentials were not divided by their sum",
    "no_tanh": "tanh was left out",
    "keys_not_values": "the weights were applied to the keys instead of the values",
    "concat_swapped": "the two halves of the concatenation were swapped",
    "sgd_for_adam": "a plain SGD step (θ − lr·g) was taken where Adam was asked for",
    # the recurrent cells (and seq2seq): check's note says them with the problem's own symbols
    "sigmoid_for_tanh": "σ was used where the candidate needs tanh (c̃ and h̃ are squashed into (−1, 1) by tanh)",
    "tanh_for_sigmoid": "tanh was used for a gate, which needs σ (a gate lies in (0, 1))",
    "hx_swapped": "[x_t; h_(t−1)] was used for [h_(t−1); x_t]: the weights' first columns belong to h",
    "xh_swapped": "[h_(t−1); x_t] was used for [x_t; h_(t−1)]: in this problem's order the weights' first columns belong to x",
    "no_bias": "the bias was left out of the pre-activation",
    "forget_not_applied": "the forget gate was not applied: c_t = c_(t−1) + i_t ⊙ c̃_t instead of f_t ⊙ c_(t−1) + i_t ⊙ c̃_t",
    "no_tanh_c": "h_t = o_t ⊙ c_t was used instead of o_t ⊙ tanh(c_t)",
    "gru_update_swapped": "the update gate was used the other way round (z and 1 − z swapped)",
    "reset_swapped": "the reset gate was applied at the other place (before the product instead of after, or after instead of before)",
    "bahdanau_current_state": "the attention was scored with s_t (the cell run first, on [y_(t−1); c_(t−1)]) instead of s_(t−1)",
    "luong_logits_from_h": "the logits were computed from h_t instead of the attentional state h̃_t = tanh(W_att [c_t; h_t])",
    "wrong_vocab_row": "the probability (and the one-hot row) of another vocabulary entry was used instead of the target's",
    "norm_squared": "the square root was left out: ‖a‖² = Σ a_k² was used as the length ‖a‖",
    "cosine_one_norm": "the dot product was divided by ‖a_i‖ only, not by ‖a_i‖ ‖b_j‖",
    "distance_squared": "the square root was left out: the squared distance Σ (a_k − b_k)² was given",
    "one_head": "the heads were not split: one big head over all d_model columns",
    "heads_reversed": "the heads were concatenated in the wrong order",
    "no_W_O": "W_O was left out: the output is the concatenation itself",
    "mask_after_softmax": "the mask was applied after the softmax (masked weights set to 0, rows not renormalised)",
    "sin_cos_swapped": "sin and cos were swapped: cos in the even columns, sin in the odd ones",
    "freq_no_two": "the frequency used 10000^(i/d) instead of 10000^(2i/d)",
    "rope_reversed": "the rotation went the wrong way (by −θ instead of θ)",
    # kind bleu
    "bleu_no_bp": "the brevity penalty was left out: BLEU = exp(Σ w_n ln p_n) for a candidate shorter than r",
    # kind transformer-layer
    "unbiased_variance": "LayerNorm's variance was divided by d_model − 1 (the unbiased variance) instead of d_model",
    "norm_wrong_axis": "LayerNorm's mean and variance were taken down each column (over the tokens) instead of along each row",
    "residual_left_out": "the residual was left out: the sublayer's output alone went into the norm, not x + sublayer(x)",
    "norm_swapped": "the norms were placed the other way: pre-norm (LayerNorm before each sublayer) and post-norm swapped",
    "relu_for_gelu": "ReLU was used where the feed-forward network asks for GELU",
    # kind decode
    "top_p_early": "the top-p cut came one token early: the token whose probability reaches p was dropped",
    "top_p_late": "the top-p cut came one token late: a token was kept after the running sum had reached p",
    "beam_multiplied": "the beam score was multiplied by the log-probability; log-probabilities add (s_b + log p)",
    "bleu_no_clip": "the n-gram counts were not clipped: a candidate n-gram found in a reference counted every time it occurs",
    # kind bpe
    "bpe_unweighted": "each distinct word's pairs were counted once, not weighted by how often the word occurs",
    "bpe_across_words": "pairs were counted across words too: the last symbol of a word with the first of the next",
    "bpe_tie_other": "the other tie rule was used for pairs with equal counts",
    "bpe_greedy_longest": "the word was cut greedily, the longest known token first (WordPiece's way), instead of "
    "applying the merges in the order learned",
    # issue 30, [training] (every kind with it): AdamW and clipping
    "adam_l2": "the weight decay went through the gradient (g + λθ before the Adam step: Adam with an L2 penalty), "
    "not decoupled as AdamW does it (θ − lr·λ·θ, then the Adam step)",
    "decay_no_lr": "the weight decay was not multiplied by the learning rate: λ·θ instead of lr·λ·θ",
    "clip_each": "each gradient was clipped by its own norm instead of by the norm of all of them together",
    # kind lr-schedule
    "warmup_exponent": "the warmup term was t · warmup^(−0.5) instead of t · warmup^(−1.5)",
    "step_from_zero": "the step was counted from 0: the rate of step t − 1 was given for step t",
    # kind softmax, label smoothing
    "smoothing_k_minus_1": "the smoothing gave the target 1 − ε and the other classes ε/(K − 1) (the Annotated "
    "Transformer's convention) instead of (1 − ε)·y + ε/K (PyTorch's)",
    # kind sequence
    "perplexity_base_2": "the perplexity was taken in base 2, 2^(mean loss), but the loss is in nats: exp(mean loss)",
    "mean_of_perplexities": "the per-step perplexities 1/p_t were averaged instead of taking exp of the mean loss",
    # kind accounting
    "tied_counted_twice": "the tied LM head was counted as a matrix of its own: tied, it is the token embedding, counted once",
    "lm_head_left_out": "the LM head was left out: untied, it is a V × d_model matrix of its own",
    "biases_forgotten": "the biases were left out of the blocks' linear layers",
    "norms_forgotten": "the norms' parameters (γ, and β for LayerNorm) were left out",
    "swiglu_4d_ff": "d_ff = 4·d_model was used, but this SwiGLU FFN's d_ff is given otherwise",
    "flops_no_two": "the factor 2 of 2·m·n·p was left out: a multiply and an add are two FLOPs",
    "heads_for_kv_heads": "the query heads H were used for the key/value heads H_kv in the cache",
    "kv_not_doubled": "the cache was not doubled for K and V: every cached token keeps a key and a value",
    "wrong_dtype_bytes": "the bytes per number of the other dtype were used (fp32 is 4 bytes a number, bf16 and fp16 2)",
    # kind attention-backward
    "jacobian_diagonal_only": "the softmax Jacobian's off-diagonal terms were dropped: dS' = A ∘ dA instead of A ∘ (dA − D)",
    "grad_V_no_transpose": "the values' gradient was taken as A dO instead of Aᵀ dO (the weights not transposed)",
    "grad_K_no_transpose": "the keys' gradient was taken as dS Q instead of dSᵀ Q (the score gradient not transposed)",
    "grad_no_scale": "the 1/√d_k was left out of the backward pass: dS = dS' instead of dS' / √d_k",
    "grad_scale_twice": "the 1/√d_k was applied twice on the way back: dS' / d_k instead of dS' / √d_k",
    "grad_X_query_path_only": "dX was taken from the query path only (dQ W_Qᵀ); X also makes the keys and the values, and their paths add",
    "masked_given_gradient": "the masked entries were given gradient (dA passed back through the mask) where they get 0",
    # kind online-softmax
    "online_sum_not_rescaled": "the old sum was not rescaled: l_b = l_(b−1) + Σ P_b instead of l_(b−1) · exp(m_(b−1) − m_b) + Σ P_b",
    "online_output_not_rescaled": "the old output was not rescaled: O_b = O_(b−1) + P_b V_b instead of O_(b−1) · exp(m_(b−1) − m_b) + P_b V_b",
    "online_rescale_flipped": "the rescale was exp(m_b − m_(b−1)), the sign flipped: it must be exp(m_(b−1) − m_b), at most 1",
    "logsumexp_no_max": "the maximum was left out of the logsumexp: L = ln l instead of m + ln l",
    "online_output_not_divided": "the running output was not divided by the sum l at the end: O = O_last instead of O_last / l",
    # the modern layer (issue 30): RMSNorm, SwiGLU, sliding windows, top-k with top-p
    "rms_mean_subtracted": "RMSNorm was computed as LayerNorm: the mean was subtracted and the variance used for the mean square",
    "rms_eps_outside": "ε was added outside the root: x / (√ms + ε) instead of x / √(ms + ε)",
    "swiglu_swapped": "W_1 and W_3 were swapped: the gate is x W_1 (through SiLU), the up projection x W_3",
    "silu_wrong_branch": "SiLU was applied to the up projection x W_3 instead of the gate x W_1",
    "window_too_wide": "the window was one key too wide: w + 1 keys (i − w ≤ k ≤ i) instead of w (i − w < k ≤ i)",
    "window_too_narrow": "the window was one key too narrow: w − 1 keys (i − w + 1 < k ≤ i) instead of w (i − w < k ≤ i)",
    "top_p_before_top_k": "top-p was applied before top-k: the running sum over the whole distribution, not over the top k renormalised",
}


class ExactStopped(Exception):
    """The exact pass went over its budget at a step (the chain's notes say which and why); the
    values found before it are in ``computed``, and a numeric pass gives the rest."""


class MistakeNotApplicable(Exception):
    """A named mistake that cannot happen in this problem (e.g. transposing a non-square W)."""


class SlipProbe(str):
    """Stands for "no slip" in a chain while recording every slip name the mechanism compares it with:
    the slips this problem's computation consults, the only ones ``check`` need try (a slip the
    mechanism never asks about cannot change any step)."""

    seen: dict[str, int]  # each slip consulted, and how many steps were done when it first was
    clock: Callable[[], int]

    def __new__(cls) -> SlipProbe:
        obj = super().__new__(cls, "")
        obj.seen = {}
        obj.clock = lambda: 0
        return obj

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str) and not isinstance(other, SlipProbe):
            self.seen.setdefault(other, self.clock())
        return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__


class StopRun(Exception):
    """Raised by a chain once the step it was asked to stop after is computed (``check`` needs no more)."""


class Chain:
    """One pass of arithmetic: exact, float or hand (rounded and carried).

    ``overrides`` replaces a step's result by given numbers (a student's answers) for everything
    after it, while ``computed`` keeps what the step itself gave; ``mistake`` switches on one of
    the usual slips of :data:`MISTAKES` so that ``check`` can see whether it reproduces an answer
    (``mistake_arg``: the vocabulary row of ``wrong_vocab_row``); ``stop_after`` ends the run once
    that step is computed.
    """

    def __init__(
        self,
        mode: str,
        decimals: int = 3,
        overrides: dict[str, np.ndarray] | None = None,
        mistake: str | None = None,
        mistake_arg: int | None = None,
        stop_after: str | None = None,
    ) -> None:
        assert mode in ("exact", "float", "hand")
        assert mistake is None or mistake in MISTAKES or isinstance(mistake, SlipProbe)
        self.mode = mode
        self.decimals = decimals
        self.notes: list[str] = []
        self.degraded_at: str | None = None
        self.overrides = overrides or {}
        self.computed: dict[str, np.ndarray] = {}
        self.mistake = mistake
        self.mistake_arg = mistake_arg
        self.stop_after = stop_after  # end the run (StopRun) once this step is computed
        self.poison = False  # an override's not-a-number entries are carried on, not read as "?"
        if isinstance(mistake, SlipProbe):
            mistake.clock = lambda: len(self.computed)
        self.budget = Budget()
        self._gave_up: str | None = None  # why an operation of the current step was done in floats

    # -- inputs ------------------------------------------------------------------------
    def given(self, g: Given) -> np.ndarray:
        if self.mode == "exact" and self.degraded_at is None:
            return g.exact()
        return g.floats.copy()

    def weight(self, g: Given) -> np.ndarray:
        """A weight matrix (transposed under the mistake ``w_transposed``)."""
        W = self.given(g)
        if self.mistake == "w_transposed":
            if W.ndim != 2 or W.shape[0] != W.shape[1] or np.array_equal(to_float(W), to_float(W).T):
                raise MistakeNotApplicable
            return W.T
        return W

    def sqrt_dk(self, d_k: int) -> Any:
        """√d_k (d_k under the mistake ``dk_not_sqrt``, 1 under ``no_scale``)."""
        if self.mistake == "no_scale":
            return 1
        if self.mistake == "dk_not_sqrt":
            return d_k
        return self.const(lambda: _sqrt(d_k), math.sqrt(d_k))

    def const(self, exact: Callable[[], Any], float_value: float) -> Any:
        """A derived constant such as sqrt(d_k): exact when exact, rounded in the hand chain.

        ``exact`` is a thunk so that sympy is imported only by the exact chain.
        """
        if self.mode == "exact" and self.degraded_at is None:
            return exact()
        if self.mode == "hand":
            return round_half_up(float_value, self.decimals)
        return float_value

    # -- elementwise ---------------------------------------------------------------------
    def exp(self, x: np.ndarray) -> np.ndarray:
        return self._map(x, "exp", np.exp)

    def tanh(self, x: np.ndarray) -> np.ndarray:
        if self.mistake == "no_tanh":
            return x
        return self._map(x, "tanh", np.tanh)

    def sin(self, x: np.ndarray) -> np.ndarray:
        return self._map(x, "sin", np.sin)

    def cos(self, x: np.ndarray) -> np.ndarray:
        return self._map(x, "cos", np.cos)

    def log(self, x: np.ndarray) -> np.ndarray:
        return self._map(x, "log", np.log)

    def sigmoid(self, x: np.ndarray) -> np.ndarray:
        """σ(x) = 1 / (1 + e^(−x)); exact forms as sympy writes them."""
        if is_exact(x):
            import sympy as sp

            out = np.empty(x.shape, dtype=object)
            for idx, e in np.ndenumerate(x):
                out[idx] = 1 / (1 + sp.exp(-e))
            return out
        with np.errstate(over="ignore"):
            return np.asarray(1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float))), dtype=float)

    def relu(self, x: np.ndarray) -> np.ndarray:
        if is_exact(x):
            import sympy as sp

            out = np.empty(x.shape, dtype=object)
            for idx, e in np.ndenumerate(x):
                out[idx] = sp.Max(e, 0)
            return out
        return np.asarray(np.maximum(np.asarray(x, dtype=float), 0.0), dtype=float)

    def sqrt(self, x: np.ndarray) -> np.ndarray:
        return self._map(x, "sqrt", np.sqrt)

    def number(self, exact: Callable[[], Any], float_value: float) -> Any:
        """A number given by the problem's settings (a learning rate): exact when exact, never rounded."""
        if self.mode == "exact" and self.degraded_at is None:
            return exact()
        return float_value

    def _map(self, x: np.ndarray, name: str, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        if is_exact(x):
            import sympy as sp

            f = getattr(sp, name)
            out = np.empty(x.shape, dtype=object)
            for idx, e in np.ndenumerate(x):
                out[idx] = f(e)
            return out
        with np.errstate(over="ignore", divide="ignore"):
            return fn(np.asarray(x, dtype=float))

    # -- linear algebra ------------------------------------------------------------------
    def coerce(self, *xs: np.ndarray) -> list[np.ndarray]:
        """All exact, or (if any is a float array) all float."""
        if all(is_exact(x) for x in xs):
            return list(xs)
        return [to_float(x) for x in xs]

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = self.coerce(a, b)
        if is_exact(a) and matmul_size(a, b) > MAX_EXACT_PRODUCT:  # too large to form exactly at all
            self._gave_up = f"its entries would grow past {MAX_EXACT_PRODUCT} terms together"
            a, b = fast_float(a), fast_float(b)
        out = a @ b
        if is_exact(a):
            return np.asarray(out, dtype=object)
        # terms that cancel exactly leave float noise (0.916·(−0.762) + 0.916·0.762 = −5e−17): that is 0
        with np.errstate(all="ignore"):
            scale = np.abs(a) @ np.abs(b)
            noise = np.isfinite(scale) & (np.abs(out) <= 1e-14 * scale)  # an overflow is no noise
            return np.where(noise, 0.0, out)

    def together(self, x: np.ndarray) -> np.ndarray:
        """Combine sums of fractions over one denominator, where that stays small."""
        if not is_exact(x):
            return x
        import sympy as sp

        out = np.empty(x.shape, dtype=object)
        for idx, e in np.ndenumerate(x):
            out[idx] = sp.together(e) if _has_fraction_terms(e) and expr_size(e) <= MAX_EXACT_SIZE else e
        return out

    # -- step boundary -------------------------------------------------------------------
    def finish(self, step_id: str, x: np.ndarray) -> np.ndarray:
        """Called on every step's result: rounds (hand) or checks size (exact), then applies overrides."""
        if self.stop_after is not None and step_id != self.stop_after and self.stop_after in self.computed:
            raise StopRun(step_id)  # (at the next step: a slip may finish its step twice, as the late mask does)
        x = self._finish(step_id, x)
        self.computed[step_id] = x
        if step_id in self.overrides:
            given = np.asarray(self.overrides[step_id], dtype=float).reshape(np.shape(x))
            open_ = np.isnan(given)  # entries the answer left out ("?") keep the computed value
            if self.poison:  # (unless not-a-number is the point: check tracing what depends on a step)
                return given
            return np.where(open_, to_float(x), given) if open_.any() else given
        return x

    def _finish(self, step_id: str, x: np.ndarray) -> np.ndarray:
        if self.mode == "hand":
            return round_array(x, self.decimals)
        if self.mode != "exact":
            return x
        if self.degraded_at is not None:  # skipped from the start: floats throughout
            return x
        reason, self._gave_up = self._gave_up, None
        if is_exact(x):
            x = self.together(x)
            reason = reason or self.budget.exceeded_by(x)
        if reason is None:
            return x
        self.degraded_at = step_id
        self.notes.append(
            f"Exact forms stop at '{step_id}': {reason}, so it and the later steps are computed numerically."
        )
        raise ExactStopped(step_id)

    def skip_exact(self, reason: str) -> None:
        """Give up exact forms before starting (called before the first input is read)."""
        self.degraded_at = "start"
        self.notes.append(reason)
