"""The package as it is shipped: the licence pyproject declares is there, and the sdist carries what
its own tests need (.ci/run also unpacks one and runs tests from it)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

from ..helpers import ROOT


def test_the_licence_is_the_declared_one() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def _setuptools_for_spdx() -> bool:
    if importlib.util.find_spec("build") is None or importlib.util.find_spec("setuptools") is None:
        return False
    import setuptools

    return int(setuptools.__version__.split(".")[0]) >= 77


@pytest.mark.skipif(not _setuptools_for_spdx(), reason="needs build and setuptools>=77 (pip install build setuptools)")
def test_the_sdist_carries_its_tests(tmp_path: Path) -> None:
    """Reported: the sdist's tests could not run (no tests/, problems/ or docs/ in it)."""
    src = tmp_path / "src"
    skip = shutil.ignore_patterns(".*", "*.egg-info", "build", "dist", "__pycache__")
    shutil.copytree(ROOT, src, ignore=skip)
    run = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp_path / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert (
        "License classifiers are deprecated" not in run.stderr and "project.license` as a TOML table" not in run.stderr
    )
    (sdist,) = (tmp_path / "dist").glob("attncalc-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in (
        "LICENSE",
        "README.md",
        "tests/conftest.py",
        "tests/helpers.py",
        "tests/golden/decoder-dot.md",
        "problems/decoder-dot.toml",
        "problems/answers/decoder-dot.toml",
        "docs/interface.md",
        "docs/python-api.ipynb",
        "benchmarks/bench_cli.py",
    ):
        assert needed in names, f"the sdist lacks {needed}"
