"""The practice page states the givens a question needs as every LMS item does: each sentence a Moodle
item writes for a setting of the problem file (bpe's merges asked for, tie rule and words to encode; a
quantization's bits, scheme and granularity; a DPO's β, loss and ε; an online softmax's block; an
accounting's FFN, norms and positions; GRPO's ε and normalisation) is on the page's question too."""

from __future__ import annotations

import html
import re
import tomllib
import xml.etree.ElementTree as ET

import pytest

from attncalc.reports.moodle import moodle_xml
from attncalc.serve.page import question_html

from ..helpers import PROBLEMS, solve_file
from ..serve_support import examples_client

FILES = [
    "bpe-cs336.toml",
    "bpe-first-tie.toml",
    "quantization-absmax-rows.toml",
    "dpo-two-pairs.toml",
    "online-softmax-qk.toml",
    "gpt2-small-accounting.toml",
    "grpo-four-completions.toml",
]


def _item_sentences(name: str) -> dict[str, str]:
    """The sentences the first Moodle item states, by the problem file's key they state."""
    xml = moodle_xml([solve_file(name)], seed=1)
    text = next(
        q.find("questiontext/text").text or ""
        for q in ET.fromstring(xml).findall("question")
        if q.get("type") != "category"
    )
    return {k: _plain(v) for k, v in re.findall(r'<p title="([^"]+)">(.*?)</p>', text)}


def _plain(text: str) -> str:
    """Text as read: tags left out, so W_1 and the page's typeset W<sub>1</sub> both read W1."""
    return html.unescape(re.sub(r"<[^>]+>", "", text)).replace("_", "")


@pytest.mark.parametrize("name", FILES)
def test_the_page_states_what_the_lms_item_states(name: str) -> None:
    given = tomllib.loads((PROBLEMS / name).read_text(encoding="utf-8"))["given"]
    scalars = [k for k, v in given.items() if not isinstance(v, (list, dict)) or k in ("encode", "lora_targets")]
    sentences = _item_sentences(name)
    page = _plain(examples_client().get(f"/problems/{name.removesuffix('.toml')}").text)
    stated = [k for k in scalars if k in sentences]
    assert stated, (name, scalars, sorted(sentences))
    for key in stated:
        assert sentences[key] in page, (name, key, sentences[key])


def test_bpe_states_the_merges_asked_for_and_not_the_merges() -> None:
    """CS336's worked example (assignment 1, section 2.5): 6 merges, ties to the greater pair, its merges
    s t, e st, o w, l ow, w est, n e. The item and the page ask for them; neither names a learned token."""
    sentences = _item_sentences("bpe-cs336.toml")
    assert sentences["merges"].startswith("merges = 6: learn the first 6")
    assert "lexicographically greatest" in sentences["tie"]
    assert sentences["encode"].endswith("newest, nest, lowest.")
    question = _plain(question_html(solve_file("bpe-cs336.toml")))  # the page's question
    assert all(line in question for line in sentences.values())
    for text in (*sentences.values(), question):
        for token in ("st", "est", "ow", "ne", "west"):  # the learned tokens, as whole words
            assert re.search(rf"(?<![\w<]){token}(?!\w)", text) is None, (token, text[:300])
