"""The ``serve`` command: the practice page (:mod:`attncalc.serve`) on a uvicorn server.

Registered on the app by :mod:`attncalc.cli`. Starlette, uvicorn and Jinja2 (the ``serve`` extra)
are imported inside the command, so ``attncalc --help`` stays cheap.
"""

from __future__ import annotations

import re
import sys
from typing import Annotated, Any

import typer

from .base import MaxFileSize
from .base import fail as _fail
from .io import max_bytes as _max_bytes


def serve(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="Problem files, or folders whose problem files are served (default: the current folder).",
            show_default=False,
        ),
    ] = None,
    host: Annotated[
        str, typer.Option("--host", help="The address to listen on; 0.0.0.0 lets other machines in (a class).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="The port to listen on.")] = 8000,
    workers: Annotated[
        int, typer.Option("--workers", min=1, max=64, help="Server processes (uvicorn's --workers): one per core.")
    ] = 1,
    practice: Annotated[
        bool, typer.Option("--practice", help="Offer seeded new variants of every kind `generate` covers.")
    ] = False,
    root_path: Annotated[
        str,
        typer.Option("--root-path", help="The path prefix a reverse proxy serves the app under (e.g. /attncalc)."),
    ] = "",
    max_file_size: MaxFileSize = None,
    timeout_head: Annotated[
        float,
        typer.Option(
            "--timeout-head",
            min=0.1,
            help="Seconds a request's head (request line and headers) may take, from the connection or the "
            "previous response; a slower connection is closed.",
        ),
    ] = 10.0,
    timeout_body: Annotated[
        float,
        typer.Option(
            "--timeout-body", min=0.1, help="Seconds a request's body may take after its head; slower: 408, closed."
        ),
    ] = 30.0,
    timeout_write: Annotated[
        float,
        typer.Option(
            "--timeout-write",
            min=0.1,
            help="Seconds a response may wait for the client to read it (the send buffer full); slower: closed.",
        ),
    ] = 30.0,
    timeout_keep_alive: Annotated[
        int,
        typer.Option(
            "--timeout-keep-alive", min=1, help="Seconds a kept-alive connection may stay idle (uvicorn's option)."
        ),
    ] = 5,
    max_connections: Annotated[
        int,
        typer.Option(
            "--max-connections",
            min=8,
            help="Connections each server process keeps open (fewer if the open-file limit, ulimit -n, is too low "
            "for them); beyond it a new one replaces the one waiting longest for a request, or is answered 503.",
        ),
    ] = 1000,
) -> None:
    """Serve the practice page: students type their answers step by step and check them in the browser.

    Needs the serve extra: pip install 'attncalc[serve]'. Binds 127.0.0.1 (this machine) by default.
    """
    import json
    import os

    from ..errors import AttncalcError
    from ..serve import require

    try:
        require()
    except AttncalcError as exc:
        _fail(str(exc))
    import uvicorn

    from ..serve import limits
    from ..serve.app import ENV, create_app
    from ..serve.workers import Workers
    from ..serve.workers import available as balanced

    limit = _max_bytes(max_file_size)
    root_path = _root_path(root_path)
    targets = paths or ["."]
    try:
        create_app(targets, practice, limit)  # every file is read once here: a bad one is named before start
    except AttncalcError as exc:
        _fail(str(exc))
    os.environ[ENV] = json.dumps({"paths": targets, "practice": practice, "max_bytes": limit})
    open_files = limits.raise_open_files()  # (inherited by the worker processes started below)
    cap, backlog = limits.fit(max_connections, open_files)
    if cap < max_connections:
        sys.stderr.write(
            f"attncalc: note: at most {cap} connections per server process, not {max_connections}: "
            f"the open-file limit is {open_files} (ulimit -n)\n"
        )
    limits.to_env(limits.Limits(timeout_head, timeout_body, timeout_keep_alive, cap, timeout_write))
    server: dict[str, Any] = {  # uvicorn's settings, the same for one process or several
        "factory": True,
        "root_path": root_path,
        "log_level": "warning",
        "http": "attncalc.serve.conn:GuardedH11Protocol",
        "ws": "none",
        "timeout_keep_alive": timeout_keep_alive,
        "backlog": backlog,
    }
    pool: Workers | None = None
    if workers > 1 and balanced():
        # a listening socket per worker (SO_REUSEPORT), bound now: Linux spreads the connections over them
        config = uvicorn.Config("attncalc.serve.app:app_from_env", host=host, port=port, **server)
        try:
            pool = Workers(config, host, port, workers)
        except OSError as exc:
            _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    else:  # uvicorn's own bind would fail after the address was announced, with a traceback-like log
        from ..serve.workers import check_free, free_port

        try:
            if port:
                check_free(host, port)
            else:  # --port 0: the port the system gives, known before it is announced
                port = free_port(host)
        except OSError as exc:
            _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    # the server answers at / (a proxy strips the prefix before the request reaches it): announce
    # that address, and the prefix as where the proxy serves it
    shown = port if pool is None else pool.port  # (--port 0: the port the system gave)
    lines = []
    if host in ("0.0.0.0", "::"):
        lines.append(
            f"attncalc: serving on every network interface ({host}:{shown}): anyone who can reach this machine "
            f"can open the practice page, at http://{_address()}:{shown}/"
        )
    lines.append(f"attncalc: practice page at http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{shown}/")
    if root_path:
        lines.append(
            f"attncalc: its links start with {root_path}/: a reverse proxy that strips {root_path} serves it "
            f"at https://YOUR-HOST{root_path}/"
        )

    def announce() -> None:
        sys.stderr.write("".join(line + "\n" for line in lines))
        sys.stderr.flush()

    if pool is not None:
        code = pool.run(announce)  # said once Ctrl-C and SIGTERM reach the workers
        if code:
            raise typer.Exit(code)
        return
    announce()
    uvicorn.run("attncalc.serve.app:app_from_env", host=host, port=port, workers=workers, **server)


def _root_path(text: str) -> str:
    """--root-path as a path the links can start with: "/attncalc" (a trailing slash dropped, "/" is
    none); anything but a path (no leading slash, a URL, spaces, quotes) is refused, exit 2."""
    path = text.rstrip("/")
    dots = any(part in (".", "..") for part in path.split("/"))
    if text and (dots or not re.fullmatch(r"(/[A-Za-z0-9._~%-]+)*", path)):
        _fail(f"--root-path {text!r}: expected the path a reverse proxy serves the page under, such as /attncalc")
    return path


def _address() -> str:
    """This machine's address on the network it would reach others through (no packet is sent: a
    UDP socket only picks its route), else its name."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed to anyone, only used to pick the route
            address = str(s.getsockname()[0])
            if not address.startswith("127."):
                return address
    except OSError:
        pass
    return socket.gethostname()
