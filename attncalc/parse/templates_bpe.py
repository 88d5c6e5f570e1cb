"""The commented template of kind ``bpe`` (``attncalc new bpe``)."""

from __future__ import annotations

from .templates import fill_template

_BPE = """# attncalc problem: byte-pair encoding (Sennrich et al. 2016), CS336's worked example.
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

BPE = fill_template("bpe", _BPE)
