"""Load, through the app: each served problem is prepared for grading once, and
many answerers checking at the same time (in the app's worker threads, sharing the prepared
problems) each get the report ``attncalc.check`` gives their own answers. No timings:
benchmarks/serve.py measures those."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import attncalc
from attncalc.serve.served import Catalog, collect

from ..helpers import PROBLEMS
from ..serve_support import client  # skips without the serve extra


def test_every_served_problem_is_prepared_for_grading_once() -> None:
    served = collect([str(PROBLEMS)], None, notes=False)
    assert served
    for s in served.values():
        assert s.prepared is not None and s.prepared.problem is s.problem, s.name


def test_a_practice_variant_is_prepared_too() -> None:
    variant = Catalog({}, practice=True).get("variant-attention-7")
    assert variant is not None and variant.prepared is not None and variant.prepared.problem is variant.problem


def _answers() -> list[tuple[str, dict[str, Any]]]:
    """Answers of several answerers: right, one slip (the weights left unnormalised: the exponentials
    as weights, numpy's values here), a typo, skips; on two problems."""
    e = [2.718281828, 7.389056099, 7.389056099]  # exp(1), exp(2), exp(2): decoder-dot's scores 1, 2, 2
    s = sum(e)
    dd = {
        "scores": ["1", "2", "2"],
        "exponentials": [f"{v:.3f}" for v in e],
        "exp_sum": f"{s:.3f}",
        "weights": [f"{v / s:.3f}" for v in e],
    }
    slip = {**dd, "weights": [f"{v:.3f}" for v in e]}
    typo = {**dd, "exp_sum": "17.946"}
    skips = {"scores": ["?", "2", "2"], "weights": dd["weights"]}
    mh = {"Q": [["2", "4", "3", "-2"], ["1", "4", "2", "-1"], ["0", "3", "2", "0"]]}  # X W_Q, by hand
    mh_typo = {"Q": [["2", "4", "3", "-2"], ["1", "4", "2", "-1"], ["0", "3", "2", "1"]]}
    return [
        ("decoder-dot", dd),
        ("decoder-dot", slip),
        ("decoder-dot", typo),
        ("decoder-dot", skips),
        ("mh-self-attention", mh),
        ("mh-self-attention", mh_typo),
    ]


def test_answerers_checking_at_once_each_get_their_own_report() -> None:
    app = client([str(PROBLEMS / "decoder-dot.toml"), str(PROBLEMS / "mh-self-attention.toml")]).app
    work = _answers() * 3

    import httpx  # (the test extra; serve_support skips this module without it)

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            posts = [client.post(f"/problems/{name}/check", json={"answers": a}) for name, a in work]
            return list(await asyncio.gather(*posts))

    responses = asyncio.run(run())
    for (name, answers), r in zip(work, responses, strict=True):
        assert r.status_code == 200, r.text
        expected = attncalc.check(PROBLEMS / f"{name}.toml", answers).to_json()
        got = json.loads(r.text)
        assert got["results"] == json.loads(json.dumps(expected))["results"], (name, answers)
    verdicts = {r["verdict"] for resp in responses for r in json.loads(resp.text)["results"]}
    assert {"correct", "wrong"} <= verdicts
    slip_note = json.loads(responses[1].text)["results"][3]["note"]
    assert "not divided by their sum" in slip_note


def test_a_worker_grades_one_request_at_a_time(monkeypatch: Any) -> None:
    """Requests arriving together are graded one after the other in the worker's grading thread (in
    turn, not sharing the interpreter's lock between threads, which makes each of them late): never
    two checks at once, and each still gets its own report."""
    import threading

    import httpx

    from attncalc.serve import app as app_module

    app = client([str(PROBLEMS / "decoder-dot.toml"), str(PROBLEMS / "mh-self-attention.toml")]).app
    lock = threading.Lock()
    running: list[int] = [0]
    most: list[int] = [0]
    check_json = app_module.check_json

    def watched(*args: Any) -> Any:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            return check_json(*args)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(app_module, "check_json", watched)
    work = _answers() * 4

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            return list(await asyncio.gather(*[c.post(f"/problems/{n}/check", json={"answers": a}) for n, a in work]))

    responses = asyncio.run(run())
    assert [r.status_code for r in responses] == [200] * len(work)
    assert most[0] == 1
    for (name, answers), r in zip(work, responses, strict=True):
        expected = attncalc.check(PROBLEMS / f"{name}.toml", answers).to_json()
        assert json.loads(r.text)["results"] == json.loads(json.dumps(expected))["results"]
