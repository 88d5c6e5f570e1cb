"""Load on `attncalc serve`: concurrent clients posting answers, against `attncalc check` per answer.

    python benchmarks/serve.py [--clients 50] [--requests 1000] [--workers 1] [--runs 5]

A uvicorn server (`attncalc serve`, on 127.0.0.1) serves decoder-dot and the 2-head multi-head
self-attention problem; ``--clients`` threads, each with its own keep-alive connection, post
answers as JSON to /problems/NAME/check (a whole answer key, and the same with its first entry off
by one, a wrong first step, in turn) until ``--requests`` answers are graded (bounded in time as
well). Reported: answers checked per second and the p50/p95 latency; the baseline, measured in the
same run, is the command a TA would otherwise run, `attncalc check PROBLEM ANSWERS --format json`
in a fresh process per answer (its median time). Targets (issue 27): at least 20x the command's
answers per second, p95 under 250 ms at 50 clients. No test asserts timings: this script reports.

The clients, the server and anything else running share the machine's cores, so the script also
prints the load average before and after, and the CPU time of one check of each answer in this
process, without HTTP (the work behind the route, the served problem prepared and warm): the time a
core spends per answer, which the load of other jobs changes far less than the latency.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PROBLEMS = {
    "decoder-dot": ROOT / "problems" / "decoder-dot.toml",
    "mh-self-attention": ROOT / "problems" / "mh-self-attention.toml",
}


def answer_bodies() -> dict[str, list[str]]:
    """Per problem: the answer key (the true values as shown) and the key with one slip, as JSON."""
    sys.path.insert(0, str(ROOT))
    from attncalc.api import solve
    from attncalc.homework.generate import answer_key

    out = {}
    for name, path in PROBLEMS.items():
        key = answer_key(solve(str(path)))
        slip = json.loads(json.dumps(key))
        first = next(k for k, v in slip.items() if isinstance(v, list))
        row = slip[first] if not isinstance(slip[first][0], list) else slip[first][0]
        row[0] = str(float(row[0]) + 1)  # one entry off by one: a wrong step and carried ones after it
        out[name] = [json.dumps({"answers": key}), json.dumps({"answers": slip})]
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(workers: int) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [PY, "-m", "attncalc", "serve", *map(str, PROBLEMS.values()), "--port", str(port), "--workers", str(workers)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                if r.read() == b"ok":
                    return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("attncalc serve did not start")


def load(
    port: int, bodies: dict[str, list[str]], clients: int, requests: int, seconds: float
) -> tuple[list[float], float, int]:
    """Latencies of ``requests`` posts by ``clients`` threads (stopped after ``seconds``), the wall time, errors."""
    work = [(name, body) for name, bs in bodies.items() for body in bs]
    lock = threading.Lock()
    issued = 0
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds

    def client(k: int) -> None:
        nonlocal issued, errors
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine: list[float] = []
        while True:
            with lock:
                if issued >= requests or time.perf_counter() > deadline:
                    break
                n = issued
                issued += 1
            name, body = work[(n + k) % len(work)]
            t0 = time.perf_counter()
            try:
                conn.request("POST", f"/problems/{name}/check", body, {"Content-Type": "application/json"})
                r = conn.getresponse()
                r.read()
                ok = r.status == 200
            except OSError:
                ok = False
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            if ok:
                mine.append(time.perf_counter() - t0)
            else:
                with lock:
                    errors += 1
        conn.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, time.perf_counter() - t0, errors


def cli_baseline(bodies: dict[str, list[str]], runs: int) -> dict[str, float]:
    """Median seconds of `attncalc check PROBLEM ANSWERS --format json` per answer, per problem."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, bs in bodies.items():
            answers = Path(tmp) / f"{name}.json"
            answers.write_text(json.dumps(json.loads(bs[1])["answers"]))
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                subprocess.run(
                    [PY, "-m", "attncalc", "check", str(PROBLEMS[name]), str(answers), "--format", "json"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={**os.environ, "PYTHONPATH": str(ROOT)},
                    check=False,
                )
                times.append(time.perf_counter() - t0)
            out[name] = statistics.median(times)
    return out


def same_as_cli(port: int, bodies: dict[str, list[str]]) -> bool:
    """The server's JSON for the slip is the command's (a benchmark of wrong answers is worthless)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, bs in bodies.items():
            answers = Path(tmp) / "a.json"
            answers.write_text(json.dumps(json.loads(bs[1])["answers"]))
            cli = subprocess.run(
                [PY, "-m", "attncalc", "check", str(PROBLEMS[name]), str(answers), "--format", "json"],
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            req = urllib.request.Request(
                f"http://127.0.0.1:{port}/problems/{name}/check", bs[1].encode(), {"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(req) as r:
                if json.loads(r.read()) != json.loads(cli.stdout):
                    return False
    return True


def in_process(bodies: dict[str, list[str]], repeat: int = 21) -> dict[tuple[str, int], float]:
    """CPU seconds of one check of each body by the JSON route's work, in this process (median of
    ``repeat`` after one to warm the served problem)."""
    from attncalc.serve.served import Catalog, collect
    from attncalc.serve.work import State, check_json

    served = collect([str(p) for p in PROBLEMS.values()], None, notes=False)
    state = State(Catalog(served), None, 1 << 30, {})  # type: ignore[arg-type]  (no templates: JSON only)
    out = {}
    for name, bs in bodies.items():
        for k, body in enumerate(bs):
            data = body.encode()
            check_json(state, served[name], data)
            times = []
            for _ in range(repeat):
                t0 = time.process_time()
                check_json(state, served[name], data)
                times.append(time.process_time() - t0)
            out[name, k] = statistics.median(times)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=1000, help="answers posted in all (default 1000)")
    ap.add_argument("--seconds", type=float, default=120, help="stop posting after this long")
    ap.add_argument("--workers", type=int, default=1, help="uvicorn workers (attncalc serve --workers)")
    ap.add_argument("--runs", type=int, default=5, help="runs of the command per problem for the baseline")
    args = ap.parse_args()
    bodies = answer_bodies()
    load_before = os.getloadavg()
    proc, port = start_server(args.workers)
    try:
        agree = same_as_cli(port, bodies)
        load(port, bodies, min(args.clients, 8), 40, args.seconds)  # warm the caches of every worker
        latencies, wall, errors = load(port, bodies, args.clients, args.requests, args.seconds)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    load_after = os.getloadavg()
    base = cli_baseline(bodies, args.runs)
    cpu = in_process(bodies)
    rate = len(latencies) / wall
    cli_rate = len(base) / sum(base.values())  # answers per second, the two problems in turn
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [float("nan")] * 99
    print(
        f"attncalc serve --workers {args.workers}: {args.clients} clients, {len(latencies)} answers checked in {wall:.2f} s, {errors} errors"
    )
    print(f"  server JSON identical to `attncalc check --format json`: {'yes' if agree else 'NO'}")
    print(f"  {'':<36} {'answers/s':>10} {'p50':>9} {'p95':>9}")
    print(f"  {'attncalc serve (POST .../check)':<36} {rate:10.1f} {q[49] * 1000:7.1f}ms {q[94] * 1000:7.1f}ms")
    for name, t in base.items():
        print(f"  {'attncalc check, ' + name:<36} {1 / t:10.2f} {t * 1000:7.1f}ms")
    print(
        f"  ratio server / command: {rate / cli_rate:.1f}x (target ≥ 20x); p95 {q[94] * 1000:.0f} ms (target < 250 ms)"
    )
    print(
        f"  load average (1 min) before the load {load_before[0]:.1f}, after it {load_after[0]:.1f} ({os.cpu_count()} cores)"
    )
    shown = ", ".join(
        f"{name} {'key' if k == 0 else 'one entry off'} {t * 1000:.1f} ms" for (name, k), t in cpu.items()
    )
    mean = statistics.mean(cpu.values())
    print(
        f"  in-process CPU per check (no HTTP): {shown}; mean {mean * 1000:.1f} ms = {1 / mean:.0f} answers/s per core"
    )


if __name__ == "__main__":
    main()
