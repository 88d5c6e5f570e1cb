"""Fixtures shared by the tests (helpers live in tests/helpers.py), and Hypothesis settings."""

from __future__ import annotations

import os

from hypothesis import settings

from .helpers import cli  # noqa: F401  (a fixture)

# The same examples on every run: CI must not pass or fail by chance. HYPOTHESIS_PROFILE=explore
# draws fresh examples (and keeps failures in .hypothesis/) when looking for new bugs.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
