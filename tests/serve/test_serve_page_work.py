"""The costly work behind a plain GET of the practice page: a new variant drawn (0.05-1.4 s of CPU for
the larger kinds) and a solution sheet rendered (0.1-0.4 s). A solution sheet is rendered once and
served from a cache after; at most a few costly works are admitted at once, the others answered 503
with Retry-After at once, while cheap requests (a cached page or sheet, a check) are never refused;
variants only looked at do not push out the variants students check. No timings: the mechanism."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from attncalc.serve.costly import BUSY, Costly
from attncalc.serve.served import FRESH, Catalog

from ..helpers import PROBLEMS
from ..serve_support import client  # skips without the serve extra

DOT = "decoder-dot"


def _app(*names: str, practice: bool = True) -> Any:
    return client([str(PROBLEMS / f"{n}.toml") for n in names or (DOT,)], practice=practice)


def _state(c: Any) -> Any:
    return c.app.app.state.attncalc  # (the Guard around the Starlette app)


def test_a_solution_sheet_is_rendered_once_and_then_served_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    from attncalc.render import writers

    rendered: list[bool] = []
    render = writers.render

    def counted(*args: Any, **kw: Any) -> str:
        rendered.append(kw.get("reveal", False))
        return render(*args, **kw)

    monkeypatch.setattr(writers, "render", counted)
    c = _app("backward-two-heads")
    first = c.get("/problems/backward-two-heads/solution")
    second = c.get("/problems/backward-two-heads/solution")
    assert first.status_code == second.status_code == 200 and first.text == second.text
    assert rendered == [False]  # once
    staged = c.get("/problems/backward-two-heads/solution?reveal=1")
    c.get("/problems/backward-two-heads/solution?reveal=1")
    assert rendered == [False, True] and staged.text != first.text  # the staged sheet: a page of its own
    # under another root path the same sheet, its back link under that path (put in per request)
    from starlette.testclient import TestClient

    other = TestClient(c.app, root_path="/course").get("/problems/backward-two-heads/solution")
    assert rendered == [False, True]
    assert 'href="/course/problems/backward-two-heads">Back' in other.text
    assert other.text.replace("/course/", "/") == first.text


def test_the_sheet_cache_is_bounded_in_bytes_and_count() -> None:
    from attncalc.serve.served import _Lru

    cache = _Lru(3, max_bytes=10)
    for k in range(5):
        cache.put(k, "x" * 4)
    assert [k in cache for k in range(5)] == [False, False, False, True, True] and cache.bytes == 8
    cache.put("big", "y" * 11)  # over the bound by itself: not kept
    assert "big" not in cache and cache.bytes == 0


def test_beyond_the_bound_a_costly_request_is_503_and_a_cheap_one_is_answered() -> None:
    c = _app("decoder-dot", "backward-two-heads")
    assert c.get(f"/problems/{DOT}").status_code == 200  # drawn and cached: cheap from now on
    assert c.get(f"/problems/{DOT}/solution").status_code == 200
    _state(c).costly = Costly(0, 0)  # no room for any costly work
    assert c.get(f"/problems/{DOT}").status_code == 200
    assert c.get(f"/problems/{DOT}/solution").status_code == 200
    check = c.post(f"/problems/{DOT}/check", json={"answers": {"scores": [1, 2, 2]}})
    assert check.status_code == 200 and check.json()["results"][0]["verdict"] == "correct"  # 1, 2, 2 by hand
    for path in ("/problems/variant-bpe-5", "/problems/variant-bpe-5/solution"):
        r = c.get(path)
        assert r.status_code == 503 and r.headers["retry-after"] == "2" and r.text == BUSY + "\n", path
    r = c.post("/problems/variant-bpe-6/check", json={"answers": {}})
    assert r.status_code == 503 and r.json() == {"error": BUSY} and r.headers["retry-after"] == "2"
    assert c.get("/problems/no-such-thing").status_code == 404  # a name not served costs nothing: 404 still
    # a served file's sheet not rendered yet is in the files' own lane: refused only when that is full
    assert c.get("/problems/backward-two-heads/solution").status_code == 200
    _state(c).served_lane = Costly(0, 0)
    for path in ("/problems/backward-two-heads/solution?reveal=1", "/problems/backward-two-heads?reveal=1"):
        r = c.get(path)
        assert r.status_code == 503 and r.headers["retry-after"] == "2" and r.text == BUSY + "\n", path
    assert c.get(f"/problems/{DOT}").status_code == 200  # (cached: never counted)


def test_at_most_the_bound_of_new_variants_is_admitted_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten new seeds asked at once: one is drawn, four wait for it, five are refused at once (503),
    before any draw is done; the admitted ones are then each answered 200."""
    import httpx

    from attncalc.serve import costly

    go = _held_draws(monkeypatch)
    app = _app().app
    bound = costly.AT_ONCE + costly.WAITING
    assert bound == 5

    async def run() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
            tasks = [asyncio.create_task(c.get(f"/problems/variant-bpe-{seed}")) for seed in range(10)]
            while sum(t.done() for t in tasks) < 10 - bound:  # the refused ones, answered without a draw
                await asyncio.sleep(0.01)
            refused = [t.result().status_code for t in tasks if t.done()]
            go.set()
            statuses = [r.status_code for r in await asyncio.gather(*tasks)]
            assert refused == [503] * (10 - bound)
            return statuses

    statuses = asyncio.run(run())
    assert sorted(statuses) == [200] * bound + [503] * (10 - bound)


