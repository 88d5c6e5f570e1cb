"""Commented templates of the kinds after the model's output (``attncalc new bleu``, ``new decode``)."""

from __future__ import annotations

from .templates import _fill

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

BLEU = _fill("bleu", _BLEU)
