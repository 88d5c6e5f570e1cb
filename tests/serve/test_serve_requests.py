"""What any request to `attncalc serve` gets: odd query and form values are 4xx on every route
(never a 500), the trailing-slash redirect never repeats the Host header, and no response tells the
served folder's absolute path (in-process, Starlette's TestClient)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS
from ..serve_support import client  # skips without the serve extra

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


@pytest.mark.parametrize("value", ["²", "⁴", "٣", "１", "-1", "1e3", "x", "\x00", ""])
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


@pytest.mark.parametrize("query", ["reveal=", "reveal=%ff", "reveal=%C2%B2", "reveal=-1", "reveal=1e3", "reveal=x"])
@pytest.mark.parametrize("route", ["/problems/decoder-dot", "/problems/decoder-dot/solution"])
def test_a_reveal_query_that_is_not_a_count_is_400_on_both_pages(
    served: tuple[Any, Path], route: str, query: str
) -> None:
    """docs/interface.md: ?reveal=K with K in ASCII digits, anything else 400: an empty ?reveal= and
    ?reveal=%ff (no UTF-8) were 200 on the solution sheet (any text but "0" staged it), and an
    empty one 200 on the practice page."""
    c, _ = served
    r = c.get(f"{route}?{query}")
    assert r.status_code == 400 and "reveal: expected a number of steps" in r.text, (route, query, r.status_code)


def test_a_reveal_given_twice_differently_is_refused(served: tuple[Any, Path]) -> None:
    """reveal=1&reveal=2 (the page never sends two): which was meant? The hostile tryout 28 found it
    answered 200, one of the two taken; now refused as a reveal that is no count. The same count twice
    is that count."""
    c, _ = served
    for route in ("/problems/decoder-dot", "/problems/decoder-dot/solution"):
        assert c.get(f"{route}?reveal=1&reveal=2").status_code == 400, route
        assert c.get(f"{route}?reveal=1&reveal=1").status_code == 200, route
    for route in POST_ROUTES:
        r = c.post(route, content=b"reveal=1&reveal=2&weights%5B0%5D=0.5", headers={"content-type": FORM})
        assert r.status_code == 422 and "reveal: expected a number of steps" in r.text, route
        r = c.post(route, content=b"reveal=1&reveal=1&weights%5B0%5D=0.5", headers={"content-type": FORM})
        assert r.status_code == 200, route


def test_the_solution_sheet_is_staged_by_a_count(served: tuple[Any, Path]) -> None:
    c, _ = served
    plain, zero = c.get("/problems/decoder-dot/solution"), c.get("/problems/decoder-dot/solution?reveal=0")
    staged = c.get("/problems/decoder-dot/solution?reveal=1")
    assert plain.status_code == zero.status_code == staged.status_code == 200
    assert "<details" not in plain.text and "<details" not in zero.text and "<details" in staged.text


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
    from ..serve_support import TestClient, create_app

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


def test_a_variant_name_with_a_trailing_newline_is_no_name(served: tuple[Any, Path]) -> None:
    """variant-bpe-1%0a was taken as seed 1 (a regex's $ matches before a final newline): a second name
    for one seed, and its download's Content-Disposition header held the newline (no reply, a traceback)."""
    c, _ = served
    assert c.get("/problems/variant-bpe-1").status_code == 200
    for route in (
        "/problems/variant-bpe-1%0a",
        "/problems/variant-bpe-1%0a/problem.toml",
        "/problems/variant-bpe-1%0a/solution",
    ):
        assert c.get(route).status_code == 404, route
    r = c.post("/problems/variant-bpe-1%0a/answers.toml", content=b"action=download", headers={"content-type": FORM})
    assert r.status_code == 404


@pytest.mark.parametrize("key", ["problem", "student"])
def test_the_json_route_refuses_an_answers_files_own_keys_as_the_form_does(served: tuple[Any, Path], key: str) -> None:
    """{"answers": {"problem": "../../etc/passwd", ...}} was graded and written into the download; the
    form refuses the same field as not an answer field of this problem."""
    c, _ = served
    body = {"answers": {key: "../../etc/passwd", "exp_sum": "17.496"}}
    r = c.post("/problems/decoder-dot/check", json=body)
    assert r.status_code == 422 and "is not an answer field of this problem" in r.text
