"""The bounds on a page's costly work in ``attncalc serve``: drawing a new practice variant (with its
first page) and rendering a page or solution sheet not yet cached, each 0.05 to 1.4 s of CPU for the
larger kinds. A plain GET costs the client nothing, so without a bound 30 connections asking for random
seeds kept every other request (a student's cached page, a check) waiting behind them for seconds.

Two lanes, each a :class:`Costly`: one for practice variants (drawn, and their pages and sheets), one
for the class's own served files (their pages, at each ``?reveal``, and their sheets), so that a flood
of new seeds never refuses a page of the files given to ``serve``. In each lane at most
:data:`AT_ONCE` works run (or wait for the grading thread) at a time in a server process, and
:data:`WAITING` more wait for them (the files' lane: :data:`SERVED_WAITING`); a request beyond that is
answered at once, ``503`` with ``Retry-After``, and one short text (JSON's ``{"error": ...}`` to a JSON
request). Requests for the same work (the same page, the same seed) while it is under way wait for it
and share its result, counted once. A cheap request (a cached page, a check, a cached solution) is
never counted, and so waits in the grading thread's line behind at most one costly work per lane. No
state is shared between server processes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

T = TypeVar("T")
AT_ONCE = 1  # costly works in the grading thread's line at a time (one thread: more would only wait there)
WAITING = 4  # costly works waiting for their turn; beyond them, 503
# the files' own pages waiting (a class opening its homework at once after a restart: several pages,
# each at its ?reveal; a file's page is 0.004 to 0.4 s, and once rendered it is cached)
SERVED_WAITING = 64  # (a class of 60 opening a page each at once waits, never refused: 64 x 0.4 s at worst)
RETRY_AFTER = 2  # seconds, as the connection cap's 503 says
BUSY = "The server is busy drawing other pages: try again in a moment."


class Busy(Exception):
    """A costly work refused: the bound is full."""


class _Flight:
    """A work under way, that other requests for the same key wait for."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.finished = False  # (not when its request was cancelled: a waiting one then does the work)
        self.result: Any = None
        self.error: Exception | None = None


class Costly:
    """A bound: :meth:`run` a costly work in it, or :class:`Busy` at once when it is full."""

    def __init__(self, at_once: int | None = None, waiting: int | None = None) -> None:
        self.at_once = AT_ONCE if at_once is None else at_once
        self.waiting = WAITING if waiting is None else waiting
        self.taken = 0  # works running or waiting (the event loop's thread alone changes it)
        self._turns: anyio.Semaphore | None = None
        self._flights: dict[Hashable, _Flight] = {}

    async def run(self, work: Callable[[], Awaitable[T]], key: Hashable = None) -> T:
        """``work()`` in its turn; with a ``key``, a request for a work already under way waits for
        that one's result (not counted again)."""
        while key is not None and key in self._flights:
            under_way = self._flights[key]
            await under_way.done.wait()
            if under_way.finished:
                if under_way.error is not None:
                    raise under_way.error
                joined: T = under_way.result
                return joined
        if self.taken >= self.at_once + self.waiting:
            raise Busy
        if self._turns is None:  # made in the event loop, on the first use
            self._turns = anyio.Semaphore(self.at_once)
        flight = _Flight()
        if key is not None:
            self._flights[key] = flight
        self.taken += 1
        try:
            async with self._turns:
                result = await work()
            flight.result, flight.finished = result, True
            return result
        except Exception as exc:
            flight.error, flight.finished = exc, True
            raise
        finally:
            self.taken -= 1
            if key is not None:
                self._flights.pop(key, None)
            flight.done.set()


def busy(request: Request) -> Response:
    """503, with Retry-After: as text, or as JSON to a JSON request (as its other errors are)."""
    headers = {"retry-after": str(RETRY_AFTER)}
    if request.headers.get("content-type", "").split(";")[0].strip().lower() == "application/json":
        return JSONResponse({"error": BUSY}, status_code=503, headers=headers)
    return PlainTextResponse(BUSY + "\n", status_code=503, headers=headers)
