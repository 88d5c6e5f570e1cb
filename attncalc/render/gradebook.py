"""The gradebook of ``attncalc check --format csv``: one row per answers file, for a spreadsheet or
an LMS gradebook import (Moodle, Canvas, ILIAS, OpenOLAT and Blackboard all read CSV with a header).

Columns: ``file`` (the answers file), ``problem``, ``score``, ``out_of``, then one column per step id
(every step of the problems, in derivation order; several problems: their steps in first-seen order)
holding the verdict: ``correct``, ``carried``, ``wrong``, or empty where the file did not answer it.
A cell a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@`` first: a file name) is
written with a leading apostrophe.
"""

from __future__ import annotations

import csv
import io

from ..check_report import Report, points_text

HEAD = ("file", "problem", "score", "out_of")


def columns(reports: list[Report]) -> list[str]:
    """Every step id of the reports' problems, each once, in order."""
    return list(dict.fromkeys(s for rep in reports for s in rep.step_ids))


def rows(reports: list[Report]) -> list[list[str]]:
    """The header and one row per report."""
    steps = columns(reports)
    out = [[*HEAD, *steps]]
    for rep in reports:
        verdicts = {r.id: r.verdict for r in rep.results}
        out.append(
            [rep.answers, rep.problem, points_text(rep.score), points_text(rep.out_of)]
            + [verdicts.get(s, "") for s in steps]
        )
    return out


def _cell(text: str) -> str:
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def gradebook_csv(reports: list[Report]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    for row in rows(reports):
        writer.writerow([_cell(c) for c in row])
    return buf.getvalue()
