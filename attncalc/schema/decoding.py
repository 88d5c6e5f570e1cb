"""The declarations of the kinds after the model's output: decode (choosing the next token) and bleu."""

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
