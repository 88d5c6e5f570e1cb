"""Kind ``bpe``, byte-pair encoding (Sennrich et al. 2016), merges learned from a small corpus and
applied to new words: its declaration, its step ids and its ``attncalc new`` template."""

from __future__ import annotations

from .common import SETTINGS, top_table
from .decl import Key, KindSchema, table

# the step ids, in derivation order; t is a number, as in every kind: the merge (r.pairs in the interface),
# or the word of given.encode (encode.i)
STEP_IDS = [
    ("words", "the word counts (the corpus split on whitespace)"),
    ("t.pairs", "merge t: every adjacent pair inside a word and its count, weighted by the word's count"),
    ("t.merge", 'merge t: the chosen pair, "a b" (the largest count, at least 2; ties by the stated rule)'),
    ("t.words", "merge t: each word's segmentation after the merge"),
    ("merges", 'the merges learned, in order, as "a b" strings'),
    ("vocab", "the new tokens, in the order they were made"),
    ("encode.t", "the t-th word of given.encode as a list of tokens (merges applied in the order learned)"),
]

TIES = ("greater", "first")
# the tie rule in words (a merge step's explanation, a quiz item's givens)
TIE_RULE = {
    "greater": "of pairs with equal counts the lexicographically greatest is taken (as CS336)",
    "first": "of pairs with equal counts the one that occurs first is taken (as minbpe)",
}

GIVEN = table(
    Key("corpus", "string", "the training text, split on whitespace into words (or give words)"),
    Key("words", "any", "the word counts directly, a table word = count (instead of corpus)"),
    Key("merges", "integer", "how many merges to learn", required=True, min=1, max=50),
    Key(
        "tie",
        "choice",
        'of pairs with equal counts: "greater" (the lexicographically greatest pair, as CS336) | "first" '
        "(the pair that occurs first, as minbpe)",
        default="greater",
        choices=TIES,
    ),
    Key("end_of_word", "string", 'a marker appended to every word as one more symbol ("</w>", as d2l)', default=""),
    Key("encode", "labels", "new words to segment with the learned merges, applied in the order learned"),
    doc="the corpus (or its word counts) and how many merges to learn",
)

BPE = KindSchema(
    "bpe",
    "byte-pair encoding (Sennrich et al. 2016): pair counts, merges with a stated tie rule, encoding new words",
    top_table("bpe", GIVEN, SETTINGS),
)

_TEMPLATE = """# attncalc problem: byte-pair encoding (Sennrich et al. 2016), CS336's worked example.
# Solve it with:  attncalc solve this-file.toml
title = "BPE merges on a small corpus"
kind = "bpe"

[given]
corpus = "low low low low low lower lower widest widest widest newest newest newest newest newest newest"   # «given.corpus»
# words = { low = 5, lower = 2, widest = 3, newest = 6 }   # «given.words»
merges = 6               # «given.merges»
tie = "greater"          # «given.tie»
# end_of_word = "</w>"   # «given.end_of_word»
encode = ["newest", "nest"]   # «given.encode»

[settings]
decimals = 0             # «settings.decimals»
"""

TEMPLATE = BPE.fill(_TEMPLATE)
