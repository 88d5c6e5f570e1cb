"""The Transformer kinds multi-head and positional-encoding: their declarations, their step ids
(``STEP_IDS[kind]``, in derivation order) and their ``attncalc new`` templates (``TEMPLATE[kind]``).
Plain data with no heavy imports (``attncalc list`` loads it)."""

from __future__ import annotations

from . import catalog
from .common import ANSWERS, DESCRIPTION, GRADING, SCHEMA, SETTINGS_MULTI_HEAD, SETTINGS_POSITIONS, TITLE, TOKENS
from .decl import Key, KindSchema, Select, table


def _kind(name: str) -> Key:
    return Key("kind", "choice", "the kind of problem (see `attncalc list`)", choices=(name,), required=True)


# the biases of the projections: their lengths are the projections' widths, which the parser binds
# once it has split W_Q, W_K and W_V into heads (h·d_k is W_Q's width, kv_heads·d_k W_K's, ...; and
# kind multi-head's d_out is W_O's)
BIASES = (
    Key("b_Q", "vector", "optional bias of Q", shape=("h·d_k",)),
    Key("b_K", "vector", "optional bias of K", shape=("kv_heads·d_k",)),
    Key("b_V", "vector", "optional bias of V", shape=("kv_heads·d_v",)),
)

MULTI_HEAD_GIVEN = table(
    Key(
        "X",
        "matrix",
        "n × d_model: the queries' rows (and the keys'/values' in self-attention)",
        required=True,
        shape=("n", "d_model"),
    ),
    Key("memory", "matrix", "m × d_model: cross-attention; keys and values come from it", shape=("m", "d_model")),
    Key("heads", "integer", "h: head j uses columns (j-1)·d_k+1 … j·d_k of W_Q", required=True, min=1),
    Key("W_Q", "matrix", "d_model × (h·d_k)", required=True),
    Key("W_K", "matrix", "d_model × (kv_heads·d_k)", required=True),
    Key("W_V", "matrix", "d_model × (kv_heads·d_v)", required=True),
    Key("W_O", "matrix", "(h·d_v) × d_model; optional (the derivation then ends at concat)"),
    *BIASES,
    Key("b_O", "vector", "optional bias of the output, one per column of W_O (needs W_O)", shape=("d_out",)),
    Key("kv_heads", "integer", "grouped-query attention: key/value heads, dividing heads (1 = multi-query)", min=1),
    Key(
        "mask",
        "choice",
        "causal (lower-right aligned) | causal-top-left | a 0/1 matrix, 1 = may attend",
        choices=tuple(catalog.MASKS),
        also=("matrix",),
    ),
    Key("key_padding", "vector", "0/1 per key, 0 = a padding position (masked for every query)"),
    Key("window", "integer", "sliding window: with a causal mask, query i sees keys i − w < k ≤ i", min=1),
    Key(
        "positions",
        "choice",
        "sinusoidal | rope | alibi, or a matrix of learned positions added to X",
        choices=("sinusoidal", "rope", "alibi"),
        also=("matrix",),
    ),
    doc="the rows, the projections, the heads, masks and positions",
)

CACHE = table(
    Key(
        "K",
        "matrix",
        "earlier tokens' keys, t × (kv_heads·d_k), already projected (and rotated with rope)",
        required=True,
        shape=("t", "kv_heads·d_k"),
    ),
    Key("V", "matrix", "earlier tokens' values, t × (kv_heads·d_v)", required=True, shape=("t", "kv_heads·d_v")),
    Key("tokens", "labels", "optional labels of the cached tokens, one per row of K", shape=("t",)),
    doc="KV cache: the rows of X are the newest tokens; mask defaults to causal",
)

