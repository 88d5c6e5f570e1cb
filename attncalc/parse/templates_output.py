"""Commented templates of the kinds after the model's output (``attncalc new bleu``, ``new decode``)."""

from __future__ import annotations

from .templates import fill_template

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

BLEU = fill_template("bleu", _BLEU)

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

DECODE = fill_template("decode", _DECODE)

_LAYER = """# attncalc problem: one Transformer encoder layer (post-norm, as the paper and PyTorch's default),
# row convention: Q = X W_Q. Add a [cross_attention] table (and given.memory) for a decoder layer.
# Solve it with:  attncalc solve this-file.toml
title = "An encoder layer over three tokens"
kind = "transformer-layer"
tokens = ["je", "suis", "ici"]

[given]
X = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]   # «given.X»
heads = 2                                          # «given.heads»
# window = 2                                      # «given.window»

[self_attention]         # «self_attention»
W_Q = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 1, 1]]
W_K = [[1, 0, 1, 0], [0, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0]]
W_V = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]
W_O = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
# mask = "causal"        # «self_attention.mask»

[ffn]                    # «ffn»
W_1 = [[1, 0, -1, 0, 1, 0, 0, 1], [0, 1, 0, -1, 0, 1, 1, 0], [1, -1, 0, 0, 0, 0, 1, 1], [0, 0, 1, 1, -1, 1, 0, 0]]
W_2 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
activation = "relu"      # «ffn.activation»

# [norm1]                # «norm1»
# gamma = [1, 1, 1, 1]   # «norm1.gamma»
# beta = [0, 0, 0, 0]    # «norm1.beta»

[settings]
decimals = 3             # «settings.decimals»
exact = false            # «settings.exact»
# norm = "post"          # «settings.norm»
# eps = 1e-5             # «settings.eps»
# normalization = "rms"  # «settings.normalization»
"""

LAYER = fill_template("transformer-layer", _LAYER)
