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

DECODE = _fill("decode", _DECODE)
