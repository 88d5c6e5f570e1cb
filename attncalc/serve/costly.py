"""The bound on a page's costly work in ``attncalc serve``: drawing a new practice variant (with its
first page) and rendering a solution sheet not yet cached, each 0.05 to 1.4 s of CPU for the larger
kinds. A plain GET costs the client nothing, so without a bound 30 connections asking for random
seeds kept every other request (a student's cached page, a check) waiting behind them for seconds.

At most :data:`AT_ONCE` such works run (or wait for the grading thread) at a time in a server process,
and :data:`WAITING` more wait for them; a request beyond that is answered at once, ``503`` with
``Retry-After``, and one short text (JSON's ``{"error": ...}`` to a JSON request). A cheap request
(a cached page, a check, a cached solution) is never counted, and so waits in the grading thread's
line behind at most :data:`AT_ONCE` costly works. No state is shared between server processes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

T = TypeVar("T")
AT_ONCE = 1  # costly works in the grading thread's line at a time (one thread: more would only wait there)
WAITING = 4  # costly works waiting for their turn; beyond them, 503
RETRY_AFTER = 2  # seconds, as the connection cap's 503 says
BUSY = "The server is busy drawing other pages: try again in a moment."


class Busy(Exception):
    """A costly work refused: the bound is full."""


class Costly:
    """The bound: :meth:`run` a costly work in it, or :class:`Busy` at once when it is full."""

    def __init__(self, at_once: int | None = None, waiting: int | None = None) -> None:
        self.at_once = AT_ONCE if at_once is None else at_once
        self.waiting = WAITING if waiting is None else waiting
        self.taken = 0  # works running or waiting (the event loop's thread alone changes it)
        self._turns: anyio.Semaphore | None = None

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        if self.taken >= self.at_once + self.waiting:
            raise Busy
        if self._turns is None:  # made in the event loop, on the first use
            self._turns = anyio.Semaphore(self.at_once)
        self.taken += 1
        try:
            async with self._turns:
                return await work()
        finally:
            self.taken -= 1


def busy(request: Request) -> Response:
    """503, with Retry-After: as text, or as JSON to a JSON request (as its other errors are)."""
    headers = {"retry-after": str(RETRY_AFTER)}
    if request.headers.get("content-type", "").split(";")[0].strip().lower() == "application/json":
        return JSONResponse({"error": BUSY}, status_code=503, headers=headers)
    return PlainTextResponse(BUSY + "\n", status_code=503, headers=headers)
