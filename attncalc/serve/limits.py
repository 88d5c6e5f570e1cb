"""The limits ``attncalc serve`` puts on connections (``--timeout-head``, ``--timeout-body``,
``--timeout-write``, ``--timeout-keep-alive``, ``--max-connections``), and fitting them to the
open-file limit.

Every connection is an open file of its server process. When the process runs out of them, the
event loop cannot accept (``socket.accept() out of system resource``, a traceback per attempt: over
100,000 lines in 20 s were seen) and nobody is answered. So the soft ``RLIMIT_NOFILE`` is raised
toward the hard limit where that is allowed, and the connections a process keeps open are capped
below what is left after the listening backlog (accepted in one go by the event loop before any
is looked at) and a reserve for the process's own files. :mod:`.conn` enforces the cap.

No web import here: the command reads these before it starts the server.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

ENV = "ATTNCALC_SERVE_LIMITS"  # the limits handed to the server processes, as JSON
RESERVE = 64  # open files kept for the process itself (the listening socket, the event loop, pipes, files)
DRAINING = 32  # connections refused or timed out, kept a moment to read what the client is still sending
BACKLOG = 2048  # uvicorn's default listen backlog (lowered when the open-file limit is small)
MIN_CONNECTIONS = 8


@dataclass(frozen=True)
class Limits:
    """Seconds a request head may take from the connection (or the previous response), seconds its
    body may take from the head, seconds a kept-alive connection may stay idle, the connections
    one server process keeps open at once, and seconds a response may wait for its client to read
    it (the send buffer full)."""

    timeout_head: float = 10.0
    timeout_body: float = 30.0
    timeout_keep_alive: float = 5.0
    max_connections: int = 1000
    timeout_write: float = 30.0


def raise_open_files() -> int:
    """The soft open-file limit raised to the hard one where allowed (inherited by the server
    processes started after); the soft limit now (a large number where there is none)."""
    try:
        import resource
    except ImportError:  # (not POSIX: no such limit to raise)
        return 1 << 20
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass  # (a container may forbid it: the cap is fitted below the soft limit then)
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def fit(requested: int, open_files: int) -> tuple[int, int]:
    """(connections, backlog): at most ``requested`` connections, fewer when ``open_files`` cannot
    hold them with the backlog, the connections being drained and the reserve; the backlog is made
    smaller for a small limit."""
    fits = requested + BACKLOG + DRAINING + RESERVE <= open_files
    backlog = BACKLOG if fits else min(BACKLOG, max(16, open_files // 8))
    room = open_files - backlog - DRAINING - RESERVE
    return max(MIN_CONNECTIONS, min(requested, room)), backlog


def to_env(limits: Limits) -> None:
    os.environ[ENV] = json.dumps(asdict(limits))


def from_env() -> Limits:
    """The limits ``attncalc serve`` set for its server processes (the defaults when it did not)."""
    text = os.environ.get(ENV)
    return Limits(**json.loads(text)) if text else Limits()
