"""Shared by the tests of ``attncalc serve``: the app under Starlette's TestClient, and reading the
verdicts a page shows. Importing this module skips the calling test module when the extra is absent."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the serve extra (pip install 'attncalc[serve]') is not installed")
pytest.importorskip("jinja2", reason="the serve extra (pip install 'attncalc[serve]') is not installed")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the test extra)")

import warnings

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2, which is not released everywhere yet
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from attncalc.serve.app import create_app

from .helpers import PROBLEMS


@cache
def examples_client(practice: bool = True) -> TestClient:
    """The app serving problems/ (the examples), as ``attncalc serve problems --practice`` does."""
    return TestClient(create_app([str(PROBLEMS)], practice=practice))


def client(paths: list[str], **kw: Any) -> TestClient:
    return TestClient(create_app(paths, **kw))


_STEP = re.compile(r'<section class="step(?: v-(\w+))?" id="step-(\d+)"')


def verdicts(html: str) -> dict[int, str]:
    """Step number -> the verdict the page marks it with (steps without a verdict left out)."""
    return {int(n): v for v, n in _STEP.findall(html) if v}


def field_value(html: str, name: str) -> str | None:
    """The value an input field shows (as the browser reads the attribute: entities decoded)."""
    import html as h

    m = re.search(r'<input id="[^"]*" name="' + re.escape(h.escape(name)) + r'" value="([^"]*)"', html)
    return h.unescape(m.group(1)) if m else None
