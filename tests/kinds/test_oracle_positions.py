"""Oracle tests for positions: multi-head's `positions` (sinusoidal, learned, rope, alibi) and kind
"positional-encoding", against numpy formulas from the papers and hand computations, to 1e-9.

Where the expected numbers come from: tests/mh_reference.py (sinusoidal: Vaswani et al. §3.5; RoPE
interleaved as a complex product like Meta's LLaMA code, RoPE "half" with rotate_half like GPT-NeoX;
ALiBi slopes 2^(−8j/h) from Press et al.), checked here against hand values and against each other,
and hand computations written out in the tests. No torch needed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from .. import mh_reference as ref
from ..mh_support import close, draw, problem, rand, reference_args, solve, val

SEEDS = range(4)


def pe(kind_type: str, given: dict[str, Any], **settings: Any) -> dict[str, Any]:
    """A positional-encoding problem dict."""
    plain = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in given.items()}
    out: dict[str, Any] = {"kind": "positional-encoding", "type": kind_type, "given": plain}
    return out | ({"settings": settings} if settings else {})


def mh(g: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """The reference multi-head steps of a given table (numpy, tests/mh_reference.py)."""
    return ref.multi_head(g["X"], g["W_Q"], g["W_K"], g["W_V"], g["heads"], **reference_args(g), **kw)


# --- the oracles themselves ----------------------------------------------------------------------


def test_sinusoidal_oracle_hand_values() -> None:
    """d = 4: P[0] = (sin 0, cos 0, sin 0, cos 0) = (0, 1, 0, 1); P[1] = (sin 1, cos 1, sin 1/100, cos 1/100)
    since 10000^(2/4) = 100; the angles are (0, 0) and (1, 1/100)."""
    P = ref.sinusoidal([0, 1], 4)
    np.testing.assert_allclose(
        P, [[0, 1, 0, 1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)]], atol=1e-15
    )
    np.testing.assert_allclose(ref.sinusoidal_angles([0, 1], 4), [[0, 0], [1, 0.01]], atol=1e-15)


def test_rope_oracles_agree_up_to_the_pairing() -> None:
    """The complex-product (interleaved) and rotate_half (half) oracles are the same rotation once the
    pairs (2i, 2i+1) are reordered to (i, i + d/2); both keep every row's length."""
    rng = np.random.default_rng(0)
    x, pos = rand(rng, 5, 6), [0, 1, 2, 7, 30]
    to_interleaved = [c for i in range(3) for c in (i, i + 3)]  # x_half[to_interleaved] is interleaved
    back = np.argsort(to_interleaved)
    np.testing.assert_allclose(
        ref.rope_half(x, pos), ref.rope_interleaved(x[:, to_interleaved], pos)[:, back], atol=1e-14
    )
    np.testing.assert_allclose(np.linalg.norm(ref.rope_half(x, pos), axis=1), np.linalg.norm(x, axis=1), atol=1e-14)


# --- sinusoidal and learned positions in multi-head ---------------------------------------------


@pytest.mark.parametrize("exact", [True, False])
def test_sinusoidal_positions_hand_example(exact: bool) -> None:
    """X = 2 rows of width 4 plus P (the hand values above): positions = P, X_pos = X + P, and Q = X_pos W_Q."""
    X = [[1, 0, 0, 0], [0, 1, 0, 0]]
    eye = np.eye(4).tolist()
    g = {"X": X, "heads": 2, "W_Q": eye, "W_K": eye, "W_V": eye, "positions": "sinusoidal"}
    d = solve(problem(g), exact=exact)
    P = [[0, 1, 0, 1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)]]
    close(d, "positions", P)
    close(d, "X_pos", np.array(X) + P)
    close(d, "Q", np.array(X) + P)


@pytest.mark.parametrize("seed", SEEDS)
def test_sinusoidal_positions_random(seed: int) -> None:
    """positions = P[0 … n−1], X_pos = X + P, and every later step is multi-head attention on X_pos."""
    rng = np.random.default_rng(2000 + seed)
    n, heads = int(rng.integers(2, 6)), int(rng.integers(1, 5))
    d_model = 2 * int(rng.integers(2, 5))
    g = draw(rng, n, d_model, heads, d_k=2, biases=seed % 2 == 1) | {"positions": "sinusoidal", "mask": "causal"}
    d = solve(problem(g))
    P = ref.sinusoidal(range(n), d_model)
    close(d, "positions", P)
    close(d, "X_pos", g["X"] + P)
    want = mh(g | {"X": g["X"] + P}, allowed=ref.causal_lower_right(n, n))
    for sid in ("Q", "K", "V", "head.1.weights", "concat", "output"):
        close(d, sid, want[sid])


