"""Every LMS writer (Moodle XML, QTI 2.1, QTI 1.2), called through the API, writes well-formed XML for
any text: a title, tokens or a vocabulary holding "]]>" (which closed Moodle's CDATA sections early),
control characters or lone surrogates (which XML 1.0 cannot hold at all) included."""

from __future__ import annotations

import io
import unicodedata
import xml.etree.ElementTree as ET
import zipfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attncalc
from attncalc.errors import hidden, visible
from attncalc.reports.lms import cdata
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.qti import qti_zip
from attncalc.reports.qti12 import qti12_zip

# any text, with the troublesome pieces drawn often
PIECES = st.sampled_from(
    ["]]>", "]]", "<", "&", '"', "'", "\x00", "\x01", "\x0b", "\x1b", "\ud800", "\ufffe", "\uffff"]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=4)), min_size=1, max_size=6).map("".join).filter(lambda t: t.strip())
# a label: no white space at its ends, not "?", showing every character it holds and composed (NFC): the
# parser refuses the others (no answer could match them, or two would look alike)
LABEL = (
    TEXT.map(lambda t: t.strip())
    .filter(lambda t: t and t != "?" and visible(t) and not any(hidden(ch) for ch in t))
    .filter(lambda t: unicodedata.normalize("NFC", t) == t)
)


def _documents(d: object) -> list[str | bytes]:
    docs: list[str | bytes] = [moodle_xml([d], 1)]  # type: ignore[list-item]
    for package in (qti_zip([d], 1), qti12_zip([d], 1)):  # type: ignore[list-item]
        z = zipfile.ZipFile(io.BytesIO(package))
        docs += [z.read(n) for n in z.namelist() if n.endswith(".xml")]
    return docs


def _parse_all(d: object) -> None:
    for doc in _documents(d):
        ET.fromstring(doc)  # raises on anything not well-formed


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=TEXT, tokens=st.lists(LABEL, min_size=3, max_size=3, unique=True))
def test_attention_with_any_title_and_tokens(title: str, tokens: list[str]) -> None:
    d = attncalc.solve(
        {
            "kind": "attention",
            "title": title,
            "description": title,
            "tokens": tokens,
            "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]},
        }
    )
    _parse_all(d)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=TEXT, vocab=st.lists(LABEL, min_size=3, max_size=3, unique=True))
def test_rnn_with_any_vocabulary(title: str, vocab: list[str]) -> None:
    """An RNN's predictions are choices among the vocabulary: every label is written into the quiz."""
    d = attncalc.solve(
        {
            "kind": "rnn",
            "title": title,
            "given": {
                "x": [[1, 0], [0, 1]],
                "W": [[0.5, -0.5, 1, 0], [0.25, 0.5, 0, 1]],
                "b": [0, 0.1],
                "W_out": [[1, 0], [0, 1], [1, -1]],
                "vocab": vocab,
                "targets": vocab[1:],
            },
        }
    )
    _parse_all(d)


def test_a_control_character_is_shown_as_the_terminal_shows_it() -> None:
    d = attncalc.solve(
        {"kind": "attention", "title": "a]]>\x01b", "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]}}
    )
    root = ET.fromstring(moodle_xml([d], 1))
    texts = [q.find("questiontext/text").text or "" for q in root.findall("question") if q.get("type") != "category"]
    assert texts and all("a]]&gt;\\x01b" in t for t in texts)  # the HTML the question shows: a]]>\x01b


def test_a_cdata_section_holds_any_text() -> None:
    text = "x]]>y]]]]>z"
    doc = f"<t>{cdata(text)}</t>"
    assert ET.fromstring(doc).text == text
