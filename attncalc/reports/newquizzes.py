"""The packages written by ``generate --format newquizzes`` for Canvas New Quizzes: one QTI 1.2 package
per variant, ``newquizzes-v01.zip``, ``newquizzes-v02.zip``, ..., each a quiz of that variant's items
only (New Quizzes imports every item of a package into one quiz and keeps no one-of-these selection, so
a variant is a quiz of its own: assign each to its students).

Built from what New Quizzes' importer reads (the ``qti`` gem, github.com/instructure/qti; docs/lms.md
cites the files): a QTI 1.2 item with ``question_type`` ``numerical_question`` and a ``render_fib`` of
type Decimal is a numeric question whose answers are the ``respcondition``\\ s that set ``SCORE``, each
read as an exact answer with a margin when it holds a ``varequal`` beside a ``vargte`` and a ``varlte``
(``margin`` attribute); ``multiple_choice_question`` a choice; ``points_possible`` the item's points;
``itemfeedback ident="general_fb"`` the feedback shown to everyone (the worked step). Its QTI 2.1 reader
takes a ``textEntryInteraction`` as a short text answer (the exact string), hence QTI 1.2 here.
"""

from __future__ import annotations

from ..derivation import Derivation
from .qti12 import assessment, manifest_xml, package


def newquizzes_names(count: int) -> list[str]:
    """The packages' names, one per variant."""
    return [f"newquizzes-v{k:02d}.zip" for k in range(1, count + 1)]


def newquizzes_zips(
    derivations: list[Derivation], seed: int, tag: str | None = None, name: str = ""
) -> dict[str, bytes]:
    """One package per variant by name; ``tag`` (:func:`attncalc.reports.lms.set_tag`) prefixes every
    identifier, each variant's its own (``TAG-v02``), so the quizzes never share one."""
    tag = tag or f"attncalc-seed-{seed}"
    about = f"attncalc homework {name}, seed {seed}" if name else f"attncalc homework, seed {seed}"
    out: dict[str, bytes] = {}
    for k, (fname, d) in enumerate(zip(newquizzes_names(len(derivations)), derivations, strict=True), 1):
        vtag = f"{tag}-v{k:02d}"
        doc = assessment([d], tag, f"{about}, variant {k}", "newquizzes", first=k, test_id=vtag)
        out[fname] = package([("imsmanifest.xml", manifest_xml(vtag)), (f"{vtag}/{vtag}.xml", doc)])
    return out