def test_new_seeds_looked_at_do_not_push_out_a_variant_a_student_checks() -> None:
    catalog = Catalog({}, practice=True)
    mine, looked = "variant-bpe-1", "variant-bpe-2"
    assert catalog.get(mine) is not None and catalog.get(looked) is not None
    catalog.keep(mine)  # checked (or downloaded)
    for seed in range(100, 100 + FRESH + 4):  # a flood of new seeds
        catalog.get(f"variant-bpe-{seed}")
    assert catalog.drawn(mine) and not catalog.drawn(looked)


def test_a_check_keeps_the_variant_and_its_page_drawn() -> None:
    c = _app()
    name = "variant-bpe-3"
    assert c.get(f"/problems/{name}").status_code == 200
    assert c.post(f"/problems/{name}/check", json={"answers": {}}).status_code in (200, 422)
    catalog = _state(c).catalog
    for seed in range(200, 200 + FRESH + 4):
        c.get(f"/problems/variant-bpe-{seed}")
    assert catalog.drawn(name) and catalog.ready(name)  # its page still cheap: no draw, no render


def test_a_real_server_refuses_a_flood_of_new_seeds_and_answers_a_student(tmp_path: Any) -> None:
    """`attncalc serve --practice` in a subprocess on 127.0.0.1: 20 connections asking new seeds in a
    loop for 5 s (bounded) get some pages and many 503s with Retry-After (before, every one was drawn,
    and the student waited behind all of them); a student's page, loaded meanwhile, is answered 200."""
    import shutil
    import sys
    import time

    if not sys.platform.startswith("linux"):
        pytest.skip("the server test runs on Linux")
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    from .test_serve_network import Server

    shutil.copy(PROBLEMS / f"{DOT}.toml", tmp_path)
    server = Server(tmp_path, tmp_path.parent / (tmp_path.name + "-stderr.txt"), ["--practice"], low_files=False)
    seen: dict[int, int] = {}
    retry: set[str] = set()
    lock = threading.Lock()
    stop = threading.Event()

    def flood(k: int) -> None:
        import http.client

        seed = 1000 * k
        while not stop.is_set():
            seed += 1
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=90)
            try:
                conn.request("GET", f"/problems/variant-multi-head-{seed}")
                r = conn.getresponse()
                r.read()
                with lock:
                    seen[r.status] = seen.get(r.status, 0) + 1
                    if r.status == 503:
                        retry.add(r.getheader("retry-after") or "")
            except OSError:
                pass
            finally:
                conn.close()

    try:
        assert server.request("GET", f"/problems/{DOT}")[0] == 200
        threads = [threading.Thread(target=flood, args=(k,)) for k in range(20)]
        for t in threads:
            t.start()
        end = time.monotonic() + 5
        student = []
        while time.monotonic() < end:
            student.append(server.request("GET", f"/problems/{DOT}")[0])
            time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(timeout=120)
        assert student and set(student) == {200}
        assert seen.get(200, 0) >= 1 and seen.get(503, 0) >= 1 and retry == {"2"}, seen
        assert set(seen) <= {200, 503}, seen
        assert server.request("GET", "/healthz")[0] == 200
    finally:
        stop.set()
        server.stop()
    assert "Traceback" not in server.log.read_text()


