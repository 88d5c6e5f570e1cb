"""The `serve` command: the extra missing is one line and exit 2; options reach uvicorn; --host
0.0.0.0 says so; a bad problem file is named before the server starts."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from ..helpers import PROBLEMS, one_line_refusal, run_cli


def test_missing_extra_is_one_line_with_the_install_command() -> None:
    """Without Starlette (blocked from import here) serve prints how to install it and exits 2."""
    code = (
        "import sys\nsys.modules['starlette'] = None\n"
        "from attncalc.cli import main\nsys.argv = ['attncalc', 'serve', 'problems']\nmain()"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PROBLEMS.parent)
    assert r.returncode == 2
    assert r.stderr == (
        "attncalc: error: attncalc serve needs Starlette, uvicorn and Jinja2: pip install 'attncalc[serve]' "
        "(from a clone: pip install -e '.[serve]')\n"
    )


def test_help_imports_neither_sympy_nor_numpy_nor_the_server() -> None:
    code = (
        "import sys\nfrom attncalc.cli import app\n"
        "try:\n    app(['serve', '--help'])\nexcept SystemExit:\n    pass\n"
        "print('HEAVY', sorted(m for m in ('sympy', 'numpy', 'starlette', 'uvicorn') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out


pytest.importorskip("uvicorn", reason="the serve extra is not installed")


def test_options_reach_uvicorn_and_0000_is_announced(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import uvicorn

    from attncalc.serve import workers
    from attncalc.serve.app import ENV

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(app=app, **kw))
    monkeypatch.setattr(workers, "available", lambda: False)  # uvicorn's own workers (not Linux)
    monkeypatch.setenv(ENV, "{}")  # restored (removed) after the test: serve sets it for its workers
    r = cli("serve", str(PROBLEMS), "--host", "0.0.0.0", "--port", "9001", "--workers", "3", "--practice")
    assert r.exit_code == 0, r.output
    assert "serving on every network interface (0.0.0.0:9001)" in r.stderr
    from attncalc.cli.serve import _address

    assert f"at http://{_address()}:9001/" in r.stderr  # where students go
    assert seen["host"] == "0.0.0.0" and seen["port"] == 9001 and seen["workers"] == 3 and seen["factory"]
    assert json.loads(__import__("os").environ[ENV]) == {"paths": [str(PROBLEMS)], "practice": True, "max_bytes": None}
    seen.clear()
    r = cli("serve", str(PROBLEMS / "decoder-dot.toml"))
    assert seen["host"] == "127.0.0.1" and seen["workers"] == 1 and "every network interface" not in r.stderr


def test_a_bad_problem_is_named_before_the_server_starts(tmp_path: Any) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "attention"\n[given]\nquery = [1, "x"]\nkeys = [[1, 0]]\n')
    one_line_refusal(run_cli("serve", str(bad)), str(bad), "given.query")


def test_nothing_to_serve_is_one_line(tmp_path: Any) -> None:
    """A folder without problem files (serve's default is the current one) is named, exit 2."""
    (tmp_path / "notes.txt").write_text("hello")
    r = run_cli("serve", cwd=tmp_path, env={"PYTHONPATH": str(PROBLEMS.parent)})
    assert "no problem files to serve" in one_line_refusal(r, ".")


def test_behind_a_proxy_the_announced_address_is_the_one_the_server_answers_on(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--root-path: the server answers at / (the proxy strips the prefix), so that is the address
    announced; the prefix is said to be where the proxy serves it."""
    import uvicorn

    from attncalc.serve.app import ENV

    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    monkeypatch.setenv(ENV, "{}")
    r = cli("serve", str(PROBLEMS / "decoder-dot.toml"), "--port", "9002", "--root-path", "/attncalc")
    assert r.exit_code == 0, r.output
    assert "practice page at http://127.0.0.1:9002/\n" in r.stderr
    assert "9002/attncalc" not in r.stderr
    assert "strips /attncalc" in r.stderr and "/attncalc/" in r.stderr


def test_on_linux_workers_get_sockets_of_their_own(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """--workers 2 where SO_REUSEPORT spreads connections: the pool gets uvicorn's settings (the
    app factory, host, port, root path) and the port, and uvicorn.run is not used; --workers 1 is
    uvicorn.run as before. (tests/serve/test_serve_workers.py runs the real thing.)"""
    import uvicorn

    from attncalc.serve import workers
    from attncalc.serve.app import ENV

    made: list[Any] = []

    class Pool:
        def __init__(self, config: Any, host: str, port: int, n: int) -> None:
            made.append((config, host, port, n))
            self.port = 4321

        def run(self, ready: Any = None) -> int:
            made.append("ran")
            if ready is not None:
                ready()  # the address is said by the pool, once it handles the signals
            return 0

    ran: list[Any] = []
    monkeypatch.setattr(workers, "available", lambda: True)
    monkeypatch.setattr(workers, "Workers", Pool)
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: ran.append(kw))
    monkeypatch.setenv(ENV, "{}")
    r = cli("serve", str(PROBLEMS), "--host", "0.0.0.0", "--port", "0", "--workers", "2", "--root-path", "/x")
    assert r.exit_code == 0, r.output
    (config, host, port, n), done = made
    assert (host, port, n, done) == ("0.0.0.0", 0, 2, "ran") and not ran
    assert (config.app, config.factory, config.host, config.port, config.root_path) == (
        "attncalc.serve.app:app_from_env",
        True,
        "0.0.0.0",
        0,
        "/x",
    )
    assert "serving on every network interface (0.0.0.0:4321)" in r.stderr  # the port the system gave
    assert "practice page at http://127.0.0.1:4321/\n" in r.stderr  # the port the system gave
    made.clear()
    r = cli("serve", str(PROBLEMS), "--workers", "1")
    assert r.exit_code == 0 and not made and ran[0]["workers"] == 1


@pytest.mark.parametrize(
    ("given", "links"), [("/attncalc/", "/attncalc"), ("/", ""), ("/course/ml-101", "/course/ml-101")]
)
def test_root_path_is_a_path_without_its_trailing_slash(
    given: str, links: str, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    from attncalc.serve.app import ENV

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(kw))
    monkeypatch.setenv(ENV, "{}")
    r = cli("serve", str(PROBLEMS / "decoder-dot.toml"), "--port", "0", "--root-path", given)
    assert r.exit_code == 0, r.output
    assert seen["root_path"] == links
    assert "//" not in r.stderr.replace("http://", "").replace("https://", "")


@pytest.mark.parametrize("given", ["attncalc", "https://evil.example/x", "/a b", '/a"b', "/a/../b", "/b?x=1"])
def test_a_root_path_that_is_not_a_path_is_refused(given: str) -> None:
    r = run_cli("serve", str(PROBLEMS / "decoder-dot.toml"), "--root-path", given)
    assert "such as /attncalc" in one_line_refusal(r, "--root-path")


def test_a_port_in_use_is_one_line_before_anything_is_announced() -> None:
    """One worker (uvicorn's own bind) as with --workers 2: the address taken, exit 2, nothing announced."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for workers in ("1", "2"):
            r = run_cli("serve", str(PROBLEMS / "decoder-dot.toml"), "--port", str(port), "--workers", workers)
            one_line_refusal(r, f"cannot listen on 127.0.0.1:{port}")
            assert "practice page at" not in r.stderr


def test_the_address_for_a_class_is_not_the_loopback() -> None:
    """--host 0.0.0.0 names this machine's address on its network (a name only when there is none)."""
    import socket

    from attncalc.cli.serve import _address

    got = _address()
    assert not got.startswith("127.")
    try:
        socket.inet_aton(got)  # an IPv4 address, or else the machine's name
    except OSError:
        assert got == socket.gethostname()


def test_port_0_with_one_worker_announces_the_port_it_listens_on(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from attncalc.serve.app import ENV

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: seen.update(kw))
    monkeypatch.setenv(ENV, "{}")
    r = cli("serve", str(PROBLEMS / "decoder-dot.toml"), "--port", "0", "--host", "0.0.0.0")
    assert r.exit_code == 0, r.output
    assert seen["port"] > 0
    assert f"practice page at http://127.0.0.1:{seen['port']}/" in r.stderr and ":0/" not in r.stderr
