"""``attncalc serve --workers N`` on Linux: N uvicorn servers, each with a listening socket of its own.

uvicorn's ``workers=N`` binds ONE socket and hands it to every worker; whichever worker wakes first
accepts every connection waiting, so with many kept-alive connections opened at once one worker may
hold most of them while the other idles (issue 27: 44 and 6 of 50 were counted). Here each worker
gets its own socket bound to the same address with ``SO_REUSEPORT``, and Linux spreads new
connections over such sockets by a hash of the client's address and port.

The parent (:class:`Workers`) binds the sockets (so a bad address is said before any
worker starts), starts the workers as uvicorn does (``multiprocessing`` spawn, the socket passed
to its worker, ``uvicorn.Server(config).run(sockets=[sock])``), closes its own copies (a socket
lives in its worker alone: when that worker ends, Linux stops sending it connections), forwards
Ctrl-C and SIGTERM to the workers and returns when they have ended. A worker that ends on its own
is said on stderr and replaced (uvicorn's workers do the same), unless it could not start. A worker
whose parent is gone (killed) stops too: nothing is left running.

Where ``SO_REUSEPORT`` does not spread connections (:func:`available` is false: not Linux), the
command uses uvicorn's own ``workers=N``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import wait
from multiprocessing.context import SpawnProcess
from types import FrameType
from typing import Any

STARTUP_FAILURE = 3  # uvicorn's exit code for a server that could not start (uvicorn.config)
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def available() -> bool:
    """Linux, where sockets bound with ``SO_REUSEPORT`` share the connections to their address."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn's Config.bind_socket


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` with ``SO_REUSEPORT`` (its worker listens on it)."""
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def check_free(host: str, port: int) -> None:
    """Raise :class:`OSError` when ``host:port`` is taken. Sockets with ``SO_REUSEPORT`` of the same
    user may share a port, so a second server would otherwise join this one's (or this one another
    server's) silently: a plain bind first fails as uvicorn's own does when the port is in use."""
    with socket.socket(_family(host), socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


def free_port(host: str) -> int:
    """A port the system gives for ``host`` now (``--port 0`` with one worker, which uvicorn binds itself)."""
    with socket.socket(_family(host), socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def bind_all(host: str, port: int, n: int) -> list[socket.socket]:
    """``n`` sockets bound to ``host:port`` (port 0: the port the first one gets). Raises
    :class:`OSError` (none left open) when the address cannot be used."""
    if port:
        check_free(host, port)
    socks: list[socket.socket] = []
    try:
        while len(socks) < n:
            socks.append(bind(host, port or (socks[0].getsockname()[1] if socks else 0)))
    except OSError:
        for s in socks:
            s.close()
        raise
    return socks


def _serve(config: Any, sock: socket.socket) -> None:  # pragma: no cover (runs in a worker process)
    """A worker: stop when the parent is gone (SIGTERM to itself), then serve on ``sock``."""
    import uvicorn

    parent = multiprocessing.parent_process()
    if parent is not None:

        def orphaned() -> None:
            wait([parent.sentinel])
            os.kill(os.getpid(), signal.SIGTERM)  # uvicorn's own handler: a graceful shutdown

        threading.Thread(target=orphaned, daemon=True).start()
    config.configure_logging()
    try:
        config.load()  # the app (each worker reads the problems itself): a failure is one line, exit 3
    except Exception as exc:  # (not retried by the parent: it would fail the same way again)
        sys.stderr.write(f"attncalc: error: {exc}\n")
        sys.exit(STARTUP_FAILURE)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C reaches the workers too: a clean end
        uvicorn.Server(config).run(sockets=[sock])


class Workers:
    """The parent: binds ``n`` sockets to ``host:port`` now (raises :class:`OSError`, none left
    open, when the address cannot be used); :meth:`run` starts the workers, forwards the signals
    it gets to them and replaces one that ends."""

    def __init__(self, config: Any, host: str, port: int, n: int) -> None:
        self.config, self.host, self.n = config, host, n
        self.ctx = multiprocessing.get_context("spawn")
        self.procs: list[SpawnProcess] = []
        self.stopping = False
        self.signalled: set[int] = set()
        self.socks = bind_all(host, port, n)
        self.port = int(self.socks[0].getsockname()[1])

    def start(self, sock: socket.socket) -> SpawnProcess:
        proc = self.ctx.Process(target=_serve, args=(self.config, sock), name="attncalc-serve-worker")
        proc.start()  # the socket is handed over (a duplicate kept until the worker takes it)
        sock.close()  # ... so the worker's copy is the only one: it ends with the worker
        return proc

    def stop(self, signum: int, frame: FrameType | None = None) -> None:
        """SIGTERM (uvicorn's graceful shutdown) to every worker not sent it yet."""
        self.stopping = True
        for proc in self.procs:
            if proc.exitcode is None and proc.pid is not None and proc.pid not in self.signalled:
                self.signalled.add(proc.pid)
                with contextlib.suppress(ProcessLookupError):  # (ended between the check and the kill)
                    os.kill(proc.pid, signal.SIGTERM)

    def run(self, ready: Callable[[], None] | None = None) -> int:
        """Serve until a signal stops the workers (0), or one could not start (1). ``ready`` is called
        once the signals are handled (the address announced then: a SIGTERM right after it ends the
        workers, not the parent alone)."""
        previous = {sig: signal.signal(sig, self.stop) for sig in FORWARDED}
        code = 0
        try:
            if ready is not None:
                ready()
            for sock in self.socks:
                self.procs.append(self.start(sock))
            while any(p.exitcode is None for p in self.procs):
                if self.stopping:  # (again: a worker started while the signal came is sent it too)
                    self.stop(signal.SIGTERM)
                wait([p.sentinel for p in self.procs if p.exitcode is None], timeout=0.5)
                if self.stopping:
                    continue
                for i, proc in enumerate(self.procs):
                    if proc.exitcode is None:
                        continue
                    proc.join()
                    how = f"exit code {proc.exitcode}" if proc.exitcode >= 0 else f"signal {-proc.exitcode}"
                    if proc.exitcode == STARTUP_FAILURE:
                        sys.stderr.write(f"attncalc: a server process ({proc.pid}) could not start; stopping\n")
                        code = 1
                        self.stop(signal.SIGTERM)
                        break
                    sys.stderr.write(
                        f"attncalc: server process {proc.pid} ended ({how}); starting another in its place\n"
                    )
                    self.procs[i] = self.start(bind(self.host, self.port))
        except BaseException:
            self.stop(signal.SIGTERM)
            raise
        finally:
            for proc in self.procs:
                proc.join()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return code
