"""Every given a question needs is in the text of every LMS item (a draw's u, top-k's k,
top-p's p were nowhere in the quiz; beam's givens labelled the vocabulary 1 2 3; the kept beams' number
question named the beam the rank question asks for)."""

from __future__ import annotations

import html
import io
import re
import xml.etree.ElementTree as ET
import zipfile
from typing import Any

import pytest

from attncalc import kinds
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.qti import qti_zip
from attncalc.reports.qti12 import qti12_zip

# every kind with a homework drawer, from the registry (decode once per strategy)
CASES = [
    *[(k, {}) for k in kinds.with_drawer() if k != "decode"],
    *[("decode", {"strategy": s}) for s in ("greedy", "sample", "top-k", "top-p", "beam")],
    *[("moe", {"top_k": k}) for k in (1, 2)],
]


def _moodle_texts(xml: str) -> list[str]:
    return [
        q.find("questiontext/text").text for q in ET.fromstring(xml).findall("question") if q.get("type") != "category"
    ]


def _qti_texts(data: bytes) -> list[str]:
    z = zipfile.ZipFile(io.BytesIO(data))
    out = []
    for name in z.namelist():
        text = z.read(name).decode("utf-8")
        if "<assessmentItem " in text:
            out.append(text[text.index("<itemBody") : text.index("</itemBody>")])
    return out


def _qti12_texts(data: bytes) -> list[str]:
    z = zipfile.ZipFile(io.BytesIO(data))
    out = []
    for name in z.namelist():
        root = ET.fromstring(z.read(name))
        for item in (e for e in root.iter() if e.tag.split("}")[-1] == "item"):
            shown = next(e for e in item if e.tag.split("}")[-1] == "presentation")
            out.append(" ".join(m.text or "" for m in shown.iter() if m.tag.split("}")[-1] == "mattext"))
    return out


def _shows(text: str, key: str, value: Any) -> bool:
    """The given is in the text: labelled by its key (a table's or a line's title/label; a line states its
    value), the vocabulary as its words (a vocabulary's size, a whole number, by its key)."""
    words = isinstance(value, list) and all(isinstance(w, str) for w in value)
    if (key == "vocab" or key.startswith("labels")) and words:  # the words head the table's columns or rows
        return all(f"<th>{w}</th>" in text for w in value)
    if key == "references":  # one table per reference
        return all(f'="references.{k}"' in text.replace("&quot;", '"') for k in range(1, len(value) + 1))
    if re.search(rf'(title|label)=(&quot;|"){re.escape(key)}(&quot;|")', text) is not None:
        line = _line(text, key)
        return line is None or _states(line, value)
    # lists of token log-probabilities of different lengths (grpo's): one table per list, key[1], key[2], ...
    lists = isinstance(value, list) and value and all(isinstance(row, list) for row in value)
    return bool(lists) and all(_shows(text, f"{key}[{i}]", row) for i, row in enumerate(value, 1))


def _line(text: str, key: str) -> str | None:
    """The sentence a paragraph labelled by the key states (None: the key labels a table)."""
    m = re.search(rf'<p (?:title|label)=(?:&quot;|"){re.escape(key)}(?:&quot;|")>(.*?)(?:</p>|&lt;/p&gt;)', text)
    return html.unescape(html.unescape(m.group(1))) if m else None


def _states(line: str, value: Any) -> bool:
    """A sentence states the file's value: a number as the file writes it, a choice or word by its name
    (any case: "rms" in "RMSNorm"), each word of a list; a yes/no is said in words, not checked."""
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return re.search(rf"(?<![\d.]){re.escape(str(value))}(?![\d])", line) is not None
    if isinstance(value, str):
        return value.lower() in line.lower()
    if isinstance(value, list) and all(isinstance(w, str) for w in value):
        return all(w in line for w in value)
    return True


@pytest.mark.parametrize(
    ("kind", "extra"), CASES, ids=[f"{k}-{e.get('strategy', e.get('top_k', ''))}" for k, e in CASES]
)
def test_every_given_is_in_every_item(kind: str, extra: dict[str, Any]) -> None:
    res = generate(Options(kind=kind, dim=default_dim(kind), seed=3, count=1, **extra))
    raw, d = res.problems[0], res.derivations[0]
    given = raw.get("given", {})  # seq2seq: [encoder] and [decoder] tables
    for fmt, texts in (
        ("moodle", _moodle_texts(moodle_xml([d], seed=3))),
        ("qti", _qti_texts(qti_zip([d], seed=3))),
        ("qti12", _qti12_texts(qti12_zip([d], seed=3))),
    ):
        assert texts, fmt
        for text in texts:
            missing = [k for k, v in given.items() if not _shows(text, k, v)]
            assert not missing, (fmt, missing, text[:400])


def test_beam_columns_are_the_words_and_the_kept_scores_do_not_name_the_beams() -> None:
    res = generate(Options(kind="decode", strategy="beam", seed=1, count=1))
    d = res.derivations[0]
    vocab = res.problems[0]["given"]["vocab"]
    xml = moodle_xml([d], seed=1)
    head = "<tr><th></th>" + "".join(f"<th>{w}</th>" for w in vocab) + "</tr>"
    assert head in xml
    names = [
        q.find("name/text").text or "" for q in ET.fromstring(xml).findall("question") if q.get("type") != "category"
    ]
    kept = [n for n in names if "[kept_beams]" in n]
    assert kept
    for name in kept:
        assert not any(w in name.split("[kept_beams]", 1)[1] for w in vocab), name
        assert "beam 1" not in name.split("[kept_beams]", 1)[1] and "beam 2" not in name.split("[kept_beams]", 1)[1], (
            name
        )
