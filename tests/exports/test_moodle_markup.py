"""Labels (a vocabulary, attention tokens) reach Moodle as text, never as markup: a multiple-choice
answer's text takes its question's format (html) in Moodle's qformat_xml, and a category's info is
``format="html"``, so a label there is HTML-escaped before it is XML-escaped (an ``<img>`` label was
decoded once by the XML parser and then read by Moodle as live markup). Characters XML 1.0 asks
documents to avoid (DEL, the C1 controls, noncharacters such as U+10FFFF) are escaped as the terminal
shows them in every quiz XML."""

from __future__ import annotations

import html
import io
import xml.etree.ElementTree as ET
import zipfile

import attncalc
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.moodle_cloze import cloze_files
from attncalc.reports.qti import qti_zip

MARKUP = "<img src=x onerror=alert(1)>"
VOCAB = [MARKUP, "dog", "mat", "sat", "the"]


def _decode() -> object:
    return attncalc.solve(
        {
            "kind": "decode",
            "strategy": "top-k",
            "given": {"logits": [3, 2, 1, 0, -1], "vocab": VOCAB, "k": 2, "u": 0.7},
        }
    )


def _attention(tokens: list[str]) -> object:
    return attncalc.solve(
        {"kind": "attention", "tokens": tokens, "given": {"query": [1, 1], "keys": [[1, 0], [0, 2], [1, 1]]}}
    )


def _html_fields(root: ET.Element) -> list[str]:
    """The text of every field Moodle reads as HTML: answers of a multichoice question, categories' info,
    question texts and feedback."""
    out = [
        a.findtext("text") or ""
        for q in root.iter("question")
        if q.get("type") == "multichoice"
        for a in q.iter("answer")
    ]
    out += [e.findtext("text") or "" for e in root.iter() if e.get("format") == "html"]
    return out


def test_a_label_is_never_markup_in_a_moodle_field_read_as_html() -> None:
    root = ET.fromstring(moodle_xml([_decode(), _attention([MARKUP, "b", "c"])], 1))
    fields = _html_fields(root)
    assert fields and all("<img" not in f for f in fields)
    # the label is still there, as text: the HTML shows it as the characters written in the problem
    options = [
        a.findtext("text") for q in root.iter("question") if q.get("type") == "multichoice" for a in q.iter("answer")
    ]
    assert html.escape(MARKUP) in options and html.unescape(html.escape(MARKUP)) == MARKUP
    assert any(html.escape(MARKUP) in (e.findtext("text") or "") for e in root.iter("info"))


def test_a_label_is_never_markup_in_a_cloze_question() -> None:
    for text in cloze_files([_decode(), _attention([MARKUP, "b", "c"])], 1).values():
        root = ET.fromstring(text)
        assert all("<img" not in f for f in _html_fields(root))


def test_discouraged_characters_are_escaped_in_every_quiz() -> None:
    odd = ["a\x7fb", "c\x85d", "e\U0010ffff", "f\ufdd0"]
    d = _attention(odd[:3])
    # (a vocabulary's labels holding them are refused when the problem is read: tests/input/test_label_refusals.py;
    # a title is only shown)
    e = attncalc.solve(
        {"kind": "decode", "strategy": "top-k", "title": "f\ufdd0 g\x85",
         "given": {"logits": [3, 2, 1, 0], "vocab": ["a", "b", "c", "d"], "k": 2, "u": 0.7}}
    )  # fmt: skip
    docs: list[str] = [moodle_xml([d, e], 1), *cloze_files([d, e], 1).values()]
    z = zipfile.ZipFile(io.BytesIO(qti_zip([d, e], 1)))
    docs += [z.read(n).decode("utf-8") for n in z.namelist() if n.endswith(".xml")]
    for doc in docs:
        assert not any(ch in doc for ch in "\x7f\x85\U0010ffff\ufdd0")
        ET.fromstring(doc)
    assert "a\\x7fb" in docs[0] and "c\\x85d" in docs[0] and "e\\U0010ffff" in docs[0]
