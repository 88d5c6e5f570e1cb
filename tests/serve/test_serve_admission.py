"""`attncalc serve` at its connection cap, against a real server (a subprocess on 127.0.0.1) capped at
8 connections: clients that pipeline requests and never read the responses are dropped (the write
deadline) and give way to a real user; a burst of partial request heads arriving together does not
refuse a real user whose whole head came in the same burst; and a POST refused at the cap reads its
503 (the body it was sending is drained, not answered with a reset)."""

from __future__ import annotations

import shutil
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from ..helpers import PROBLEMS
from .test_serve_network import WAIT, Server, _response, _until

CAP = 8
PAGE = b"GET /problems/decoder-dot HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("the server is paused with SIGSTOP, and the send queue read as on Linux")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    folder = tmp_path_factory.mktemp("admission")
    shutil.copy(PROBLEMS / "decoder-dot.toml", folder)
    # long head and body deadlines: nothing in these tests is cleared by them, only by what is tested
    options = ["--max-connections", str(CAP), "--timeout-head", "60", "--timeout-body", "60", "--timeout-write", "3"]
    s = Server(folder, folder.parent / (folder.name + "-stderr.txt"), options, low_files=False)
    try:
        yield s
    finally:
        s.stop()


def _connect(port: int, data: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    s.sendall(data)
    return s


def _served(server: Server, tries: int = 10) -> list[Any]:
    """A student loading the page, pressing reload on a refusal: each answer's status (or the error)."""
    seen: list[Any] = []
    for _ in range(tries):
        try:
            status, body = server.request("GET", "/problems/decoder-dot")
        except OSError as exc:
            seen.append(type(exc).__name__)
        else:
            seen.append(status)
            if status == 200:
                assert b"Decoder dot-product attention" in body
                return seen
        time.sleep(0.3)
    return seen


def test_clients_that_never_read_their_responses_give_way(server: Server) -> None:
    """8 connections (the cap) each pipeline 400 page requests and read nothing: a student is
    served at once all the same (no browser pipelines: such a connection gives way first, whether its
    responses are still being made or already stalled), and the connections that read nothing are
    dropped after the 3 s write deadline."""
    readers = []
    try:
        for _ in range(CAP):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
            s.setblocking(False)
            try:
                s.send(PAGE * 400)
            except BlockingIOError:
                pass
            readers.append(s)
        time.sleep(0.2)  # (the server takes them up: not asserted)
        seen = _served(server, tries=1)  # at once: one with requests pipelined gives way to a student
        assert seen == [200], seen
        _until("a reader dropped", lambda: "its response was not read within 3 s" in server.log.read_text())
    finally:
        for s in readers:
            s.close()
    log = server.log.read_text()
    assert "Traceback" not in log, log[:3000]


def test_a_burst_of_partial_heads_does_not_refuse_a_whole_one(server: Server) -> None:
    """While the server is stopped, 40 connections send part of a request head, a student's sends a
    whole one, 40 more send part of one; the server then takes the 81 up together, at a cap of 8:
    the partial ones give way to each other, and the student is answered, not refused."""
    import os
    import signal

    partial = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    _until("the server answering", lambda: server.request("GET", "/healthz")[0] == 200)
    attackers: list[socket.socket] = []
    student = None
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        attackers += [_connect(server.port, partial) for _ in range(40)]
        student = _connect(server.port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        attackers += [_connect(server.port, partial) for _ in range(40)]
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
    try:
        answer = _response(student)
        assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"ok"), answer[:200]
    finally:
        for s in [*attackers, student]:
            s.close()
    assert "Traceback" not in server.log.read_text()


def test_a_post_refused_at_the_cap_reads_its_503(server: Server) -> None:
    """8 connections with request bodies on their way (in progress: none gives way); a student's
    POSTs of 500 KB each are refused, and the client reads the 503 every time, not a reset."""
    import http.client

    head = (
        b"POST /problems/decoder-dot/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n{"
    )
    _until("the server answering", lambda: server.request("GET", "/healthz")[0] == 200)
    busy = [_connect(server.port, head) for _ in range(CAP)]
    try:
        time.sleep(0.5)  # (their heads read: not asserted)
        seen = []
        for _ in range(5):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT)
            try:
                body = b"weights=0.155&" + b"x" * 500_000
                conn.request("POST", "/problems/decoder-dot/check", body=body, headers={"Content-Type": "text/plain"})
                r = conn.getresponse()
                seen.append((r.status, r.read()))
            except OSError as exc:
                seen.append((type(exc).__name__, b""))
            finally:
                conn.close()
        assert all(status == 503 and b"The server is busy" in text for status, text in seen), seen
    finally:
        for s in busy:
            s.close()
    assert "Traceback" not in server.log.read_text()


def test_a_request_head_over_16_kib_is_refused_however_it_comes(server: Server) -> None:
    """h11 bounds only the part of a head it holds between reads: a 100 KB head that came in one read
    was answered 200. Any head over 16 KiB is 431 now; one under it is answered."""
    _until("the server answering", lambda: server.request("GET", "/healthz")[0] == 200)
    for size, status in ((15_000, b"200"), (17_000, b"431"), (100_000, b"431")):
        s = _connect(
            server.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX: " + b"a" * size + b"\r\n\r\n"
        )
        try:
            answer = _response(s)
        finally:
            s.close()
        assert answer.startswith(b"HTTP/1.1 " + status + b" "), (size, answer[:100])
    assert "Traceback" not in server.log.read_text()
