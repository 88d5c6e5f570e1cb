"""`attncalc serve --workers N` on Linux (attncalc/serve/workers.py): a real server, each worker
listening on a socket of its own bound with SO_REUSEPORT, both workers answering, and nothing left
running after Ctrl-C, SIGTERM or the parent killed. Who holds which socket is read from /proc (the
kernel's own tables), not from the server. Every wait is bounded; no timing is asserted."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..helpers import PROBLEMS, ROOT, one_line_refusal, run_cli

pytest.importorskip("uvicorn", reason="the serve extra is not installed")
pytest.importorskip("starlette", reason="the serve extra is not installed")

if not sys.platform.startswith("linux"):
    pytest.skip(
        "SO_REUSEPORT spreads connections on Linux only (elsewhere: uvicorn's workers)", allow_module_level=True
    )

LISTEN, ESTABLISHED = "0A", "01"  # socket states in /proc/net/tcp
WAIT = 90.0  # seconds a step may take on a busy machine before the test gives up


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc/PID/stat), zombies left out."""
    out = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # state, ppid, ...
        if int(fields[1]) == pid and fields[0] != "Z":
            out.add(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _sockets(state: str, port: int) -> set[int]:
    """Inodes of the TCP sockets in ``state`` whose local port is ``port``."""
    out = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if int(f[1].rsplit(":", 1)[1], 16) == port and f[3] == state:
                out.add(int(f[9]))
    return out


def _owners(inodes: set[int], pids: set[int]) -> dict[int, set[int]]:
    """pid -> the inodes of ``inodes`` among its open files."""
    out: dict[int, set[int]] = {}
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and int(target[8:-1]) in inodes:
                out.setdefault(pid, set()).add(int(target[8:-1]))
    return out


def _until(what: str, ready: object) -> None:
    deadline = time.monotonic() + WAIT
    while not ready():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        time.sleep(0.1)


class Server:
    def __init__(self, workers: int = 2, problem: Path = PROBLEMS / "decoder-dot.toml") -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "attncalc", "serve", str(problem), "--port", "0"]
        self.proc = subprocess.Popen(
            [*cmd, "--workers", str(workers)],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            env=env,
            text=True,
            start_new_session=True,  # its own process group: Ctrl-C is sent to the group, as a terminal does
        )
        self.workers: set[int] = set()
        try:
            assert self.proc.stderr is not None
            line = self.proc.stderr.readline()  # bounded: the server writes it before serving, or exits
            assert "practice page at http://127.0.0.1:" in line, line
            self.port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
            _until("the workers listening", lambda: len(self._listeners()) == workers)
            self.workers = set(self._listeners())
        except BaseException:  # nothing left running when the server does not come up as expected
            self.stop()
            raise

    def _listeners(self) -> dict[int, set[int]]:
        return _owners(_sockets(LISTEN, self.port), _children(self.proc.pid))

    def get(self, conn: http.client.HTTPConnection) -> None:
        conn.request("GET", "/healthz")
        r = conn.getresponse()
        assert (r.status, r.read()) == (200, b"ok")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the parent and its workers (one process group)
        self.proc.wait(timeout=WAIT)
        for pid in self.workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        assert self.proc.stderr is not None
        self.proc.stderr.close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    try:
        yield s
    finally:
        s.stop()


def test_each_worker_listens_on_its_own_socket_and_both_answer(server: Server) -> None:
    """Two workers, each holding one listening socket on the port (its own, not a shared one); 40
    connections opened at once are spread over both (held by each worker's process)."""
    listeners = server._listeners()
    assert len(listeners) == 2 and all(len(s) == 1 for s in listeners.values())
    assert len(set.union(*listeners.values())) == 2  # two sockets, not one shared
    conns = [http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT) for _ in range(40)]
    try:
        for c in conns:
            server.get(c)  # every connection answered (kept open: its server end stays with a worker)
        held = _owners(_sockets(ESTABLISHED, server.port), server.workers)
        assert sum(len(s) for s in held.values()) == 40
        assert set(held) == server.workers, {pid: len(s) for pid, s in held.items()}
    finally:
        for c in conns:
            c.close()


