"""The problem-file example of docs/guide/problem-files.md lists every kind the
registry knows (and no other)."""

from __future__ import annotations

import re

from attncalc.kinds import BUILTIN as KINDS  # the built-ins: a plugin kind documents itself

from ..helpers import ROOT


def test_readme_example_lists_every_kind() -> None:
    text = (ROOT / "docs" / "guide" / "problem-files.md").read_text(encoding="utf-8")
    start = text.index('kind  = "attention"')
    block = text[start : text.index("\nscore", start)]
    listed = re.findall(r"[a-z0-9][a-z0-9-]*", block.split("#", 1)[1].replace("#", " "))
    missing = [k for k in KINDS if k not in listed]
    assert not missing, f"docs/guide/problem-files.md's `kind =` comment does not name kind(s) {', '.join(missing)}"
    unknown = [k for k in listed if k not in KINDS]
    assert not unknown, (
        f"docs/guide/problem-files.md's `kind =` comment names {', '.join(unknown)}, not in the registry"
    )
