"""The QTI 2.1 items scored by an independent delivery engine: pyslet's QTI 2.1 runtime (pyslet.qtiv2).

Each item is parsed by pyslet and its response processing run by pyslet's item session (the response
set as a candidate's, outcomes reset to their defaults, then responseProcessing). pyslet 0.7 keeps the
``tolerance`` attribute of ``equal`` as the raw string instead of the list of one or two floats the
QTI 2.1 schema defines, so the test splits it (the spec's reading) before running: nothing else of
pyslet is changed. The responses are the key, the hand chain that ``check`` grades all correct, a named
slip recomputed with numpy, one unit off, and nothing.
"""

from __future__ import annotations

import io
import logging
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.mechanisms import solve
from attncalc.parse import load_problem
from attncalc.reports.qti import qti_zip

qtixml = pytest.importorskip("pyslet.qtiv2.xml")
from pyslet.qtiv2 import expressions, variables  # noqa: E402
from pyslet.qtiv2.interactions import SimpleChoice  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pyslet 0.7 calls its own old names


class Item:
    """One assessmentItem as pyslet reads and scores it."""

    def __init__(self, xml: bytes) -> None:
        logging.getLogger().setLevel(logging.CRITICAL)  # pyslet logs the tolerance it does not parse
        doc = qtixml.QTIDocument()
        doc.read(src=xml)
        self.item = doc.root
        for e in self.item.find_children_depth_first(expressions.Equal):
            if isinstance(e.tolerance, str):
                e.tolerance = e.tolerance.split()
        self.title = self.item.title

    def step(self) -> str:
        import re

        found = re.search(r"\[([\w.\-]+)\]", self.title.split(": ", 1)[1])
        assert found is not None
        return found.group(1)

    def run(self, response: Any) -> dict[str, Any]:
        st = variables.ItemSessionState(self.item)
        st.begin_session()
        st["numAttempts"].set_value(1)
        for rd in self.item.ResponseDeclaration:
            st[rd.identifier] = variables.Value.copy_value(st[rd.identifier + ".DEFAULT"])
        if response is not None:
            rd = self.item.ResponseDeclaration[0]
            v = variables.Value.new_value(rd.cardinality, rd.baseType)
            v.set_value(response)
            st[rd.identifier] = v
        st.end_attempt()
        return {k: st[k].value for k in ("SCORE", "MAXSCORE", "SLIP", "FEEDBACK")}


def items_by_step(data: bytes) -> dict[str, list[Item]]:
    z = zipfile.ZipFile(io.BytesIO(data))
    out: dict[str, list[Item]] = {}
    for name in sorted(n for n in z.namelist() if n.startswith("items/")):
        it = Item(z.read(name))
        out.setdefault(it.step(), []).append(it)
    return out


def _flat(x: Any) -> list[Any]:
    return [v for row in x for v in _flat(row)] if isinstance(x, list) else [x]


@pytest.mark.parametrize("name", ["decoder-dot.toml", "lstm-doc-encoder.toml", "decode-top-p.toml"])
def test_pyslet_gives_the_key_and_the_hand_chain_every_point_and_one_unit_off_none(name: str) -> None:
    p = load_problem(ROOT / "problems" / name)
    d = solve(p)
    hand = solve(p, carry_rounded=True)
    chain = {s.id: np.asarray(s.shown).tolist() for s in hand.steps if not isinstance(s.value, str)}
    assert check(p, chain, "hand.toml").all_correct
    items = items_by_step(qti_zip([d], seed=0))
    unit = 10.0**-d.decimals
    for s in d.steps:
        its = items[s.id]
        if isinstance(s.value, str):  # a label: its choice, found by the label's text
            for it in its:
                labels = {c.get_value(): c.identifier for c in it.item.find_children_depth_first(SimpleChoice)}
                top = it.run(labels[s.value])
                assert top["MAXSCORE"] > 0 and top["SCORE"] == pytest.approx(top["MAXSCORE"]), s.id
                assert all(it.run(c)["SCORE"] == 0 for lab, c in labels.items() if lab != s.value)
            continue
        keys = [float(x) for x in _flat(np.asarray(s.shown).tolist()) if np.isfinite(float(x))]
        hands = [float(x) for x in _flat(chain[s.id]) if np.isfinite(float(x))]
        assert len(its) == len(keys) == len(hands), s.id
        for it, k, h in zip(its, keys, hands, strict=True):
            top = it.run(k)
            assert top["SCORE"] == pytest.approx(top["MAXSCORE"]) and top["FEEDBACK"] == "SOLUTION", (s.id, k)
            assert it.run(h)["SCORE"] == pytest.approx(top["MAXSCORE"]), (s.id, h)
            assert it.run(None)["SCORE"] == 0
            off = it.run(k + 3 * unit)
            if abs(k + 3 * unit - h) > unit / 2:
                assert off["SCORE"] < top["MAXSCORE"], (s.id, k)


def test_pyslet_gives_a_named_slip_its_share_and_its_feedback(tmp_path: Path) -> None:
    """scaled-dot attention with [grading] slip = 0.5: the scores left unscaled (q·k_i, here with numpy)
    earn half of each entry's points in pyslet, with the SLIP outcome naming the slip's feedback."""
    from .test_lms import SLIP_PROBLEM

    path = tmp_path / "p.toml"
    path.write_text(SLIP_PROBLEM, encoding="utf-8")
    d = solve(load_problem(path))
    unscaled = np.array([[1, 1, 0, 1], [0, 2, 1, 0], [2, 0, 1, 1.0]]) @ np.array([1, 0, 1, 2.0])
    items = items_by_step(qti_zip([d], seed=0))["scaled_scores"]
    for it, x in zip(items, unscaled, strict=True):
        got = it.run(float(x))
        assert got["SCORE"] == pytest.approx(0.5 * got["MAXSCORE"]) and got["SLIP"] == "SLIP_1"
        right = it.run(float(x) / 2)
        assert right["SCORE"] == pytest.approx(right["MAXSCORE"]) and right["SLIP"] is None