MULTI_HEAD = KindSchema(
    "multi-head",
    "multi-head self- or cross-attention: heads, masks, grouped queries, a KV cache, positions, W_O",
    table(
        TITLE,
        _kind("multi-head"),
        Key(
            "score",
            "choice",
            "scaled-dot (divide by sqrt(d_k) of a head) | dot",
            default="scaled-dot",
            choices=("scaled-dot", "dot"),
        ),
        TOKENS.but(doc="optional labels, one per row of X"),
        Key("memory_tokens", "labels", "optional labels, one per row of memory"),
        DESCRIPTION,
        Key("given", "table", MULTI_HEAD_GIVEN.doc, table=MULTI_HEAD_GIVEN, required=True),
        Key("cache", "table", CACHE.doc, table=CACHE),
        SETTINGS_MULTI_HEAD,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
)

_D_MODEL = Key("d_model", "integer", "sinusoidal: the width of the encoding (even)", min=2)
_POS_X = Key(
    "X", "matrix", "sinusoidal, optional: rows to add the encoding to, one per position", shape=("positions", "d_model")
)
_POS_Q = Key("q", "matrix", "rope: query rows, one per position", shape=("positions", "d_k"))
_POS_K = Key("k", "matrix", "rope: key rows, one per position", shape=("positions", "d_k"))
_POS_D_K = Key("d_k", "integer", "rope without q and k: the head width (even)", min=2)
POSITIONAL_GIVEN = table(
    Key(
        "positions",
        "integer",
        "a count (positions 0 … count−1), or a list of positions",
        required=True,
        also=("vector",),
        min=1,
    ),
    _D_MODEL,
    _POS_X,
    _POS_Q,
    _POS_K,
    _POS_D_K,
    doc="the positions and what they are applied to",
)
# the keys each type takes ([given].d_model also names a RoPE width, as d_k does)
POSITIONAL_TYPES = Select(
    "type",
    "given",
    {"sinusoidal": table(_D_MODEL.but(required=True), _POS_X), "rope": table(_POS_Q, _POS_K, _POS_D_K, _D_MODEL)},
    always=("positions",),
)

POSITIONAL_ENCODING = KindSchema(
    "positional-encoding",
    "sinusoidal positions (angles, the encoding, X + P) or RoPE rotations of q and k",
    table(
        TITLE,
        _kind("positional-encoding"),
        Key("type", "choice", "sinusoidal | rope", default="sinusoidal", choices=("sinusoidal", "rope")),
        TOKENS.but(doc="optional labels, one per position"),
        DESCRIPTION,
        Key("given", "table", POSITIONAL_GIVEN.doc, table=POSITIONAL_GIVEN, required=True),
        SETTINGS_POSITIONS,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
    selects=(POSITIONAL_TYPES,),
)

# -------------------------------------------------------------------- step ids

# in derivation order; parenthesised remarks say when a step applies, "t" stands for a head
MULTI_HEAD_STEP_IDS = [
    ("positions", "sinusoidal or learned positions: the matrix P added to X"),
    ("X_pos", "sinusoidal or learned positions: X + P"),
    ("memory_pos", "sinusoidal positions in cross-attention: memory + P"),
    ("Q", "queries X W_Q + b_Q, all heads side by side"),
    ("K_new", "with a cache: the new rows' keys X W_K + b_K"),
    ("V_new", "with a cache: the new rows' values X W_V + b_V"),
    ("K", "keys X W_K + b_K (memory W_K in cross-attention; with a cache: the cached rows, then K_new)"),
    ("V", "values, as the keys"),
    ("head.t.Q", "head t's queries: its block of columns of Q"),
    ("head.t.K", "head t's keys (with kv_heads: its group's key head)"),
    ("head.t.V", "head t's values"),
    ("head.t.Q_rot", "rope: the queries rotated by their positions"),
    ("head.t.K_new_rot", "rope with a cache: the new keys rotated"),
    ("head.t.K_rot", "rope: the keys rotated by their positions"),
    ("head.t.scores", "Q_t K_t^T"),
    ("head.t.scaled_scores", "scaled-dot: scores / sqrt(d_k), d_k of the head"),
    ("head.t.bias", "alibi: the bias -m_t |i - k| (positions i, k from 0)"),
    ("head.t.biased_scores", "alibi: the scaled scores plus the bias"),
    ("head.t.masked_scores", "with a mask or key padding: -inf where a query may not attend"),
    ("head.t.exponentials", "exp of each score, row by row"),
    ("head.t.exp_sum", "sum of each row of exponentials"),
    ("head.t.weights", "row-wise softmax A_t"),
    ("head.t.output", "A_t V_t"),
    ("concat", "the heads' outputs side by side"),
    ("output", "with W_O: concat W_O + b_O"),
]

STEP_IDS: dict[str, list[tuple[str, str]]] = {
    "multi-head": MULTI_HEAD_STEP_IDS,
    "positional-encoding": [
        ("angles", "pos * base^(-2i/d) for every position and pair i"),
        ("positions", "sinusoidal: P[pos, 2i] = sin(angle), P[pos, 2i+1] = cos(angle)"),
        ("X_pos", "sinusoidal with X: X + P"),
        ("q_rot", "rope: q rotated pair by pair"),
        ("k_rot", "rope: k rotated pair by pair"),
        ("scores", "rope: q_rot . k_rot for every pair of rows"),
    ],
}

# -------------------------------------------------------------------- `attncalc new` templates

_POSITION_SETTINGS = """
[settings]
decimals = 3             # «settings.decimals»
exact = true             # «settings.exact»
# position_base = 10000  # «settings.position_base»
# rope = "interleaved"   # «settings.rope»
"""

_MULTI_HEAD = f"""# attncalc problem: two-head self-attention (Vaswani et al. 2017), row convention Q = X W_Q.
# Solve it with:  attncalc solve this-file.toml
title = "Two heads over three tokens"
kind = "multi-head"
score = "scaled-dot"     # «score»
tokens = ["je", "suis", "ici"]

[given]
X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]   # «given.X»
heads = 2                # «given.heads»
# head 1 uses columns 1-2 of W_Q, W_K, W_V; head 2 columns 3-4
W_Q = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 1, 1]]   # «given.W_Q»
W_K = [[1, 0, 1, 0], [0, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0]]   # «given.W_K»
W_V = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]   # «given.W_V»
W_O = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]   # «given.W_O»
# b_Q = [0, 0, 0, 0]     # «given.b_Q»
# memory = [[...]]       # «given.memory»
# kv_heads = 1           # «given.kv_heads»
# mask = "causal"        # «given.mask»
# window = 2             # «given.window»
# key_padding = [1, 1, 0]  # «given.key_padding»
# positions = "sinusoidal"  # «given.positions»

# [cache]                # «cache»
# K = [[...]]            # «cache.K»
# V = [[...]]            # «cache.V»
{_POSITION_SETTINGS}# alibi = "paper"        # «settings.alibi»
"""

_POSITIONAL_ENCODING = f"""# attncalc problem: the sinusoidal positional encoding of "Attention Is All You Need".
# Solve it with:  attncalc solve this-file.toml
title = "Sinusoidal positions 0 to 3"
kind = "positional-encoding"
type = "sinusoidal"      # «type»

[given]
positions = 4            # «given.positions»
d_model = 4              # «given.d_model»
# X = [[...]]            # «given.X»
# For type = "rope", instead of d_model and X:
# q = [[...]]            # «given.q»
# k = [[...]]            # «given.k»
{_POSITION_SETTINGS}"""

# the unfilled texts (tests/registry/test_registry.py reads their «placeholders»), and the templates
_TEMPLATE = {"multi-head": _MULTI_HEAD, "positional-encoding": _POSITIONAL_ENCODING}
TEMPLATE = {
    "multi-head": MULTI_HEAD.fill(_MULTI_HEAD),
    "positional-encoding": POSITIONAL_ENCODING.fill(_POSITIONAL_ENCODING),
}
