"""The kinds after the model's output, decode (choosing the next token) and bleu: their declarations,
their step ids (``STEP_IDS[kind]``, in derivation order) and their ``attncalc new`` templates
(``TEMPLATE[kind]``). Plain data with no heavy imports (``attncalc list`` loads it)."""

from __future__ import annotations

from . import catalog
from .common import ANSWERS, DESCRIPTION, GRADING, SCHEMA, SETTINGS, SETTINGS_SOFTMAX, TITLE, TOKENS
from .decl import Key, KindSchema, table


def _kind(name: str) -> Key:
    return Key("kind", "choice", "the kind of problem (see `attncalc list`)", choices=(name,), required=True)


# -------------------------------------------------------------------- bleu

BLEU_GIVEN = table(
    Key(
        "candidate",
        "labels",
        "the translation scored: a list of tokens, or one string split at spaces",
        required=True,
        also=("string",),
    ),
    Key(
        "references",
        "sentences",
        "the reference translations: a list of token lists (or of strings split at spaces)",
        required=True,
    ),
    Key("max_n", "integer", "the longest n-grams counted (N)", default=4, min=1, max=9),
    Key("weights", "vector", "w_1 … w_N, each above 0 (default uniform, 1/N each)", shape=("N",)),
    doc="the candidate and its references",
)

