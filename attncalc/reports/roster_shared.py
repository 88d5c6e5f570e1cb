"""The students of ``--roster FILE`` the answers files name, and the ids that identify none of them.

An id two students of the roster share (Moodle does not make ID numbers unique) identifies neither: it
is left out of both (a file is then matched by another id, and the row is written by another column),
with a note, never a grade put on the other student's row. A row the export repeats (the same name and
ids) is one student, read once, with a note.

Only what the files need is held, whatever the export holds. The rows are read up to three times: for
the ids the files go by, for the other ids of the students they name, and, when some id is shared, for
the counts its note gives. For each of those ids only its first holder and whether anyone else holds it
are kept; two rows are compared by an 8-byte BLAKE2 hash of their name and ids (two different rows
agree by chance once in 2**64 comparisons). The memory grows with the files, not with the export's rows
(an export of 20 MB whose rows all shared one id with a named student held every row, 1.3 KB each: 2 GB).
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Iterable, Iterator, Set
from dataclasses import dataclass

from ..errors import printable
from .roster_rows import SHOWN, Few, Rows, Student, id_keys, lms_name

Key = tuple[str, str]  # an id: its column, and its value as lms_name writes it


@dataclass(slots=True)
class _Holders:
    """Who holds one id."""

    written: str  # the id as its first holder writes it
    first: int  # that holder's identity (:func:`identity`)
    student: Student | None  # that holder, kept for an id a file goes by
    several: bool = False  # another student holds it too


# the rows holding an id a file goes by whose other ids are weighed too (as a named student's are): past
# these, an export whose rows all hold such an id would make every row's ids counted
WEIGHED = 10_000


def identity(s: Student, layout: str) -> int:
    """The row's name and ids as written, as a 64-bit BLAKE2 hash: two rows of a Canvas export are the same
    student when theirs agree (one listed twice). Moodle's export lists each user once, so rows alike there
    are two accounts (a duplicate email, no ID number, no Username exported): each row is its own, by its line."""
    if layout == "moodle":
        return s.line
    text = repr((s.name, sorted(s.ids.items()))).encode("utf-8", "backslashreplace")
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def named_students(rows: Rows, wanted: Set[str], path: str) -> list[Student]:
    """The students the files name (by an id in ``wanted``, as :func:`lms_name` writes it, that no other
    student holds in its column), in the export's order, each without the ids several students hold; the
    notes (ids left out, rows repeated, ids shared) said on standard error."""
    holders: dict[Key, _Holders] = {}
    weighed: set[Key] = set()  # the ids of the first WEIGHED rows holding an id a file goes by
    rows_weighed = 0

    def names(s: Student) -> bool:  # (by an id it has, or by one left out: the note says why it gets no row)
        return any(k in wanted for _, k in id_keys(s)) or any(lms_name(v) in wanted for _, v, _ in s.left_out)

    for s in left_out_said((s for s in rows.each() if names(s)), path):
        keys = id_keys(s)
        _hold(holders, s, [k for k in keys if k[1] in wanted], identity(s, rows.layout), keep=True)
        rows_weighed += 1
        if rows_weighed <= WEIGHED:  # (whether their other ids are shared too decides what the note says)
            weighed.update(keys)
    named = {h.first: h.student for h in holders.values() if not h.several and h.student is not None}
    # the named students' other ids decide their rows too
    theirs = weighed | {k for s in named.values() for k in id_keys(s)}
    counted = set(holders)
    copies: dict[int, Few] = {}
    for s in rows.each() if theirs - counted or named else ():
        keys = [k for k in id_keys(s) if k in theirs]
        if keys:
            h = identity(s, rows.layout)
            _hold(holders, s, [k for k in keys if k not in counted], h)
            if h in named and s.line != named[h].line:
                copies.setdefault(h, Few()).add(s.line)
    shared = {k for k, h in holders.items() if h.several}
    _repeats_said(named, copies, path)
    _shared_said(rows, holders, shared, path, wanted if rows_weighed > WEIGHED else None)
    out = [
        Student(s.name, {c: v for c, v in s.ids.items() if (c, lms_name(v)) not in shared}, s.line, s.left_out)
        for s in sorted(named.values(), key=lambda s: s.line)
    ]
    return [s for s in out if any(v.strip() for v in s.ids.values())]


def _hold(holders: dict[Key, _Holders], s: Student, keys: list[Key], h: int, keep: bool = False) -> None:
    """Counts the row ``s`` (its identity ``h``) among the holders of each of its ids ``keys``."""
    for k in keys:
        held = holders.get(k)
        if held is None:
            holders[k] = _Holders(s.ids[k[0]], h, s if keep else None)
        elif h != held.first:
            held.several = True


def left_out_said(rows: Iterable[Student], path: str) -> Iterator[Student]:
    """The students with an id, each id holding a control, bidirectional or other format character
    (written raw, it would reorder or break the gradebook's row; escaped, the LMS would not find it) left
    out and said: in full for the first :data:`SHOWN` rows, the other rows' lines counted in one line."""
    more = Few()
    shown = 0
    for s in rows:
        if s.left_out and shown < SHOWN:
            shown += 1
            rest = (
                "the student is matched by their other ids"
                if any(v.strip() for v in s.ids.values())
                else "the student has no other id: a file naming them gets no row"
            )
            for c, v, why in s.left_out:
                sys.stderr.write(
                    f"attncalc: note: {printable(path)}: line {s.line}: the {c} {printable(v)} {why}: it is left out "
                    f"({rest})\n"
                )
        elif s.left_out:
            more.add(s.line)
        if any(v.strip() for v in s.ids.values()):
            yield s
    if more.count:
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: {more} hold such ids too (a control or format character, an ID that "
            "is no Canvas user number, an id Canvas would read as another): those ids are left out\n"
        )


def _repeats_said(named: dict[int, Student], copies: dict[int, Few], path: str) -> None:
    """One note a named student's row the export repeats, naming the first few of its copies' lines and
    how many more there are; past the first few such rows, one note counting them."""
    repeated = sorted(copies, key=lambda h: named[h].line)
    for h in repeated[:SHOWN]:
        few = copies[h]
        which = f"{few} repeats" if few.count == 1 else f"{few} repeat"
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: {which} line {named[h].line:,} (the same name and ids): read once\n"
        )
    if len(repeated) > SHOWN:
        rest = Few()
        for h in repeated[SHOWN:]:
            rest.add(named[h].line)
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: {rest.count:,} more rows, on {rest}, are repeated further "
            "down (the same name and ids): each is read once\n"
        )