@pytest.mark.parametrize(
    "how", ["SIGTERM to the parent", "SIGINT to the parent", "Ctrl-C (SIGINT to the group)", "SIGHUP to the parent"]
)
def test_a_signal_ends_the_parent_and_every_worker(server: Server, how: str) -> None:
    sig = {"SIGTERM": signal.SIGTERM, "SIGINT": signal.SIGINT, "Ctrl-C": signal.SIGINT, "SIGHUP": signal.SIGHUP}
    signum = sig[how.split()[0]]
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
    server.get(conn)  # an open connection does not keep a worker from ending
    helpers = _children(server.proc.pid)  # the workers and multiprocessing's resource tracker
    if how.startswith("Ctrl-C"):
        os.killpg(server.proc.pid, signum)
    else:
        os.kill(server.proc.pid, signum)
    assert server.proc.wait(timeout=WAIT) == 0
    _until("every worker gone", lambda: not any(_alive(p) for p in helpers))
    assert server.proc.stderr is not None
    err = server.proc.stderr.read()
    assert "Traceback" not in err and "ended" not in err, err
    conn.close()


def test_workers_stop_when_the_parent_is_killed(server: Server) -> None:
    """The parent killed outright (it cannot forward anything): its workers notice and stop."""
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait(timeout=WAIT)
    _until("the workers of a killed parent gone", lambda: not any(_alive(p) for p in server.workers))


def test_a_worker_that_dies_is_said_and_replaced(server: Server) -> None:
    dead = min(server.workers)
    os.kill(dead, signal.SIGKILL)
    assert server.proc.stderr is not None
    line = server.proc.stderr.readline()
    assert line == f"attncalc: server process {dead} ended (signal 9); starting another in its place\n"
    _until("a new worker listening", lambda: len(server._listeners()) == 2 and dead not in server._listeners())
    server.workers |= set(server._listeners())
    conns = [http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT) for _ in range(10)]
    for c in conns:
        server.get(c)
        c.close()
    os.kill(server.proc.pid, signal.SIGTERM)
    assert server.proc.wait(timeout=WAIT) == 0


def test_a_worker_that_cannot_start_stops_the_server(tmp_path: Path) -> None:
    """A replacement that cannot load the app (its problem file gone since) is not started again
    and again: the parent says so, stops the other worker and exits 1."""
    problem = tmp_path / "decoder-dot.toml"
    problem.write_text((PROBLEMS / "decoder-dot.toml").read_text())
    server = Server(problem=problem)
    try:
        helpers = _children(server.proc.pid)
        problem.unlink()
        os.kill(min(server.workers), signal.SIGKILL)
        assert server.proc.wait(timeout=WAIT) == 1
        assert server.proc.stderr is not None
        err = server.proc.stderr.read()
        assert f"attncalc: server process {min(server.workers)} ended (signal 9); starting another" in err
        assert err.endswith("could not start; stopping\n") and "Traceback" not in err, err
        assert f"attncalc: error: {problem}: no such file\n" in err, err
        _until("every worker gone", lambda: not any(_alive(p) for p in helpers))
    finally:
        server.stop()


def test_a_port_in_use_is_one_line_before_anything_starts() -> None:
    """A port another program listens on is refused (SO_REUSEPORT would otherwise let a second
    server of the same user share it silently), exit 2, one line, nothing started."""
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)  # even one that allows sharing
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = run_cli("serve", str(PROBLEMS / "decoder-dot.toml"), "--port", str(port), "--workers", "2")
    err = one_line_refusal(r, f"127.0.0.1:{port}")
    assert err == f"attncalc: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"


def test_a_signal_while_the_workers_start_still_ends_them_all() -> None:
    """SIGTERM right after the address is announced (the workers being started, not serving yet)."""
    cmd = [sys.executable, "-m", "attncalc", "serve", str(PROBLEMS / "decoder-dot.toml"), "--port", "0"]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        text=True,
        start_new_session=True,
    )
    seen: set[int] = set()
    try:
        assert proc.stderr is not None
        assert "practice page at" in proc.stderr.readline()
        seen = _children(proc.pid)
        os.kill(proc.pid, signal.SIGTERM)
        seen |= _children(proc.pid)
        assert proc.wait(timeout=WAIT) == 0
        _until("every worker gone", lambda: not any(_alive(p) for p in seen))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=WAIT)
        assert proc.stderr is not None
        proc.stderr.close()
