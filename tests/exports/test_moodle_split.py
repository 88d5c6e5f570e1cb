"""A Moodle quiz over PHP's default 2 MB upload limit is written as several files, each under it, each a
whole quiz of whole categories (a slot's category with every variant's question for it), so that each
file imports on its own and a random question from any category still draws any variant. A quiz under
the limit stays one ``quiz.xml``, byte for byte the document :func:`moodle_xml` writes."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from attncalc.errors import ProblemError
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.reports.lms import shape
from attncalc.reports.moodle import moodle_files, moodle_xml

TWO_MB = 2 * 1024 * 1024  # PHP's upload_max_filesize default "2M" (bytes); the files stay under 2,000,000 too


def _draw(kind: str, count: int, seed: int = 3) -> list[Any]:
    opts = Options(kind=kind, dim=default_dim(kind), count=count, seed=seed, one_shape=True)
    return generate(opts, shape).derivations


def _categories(xml: str) -> list[tuple[str, list[str]]]:
    """The quiz as Moodle's importer walks it: each category question opens a category, and every
    question after it (up to the next category) is imported into it. Returns (category, question names)."""
    root = ET.fromstring(xml.encode("utf-8"))
    assert root.tag == "quiz"
    out: list[tuple[str, list[str]]] = []
    for q in root.findall("question"):
        if q.get("type") == "category":
            out.append((q.findtext("category/text") or "", []))
            continue
        assert out, "a question before any category would go to the default category"
        out[-1][1].append(q.findtext("name/text") or "")
    return out


def _check_split(files: dict[str, str], whole: str, count: int, limit: int) -> None:
    assert list(files) == [f"quiz-{k}.xml" for k in range(1, len(files) + 1)] and len(files) >= 2
    seen: list[tuple[str, list[str]]] = []
    for name, text in files.items():
        assert len(text.encode("utf-8")) <= limit, name
        cats = _categories(text)  # each file a whole quiz, starting with a category
        assert cats, name
        seen += cats
    names = [c for c, _ in seen]
    assert len(names) == len(set(names)), "a category is split across files"
    assert seen == _categories(whole)  # every question once, in its category, in the set's order
    for cat, qs in seen:  # each category: one question of each variant
        assert sorted(int(q.split(":", 1)[0].removeprefix("Variant ")) for q in qs) == list(range(1, count + 1)), cat


def test_a_small_quiz_is_one_file_as_before() -> None:
    ds = _draw("attention", 3)
    files = moodle_files(ds, 3, "t", "t")
    assert list(files) == ["quiz.xml"]
    assert files["quiz.xml"] == moodle_xml(ds, 3, "t", "t")


@pytest.mark.parametrize("kind", ["attention", "self-attention", "decode"])
def test_a_quiz_over_the_limit_is_split_by_whole_categories(kind: str) -> None:
    ds = _draw(kind, 3)
    whole = moodle_xml(ds, 3, "t", "t")
    size = len(whole.encode("utf-8"))
    biggest = max(len(q.encode("utf-8")) for q in whole.split("\n"))
    limits = [size // parts + 1 for parts in (2, 3, 5) if size // parts > 4 * biggest + 1000]
    assert limits  # a category (its line and each variant's question) fits in each limit tried
    for limit in limits:
        _check_split(moodle_files(ds, 3, "t", "t", limit=limit), whole, 3, limit)


def test_a_category_over_the_limit_is_refused_naming_it() -> None:
    ds = _draw("attention", 2)
    with pytest.raises(ProblemError) as err:
        moodle_files(ds, 3, "t", "t", limit=3000)
    message = str(err.value)
    assert message.startswith("generate: --count: ") and "2 MB" in message
    assert re.search(r"question slot Q\d{3}\.\d{2} \(one question of each of the 2 variants\)", message)


def test_the_command_writes_files_under_2_mb(cli: Any, tmp_path: Path) -> None:
    # transformer-layer at 3 variants is over 5 MB of Moodle XML in one file
    result = cli(
        "generate", "--kind", "transformer-layer", "--count", "3", "--format", "moodle", "--out", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "quiz.xml").exists()
    files = {p.name: p.read_bytes() for p in sorted(tmp_path.glob("quiz-*.xml"))}
    assert len(files) >= 3
    whole = b"".join(files.values())
    assert len(whole) > TWO_MB  # the set is over the limit, each file under it
    for name, data in files.items():
        assert len(data) < 2_000_000 < TWO_MB, name
    seen: list[tuple[str, list[str]]] = []
    for data in files.values():
        seen += _categories(data.decode("utf-8"))
    assert len({c for c, _ in seen}) == len(seen)
    assert all(len(qs) == 3 for _, qs in seen)
