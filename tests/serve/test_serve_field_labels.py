"""Each field of a matrix step has a label a screen reader reads: the step, its row and its column. A
row labelled "row 1" (quantization's) was read "row row 1" (tryout 35); a word label stays "row cat"."""

from __future__ import annotations

import re

from ..serve_support import examples_client  # skips without the serve extra


def _labels(html: str) -> list[str]:
    return re.findall(r'<label for="[^"]+" class="sr">([^<]*)</label>', html)


def test_a_row_label_that_says_row_is_not_said_twice() -> None:
    labels = _labels(examples_client().get("/problems/quantization-absmax-rows").text)
    assert labels and not any("row row" in x for x in labels), labels[:5]
    assert any(x.endswith(", row 1, column 1") for x in labels), labels[:5]


def test_other_labels_keep_their_word() -> None:
    labels = _labels(examples_client().get("/problems/self-attention-scaled").text)
    assert any(", row " in x and ", column " in x for x in labels), labels[:5]
    assert not any("row row" in x or "column column" in x for x in labels)
