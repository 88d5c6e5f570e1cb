"""`attncalc serve` on a real network: odd query and form values are 4xx on every route (never a
500), the trailing-slash redirect never repeats the Host header, and no response tells the served
folder's absolute path. The slow-client test at the end runs a real server in a subprocess."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from .helpers import PROBLEMS
from .serve_support import client  # skips without the serve extra

# values a hand-edited address or a tampered form may carry: Unicode digits ("²" is a digit to
# str.isdigit, not to int), other scripts' digits, fractions, signs, exponents, a huge count, NUL
ODD = ["²", "⁴", "٣", "１", "½", "-1", "+1", "1e3", "1.5", " 1", "9" * 5000, "\x00", "x"]
ODD_RAW = [b"%C2%B2", b"%FF", b"%ED%A0%80", b"\xc2\xb2", b"\xff"]  # as sent, encoded or not
GET_ROUTES = [
    "/",
    "/healthz",
    "/static/practice.js",
    "/problems/decoder-dot",
    "/problems/decoder-dot/solution",
    "/problems/decoder-dot/check",
    "/problems/variant-attention-7/problem.toml",
]
POST_ROUTES = ["/problems/decoder-dot/check", "/problems/decoder-dot/answers.toml"]
FORM = "application/x-www-form-urlencoded"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """A client serving a folder (with a space in its name) of two example problems, and a file
    given on its own from another folder, with --practice; and the folder's parent."""
    base = tmp_path_factory.mktemp("served-from-here")
    folder = base / "class folder"
    folder.mkdir()
    for name in ("decoder-dot.toml", "bpe-cs336.toml"):
        shutil.copy(PROBLEMS / name, folder)
    (base / "single").mkdir()
    single = base / "single" / "week-3.toml"
    shutil.copy(PROBLEMS / "decoder-dot.toml", single)
    return client([str(folder), str(single)], practice=True), base


@pytest.mark.parametrize("route", GET_ROUTES)
@pytest.mark.parametrize("value", ODD)
def test_an_odd_query_value_is_never_a_500(served: tuple[Any, Path], route: str, value: str) -> None:
    c, _ = served
    for key in ("reveal", "action", "checked", "x"):
        r = c.get(route, params={key: value}, follow_redirects=False)
        assert r.status_code < 500, (route, key, value, r.status_code)


@pytest.mark.parametrize("raw", ODD_RAW)
def test_an_odd_query_value_as_sent_is_never_a_500(served: tuple[Any, Path], raw: bytes) -> None:
    c, _ = served
    for route in GET_ROUTES:
        r = c.get(route + "?reveal=" + raw.decode("latin-1"), follow_redirects=False)
        assert r.status_code < 500, (route, raw, r.status_code)


@pytest.mark.parametrize("value", ["²", "⁴", "٣", "１", "-1", "1e3", "x", "\x00"])
def test_a_reveal_that_is_not_a_count_is_refused(served: tuple[Any, Path], value: str) -> None:
    """?reveal=K counts steps: anything but ASCII digits is 400 on the page, and in a form (which
    the page only ever sends with digits) the page again, 422, saying so."""
    c, _ = served
    r = c.get("/problems/decoder-dot", params={"reveal": value})
    assert r.status_code == 400 and "reveal" in r.text
    for route in POST_ROUTES:
        for extra in ({}, {"weights[0]": "0.5"}, {"action": "reveal"}):
            r = c.post(route, data={"reveal": value, **extra})
            assert r.status_code == 422 and "reveal: expected a number of steps" in r.text, (route, extra)


def test_a_reveal_count_still_reveals(served: tuple[Any, Path]) -> None:
    c, _ = served
    none = c.get("/problems/decoder-dot").text
    two = c.get("/problems/decoder-dot?reveal=2").text
    many = c.get("/problems/decoder-dot", params={"reveal": "9" * 5000})  # every step, not a ValueError
    assert none.count('class="revealed"') == 0 and two.count('class="revealed"') == 2
    assert many.status_code == 200 and many.text.count('class="revealed"') > 2


@pytest.mark.parametrize("raw", ODD_RAW)
def test_an_odd_form_value_is_never_a_500(served: tuple[Any, Path], raw: bytes) -> None:
    c, _ = served
    for route in POST_ROUTES:
        for key in (b"reveal", b"action", b"checked", b"weights%5B0%5D", b"nope"):
            r = c.post(route, content=key + b"=" + raw, headers={"content-type": FORM})
            assert 200 <= r.status_code < 500, (route, key, raw, r.status_code)
            if key == b"reveal":
                assert r.status_code == 422