def test_sinusoidal_positions_are_added_to_memory_too() -> None:
    """Cross-attention: memory's rows get P[0 … m−1] as X's rows get P[0 … n−1]."""
    rng = np.random.default_rng(2100)
    g = draw(rng, 2, 4, 2) | {"memory": rand(rng, 3, 4), "positions": "sinusoidal"}
    d = solve(problem(g))
    want = mh(g | {"X": g["X"] + ref.sinusoidal(range(2), 4), "memory": g["memory"] + ref.sinusoidal(range(3), 4)})
    for sid in ("K", "head.2.weights", "output"):
        close(d, sid, want[sid])


def test_position_base_setting_changes_the_sinusoid_base() -> None:
    """[settings] position_base = 100: P[pos, 2i] = sin(pos / 100^(2i/d))."""
    rng = np.random.default_rng(2200)
    g = draw(rng, 3, 4, 1) | {"positions": "sinusoidal"}
    d = solve(problem(g, settings={"position_base": 100}))
    close(d, "positions", ref.sinusoidal(range(3), 4, base=100))


@pytest.mark.parametrize("exact", [True, False])
def test_learned_positions_matrix_is_added_to_X(exact: bool) -> None:
    """positions = a matrix (learned): X_pos = X + positions, by hand: [[1, 2], [3, 4]] + [[1/2, 0], [0, -1]]."""
    g = {"X": [[1, 2], [3, 4]], "heads": 1, "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]}
    d = solve(problem(g | {"positions": [["1/2", 0], [0, -1]]}), exact=exact)
    close(d, "positions", [[0.5, 0], [0, -1]])
    close(d, "X_pos", [[1.5, 2], [3, 3]])
    close(d, "concat", mh(g | {"X": [[1.5, 2], [3, 3]]})["concat"])  # no W_O: the derivation ends at concat


# --- RoPE in multi-head --------------------------------------------------------------------------


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("mode", ["interleaved", "half"])
def test_rope_hand_example(exact: bool, mode: str) -> None:
    """d_k = 2 (one pair, θ_0 = 1 rad per position; both pairings coincide), W's = I:
    x_0 = (1, 0) stays (position 0); x_1 = (0, 1) turns by 1 rad to (−sin 1, cos 1).
    scores = Q_rot K_rotᵀ = [[1, −sin 1], [−sin 1, 1]], scaled by 1/√2."""
    eye = [[1, 0], [0, 1]]
    g = {"X": eye, "heads": 1, "W_Q": eye, "W_K": eye, "W_V": eye, "positions": "rope"}
    d = solve(problem(g, settings={"rope": mode}), exact=exact)
    s1 = math.sin(1)
    rot = [[1, 0], [-s1, math.cos(1)]]
    close(d, "head.1.Q", eye)
    close(d, "head.1.Q_rot", rot)
    close(d, "head.1.K_rot", rot)
    close(d, "head.1.scores", [[1, -s1], [-s1, 1]])
    close(d, "head.1.scaled_scores", np.array([[1, -s1], [-s1, 1]]) / math.sqrt(2))
    w0 = 1 / (1 + math.exp((-s1 - 1) / math.sqrt(2)))  # softmax(1/√2, −sin 1/√2)[0]
    close(d, "head.1.weights", [[w0, 1 - w0], [1 - w0, w0]])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", ["interleaved", "half"])
def test_rope_rotates_each_heads_q_and_k(seed: int, mode: str) -> None:
    """Per head, Q_rot and K_rot are the head's q and k rows turned pairwise by pos·10000^(−2i/d_k)
    (pairs (2i, 2i+1) or (i, i + d_k/2)); scores = Q_rot K_rotᵀ; grouped kv heads are turned once."""
    rng = np.random.default_rng(2300 + seed)
    n, heads = int(rng.integers(2, 6)), [1, 2, 4, 2][seed]
    kv = [None, 1, 2, None][seed]
    g = draw(rng, n, 8, heads, d_k=4, kv_heads=kv, biases=True) | {"positions": "rope"}
    if seed % 2:
        g["mask"] = "causal"
    d = solve(problem(g, settings={"rope": mode}))
    want = mh(g, rope_mode=mode, allowed=ref.causal_lower_right(n, n) if seed % 2 else None)
    for j in range(1, heads + 1):
        for sid in ("Q", "Q_rot", "K_rot", "scores", "scaled_scores", "weights", "output"):
            close(d, f"head.{j}.{sid}", want[f"head.{j}.{sid}"])
    close(d, "output", want["output"])


def test_rope_default_pairing_is_interleaved() -> None:
    """Without [settings] rope, the pairs are (2i, 2i+1): d_k = 4 tells the pairings apart."""
    g = draw(np.random.default_rng(2400), 3, 4, 1) | {"positions": "rope"}
    close(solve(problem(g)), "head.1.Q_rot", mh(g, rope_mode="interleaved")["head.1.Q_rot"])


# --- ALiBi ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("exact", [True, False])
def test_alibi_hand_example(exact: bool) -> None:
    """Two heads of width 1, W_Q = 0 so every score is 0 and the weights come from the bias alone.
    Slopes 2^(−8·1/2) = 1/16 and 2^(−8·2/2) = 1/256; bias −m·|i − k| = [[0, −m], [−m, 0]];
    weights row 0 = (1, e^(−m))/(1 + e^(−m)); head j's values are column j of X = I."""
    eye = [[1, 0], [0, 1]]
    g = {"X": eye, "heads": 2, "W_Q": [[0, 0], [0, 0]], "W_K": eye, "W_V": eye, "positions": "alibi"}
    d = solve(problem(g), exact=exact)
    for j, m in ((1, 1 / 16), (2, 1 / 256)):
        close(d, f"head.{j}.bias", [[0, -m], [-m, 0]])
        a = 1 / (1 + math.exp(-m))
        close(d, f"head.{j}.weights", [[a, 1 - a], [1 - a, a]])
    close(
        d,
        "concat",
        [
            [1 / (1 + math.exp(-1 / 16)), 1 - 1 / (1 + math.exp(-1 / 256))],
            [1 - 1 / (1 + math.exp(-1 / 16)), 1 / (1 + math.exp(-1 / 256))],
        ],
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("causal", [False, True])
def test_alibi_bias_is_added_after_scaling(seed: int, causal: bool) -> None:
    """head.j.bias = −m_j·|i − k| with m_j = 2^(−8j/h); masked_scores = scaled_scores + bias (−∞ where masked)."""
    rng = np.random.default_rng(2500 + seed)
    n, heads = int(rng.integers(2, 6)), seed + 1
    g = draw(rng, n, 6, heads, d_k=2) | {"positions": "alibi"}
    if causal:
        g["mask"] = "causal"
    d = solve(problem(g))
    allowed = ref.causal_lower_right(n, n) if causal else None
    want = mh(g, alibi=True, allowed=allowed)
    for j in range(1, heads + 1):
        if causal:
            close(d, f"head.{j}.masked_scores", want[f"head.{j}.masked_scores"])
        close(d, f"head.{j}.weights", want[f"head.{j}.weights"])
    close(d, "output", want["output"])
    for j in range(1, heads + 1):  # the step holds the bias itself, not the biased scores
        close(d, f"head.{j}.bias", -(2.0 ** (-8 * j / heads)) * np.abs(np.subtract.outer(range(n), range(n))))


# --- positions continue from t with a cache ------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("positions", ["sinusoidal", "rope", "rope-half", "alibi"])
def test_cache_positions_continue_from_t(seed: int, positions: str) -> None:
    """The new rows of X sit at positions t … t+n−1 after t cached tokens, so every new row's weights and
    output equal those rows of causal attention over all t+n tokens. The cache holds what a real cache
    stores: keys and values projected from the positioned rows (sinusoidal), keys already rotated (rope)."""
    rng = np.random.default_rng(2600 + seed)
    n_new, t_cached, heads = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
    N = n_new + t_cached
    g = draw(rng, N, 4, heads, d_k=2, biases=True)
    kw: dict[str, Any] = {"allowed": ref.causal_lower_right(N, N)}
    settings: dict[str, Any] = {}
    X_in = g["X"]  # what the reference projects the cache from
    if positions == "sinusoidal":
        X_in = g["X"] + ref.sinusoidal(range(N), 4)
    elif positions.startswith("rope"):
        kw["rope_mode"] = "half" if positions == "rope-half" else "interleaved"
        settings["rope"] = kw["rope_mode"]
    else:
        kw["alibi"] = True
    full = mh(g | {"X": X_in}, **kw)
    K_cache = X_in[:t_cached] @ g["W_K"] + g["b_K"]
    if "rope_mode" in kw:
        K_cache = ref.rope_blocks(K_cache, 2, range(t_cached), kw["rope_mode"])
    cache = {"K": K_cache, "V": X_in[:t_cached] @ g["W_V"] + g["b_V"]}
    given = g | {"X": g["X"][t_cached:], "positions": positions.removesuffix("-half")}
    d = solve(problem(given, cache=cache, **({"settings": settings} if settings else {})))
    if positions == "sinusoidal":
        close(d, "positions", ref.sinusoidal(range(t_cached, N), 4))
        close(d, "X_pos", X_in[t_cached:])
    for j in range(1, heads + 1):
        if "rope_mode" in kw:
            close(d, f"head.{j}.Q_rot", full[f"head.{j}.Q_rot"][t_cached:])
            close(d, f"head.{j}.K_rot", full[f"head.{j}.K_rot"])  # cached rows as given, new rows turned at t …
        close(d, f"head.{j}.weights", full[f"head.{j}.weights"][t_cached:])
    close(d, "output", full["output"][t_cached:])
    for j in range(1, heads + 1 if positions == "alibi" else 1):  # −m_j·|i − k| with i = t, t+1, …
        close(d, f"head.{j}.bias", full[f"head.{j}.bias"][t_cached:])


# --- kind positional-encoding --------------------------------------------------------------------


@pytest.mark.parametrize("exact", [True, False])
def test_positional_encoding_sinusoidal_hand_example(exact: bool) -> None:
    """positions = 2 (a count: 0 and 1), d_model = 4: angles [[0, 0], [1, 1/100]], P as worked above."""
    d = solve(pe("sinusoidal", {"positions": 2, "d_model": 4}), exact=exact)
    close(d, "angles", [[0, 0], [1, 0.01]])
    close(d, "positions", [[0, 1, 0, 1], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)]])


