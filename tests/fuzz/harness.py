"""The promise every run keeps, and the worker process the fuzz tests check it in.

Whatever the files hold: exit 0, 1 (check only) or 2; exit 2 is one line on standard error that
names the file (or the path) it is about; never a traceback; never NaN in JSON; and every run ends
within :data:`TIMEOUT` seconds inside a :data:`worker.MEMORY_LIMIT` address space.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TIMEOUT = float(os.environ.get("ATTNCALC_FUZZ_TIMEOUT", "30"))  # far above any honest run: a hang
ROOT = Path(__file__).resolve().parents[2]


class Worker:
    """tests/fuzz/worker.py as a child process, restarted after a run that hangs or dies."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        return subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("worker.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=env,
            cwd=ROOT,
        )

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply: list[str] = []
        import threading

        reader = threading.Thread(target=lambda: reply.append(self.proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(TIMEOUT)
        if not reply or not reply[0]:
            self.close()
            pytest.fail(f"attncalc {request['args']} ran past {TIMEOUT} s or its worker died\nrequest: {request}")
        return json.loads(reply[0])  # type: ignore[no-any-return]

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def keeps_the_promise(request: dict[str, Any], reply: dict[str, Any], named: list[str]) -> None:
    """Assert the promise for one run; ``named`` lists what an exit-2 line may name (files, paths)."""
    args = request["args"]
    where = f"\nrequest: {json.dumps(request)[:3000]}\nstderr: {reply['stderr'][:2000]}"
    assert not reply["crash"], f"traceback:\n{reply['crash']}{where}"
    assert "Traceback" not in reply["stderr"], where
    allowed = {0, 1, 2} if args[0] == "check" else {0, 2}
    assert reply["exit"] in allowed, f"exit {reply['exit']}{where}"
    if reply["exit"] == 2:
        err = reply["stderr"]
        assert err.startswith("attncalc: error: ") and err.endswith("\n") and err.count("\n") == 1, where
        assert any(n in err for n in named), f"names none of {named}{where}"
    elif "json" in args and reply["stdout"].strip():
        text = reply["stdout"]
        assert "NaN" not in text and "Infinity" not in text, where
        json.loads(text)