def _shared_said(
    rows: Rows, holders: dict[Key, _Holders], shared: set[Key], path: str, unweighed: Set[str] | None = None
) -> None:
    """One note an id several students hold, for the first :data:`SHOWN` (by column, then id): how many
    students hold it, and how many of them have no other id of their own (a third reading of the rows
    counts them, as hashes); the others counted in one note. ``unweighed``: the ids the files go by, when
    more than :data:`WEIGHED` rows hold them (the other ids of the rows past those were not counted)."""
    ordered = sorted(shared)
    if not ordered:
        return
    # each holder; each with no other id of their own; each whose other ids were not weighed
    held = {k: (array("Q"), array("Q"), array("Q")) for k in ordered[:SHOWN]}
    for s in rows.each():
        keys = id_keys(s)
        hits = [k for k in keys if k in held]
        if hits:
            h, bare = identity(s, rows.layout), all(k in shared for k in keys)
            blind = (
                unweighed is not None and any(k not in holders for k in keys) and any(k[1] in unweighed for k in keys)
            )
            for k in hits:
                held[k][0].append(h)
                if bare:
                    held[k][1].append(h)
                elif blind:
                    held[k][2].append(h)
    for (c, key), (every, alone, unknown) in held.items():
        n, b, u = _distinct(every), _distinct(alone), _distinct(unknown)
        whom = "neither" if n == 2 else "none of them"
        if b == n:
            rest = "they have no other id: a file naming them gets no row"
        elif not b and not u:
            rest = "they are matched and written by their other ids"
        else:
            rest = f"{b:,} of them {_has(b)} no other id: a file naming them gets no row" if b else ""
            if u:
                rest += f"{'; ' if rest else ''}the other ids of {u:,} were not weighed: past the first {WEIGHED:,} "
                rest += "rows holding an id the files go by, a row's other ids are not counted"
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: the {c} {printable(holders[c, key].written)} is {n:,} students' of "
            f"the roster: it identifies {whom} ({rest})\n"
        )
    if len(ordered) > SHOWN:
        named = ", ".join(f"the {c} {printable(holders[c, k].written)}" for c, k in ordered[SHOWN : 2 * SHOWN])
        sys.stderr.write(
            f"attncalc: note: {printable(path)}: {len(ordered) - SHOWN:,} more ids are several students' of the "
            f"roster ({named}{', ...' if len(ordered) > 2 * SHOWN else ''}): each identifies none of them (a "
            "student with no other id gets no row)\n"
        )


def _has(n: int) -> str:
    return "has" if n == 1 else "have"


def _distinct(hashes: array[int]) -> int:
    """How many different hashes ``hashes`` holds (sorted as 8-byte numbers, never as Python ints)."""
    if not hashes:
        return 0
    import numpy as np

    return int(np.unique(np.frombuffer(hashes, dtype=np.uint64)).size)
