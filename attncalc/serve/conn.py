"""uvicorn's HTTP/1.1 protocol (h11) with what a real network needs and uvicorn lacks: deadlines
for a request's head and body, and a cap on the connections a server process keeps open.

uvicorn (0.5x, h11) times out only an idle kept-alive connection (``timeout_keep_alive``, armed
after a response, disarmed by any byte), bounds a head's size (``h11_max_incomplete_event_size``,
16 KiB) but not its time, and has no deadline for a body; ``limit_concurrency`` answers 503 but
counts every open connection, idle ones too. So a client that sends a byte every few seconds
(slowloris) holds a connection, hence an open file, for ever, and a few hundred such clients
exhaust the process's files. Here (the limits: :mod:`.limits`):

* a request's head must be complete within ``timeout_head`` seconds of the connection or of the
  previous response, else the connection is closed (with ``408`` when part of a head came);
* its body must be complete within ``timeout_body`` seconds of its head, else ``408`` and closed;
* a process keeps at most ``max_connections`` open: a new one beyond them takes the place of the
  connection that has waited longest for a request head (a slow or idle one, closed), unless that
  one's first bytes have come and are about to be read; when no connection can give way (every
  one has a request in progress, or on its way) the new one is answered ``503`` and closed.

Each event is logged once per interval at most (:mod:`.quiet`). Selected by
``attncalc serve`` as uvicorn's ``http`` protocol: ``attncalc.serve.conn:GuardedH11Protocol``.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections import OrderedDict
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from . import quiet
from .limits import Limits, from_env

logger = logging.getLogger("uvicorn.error")
GRACE = 1.0  # seconds a new connection is not closed for another, where unread bytes cannot be counted

BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 2\r\n"
    b"connection: close\r\ncontent-length: 44\r\n\r\nThe server is busy: try again in a moment.\r\n"
)
TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
    b"content-length: 32\r\n\r\nThe request came too slowly.\r\n\r\n"
)


class _Process:
    """This process's connections: the limits, those open (not being closed), and those waiting for
    a request head, oldest first (the first to give way)."""

    limits: ClassVar[Limits | None] = None
    live: ClassVar[set[GuardedH11Protocol]] = set()
    waiting: ClassVar[OrderedDict[GuardedH11Protocol, None]] = OrderedDict()

    @classmethod
    def get_limits(cls) -> Limits:
        if cls.limits is None:
            cls.limits = from_env()
            quiet.install()
        return cls.limits


class GuardedH11Protocol(H11Protocol):
    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.limits = _Process.get_limits()
        self.timer: asyncio.TimerHandle | None = None
        self.heard = False  # a byte of the next request came since the head deadline was armed
        self.closed = False
        self.opened = self.loop.time()

    # -------------------------------------------------------------------- the connection
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        _Process.live.add(self)
        if len(_Process.live) > self.limits.max_connections and not self._make_room():
            logger.warning(
                "attncalc: a connection refused (503): at the limit of %d connections, each with a request in progress",
                self.limits.max_connections,
            )
            self._close(BUSY)
            return
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._forget()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        before = self.cycle
        self.heard = True
        super().data_received(data)
        self._after(before)

    def on_response_complete(self) -> None:
        before = self.cycle
        super().on_response_complete()  # (may start a pipelined request already received)
        if not self.transport.is_closing() and self.cycle is before:
            self._await_head()
        else:
            self._after(before)

    # -------------------------------------------------------------------- the deadlines
    def _after(self, before: Any) -> None:
        """After bytes were read: a new request's head came (its body awaited, if any), or its body ended."""
        if self.closed:
            return
        if self.cycle is not before and self.cycle is not None:  # a head came: no longer waiting for one
            _Process.waiting.pop(self, None)
            self._cancel()
            if self.conn.their_state is h11.SEND_BODY:
                self.timer = self.loop.call_later(self.limits.timeout_body, self._too_slow, "body")
        elif self not in _Process.waiting and self.conn.their_state is not h11.SEND_BODY:
            self._cancel()  # the body is complete

    def _await_head(self) -> None:
        self._cancel()
        self.heard = False
        _Process.waiting.pop(self, None)
        _Process.waiting[self] = None  # the newest
        self.timer = self.loop.call_later(self.limits.timeout_head, self._too_slow, "head")

    def _too_slow(self, part: str) -> None:
        self.timer = None
        if self.closed or self.transport.is_closing():
            return
        seconds = self.limits.timeout_head if part == "head" else self.limits.timeout_body
        logger.warning("attncalc: a connection closed: its request %s did not come within %g s", part, seconds)
        started = self.cycle is not None and self.cycle.response_started and not self.cycle.response_complete
        self._close(TIMED_OUT if (part == "body" or self.heard) and not started else b"")

    # -------------------------------------------------------------------- the cap
    def _make_room(self) -> bool:
        """Close the connection waiting longest for a request head (not this one), unless its request
        is on its way: bytes unread on a connection that has sent nothing yet (a head that came
        with this connection's batch, read next). False if no connection can give way."""
        for other in list(_Process.waiting):
            if other is self or (not other.heard and other._unread()):
                continue
            logger.warning(
                "attncalc: at the limit of %d connections: the one waiting longest for a request closed",
                self.limits.max_connections,
            )
            other._close(TIMED_OUT if other.heard else b"")
            return True
        return False

    def _unread(self) -> bool:
        """Bytes have come on this connection's socket that the event loop has not read yet (where
        the system cannot say: it was opened less than :data:`GRACE` seconds ago)."""
        try:
            import fcntl
            import termios

            sock = self.transport.get_extra_info("socket")
            count = fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0")
            return int.from_bytes(count, sys.byteorder, signed=True) > 0
        except (ImportError, AttributeError, OSError):
            return self.loop.time() - self.opened < GRACE

    def _close(self, response: bytes) -> None:
        self._forget()
        self.closed = True
        if not self.transport.is_closing():
            if response:
                self.transport.write(response)
            self.transport.close()  # (sends what was written first)

    def _cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _forget(self) -> None:
        self._cancel()
        _Process.live.discard(self)
        _Process.waiting.pop(self, None)
