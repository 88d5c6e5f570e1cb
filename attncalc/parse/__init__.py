"""Problem file → typed problem: the first stage of the pipeline (then mechanisms/, then render/).

Its place in the pipeline (docs/contributing.md, "The layers"):
**parse** → mechanisms → derivation → render | check → reports → cli | serve.

``reader`` reads TOML/YAML/JSON and checks raw values (every message names the file and the key);
``top`` reads the top level (kind, title, settings) and hands the rest to the kind's parser:
``attention``, ``self_attention``, ``softmax``, ``sequence``, ``similarity``, ``recurrent`` (rnn,
lstm, gru), ``seq2seq``, ``positional``; ``data`` holds each kind's typed payload (``Problem.data``); ``output`` holds the output layer and [training] they share; ``types`` the
typed problem they produce; ``declared`` reads a table against its declaration (types, required
keys, defaults, named dimensions across keys), which new kinds' parsers start from. The keys each table allows come from the declarations in
:mod:`attncalc.schema`. No other module reads the raw tables.

The names below are the package's API: the rest of attncalc imports them from here (a kind's own
labels from its module, e.g. :mod:`attncalc.parse.similarity`).
"""

from __future__ import annotations

from .attention import HEAD_KEYS, SCORE_KEYS
from .declared import Dims, read_declared
from .reader import Reader, describe_raw, read_raw, require
from .top import SETTINGS_KEYS, TOP_KEYS, load_problem, parse_problem, settings_keys, settings_table, top_keys
from .types import RECURRENT_KINDS, Given, Head, Problem, Settings

__all__ = [
    "HEAD_KEYS",
    "RECURRENT_KINDS",
    "SCORE_KEYS",
    "SETTINGS_KEYS",
    "TOP_KEYS",
    "Dims",
    "Given",
    "Head",
    "Problem",
    "Reader",
    "Settings",
    "describe_raw",
    "load_problem",
    "parse_problem",
    "read_declared",
    "read_raw",
    "require",
    "settings_keys",
    "settings_table",
    "top_keys",
]
