"""A child process that runs attncalc commands for the fuzz tests, one JSON line in, one JSON line out.

Starting Python with numpy and sympy for every generated input would take most of a second; this
worker pays that once. The parent (tests/fuzz/harness.py) bounds each run by a timeout and kills the worker
when one hangs; the worker bounds its own memory (an address-space limit: a blow-up is a
MemoryError). Each request names files to write (text, or bytes as latin-1) into a fresh folder,
special files to make there, and the command line; the reply gives the exit code, standard output
and error, and the traceback of an exception the CLI let through.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import sys
import tempfile
import time
import traceback
from typing import Any

MEMORY_LIMIT = 1536 * 2**20


class _Main:
    """The console script's entry (:func:`attncalc.cli.main`) as CliRunner invokes a command: the
    streams captured, the exit code from SystemExit. Through ``main``, as the installed ``attncalc``
    runs, a misused option is the one line main makes of it, not click's usage block."""

    name = "attncalc"

    def main(self, args: list[str], prog_name: str, **_: Any) -> None:
        import gc

        from attncalc.cli import main

        saved = sys.argv
        sys.argv = [prog_name, *args]
        try:
            main()
        finally:
            sys.argv = saved
            gc.enable()  # main pauses the collector for a short-lived process; this one lives on


def run(request: dict[str, Any]) -> dict[str, Any]:
    from click.testing import CliRunner

    with tempfile.TemporaryDirectory(prefix="attncalc-fuzz-") as folder:
        for name, content in request.get("files", {}).items():
            path = os.path.join(folder, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if isinstance(content, dict):  # {"bytes": "..."} written as latin-1 bytes
                with open(path, "wb") as fb:
                    fb.write(content["bytes"].encode("latin-1"))
            else:
                with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
                    f.write(content)
        for name in request.get("dirs", []):
            os.makedirs(os.path.join(folder, name), exist_ok=True)
        for name, target in request.get("links", {}).items():
            os.symlink(target, os.path.join(folder, name))
        for name in request.get("fifos", []):
            os.mkfifo(os.path.join(folder, name))
        before = snapshot(folder)
        old = os.getcwd()
        os.chdir(folder)
        started = time.monotonic()
        try:
            if "api" in request:  # a call of the Python API, its arguments pickled (numpy, cycles, big ints)
                return call_api(request, before, started, folder)
            result = CliRunner().invoke(_Main(), request["args"], catch_exceptions=True)
        finally:
            os.chdir(old)
        crash = ""
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            crash = "".join(traceback.format_exception(result.exception))
        return {
            "exit": result.exit_code,
            "stdout": result.stdout,
            "stderr": result.stderr,
            "crash": crash,
            "seconds": time.monotonic() - started,
            "before": before,
            "after": snapshot(folder),
        }


def call_api(request: dict[str, Any], before: dict[str, str], started: float, folder: str) -> dict[str, Any]:
    """``attncalc.<api>(*args, **kwargs)``: exit 0 for a value, 2 for an AttncalcError (its message as
    standard error), and any other exception as a crash with its traceback."""
    import base64
    import pickle

    import attncalc

    args, kwargs = pickle.loads(base64.b64decode(request["pickle"]))  # the test process pickled them
    code, err, crash = 0, "", ""
    try:
        getattr(attncalc, request["api"])(*args, **kwargs)
    except attncalc.AttncalcError as exc:
        code, err = 2, f"attncalc: error: {exc}\n"
    except Exception as exc:  # what the API must never raise
        code, crash = -1, "".join(traceback.format_exception(exc))
    return {
        "exit": code,
        "stdout": "",
        "stderr": err,
        "crash": crash,
        "seconds": time.monotonic() - started,
        "before": before,
        "after": snapshot(folder),
    }


def snapshot(folder: str) -> dict[str, str]:
    """Every entry under folder: a file by its content's hash, a link by its target, a folder as such."""
    out: dict[str, str] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            key = os.path.relpath(path, folder)
            if os.path.islink(path):
                out[key] = "link to " + os.readlink(path)
            elif os.path.isdir(path):
                out[key] = "folder"
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    out[key] = hashlib.sha256(f.read()).hexdigest()
            else:
                out[key] = "special"
    return out


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    for line in sys.stdin:
        try:
            reply = run(json.loads(line))
        except BaseException as exc:  # the worker itself must answer: a MemoryError, say
            reply = {"exit": -1, "stdout": "", "stderr": "", "crash": repr(exc), "seconds": 0.0}
        sys.stdout.write(json.dumps(reply, ensure_ascii=True) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
