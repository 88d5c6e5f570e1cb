"""A server's log under a flood: at most one line per condition per interval.

A limit reached on a real network repeats the same event thousands of times a second (the event
loop's ``socket.accept() out of system resource`` with its traceback, uvicorn's "Invalid HTTP
request received.", a connection refused). :class:`OncePerInterval`, put on the loggers of the
event loop and uvicorn, lets the first record of each condition through, drops the others for
:data:`INTERVAL` seconds, and says how many were dropped on the next one let through. A condition of the
system's resources (an ``OSError``: no file, no memory, no buffer) is one line, without its
traceback; another exception keeps its traceback (a bug to see), once per interval.
"""

from __future__ import annotations

import logging
import re
import threading
import time

INTERVAL = 10.0  # seconds
LOGGERS = ("asyncio", "uvicorn", "uvicorn.error", "uvicorn.asgi")
_NUMBERS = re.compile(r"0x[0-9a-fA-F]+|\d+")
_installed = False


def condition(record: logging.LogRecord) -> tuple[str, str]:
    """What a record is about, whatever the addresses, descriptors and counts in it."""
    first = record.getMessage().strip().split("\n", 1)[0]
    kind = type(record.exc_info[1]).__name__ if record.exc_info and record.exc_info[1] is not None else ""
    return record.name, _NUMBERS.sub("#", first)[:160] + kind


class OncePerInterval(logging.Filter):
    def __init__(self, interval: float = INTERVAL) -> None:
        super().__init__()
        self.interval = interval
        self.seen: dict[tuple[str, str], tuple[float, int]] = {}  # condition -> (when let through, dropped since)
        self.lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        key = condition(record)
        now = time.monotonic()
        with self.lock:
            since, dropped = self.seen.get(key, (-self.interval, 0))
            if now - since < self.interval:
                self.seen[key] = (since, dropped + 1)
                return False
            self.seen[key] = (now, 0)
            if len(self.seen) > 1000:  # (bounded: conditions not seen for an interval are forgotten)
                self.seen = {k: v for k, v in self.seen.items() if now - v[0] < self.interval}
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, OSError):  # the system's resources: one line says it
            record.msg, record.args = f"{record.getMessage().splitlines()[0]}: {exc}", None
            record.exc_info, record.exc_text = None, None
        if dropped:
            record.msg, record.args = f"{record.getMessage()} ({dropped} more like it since the last said)", None
        return True


def install() -> None:
    """The filter on the event loop's and uvicorn's loggers of this process (once)."""
    global _installed
    if _installed:
        return
    _installed = True
    quiet = OncePerInterval()
    for name in LOGGERS:
        logging.getLogger(name).addFilter(quiet)
