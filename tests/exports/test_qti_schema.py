"""Every QTI 2.1 document attncalc writes is valid against the IMS QTI 2.1 XSD and loads in pyslet;
every QTI 1.2 and Moodle file parses.

The schema is IMS's own ``imsqti_v2p1.xsd`` (vendored in ``tests/qti_xsd/`` with its licence), read
by lxml with the network off. 36 causal multi-head items were invalid: a masked entry's ``<p>`` sat
inside the question's ``<p>``, which the XSD rejects and pyslet refuses to load. Every kind is drawn
(a causal mask, a sliding window and a beam search besides), two variants each (one of the kinds of hundreds of items a variant); the XSD checks every
document, pyslet (slower) the test and one item of each step.
"""

from __future__ import annotations

import io
import logging
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import pytest

from attncalc import kinds
from attncalc.homework.generate import Options, default_dim, generate
from attncalc.reports.lms import shape
from attncalc.reports.moodle import moodle_xml
from attncalc.reports.newquizzes import newquizzes_zips
from attncalc.reports.qti import qti_zip
from attncalc.reports.qti12 import qti12_zip

etree = pytest.importorskip("lxml.etree")
qtixml = pytest.importorskip("pyslet.qtiv2.xml")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pyslet 0.7 calls its own old names

XSD = Path(__file__).resolve().parents[1] / "qti_xsd"
CASES = [
    *[(k, {}) for k in kinds.with_drawer() if k != "decode"],
    *[("decode", {"strategy": s}) for s in ("greedy", "sample", "top-k", "top-p", "beam")],
    ("self-attention", {"mask": "causal"}),
    ("multi-head", {"mask": "causal"}),
    ("multi-head", {"mask": "causal", "window": 2, "tokens": 3}),
]

HEAVY = {"attention-backward", "seq2seq", "transformer-layer"}  # hundreds of items a variant: one variant


@pytest.fixture(scope="module")
def schema() -> Any:
    class Local(etree.Resolver):  # xml.xsd, which some schemas import from the W3C's address
        def resolve(self, url: str, pubid: str, context: Any) -> Any:
            if url.startswith("http://www.w3.org/") and url.endswith("/xml.xsd"):
                return self.resolve_filename(str(XSD / "w3" / "xml.xsd"), context)
            return None

    parser = etree.XMLParser(no_network=True)
    parser.resolvers.add(Local())
    return etree.XMLSchema(etree.parse(str(XSD / "qtiv2p1" / "imsqti_v2p1.xsd"), parser))


def _pyslet(xml: bytes) -> Any:
    logging.getLogger().setLevel(logging.CRITICAL)  # pyslet logs the tolerance it does not parse
    doc = qtixml.QTIDocument()
    doc.read(src=xml)
    return doc.root


def test_the_schema_rejects_a_paragraph_in_a_paragraph(schema: Any) -> None:
    """The check is not vacuous: the reported fault (a masked entry's p inside the question's p) fails."""
    ds = generate(Options(kind="softmax", seed=5, count=1, one_shape=True), shape).derivations
    z = zipfile.ZipFile(io.BytesIO(qti_zip(ds, 5)))
    name = next(n for n in z.namelist() if n.startswith("items/"))
    text = z.read(name).decode("utf-8")
    assert schema.validate(etree.fromstring(text.encode("utf-8")))
    broken = text.replace("<p>Compute ", "<p><p>e = −∞</p>Compute ", 1)
    assert broken != text
    assert not schema.validate(etree.fromstring(broken.encode("utf-8")))


@pytest.mark.parametrize(
    ("kind", "extra"), CASES, ids=[f"{k}-{'-'.join(map(str, e.values()))}".strip("-") for k, e in CASES]
)
def test_every_qti_document_is_valid_and_every_file_parses(schema: Any, kind: str, extra: dict[str, Any]) -> None:
    count = 1 if kind in HEAVY else 2  # (the variants' section is the same for every kind: test.xml)
    o = Options(kind=kind, dim=default_dim(kind), seed=5, count=count, one_shape=True, **extra)
    ds = generate(o, shape).derivations
    z = zipfile.ZipFile(io.BytesIO(qti_zip(ds, 5, name="week 5")))
    checked = 0
    for name in z.namelist():
        if name == "imsmanifest.xml":
            ET.fromstring(z.read(name))  # (IMS Content Packaging's schema is not vendored: it parses)
            continue
        data = z.read(name)
        doc = etree.fromstring(data)
        assert schema.validate(doc), f"{kind} {name}: {schema.error_log.last_error}"
        # pyslet reads the test and the first entry of each step (the entries of a step differ only in
        # their label and numbers; a masked entry's −∞ is shown in every item of its step)
        if name == "test.xml" or name.endswith("-01.xml"):
            root = _pyslet(data)
            assert type(root).__name__ == ("AssessmentTest" if name == "test.xml" else "AssessmentItem"), name
        checked += 1
    assert checked >= 2
    for package in (qti12_zip(ds, 5), *newquizzes_zips(ds, 5).values()):
        z12 = zipfile.ZipFile(io.BytesIO(package))
        for name in z12.namelist():
            ET.fromstring(z12.read(name))
    ET.fromstring(moodle_xml(ds, 5))