@pytest.mark.parametrize("root_path", ["", "/attncalc"])
def test_the_trailing_slash_redirect_never_names_the_host_header(tmp_path: Path, root_path: str) -> None:
    """/problems/NAME/ redirects to /problems/NAME under --root-path, as a path: a Host header sent
    by anyone never comes back in a Location (an open redirect, or a poisoned cache)."""
    from .serve_support import TestClient, create_app

    shutil.copy(PROBLEMS / "decoder-dot.toml", tmp_path)
    c = TestClient(create_app([str(tmp_path)]), root_path=root_path)
    evil = {"host": "evil.example", "x-forwarded-host": "evil.example"}
    cases = {
        "/problems/decoder-dot/": "/problems/decoder-dot",
        "/problems/decoder-dot//": "/problems/decoder-dot",
        "/problems/decoder-dot/solution/?reveal=1": "/problems/decoder-dot/solution?reveal=1",
    }
    for url, expected in cases.items():
        for method in ("GET", "POST"):
            r = c.request(method, url, headers=evil, follow_redirects=False)
            assert r.status_code == 307, (method, url)
            assert r.headers["location"] == root_path + expected
            assert not any("evil" in v for v in r.headers.values())
    # a path that is no route's with its slashes dropped is not redirected anywhere
    for url in ("/nothing/", "/problems/", "/static/"):
        r = c.get(url, headers=evil, follow_redirects=False)
        assert r.status_code == 404 and "location" not in r.headers
    assert c.get("/", headers=evil, follow_redirects=False).status_code == 200


def _everything(c: Any) -> list[Any]:
    """A response of every route, the problems' pages, checks and downloads by form and by JSON,
    errors included."""
    json_ok = {"answers": {"weights": [0.155, 0.422, "?"]}}
    json_bad = {"answers": {"weights": [1, "x"]}}
    out = [c.get(u) for u in ("/", "/healthz", "/static/practice.js", "/static/practice.css", "/nope")]
    for name in ("decoder-dot", "bpe-cs336", "week-3", "variant-attention-7"):
        p = f"/problems/{name}"
        out += [c.get(p), c.get(p + "?reveal=3"), c.get(p + "/solution"), c.get(p + "/solution?reveal=1")]
        out += [c.get(p + "/problem.toml"), c.get(p + "/check", follow_redirects=False), c.get(p + "/")]
        for route in ("/check", "/answers.toml"):
            out += [c.post(p + route, data={"weights[0]": "0.155"}), c.post(p + route, data={"weights[0]": "x"})]
            out += [c.post(p + route, json=json_ok), c.post(p + route, json=json_bad)]
            out += [c.post(p + route, content=b"\xff", headers={"content-type": "text/plain"})]
    return out


def test_no_response_tells_the_served_folders_absolute_path(served: tuple[Any, Path]) -> None:
    """Pages, downloads, JSON and headers name a served file by its path relative to the folder
    served (a file given on its own: its name), never by the server's absolute path."""
    c, base = served
    responses = _everything(c)
    assert {r.status_code for r in responses} >= {200, 404, 415, 422}
    secrets = {str(base), str(base.resolve()), "served-from-here"}
    for r in responses:
        text = r.text + "".join(f"{k}: {v}\n" for k, v in r.headers.items())
        assert not any(s in text for s in secrets), (r.request.method, r.request.url, r.status_code)
    index = c.get("/").text
    assert '<td class="source">decoder-dot.toml</td>' in index and '<td class="source">week-3.toml</td>' in index
    download = c.post("/problems/decoder-dot/answers.toml", data={"weights[0]": "0.155"}).text
    assert "# Grade them with: attncalc check decoder-dot.toml THIS_FILE" in download
    download = c.post("/problems/week-3/answers.toml", json={"answers": {"weights": [0.155, "?", "?"]}}).text
    assert "# Grade them with: attncalc check week-3.toml THIS_FILE" in download


# ------------------------------------------------------------------------------ a real server, slow clients

WAIT = 90.0  # seconds a step may take on a busy machine before the test gives up (never asserted as speed)
CAP = 100  # the server's --max-connections in these tests: a few hundred sockets are well over it
OPEN_FILES = 256  # its open-file limit, soft and hard (it cannot raise it): the cap must fit under it
SLOW = 300  # slow clients
HEAD = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # a request head never finished


