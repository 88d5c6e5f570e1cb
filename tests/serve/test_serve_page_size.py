"""The size of a practice page: a problem whose page would ask more fields than the bound is not
offered (one line on stderr at start, a 422 saying why at its address), counted from the steps'
shapes before anything is rendered; a page is rendered once per worker, and a render not yet
cached is costly work (503 with Retry-After beyond the bound). No timings: the mechanism."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from attncalc.files import MAX_INPUT_BYTES
from attncalc.serve.costly import BUSY, Costly
from attncalc.serve.served import MAX_PAGE_FIELDS

from ..helpers import PROBLEMS
from ..serve_support import client  # skips without the serve extra

_INPUT = re.compile(r'<input id="[^"]*" name="([^"]*)"')


def _bpe_at_the_limits(folder: Path) -> Path:
    """docs' bpe limits at their edge: 100 distinct words of 40 characters (4,099 with the spaces),
    50 merges."""
    rng = random.Random(38)
    words: set[str] = set()
    while len(words) < 100:
        words.add("".join(rng.choice("abcdefghij") for _ in range(40)))
    corpus = " ".join(sorted(words))
    f = folder / "bpe-wide.toml"
    f.write_text(f'title = "wide"\nkind = "bpe"\n[given]\ncorpus = "{corpus}"\nmerges = 50\n[settings]\ndecimals = 0\n')
    return f


def _self_attention(folder: Path, n: int) -> Path:
    rows = ", ".join(f"[{i % 3}, {(i * 7) % 5}]" for i in range(n))
    tokens = ", ".join(f'"t{i}"' for i in range(n))
    f = folder / f"self-{n}.toml"
    f.write_text(
        f'title = "self {n}"\nkind = "self-attention"\nscore = "scaled-dot"\ntokens = [{tokens}]\n'
        f"[given]\nX = [{rows}]\n[settings]\ndecimals = 3\n"
    )
    return f


def _self_attention_fields(n: int) -> int:
    """The entries self-attention over n tokens of width 2 asks, by hand from its steps: Q, K, V and
    the output (n x 2 each), the scores, scaled scores, exponentials and weights (n x n each), and
    the n row sums of the exponentials."""
    return 4 * (n * 2) + 4 * (n * n) + n


def _state(c: Any) -> Any:
    return c.app.app.state.attncalc


def test_a_problem_over_the_bound_is_skipped_at_start_and_its_address_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _bpe_at_the_limits(tmp_path)
    _self_attention(tmp_path, 256)
    shutil.copy(PROBLEMS / "decoder-dot.toml", tmp_path / "decoder-dot.toml")
    c = client([str(tmp_path)])
    err = capsys.readouterr().err.splitlines()
    noted = [line for line in err if "bpe-wide.toml" in line or "self-256.toml" in line]
    assert len(noted) == 2 and all(line.startswith("attncalc: note: skipped ") for line in noted), err
    assert f"asks {_self_attention_fields(256):,} entries" in noted[1]
    index = c.get("/").text
    assert "decoder-dot" in index and "bpe-wide" not in index and "self-256" not in index
    for name in ("bpe-wide", "self-256"):
        for r in (
            c.get(f"/problems/{name}"),
            c.get(f"/problems/{name}/solution"),
            c.post(f"/problems/{name}/check", data={"action": "check"}),
            c.post(f"/problems/{name}/answers.toml", data={"action": "download"}),
        ):
            assert r.status_code == 422 and "attncalc solve" in r.text and "attncalc check" in r.text, r.text[:200]
            assert len(r.content) < 1000
        r = c.post(f"/problems/{name}/check", json={"answers": {"1.pair": "a b"}})
        assert r.status_code == 422 and f"more than a practice page's {MAX_PAGE_FIELDS:,}" in r.json()["error"]
    assert c.get("/problems/decoder-dot").status_code == 200


def test_a_file_named_alone_over_the_bound_is_served_as_its_reason(tmp_path: Path) -> None:
    c = client([str(_self_attention(tmp_path, 40))])
    r = c.get("/problems/self-40")
    assert r.status_code == 422 and f"{_self_attention_fields(40):,} entries" in r.text


@pytest.mark.parametrize("n", [8, 30])  # 30 tokens: 3,870 fields, just under the bound
def test_the_fields_counted_are_the_fields_rendered_and_a_page_under_the_bound_can_be_sent_back(
    tmp_path: Path, n: int
) -> None:
    from attncalc.serve.served import page_fields

    assert _self_attention_fields(n) <= MAX_PAGE_FIELDS < _self_attention_fields(31)
    c = client([str(_self_attention(tmp_path, n))])
    page = c.get(f"/problems/self-{n}")
    names = _INPUT.findall(page.text)
    assert page.status_code == 200 and len(names) == _self_attention_fields(n)
    assert page_fields(_state(c).catalog.served[f"self-{n}"].derivation) == len(names)
    empty = "&".join(f"{x}=" for x in names)
    assert len(empty) < MAX_INPUT_BYTES // 4  # the empty form, far under the default --max-file-size
    r = c.post(
        f"/problems/self-{n}/check",
        content=empty + "&action=check",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 200 and "Type at least one answer" in r.text


def test_every_example_and_drawn_variant_is_under_the_bound() -> None:
    from attncalc.api import generate
    from attncalc.kinds import with_drawer
    from attncalc.serve.served import collect, page_fields

    for name, s in collect([str(PROBLEMS)], None, notes=False).items():
        assert not s.refused, name
    for kind in with_drawer():
        assert page_fields(generate(kind=kind, seed=1, count=1)[0].derivation) <= MAX_PAGE_FIELDS, kind


def test_a_page_is_rendered_once_per_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    from attncalc.serve import app as app_module

    rendered: list[int] = []
    render = app_module.render_page

    def counted(*args: Any, **kw: Any) -> Any:
        rendered.append(1)
        return render(*args, **kw)

    monkeypatch.setattr(app_module, "render_page", counted)
    c = client([str(PROBLEMS / "backward-two-heads.toml")])
    first = c.get("/problems/backward-two-heads")
    second = c.get("/problems/backward-two-heads")
    assert first.status_code == second.status_code == 200 and first.text == second.text and len(rendered) == 1
    c.get("/problems/backward-two-heads?reveal=2")
    c.get("/problems/backward-two-heads?reveal=2")
    assert len(rendered) == 2
    c.get("/problems/backward-two-heads?reveal=999999")  # past the steps: the page with all of them, one key
    c.get("/problems/backward-two-heads?reveal=999998")
    assert len(rendered) == 3


def test_a_variant_page_from_the_cache_still_links_a_new_seed() -> None:
    c = client([str(PROBLEMS / "decoder-dot.toml")], practice=True)
    links = set()
    for _ in range(4):
        page = c.get("/problems/variant-bpe-7").text
        found = re.findall(r'href="(/problems/variant-bpe-\d+)">Another variant', page)
        assert len(found) == 1 and "attncalc-another" not in page
        links.add(found[0])
    assert len(links) > 1  # (four draws from a million: equal by chance about once in 10^18)
    assert "Another variant" not in c.get("/problems/decoder-dot").text


def test_an_uncached_page_is_costly_work_and_a_cached_one_is_not() -> None:
    c = client([str(PROBLEMS / "decoder-dot.toml"), str(PROBLEMS / "backward-two-heads.toml")])
    assert c.get("/problems/decoder-dot").status_code == 200
    _state(c).served_lane = Costly(0, 0)  # no room for any costly work in the served files' lane
    assert c.get("/problems/decoder-dot").status_code == 200  # cached
    r = c.get("/problems/backward-two-heads")  # never rendered: waits its turn, and there is none
    assert r.status_code == 503 and r.headers["retry-after"] == "2" and r.text == BUSY + "\n"
    assert c.get("/problems/decoder-dot?reveal=1").status_code == 503  # another page of it: rendered anew


def test_a_drawn_variant_over_the_bound_is_refused_as_a_file_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """No kind draws a variant near the bound; with the bound lowered below a bpe variant's fields,
    its page, check and solution say why, as a file's do."""
    from attncalc.serve import served

    monkeypatch.setattr(served, "MAX_PAGE_FIELDS", 5)
    c = client([str(PROBLEMS / "decoder-dot.toml")], practice=True)
    for r in (
        c.get("/problems/variant-bpe-3"),
        c.get("/problems/variant-bpe-3/solution"),
        c.post("/problems/variant-bpe-3/check", data={"action": "check"}),
    ):
        assert r.status_code == 422 and "more than a practice page's 5" in r.text and "attncalc solve" in r.text
