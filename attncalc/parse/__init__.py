"""Problem file → typed problem: the first stage of the pipeline (then mechanisms/, then render/).

``reader`` reads TOML/YAML/JSON and checks raw values (every message names the file and the key);
``top`` reads the top level (kind, title, settings) and hands the rest to the kind's parser:
``attention``, ``self_attention``, ``softmax``, ``sequence``, ``similarity``, ``recurrent`` (rnn,
lstm, gru), ``seq2seq``; ``output`` holds the output layer and [training] they share; ``types`` the
typed problem they produce. The keys each table allows come from the declarations in
:mod:`attncalc.schema`. No other module reads the raw tables.
"""

from __future__ import annotations

from .reader import read_raw
from .top import load_problem, parse_problem
from .types import Given, Problem

__all__ = ["Given", "Problem", "load_problem", "parse_problem", "read_raw"]