class Server:
    """``attncalc serve`` in a subprocess on 127.0.0.1 (a port the system gives), with low limits and
    a low open-file limit; its stderr in a file (a pipe left unread could stall it)."""

    def __init__(self, folder: Path, log: Path) -> None:
        import os
        import subprocess
        import sys

        from .helpers import ROOT

        def low_open_files() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))

        options = ["--max-connections", str(CAP), "--timeout-head", "2", "--timeout-body", "3"]
        cmd = [sys.executable, "-m", "attncalc", "serve", str(folder), "--port", "0", *options]
        self.log = log
        self.stderr = log.open("w")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=self.stderr, env=env, preexec_fn=low_open_files
        )
        try:
            self.port = self._port()
            _until("the server answering", lambda: self._healthy())
        except BaseException:
            self.stop()
            raise

    def _port(self) -> int:
        import re

        found: list[int] = []

        def announced() -> bool:
            m = re.search(r"practice page at http://127\.0\.0\.1:(\d+)/", self.log.read_text())
            assert self.proc.poll() is None, self.log.read_text()
            if m:
                found.append(int(m.group(1)))
            return bool(m)

        _until("the address announced", announced)
        return found[0]

    def _healthy(self) -> bool:
        try:
            return self.request("GET", "/healthz")[0] == 200
        except OSError:
            return False

    def request(self, method: str, path: str, body: bytes | None = None, **headers: str) -> tuple[int, bytes]:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT)
        try:
            conn.request(method, path, body=body, headers=headers)
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=WAIT)
            except Exception:
                self.proc.kill()
                self.proc.wait(timeout=WAIT)
        self.stderr.close()


def _until(what: str, ready: Any) -> None:
    import time

    deadline = time.monotonic() + WAIT
    while not ready():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("the open-file limit is set through Linux's setrlimit here")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    folder = tmp_path_factory.mktemp("slow-clients")
    shutil.copy(PROBLEMS / "decoder-dot.toml", folder)
    s = Server(folder, folder.parent / (folder.name + "-stderr.txt"))
    try:
        yield s
    finally:
        s.stop()


class Trickle:
    """``n`` sockets that each send a request head a byte at a time, a byte every half second, and
    open a new one in place of each the server closes (as an attacker would), until ``seconds``
    have passed; then all are closed. In a thread: it stops by itself."""

    def __init__(self, port: int, n: int, seconds: float) -> None:
        import threading

        self.port, self.n, self.seconds = port, n, seconds
        self.opened = self.closed_by_server = self.timed_out = 0
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def connect(self) -> Any:
        import socket

        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            s.sendall(HEAD)
            s.setblocking(False)
        except OSError:
            return None
        self.opened += 1
        return s

    def run(self) -> None:
        import time

        end = time.monotonic() + self.seconds
        socks = [s for s in (self.connect() for _ in range(self.n)) if s is not None]
        self.ready.set()
        try:
            while time.monotonic() < end:
                for i, s in enumerate(socks):
                    if s is None or not self.alive(s):
                        socks[i] = self.connect() if i % 10 < 3 else None  # a few reopened each round
                socks = [s for s in socks if s is not None] + [None] * (self.n - len(socks))
                time.sleep(0.5)
        finally:
            for s in socks:
                if s is not None:
                    s.close()

    def alive(self, s: Any) -> bool:
        """One more byte of the head sent; False (and closed) once the server has closed it."""
        try:
            data = s.recv(4096)
        except BlockingIOError:
            data = None
        except OSError:
            data = b""
        if data is not None:  # the server answered (408) or closed it
            self.closed_by_server += 1
            self.timed_out += b" 408 " in data
            s.close()
            return False
        try:
            s.send(b"X")
        except OSError:
            self.closed_by_server += 1
            s.close()
            return False
        return True


def test_slow_clients_do_not_stop_the_page(server: Server) -> None:
    """300 sockets trickling request heads at a server capped at 100 connections with a 2 s head
    deadline and 256 open files: while they trickle, a student's page and a check are answered; the
    server closes the slow ones (408 where part of a head came); its log says each condition in a
    line, no traceback; afterwards it answers as before."""
    import json
    import time

    trickle = Trickle(server.port, SLOW, seconds=8)
    assert trickle.ready.wait(WAIT)
    assert trickle.opened >= SLOW - 10  # (a few may be refused by a full backlog: the test is about the rest)
    import math

    # decoder-dot's weights are softmax(1, 2, 2) (its comment): 1/(1+2e) and e/(1+2e), to 3 decimals
    weights = [round(1 / (1 + 2 * math.e), 3), round(math.e / (1 + 2 * math.e), 3), "?"]
    answers = json.dumps({"answers": {"weights": weights}}).encode()
    for _ in range(3):  # spread over the trickle
        status, page = server.request("GET", "/problems/decoder-dot")
        assert status == 200 and b"Decoder dot-product attention" in page
        status, body = server.request(
            "POST", "/problems/decoder-dot/check", answers, **{"Content-Type": "application/json"}
        )
        assert status == 200
        report = json.loads(body)
        assert report["results"][0]["id"] == "weights" and report["results"][0]["verdict"] == "correct"
        time.sleep(1.5)
    trickle.thread.join(WAIT)
    assert not trickle.thread.is_alive()
    assert trickle.closed_by_server >= SLOW - CAP  # over the cap, and past the deadline: closed by the server
    assert trickle.timed_out > 0
    assert server.request("GET", "/healthz") == (200, b"ok")
    log = server.log.read_text()
    assert "Traceback" not in log and "Too many open files" not in log, log[:3000]
    assert f"at the limit of {CAP} connections" in log and "request head did not come within 2 s" in log
    assert len(log.splitlines()) < 15, log[:3000]  # one line per condition per 10 s, not one per event


