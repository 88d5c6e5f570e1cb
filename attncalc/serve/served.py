"""The problems a server offers, by name: files given on the command line (a folder: its problem
files), and with ``--practice`` seeded variants that ``generate`` draws (``variant-KIND-SEED``).

Every file is read and solved once, at start, through :func:`attncalc.parse.load_problem` with the
size limit (``--max-file-size``) and the parser's own bounds, as ``attncalc solve`` reads it. A request
names a problem only by a served name, looked up in a dict: no part of a URL reaches the file system.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..derivation import Derivation
from ..errors import AttncalcError, printable
from ..parse import Problem

if TYPE_CHECKING:
    from ..check.prepared import Prepared

SUFFIXES = (".toml", ".yaml", ".yml", ".json")
VARIANT = re.compile(
    r"variant-([a-z][a-z0-9-]*)-(0|[1-9]\d{0,8})"
)  # one name per seed: no leading zeros (fullmatch: a trailing newline is no name)
CACHED = 64  # variants kept per worker (each with its prepared runs), and 4x as many views (the files' problems are always kept)
FRESH = 16  # variants only looked at, kept apart: a flood of new seeds pushes out only these (and their views)
SHEETS = 32  # solution sheets kept per worker (rendered once: 0.1-0.4 s each for the larger problems) ...
SHEET_BYTES = 16 << 20  # ... and at most this many bytes of them
PAGES = 64  # practice pages (as first shown, nothing typed) kept per worker ...
PAGE_BYTES = 32 << 20  # ... and at most this many bytes of them
# The fields one practice page may ask (docs/serving.md, "The size of a page"): its empty form about
# 80 KB (far under the default --max-file-size) and a page rendered in about 0.35 s. The largest
# example asks 750 (an LSTM), the largest drawn variant about 450; a self-attention over 256 tokens
# asked 264,449 (66 MB, 20 s a page, a form no server would take back).
MAX_PAGE_FIELDS = 4000


@dataclass(frozen=True)
class Served:
    """One problem on offer: its name in URLs, the file it came from ("" for a variant: the file's
    path relative to the folder served, which is all a page, a download or JSON ever shows of it, never
    the server's absolute path: :func:`shown`), the problem,
    its worked derivation, for a variant the problem table ``generate`` drew, and the problem made
    ready for grading (what no answer changes, worked out once for every request that checks it)."""

    name: str
    source: str
    problem: Problem
    derivation: Derivation
    raw: dict[str, Any] | None = None
    prepared: Prepared | None = field(default=None, compare=False, repr=False)
    refused: str = ""  # why it is no practice page (too many fields): every route of it says so


def page_fields(d: Derivation) -> int:
    """The fields the practice page of ``d`` would ask: every entry of every asked step (a bpe pair
    table at the page's size), counted from the steps' shapes before anything is rendered."""
    import numpy as np

    from .answers import asked
    from .pair_heads import is_pair_table, slots

    count = 0
    for step in asked(d):
        count += (
            slots(d, step) if is_pair_table(d, step) else 1 if isinstance(step.value, str) else int(np.size(step.value))
        )
    return count


def refusal(name: str, d: Derivation) -> str:
    """Why the problem ``d`` (served as ``name``) is no practice page, or "" when it is one."""
    n = page_fields(d)
    if n <= MAX_PAGE_FIELDS:
        return ""
    return (
        f"{name}: this problem asks {n:,} entries, more than a practice page's {MAX_PAGE_FIELDS:,}; "
        "it is not offered on the practice page: work it with `attncalc solve` and grade answers with `attncalc check`."
    )


def prepare(problem: Problem) -> Prepared | None:
    """The problem made ready for grading, or None when that fails (then each check works it out
    itself, and says what is wrong as ``attncalc check`` would)."""
    from ..check.prepared import Prepared

    try:
        return Prepared(problem)
    except AttncalcError:
        return None


def _problem_files(folder: Path, notes: bool) -> list[Path]:
    from ..files import folder_files

    files, skipped = folder_files(folder, SUFFIXES)
    if skipped and notes:  # a FIFO, a device, a folder named p.toml: never opened, and said so
        sys.stderr.write(
            f"attncalc: note: skipped in {printable(str(folder))}, not regular files: {printable(', '.join(skipped))}\n"
        )
    return files


def _unique(stem: str, taken: set[str]) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-.") or "problem"
    if VARIANT.fullmatch(name):
        name = "file-" + name  # a file never shadows a generated variant's name
    out, k = name, 2
    while out in taken:
        out, k = f"{name}-{k}", k + 1
    return out


def collect(paths: list[str], max_bytes: int | None, notes: bool = True) -> dict[str, Served]:
    """The served problems by name, in the order given (a folder's files sorted by name).

    A file named on the command line must load (else :class:`AttncalcError`); in a folder, a file that
    is not a problem (an answers file) is skipped, and one that fails to load is named on stderr."""
    from ..mechanisms import solve
    from ..parse import load_problem, read_raw

    served: dict[str, Served] = {}
    for arg in paths:
        path = Path(arg)
        if path.is_dir():
            for f in _problem_files(path, notes):
                try:
                    raw = read_raw(f, max_bytes)
                    if "kind" not in raw:  # an answers file or other data: not a problem
                        continue
                    problem = load_problem(f, max_bytes)
                    d = solve(problem)  # a problem that cannot be worked is named now, not by a request
                except AttncalcError as exc:
                    if notes:  # said once, when the command starts (not again by each worker)
                        sys.stderr.write(f"attncalc: note: skipped {printable(str(exc))}\n")
                    continue
                name = _unique(f.stem, set(served))
                served[name] = _offered(name, shown(f, path), problem, d, notes)
        else:
            problem = load_problem(arg, max_bytes)
            name = _unique(path.stem, set(served))
            served[name] = _offered(name, shown(path, path.parent), problem, solve(problem), notes)
    return served


def _offered(name: str, source: str, problem: Problem, d: Derivation, notes: bool) -> Served:
    """A file's problem as served: a practice page, or (over :data:`MAX_PAGE_FIELDS`) one that every
    route refuses with its reason, said once on stderr at start (not prepared: it is never graded here)."""
    why = refusal(source, d)
    if why:
        if notes:
            sys.stderr.write(f"attncalc: note: skipped {printable(why)}\n")
        return Served(name, source, problem, d, refused=why)
    from ..mechanisms.bpe import early_stop_note, stops_early

    early = stops_early(d)
    if early is not None and notes:  # the page asks its steps: the grader is told what they show
        sys.stderr.write(f"attncalc: note: {printable(source)}: {early_stop_note(*early)}\n")
    return Served(name, source, problem, d, prepared=prepare(problem))


def shown(file: Path, folder: Path) -> str:
    """How the pages name a served file: its path relative to the folder served (a file given on
    its own: its folder), so no response tells the server's absolute paths (the TA, who started
    the server there, grades a download with ``attncalc check`` this path from that folder)."""
    try:
        return file.relative_to(folder).as_posix()
    except ValueError:  # (not under it: cannot happen for a folder's own files) the file's name alone
        return file.name


class _Lru:
    """A small thread-safe cache (the app may run handlers in threads)."""

    def __init__(self, size: int, max_bytes: int | None = None) -> None:
        self.size = size
        self.max_bytes = max_bytes  # (values of text: their lengths counted, the oldest dropped beyond)
        self.bytes = 0
        self.items: OrderedDict[object, object] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: object) -> object | None:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        return None

    def put(self, key: object, value: object) -> None:
        with self.lock:
            self.bytes -= _size(self.items.pop(key, None))
            self.items[key] = value
            self.bytes += _size(value)
            while len(self.items) > self.size or (self.max_bytes is not None and self.bytes > self.max_bytes):
                self.bytes -= _size(self.items.popitem(last=False)[1])

    def pop(self, key: object) -> object | None:
        with self.lock:
            found = self.items.pop(key, None)
            self.bytes -= _size(found)
            return found

    def listed(self) -> list[object]:
        with self.lock:
            return list(self.items)

    def __contains__(self, key: object) -> bool:
        with self.lock:
            return key in self.items


def _size(value: object) -> int:
    return len(value) if isinstance(value, (str, bytes)) else 0


class Catalog:
    """The served problems, and the variants and derivations made on request (cached, rebuilt the
    same from the name alone: the server holds no state a second worker would lack)."""

    def __init__(self, served: dict[str, Served], practice: bool = False) -> None:
        from .. import kinds

        self.served = served
        self.practice = practice
        self.kinds = kinds.with_drawer() if practice else []
        self._variants = _Lru(CACHED)  # variants checked, downloaded or fetched as a file: a student's own
        self._fresh = _Lru(FRESH)  # variants only looked at (any seed anyone asks for)
        self._views = _Lru(4 * CACHED)
        self._fresh_views = _Lru(4 * FRESH)
        self._sheets = _Lru(SHEETS, SHEET_BYTES)
        self._pages = _Lru(PAGES, PAGE_BYTES)  # practice pages as first shown, by (name, reveal, root path)
        self._fresh_pages = _Lru(FRESH, PAGE_BYTES // 4)

    def get(self, name: str) -> Served | None:
        """The problem served as ``name``, or None (a 404)."""
        if name in self.served:
            return self.served[name]
        m = VARIANT.fullmatch(name)
        if not self.practice or m is None or m.group(1) not in self.kinds:
            return None
        found = self._variants.get(name) or self._fresh.get(name)
        if found is None:
            found = self._draw(name, m.group(1), int(m.group(2)))
            self._fresh.put(name, found)
        assert isinstance(found, Served)
        return found

    def offers(self, name: str) -> bool:
        """Whether ``name`` is served: a file's problem, or a variant this server draws."""
        if name in self.served:
            return True
        m = VARIANT.fullmatch(name)
        return self.practice and m is not None and m.group(1) in self.kinds

    def drawn(self, name: str) -> bool:
        """Whether ``name``'s problem is at hand (getting it draws nothing)."""
        return name in self.served or name in self._variants or name in self._fresh

    def keep(self, name: str) -> None:
        """Keep the variant ``name`` among those a student works on (checked, downloaded), with its
        views, where new seeds looked at do not push it out."""
        found = self._fresh.pop(name)
        if found is not None:
            self._variants.put(name, found)
            for view in ("question", "reveal"):
                made = self._fresh_views.pop((view, name))
                if made is not None:
                    self._views.put((view, name), made)
            for key in self._fresh_pages.listed():
                page = self._fresh_pages.pop(key) if isinstance(key, tuple) and key[0] == name else None
                if page is not None:
                    self._pages.put(key, page)

    def ready(self, name: str, reveal: int = 0, root: str = "") -> bool:
        """Whether the page of ``name`` (``reveal`` steps shown, under the root path ``root``) is
        rendered and cached: a cheap request, not a costly one (:mod:`.costly`)."""
        return self.page((name, reveal, root)) is not None

    def at_hand(self, name: str) -> Served | None:
        """The problem served as ``name`` if it is at hand (nothing drawn), else None."""
        found = self.served.get(name) or self._variants.get(name) or self._fresh.get(name)
        return found if isinstance(found, Served) else None

    def page(self, key: tuple[str, int, str]) -> str | None:
        """A practice page as first shown (nothing typed), once rendered: by name, steps revealed
        and root path."""
        for pages in (self._pages, self._fresh_pages):
            found = pages.get(key)
            if isinstance(found, str):
                return found
        return None

    def keep_page(self, key: tuple[str, int, str], html: str) -> None:
        name = key[0]
        pages = self._pages if name in self.served or name in self._variants else self._fresh_pages
        pages.put(key, html)

    def sheet(self, key: tuple[str, bool]) -> str | None:
        """The solution sheet of a problem (by name, and whether staged), once rendered."""
        found = self._sheets.get(key)
        return found if isinstance(found, str) else None

    def keep_sheet(self, key: tuple[str, bool], html: str) -> None:
        self._sheets.put(key, html)

    def _draw(self, name: str, kind: str, seed: int) -> Served:
        from ..api import generate, problem_of

        variant = generate(kind=kind, seed=seed, count=1)[0]
        # titled by kind and seed (generate numbers its variants, and every one drawn here is its "Variant 1")
        raw = {**variant.problem, "title": f"Practice: {kind}, seed {seed}"}
        problem = problem_of(raw, name)
        d = dataclasses.replace(variant.derivation, problem=problem)
        why = refusal(name, d)  # (no kind draws one this large now: the same bound, should one)
        return Served(name, "", problem, d, raw, None if why else prepare(problem), refused=why)

    def cached(self, key: tuple[str, str], make: Callable[[], object]) -> object:
        """What ``make`` builds for ``key`` (a view of a served problem), built once per worker."""
        name = key[1]
        views = self._views if name in self.served or name in self._variants else self._fresh_views
        found = views.get(key)
        if found is None:
            found = make()
            views.put(key, found)
        return found

    def derivation(self, served: Served) -> Derivation:
        """The worked derivation of a problem, as ``attncalc solve`` computes it."""
        return served.derivation
