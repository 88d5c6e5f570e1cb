"""The declarations of the kinds after the model's output: decode (choosing the next token) and bleu."""

from __future__ import annotations

from .. import catalog
from .common import ANSWERS, DESCRIPTION, GRADING, SCHEMA, SETTINGS, TITLE
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
    catalog.KINDS["bleu"],
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