def test_a_served_files_pages_are_never_refused_for_variants_drawn() -> None:
    """The variants' lane full: a served file nobody opened yet, its ?reveal pages and another file's
    page are answered (their own lane), while a new variant is refused."""
    c = _app("decoder-dot", "backward-two-heads")
    _state(c).costly = Costly(0, 0)  # no room for any variant's work
    assert c.get("/problems/variant-bpe-7").status_code == 503
    page = c.get(f"/problems/{DOT}")
    assert page.status_code == 200 and 'name="scores[0]"' in page.text
    revealed = c.get(f"/problems/{DOT}?reveal=2")
    assert revealed.status_code == 200 and revealed.text != page.text
    assert c.get("/problems/backward-two-heads?reveal=1").status_code == 200
    assert c.get("/problems/backward-two-heads/solution").status_code == 200


def test_a_served_page_waits_its_turn_while_new_variants_are_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten new seeds asked at once, the one drawn held: five are refused; then a served file's page,
    never opened, and its ?reveal are admitted (they wait for the grading thread, not refused) and
    answered 200 once the draw is let go."""
    import httpx

    go = _held_draws(monkeypatch)
    app = _app().app
    limiter = app.app.state.attncalc.limiter

    async def run() -> tuple[list[int], list[int]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
            seeds = [asyncio.create_task(c.get(f"/problems/variant-multi-head-{seed}")) for seed in range(10)]
            while sum(t.done() for t in seeds) < 5:
                await asyncio.sleep(0.01)
            mine = [asyncio.create_task(c.get(f"/problems/{DOT}{q}")) for q in ("", "?reveal=1")]
            # admitted: the first waits for the grading thread (which the held draw has), or answered
            while limiter.statistics().tasks_waiting < 1 and not all(t.done() for t in mine):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)  # (the second reaches its lane meanwhile)
            early = [t.result().status_code for t in mine if t.done()]
            go.set()
            statuses = [r.status_code for r in await asyncio.gather(*mine)]
            drawn = [r.status_code for r in await asyncio.gather(*seeds)]
            assert early == []  # (before: 503 at once, the one bound being full of variants)
            return statuses, drawn

    statuses, drawn = asyncio.run(run())
    assert statuses == [200, 200]
    assert sorted(drawn) == [200] * 5 + [503] * 5


def test_requests_for_a_page_being_rendered_wait_for_that_render(monkeypatch: pytest.MonkeyPatch) -> None:
    """Six requests for one served page never rendered, at once, with no room for a second costly
    work: the page is rendered once and all six get it (they share the render, counted once)."""
    import httpx

    from attncalc.serve import app as app_module

    go = threading.Event()
    rendered: list[int] = []
    render = app_module.render_page

    def held(*args: Any, **kw: Any) -> Any:
        rendered.append(1)
        assert go.wait(60), "the test never let the render go"
        return render(*args, **kw)

    monkeypatch.setattr(app_module, "render_page", held)
    app = _app().app
    app.app.state.attncalc.served_lane = Costly(1, 0)

    async def run() -> list[Any]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as c:
            tasks = [asyncio.create_task(c.get(f"/problems/{DOT}")) for _ in range(6)]
            while not rendered and not any(t.done() for t in tasks):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)  # (the others reach the bound meanwhile)
            go.set()
            return list(await asyncio.gather(*tasks))

    responses = asyncio.run(run())
    assert [r.status_code for r in responses] == [200] * 6
    assert len({r.text for r in responses}) == 1 and rendered == [1]


def _held_draws(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Every practice variant's draw held until the event returned is set (the grading thread busy)."""
    go = threading.Event()
    draw = Catalog._draw

    def held(self: Catalog, *args: Any) -> Any:
        assert go.wait(60), "the test never let the draws go"
        return draw(self, *args)

    monkeypatch.setattr(Catalog, "_draw", held)
    return go