def test_beyond_the_cap_with_every_connection_busy_is_503(server: Server) -> None:
    """Connections whose requests are all in progress (bodies trickling) are not closed for a new
    one: beyond the cap a new connection is answered 503 at once; the slow bodies get 408 after the
    body deadline (3 s), and the server answers again."""
    import socket

    head = (
        b"POST /problems/decoder-dot/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n{"
    )
    _until("the slow clients gone", lambda: server.request("GET", "/healthz")[0] == 200)
    busy = []
    try:
        for _ in range(CAP + 20):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
            s.sendall(head)
            busy.append(s)
        answers = [_response(s) for s in busy]
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        timed_out = [a for a in answers if a.startswith(b"HTTP/1.1 408")]
        assert len(refused) >= 20 and len(refused) + len(timed_out) == len(busy), answers[:3]
        assert all(b"The server is busy" in a for a in refused)
    finally:
        for s in busy:
            s.close()
    assert server.request("GET", "/healthz") == (200, b"ok")
    assert "Traceback" not in server.log.read_text()


def _response(s: Any) -> bytes:
    """All a server sends on ``s`` until it closes it (bounded by the socket's timeout)."""
    data = b""
    while True:
        try:
            chunk = s.recv(4096)
        except ConnectionResetError:  # (closed with the rest of our body unread: what came before counts)
            return data
        if not chunk:
            return data
        data += chunk


# ------------------------------------------------------------------------------ the limits, in-process


@pytest.mark.parametrize("open_files", [64, 256, 1024, 4096, 20000, 1 << 20])
@pytest.mark.parametrize("requested", [8, 100, 1000, 50000])
def test_the_connection_cap_fits_under_the_open_file_limit(open_files: int, requested: int) -> None:
    """The connections, the backlog the event loop may accept in one go and a reserve of 64 files
    for the process fit in the open files (where they can at all: 8 connections at least)."""
    from attncalc.serve.limits import fit

    cap, backlog = fit(requested, open_files)
    assert 8 <= cap <= requested or cap == 8
    assert 16 <= backlog <= 2048
    if open_files >= 8 + backlog + 64:
        assert cap + backlog + 64 <= open_files
    if open_files >= requested + 2048 + 64:
        assert (cap, backlog) == (requested, 2048)  # nothing lowered where the files suffice


def _record(msg: str, *args: Any, exc: BaseException | None = None) -> Any:
    import logging

    info = (type(exc), exc, None) if exc is not None else None
    return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, msg, args, info)


def test_a_flood_of_one_condition_is_one_line_per_interval() -> None:
    """A thousand "out of system resource" records with their OSError: one let through, as one line
    without its traceback; another condition still let through; after the interval, one more that
    counts the 999 dropped."""
    import errno

    from attncalc.serve.quiet import OncePerInterval

    quiet = OncePerInterval(interval=3600)
    flood = [
        _record(f"socket.accept() out of system resource\nsocket: <fd={k}>", exc=OSError(errno.EMFILE, "Too many"))
        for k in range(1000)
    ]
    let = [r for r in flood if quiet.filter(r)]
    assert len(let) == 1 and let[0].exc_info is None
    assert let[0].getMessage() == "socket.accept() out of system resource: [Errno 24] Too many"
    other = _record("attncalc: a connection closed: its request %s did not come within %g s", "head", 2.0)
    assert quiet.filter(other)
    assert not quiet.filter(
        _record("attncalc: a connection closed: its request %s did not come within %g s", "head", 2)
    )
    assert quiet.filter(_record("attncalc: a connection closed: its request %s did not come within %g s", "body", 3))
    bug = _record("Exception in ASGI application\n", exc=ValueError("a bug"))
    assert quiet.filter(bug) and bug.exc_info is not None  # a bug keeps its traceback (once)
    quiet.interval = 0  # the interval over
    late = _record("socket.accept() out of system resource\nsocket: <fd=7>", exc=OSError(errno.EMFILE, "Too many"))
    assert quiet.filter(late) and "(999 more like it since the last said)" in late.getMessage()