@pytest.mark.parametrize("seed", SEEDS)
def test_positional_encoding_sinusoidal_list_and_X(seed: int) -> None:
    """positions = a list of positions (any order, gaps allowed); X_pos = X + P; base from position_base."""
    rng = np.random.default_rng(2700 + seed)
    d_model = 2 * int(rng.integers(1, 5))
    pos = [int(p) for p in rng.choice(50, size=int(rng.integers(1, 5)), replace=False)]
    X = rand(rng, len(pos), d_model)
    base = [10000, 10000, 100, 10][seed]
    settings = {} if base == 10000 else {"position_base": base}
    d = solve(pe("sinusoidal", {"positions": pos, "d_model": d_model, "X": X}, **settings))
    close(d, "angles", ref.sinusoidal_angles(pos, d_model, base))
    close(d, "positions", ref.sinusoidal(pos, d_model, base))
    close(d, "X_pos", X + ref.sinusoidal(pos, d_model, base))


@pytest.mark.parametrize("exact", [True, False])
def test_positional_encoding_rope_hand_example(exact: bool) -> None:
    """d_k = 2, positions 0 and 1 (θ = 1 rad): q = k = [[1, 0], [0, 1]] give q_rot = k_rot = [[1, 0],
    [−sin 1, cos 1]] and scores q_rot·k_rot = [[1, −sin 1], [−sin 1, 1]] (unscaled)."""
    eye = [[1, 0], [0, 1]]
    d = solve(pe("rope", {"positions": 2, "q": eye, "k": eye}), exact=exact)
    s1 = math.sin(1)
    close(d, "angles", [[0], [1]])
    close(d, "q_rot", [[1, 0], [-s1, math.cos(1)]])
    close(d, "k_rot", [[1, 0], [-s1, math.cos(1)]])
    close(d, "scores", [[1, -s1], [-s1, 1]])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", ["interleaved", "half"])
