"""uvicorn's HTTP/1.1 protocol (h11) with what a real network needs and uvicorn lacks: deadlines
for a request's head and body and for a response the client does not read, and a cap on the
connections a server process keeps open.

uvicorn (0.5x, h11) times out only an idle kept-alive connection (``timeout_keep_alive``, armed
after a response, disarmed by any byte), bounds a head's size (``h11_max_incomplete_event_size``,
16 KiB) but not its time, and has no deadline for a body or for a response nobody reads;
``limit_concurrency`` answers 503 but counts every open connection, idle ones too. So a client that
sends a byte every few seconds (slowloris), or pipelines requests and never reads the responses,
holds a connection, hence an open file, for ever, and a few hundred such clients exhaust the
process's files. Here (the limits: :mod:`.limits`):

* a request's head must be complete within ``timeout_head`` seconds of the connection or of the
  previous response, else the connection is closed (with ``408`` when part of a head came);
* its body must be complete within ``timeout_body`` seconds of its head, else ``408`` and closed;
* a response that cannot be sent because the client reads nothing (the send buffer full) is cut
  off after ``timeout_write`` seconds: the connection is dropped;
* a process keeps at most ``max_connections`` open: a new one beyond them takes the place of the
  connection that has waited longest for a request head (a slow or idle one, closed), unless that
  one's whole head has come and is about to be read (looked at in the socket, not taken from it);
  else of the one that has not read its responses for longest, else of one with further requests
  pipelined behind the one in progress (browsers do not pipeline); when no connection can give way
  (every one has a request in progress, or on its way) the new one is answered ``503``.

A connection closed with an answer (``503``, ``408``) is closed for writing after it and kept a
moment (:data:`DRAIN_SECONDS`, at most :data:`~.limits.DRAINING` at once) while what the client is
still sending (a POST's body) is read and discarded: a socket closed with data unread is reset by
the system, and the client then sees a reset instead of the answer.

Each event is logged once per interval at most (:mod:`.quiet`). Selected by
``attncalc serve`` as uvicorn's ``http`` protocol: ``attncalc.serve.conn:GuardedH11Protocol``.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from . import quiet
from .limits import DRAINING, Limits, from_env

logger = logging.getLogger("uvicorn.error")
GRACE = 1.0  # seconds a new connection is not closed for another, where unread bytes cannot be counted
DRAIN_SECONDS = 2.0  # how long a connection answered 503 or 408 is read (and its bytes dropped) before it is closed
DRAIN_BYTES = 1 << 20  # ... and how much of it: past that, it is dropped
POLL = 0.1  # seconds between looks at a stalled connection's send queue
PEEK = 1 << 14  # the largest request head (h11's bound in uvicorn), and the bytes looked at for its end

BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 2\r\n"
    b"connection: close\r\ncontent-length: 44\r\n\r\nThe server is busy: try again in a moment.\r\n"
)
TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 32\r\n\r\nThe request head is too large.\r\n"
)
TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
    b"content-length: 32\r\n\r\nThe request came too slowly.\r\n\r\n"
)


class _Process:
    """This process's connections: the limits, those open (not being closed), those waiting for a
    request head and those whose client reads nothing (each oldest first: the first to give way), and
    those answered and being drained."""

    limits: ClassVar[Limits | None] = None
    live: ClassVar[set[GuardedH11Protocol]] = set()
    waiting: ClassVar[OrderedDict[GuardedH11Protocol, None]] = OrderedDict()
    stalled: ClassVar[OrderedDict[GuardedH11Protocol, None]] = OrderedDict()
    draining: ClassVar[set[GuardedH11Protocol]] = set()

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
        self.stalled_since: float | None = None  # since when what was written has not left (the client reads nothing)
        self.then: Callable[[], None] | None = None  # what follows once it has: the next request taken up
        self.heard = False  # a byte of the next request came since the head deadline was armed
        self.closed = False
        self.drained = -1  # bytes read and dropped since the connection was answered and closed (-1: it was not)
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
        _Process.draining.discard(self)
        super().connection_lost(exc)

    def eof_received(self) -> None:
        if self.drained >= 0:  # the client has sent all it had: closed (the answer was written first)
            self.transport.close()
            return
        super().eof_received()

    def data_received(self, data: bytes) -> None:
        if self.drained >= 0:  # answered and closed for writing: what still comes is read and dropped
            self.drained += len(data)
            if self.drained > DRAIN_BYTES:
                self.transport.abort()
            return
        if self.conn.their_state is h11.IDLE and self._head_too_large(data):
            logger.warning("attncalc: a request refused (431): its head is over %d bytes", PEEK)
            self._close(TOO_LARGE)
            return
        before = self.cycle
        self.heard = True
        super().data_received(data)
        self._after(before)

    def on_response_complete(self) -> None:
        """A response written: the next request (a pipelined one may be waiting) is taken up once the
        client has read it, or the connection is dropped after ``timeout_write`` seconds."""
        if self._unsent():
            self._watch_reader(self._response_read)
        else:
            self._response_read()

    def _response_read(self) -> None:
        before = self.cycle
        super().on_response_complete()  # (may start a pipelined request already received)
        if not self.transport.is_closing() and self.cycle is before:
            self._await_head()
        else:
            self._after(before)

    def pause_writing(self) -> None:
        """The send buffer is full: the client is not reading. The response has ``timeout_write`` seconds."""
        super().pause_writing()
        if not self.closed:
            self._watch_reader(None)

    # -------------------------------------------------------------------- the reader
    def _watch_reader(self, then: Callable[[], None] | None) -> None:
        """Until all that was written has left (``then`` called then), the connection is stalled (it gives
        way first at the cap after those waiting for a head); after ``timeout_write`` seconds, dropped."""
        if then is not None:
            self.then = then
        if self.stalled_since is None:
            self.stalled_since = self.loop.time()
            _Process.stalled[self] = None
            self.loop.call_later(POLL, self._poll_reader)

    def _poll_reader(self) -> None:
        if self.closed or self.transport.is_closing() or self.stalled_since is None:
            return
        if not self._unsent() and not self.flow.write_paused:
            self._cancel_write()
            then, self.then = self.then, None
            if then is not None:
                then()
        elif self.loop.time() - self.stalled_since >= self.limits.timeout_write:
            self._not_read()
        else:
            self.loop.call_later(POLL, self._poll_reader)

    def _unsent(self) -> bool:
        """Bytes written that the client has not taken yet: in the transport's buffer, or in the system's
        send queue (unsent or not yet acknowledged: the client's receive buffer is full)."""
        if self.transport.is_closing():
            return False
        if self.transport.get_write_buffer_size() > 0:
            return True
        try:
            import fcntl
            import termios

            sock = self.transport.get_extra_info("socket")
            count = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
            return int.from_bytes(count, sys.byteorder, signed=True) > 0
        except (ImportError, AttributeError, OSError):
            return False

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

    def _not_read(self) -> None:
        if self.closed or self.transport.is_closing():
            return
        logger.warning(
            "attncalc: a connection closed: its response was not read within %g s", self.limits.timeout_write
        )
        self._drop()

    # -------------------------------------------------------------------- the cap
    def _make_room(self) -> bool:
        """Close the connection waiting longest for a request head (not this one), unless its request
        is on its way: bytes unread on a connection that has sent nothing yet (a head that came
        with this connection's batch, read next). False if no connection can give way."""
        for other in list(_Process.waiting):
            if other is self or other._head_coming():
                continue
            logger.warning(
                "attncalc: at the limit of %d connections: the one waiting longest for a request closed",
                self.limits.max_connections,
            )
            other._close(TIMED_OUT if other.heard else b"")
            return True
        for other in list(_Process.stalled):
            if other is not self:
                logger.warning(
                    "attncalc: at the limit of %d connections: the one not reading its responses longest dropped",
                    self.limits.max_connections,
                )
                other._drop()
                return True
        for other in list(_Process.live):  # (no browser pipelines: a client that does is served last)
            if other is not self and other.cycle is not None and other.conn.trailing_data[0]:
                logger.warning(
                    "attncalc: at the limit of %d connections: one with requests pipelined behind its request dropped",
                    self.limits.max_connections,
                )
                other._drop()
                return True
        return False

    def _head_too_large(self, data: bytes) -> bool:
        """A request head over :data:`PEEK` bytes: h11 bounds only what it holds between reads, so a whole
        head of 100 KB that came in one read was taken."""
        held = self.conn.trailing_data[0]
        if len(held) + len(data) <= PEEK:
            return False
        text = held + data[: PEEK + 4]
        ends = [i for i in (text.find(b"\r\n\r\n"), text.find(b"\n\n")) if i >= 0]
        return not ends or min(ends) > PEEK

    def _head_coming(self) -> bool:
        """A whole request head has come on this connection and is about to be read: its end is in
        what h11 holds of it or in the bytes the event loop has not read yet (looked at, not taken).
        Where the socket cannot be looked at: any unread bytes of a connection that has sent nothing yet."""
        held = self.conn.trailing_data[0]
        try:
            sock = self.transport.get_extra_info("socket")
            with socket.fromfd(sock.fileno(), sock.family, sock.type) as dup:  # (a copy: the loop's is left alone)
                unread = dup.recv(PEEK, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            unread = b""
        except (AttributeError, OSError, ValueError):  # (no such socket, or no file left to copy it)
            return not self.heard and self._unread()
        text = held[-PEEK:] + unread
        return b"\r\n\r\n" in text or b"\n\n" in text

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
        """Closed, with ``response`` first if any: then closed for writing only, and what the client
        still sends read and dropped until it stops (or for :data:`DRAIN_SECONDS`), so that the
        system does not reset the connection, and the client reads the answer."""
        self._forget()
        self.closed = True
        if self.transport.is_closing():
            return
        if not response or len(_Process.draining) >= DRAINING or not self.transport.can_write_eof():
            if response:
                self.transport.write(response)
            self.transport.close()  # (sends what was written first)
            return
        self.transport.write(response)
        try:
            self.transport.write_eof()  # (after what was written)
        except OSError:  # (the client is gone already: ENOTCONN)
            self.transport.abort()
            return
        _Process.draining.add(self)
        self.drained = 0
        self.transport.resume_reading()
        self.loop.call_later(DRAIN_SECONDS, self.transport.abort)  # (nothing, if closed by then)

    def _drop(self) -> None:
        """Closed at once, whatever is left unsent (the client is not reading it)."""
        self._forget()
        self.closed = True
        self.transport.abort()

    def _cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _cancel_write(self) -> None:
        _Process.stalled.pop(self, None)
        self.stalled_since = None

    def _forget(self) -> None:
        self._cancel()
        self._cancel_write()
        _Process.live.discard(self)
        _Process.waiting.pop(self, None)