BLEU = KindSchema(
    "bleu",
    "sentence BLEU (Papineni et al. 2002): n-gram counts, clipped counts, precisions, brevity penalty",
    table(
        TITLE,
        _kind("bleu"),
        DESCRIPTION,
        Key("given", "table", BLEU_GIVEN.doc, table=BLEU_GIVEN, required=True),
        SETTINGS,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
)

# -------------------------------------------------------------------- decode

DECODE_GIVEN = table(
    Key("logits", "vector", "the next token's logits z (or give probabilities)", shape=("V",)),
    Key("probabilities", "vector", "the next token's probabilities (instead of logits; they add up to 1)"),
    Key("vocab", "labels", "optional labels of the vocabulary entries"),
    Key(
        "k",
        "integer",
        "top-k: the most probable tokens kept; top-p: top-k first (HF order)",
        min=1,
    ),
    Key("p", "number", "top-p: the smallest set of most probable tokens whose probabilities reach p is kept"),
    Key("u", "number", "sampling: the uniform draw in [0, 1) that picks a kept token (inverse CDF)"),
    Key("beams", "matrix", "beam: B rows of next-token log-probabilities, one per beam (B × V)"),
    Key("beam_scores", "vector", "beam: each beam's log-probability so far (B numbers)"),
    Key("beam_width", "integer", "beam: how many candidates are kept", min=1),
    Key("length_penalty", "number", "beam, optional: α of Wu et al. 2016, score / ((5 + L)/6)^α"),
    Key(
        "length", "integer", "beam with a length penalty: L, the length after this step (the new token counted)", min=1
    ),
    doc="the distribution over the next token (or the beams), and what the strategy needs",
)

DECODE = KindSchema(
    "decode",
    "choosing the next token: greedy, temperature, top-k, top-p (with a given draw u), one beam-search step",
    table(
        TITLE,
        _kind("decode"),
        Key(
            "strategy",
            "choice",
            "greedy | sample | top-k | top-p | beam",
            default="greedy",
            choices=tuple(catalog.STRATEGIES),
        ),
        TOKENS.but(doc="optional labels of the vocabulary entries (given.vocab wins)"),
        DESCRIPTION,
        Key("given", "table", DECODE_GIVEN.doc, table=DECODE_GIVEN, required=True),
        SETTINGS_SOFTMAX,
        ANSWERS,
        GRADING,
        SCHEMA,
    ),
)

# -------------------------------------------------------------------- step ids

# in derivation order; parenthesised remarks say when a step applies
STEP_IDS: dict[str, list[tuple[str, str]]] = {
    "bleu": [
        ("ngram_counts", "c_n: the candidate's n-grams of each order n, c - n + 1"),
        ("clipped_counts", "m_n: each candidate n-gram counted at most as often as in one reference, summed"),
        ("precisions", "p_n = m_n / c_n, the modified n-gram precisions"),
        ("brevity_penalty", "BP = 1 if c > r, else exp(1 - r/c); r: the closest reference length (ties: the shorter)"),
        ("log_mean", "sum_n w_n ln p_n (-inf when a precision is 0)"),
        ("bleu", "BLEU = BP exp(sum_n w_n ln p_n)"),
    ],
    "decode": [
        ("scaled_logits", "temperature != 1: z / T"),
        ("probabilities", "softmax of the (scaled) logits"),
        ("sorted", "top-k, top-p: the probabilities in descending order"),
        (
            "kept_top_k",
            "top-p with k: 1 for the k most probable tokens (top-k first, Hugging Face's order), in vocabulary order",
        ),
        ("top_k_renormalized", "top-p with k: the top k's probabilities divided by their sum (0 where dropped)"),
        ("cumulative", "top-p: the running sum of sorted (with k: of top_k_renormalized, sorted)"),
        ("kept", "top-k, top-p: 1 for a kept token, 0 for a dropped one, in vocabulary order"),
        ("renormalized", "top-k, top-p: the kept probabilities divided by their sum (0 where dropped)"),
        ("draw_cumulative", "sampling with u: the running sum of the distribution drawn from, in vocabulary order"),
        ("choice", "greedy: the most probable token; sampling: the first token whose running sum exceeds u"),
        ("candidates", "beam: beam score + log p for every beam and token (B x V)"),
        ("normalized", "beam with a length penalty: candidates / ((5 + L)/6)^alpha"),
        ("kept_beams", "beam: the kept candidates' summed log-probabilities, best first"),
        ("kept_labels", "beam: the kept candidates, 'beam b: token', best first"),
    ],
}

# -------------------------------------------------------------------- `attncalc new` templates

_BLEU = """# attncalc problem: the sentence BLEU of a translation (Papineni et al. 2002), no smoothing.
# Solve it with:  attncalc solve this-file.toml
title = "BLEU of a short translation"
kind = "bleu"

[given]
candidate = ["the", "cat", "sat", "on", "the", "mat"]   # «given.candidate»
references = [["the", "cat", "is", "sitting", "on", "the", "mat"], ["a", "cat", "sat", "on", "the", "mat"]]   # «given.references»
max_n = 2                # «given.max_n»
# weights = [0.5, 0.5]   # «given.weights»

[settings]
decimals = 3             # «settings.decimals»
exact = true             # «settings.exact»
"""

_DECODE = """# attncalc problem: choosing the next token. Solve it with:  attncalc solve this-file.toml
title = "Top-p sampling over five tokens"
kind = "decode"
strategy = "top-p"       # «strategy»

[given]
logits = [2, 1, 0.5, 0, -1]                       # «given.logits»
vocab = ["cat", "dog", "mat", "sat", "the"]       # «given.vocab»
p = 0.9                  # «given.p»
u = 0.6                  # «given.u»
# k = 2                  # «given.k»
# For strategy = "beam", instead of logits, p and u:
# beams = [[-0.5, -1.2, -2.0], [-0.3, -1.9, -2.5]]   # «given.beams»
# beam_scores = [-1.0, -1.4]                        # «given.beam_scores»
# beam_width = 2                                    # «given.beam_width»
# length_penalty = 0.6                              # «given.length_penalty»
# length = 3                                        # «given.length»

[settings]
decimals = 3             # «settings.decimals»
# temperature = 0.8      # «settings.temperature»
"""

# the unfilled texts (tests/registry/test_registry.py reads their «placeholders»), and the templates
_TEMPLATE = {"bleu": _BLEU, "decode": _DECODE}
TEMPLATE = {"bleu": BLEU.fill(_BLEU), "decode": DECODE.fill(_DECODE)}