def test_positional_encoding_rope_rows(seed: int, mode: str) -> None:
    """q and k rows at the given positions: q_rot, k_rot by the paper's rotation, scores = q_rot k_rotᵀ."""
    rng = np.random.default_rng(2800 + seed)
    d_k, n = 2 * int(rng.integers(1, 5)), int(rng.integers(1, 5))
    pos = [int(p) for p in rng.choice(20, size=n, replace=False)]
    q, k = rand(rng, n, d_k), rand(rng, n, d_k)
    d = solve(pe("rope", {"positions": pos, "q": q, "k": k}, rope=mode))
    q_rot, k_rot = ref.rope(q, pos, mode), ref.rope(k, pos, mode)
    close(d, "angles", ref.sinusoidal_angles(pos, d_k))
    close(d, "q_rot", q_rot)
    close(d, "k_rot", k_rot)
    close(d, "scores", q_rot @ k_rot.T)


@pytest.mark.parametrize("mode", ["interleaved", "half"])
def test_rope_scores_depend_only_on_the_distance(mode: str) -> None:
    """RoPE's point (RoFormer §3.2): shifting every position by the same amount (here 0, 3, 4 → 100, 103,
    104) leaves every q_rot·k_rot unchanged, while the rotated rows themselves change; lengths are kept."""
    rng = np.random.default_rng(2900)
    q, k = rand(rng, 3, 6), rand(rng, 3, 6)
    near = solve(pe("rope", {"positions": [0, 3, 4], "q": q, "k": k}, rope=mode))
    far = solve(pe("rope", {"positions": [100, 103, 104], "q": q, "k": k}, rope=mode))
    close(far, "scores", val(near, "scores"))
    assert not np.allclose(val(far, "q_rot"), val(near, "q_rot"))
    np.testing.assert_allclose(np.linalg.norm(val(far, "q_rot"), axis=1), np.linalg.norm(q, axis=1), atol=1e-12)
