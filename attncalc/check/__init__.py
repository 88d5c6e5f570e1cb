"""The check stage: grading a student's answers against a derivation, step by step.

The pipeline, and this package's place in it::

    parse  ->  mechanisms  ->  derivation  ->  render            (solve: the worked derivation)
                                    |
                                    +------->  check  ->  reports  (check: verdicts, points, gradebooks)
    cli | serve call the stages; kinds is the registry every stage reads.

``check`` reads the answers (:mod:`.answers`), compares each step with the truth and with the
answerer's own earlier numbers (:mod:`.agree`, :mod:`.runs`: interval bounds, hand chains, the
runs a slip gives, :mod:`.wide` for the larger kinds), names a slip only when recomputing with it
gives the answer (:mod:`.slips`), writes the notes (:mod:`.notes`, :mod:`.hints`, :mod:`.labels`),
awards points (:mod:`.points`, the problem's ``[grading]``) and returns a :class:`Report`
(:mod:`.report`). :mod:`.grade` holds the loop; :mod:`.picks` grades predictions and tables of the
student's own shape; :mod:`.prepared` and :mod:`.budget` bound the work one check may do.

``from attncalc.check import check, Report`` is the module's public face, as before the package.
"""

from __future__ import annotations

from .answers import UNANSWERED, Tolerance, flatten_ids, load_answers
from .grade import check
from .report import Report, StepResult

__all__ = ["UNANSWERED", "Report", "StepResult", "Tolerance", "check", "flatten_ids", "load_answers"]
