"""`attncalc serve` under hostile requests: names that are not served (traversal, encoded or not)
are 404, bodies over the limit 413, bad answers check's message (JSON 422), never a 500; every user
text escaped; a Content-Security-Policy without inline script; the file limits on served files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..helpers import PROBLEMS
from ..serve_support import client, examples_client, field_value  # skips without the serve extra

TRAVERSALS = [
    "/problems/..%2F..%2Fpyproject",
    "/problems/..%2fdecoder-dot",
    "/problems/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/problems/%252e%252e%252fpyproject",
    "/problems/../pyproject",
    "/problems/decoder-dot.toml",
    "/problems/%2Fetc%2Fpasswd",
    "/problems/problems%2Fdecoder-dot",
    "/problems/decoder-dot%00",
    "/problems/answers",
    "/problems/" + "a" * 5000,
    "/problems/variant-attention-99999999999",
    "/problems/variant-nonsense-1",
]


@pytest.mark.parametrize("url", TRAVERSALS)
def test_a_name_that_is_not_served_is_404(url: str) -> None:
    c = examples_client()
    for tail in ("", "/solution"):
        assert c.get(url + tail).status_code == 404
    for tail in ("/check", "/answers.toml"):
        assert c.post(url + tail, data={"weights[0]": "1"}).status_code == 404


def test_wrong_methods_are_405() -> None:
    c = examples_client()
    assert c.post("/problems/decoder-dot").status_code == 405
    assert c.put("/problems/decoder-dot/check", content=b"").status_code == 405
    assert c.get("/problems/decoder-dot/answers.toml").status_code == 405


def test_a_check_address_opened_leads_to_its_page() -> None:
    """GET /problems/NAME/check (the page reloaded after a Check without JavaScript, or the address
    shared) is the problem's page, where answers are typed; a name not served is still 404."""
    c = examples_client()
    r = c.get("/problems/decoder-dot/check", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/problems/decoder-dot"
    assert c.get("/problems/decoder-dot/check").status_code == 200
    assert c.get("/problems/..%2fsecret/check", follow_redirects=False).status_code == 404


def test_a_body_over_the_limit_is_413(tmp_path: Path) -> None:
    """--max-file-size bounds a request's body as it bounds an answers file: by Content-Length, and
    counted as it streams when none is sent."""
    import shutil

    shutil.copy(PROBLEMS / "decoder-dot.toml", tmp_path)
    c = client([str(tmp_path)], max_bytes=1000)
    big = "weights[0]=" + "1" * 2000
    r = c.post(
        "/problems/decoder-dot/check", content=big, headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert r.status_code == 413

    def chunks() -> Any:
        for _ in range(30):
            yield b"1" * 100

    r = c.post("/problems/decoder-dot/check", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "over the limit of 1000 bytes" in r.json()["error"]  # JSON, as its other errors
    r = c.post("/problems/decoder-dot/check", content="1" * 2000, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "over the limit" in r.json()["error"]
    ok = c.post("/problems/decoder-dot/check", json={"answers": {"scores": [1, 2, 2]}})
    assert ok.status_code == 200


def test_an_unknown_content_type_is_415() -> None:
    r = examples_client().post("/problems/decoder-dot/check", content=b"x", headers={"content-type": "text/plain"})
    assert r.status_code == 415


def test_a_bad_number_marks_its_field_with_checks_message(cli: Any, tmp_path: Path) -> None:
    """The form: the field is marked (aria-invalid) with the message check gives for the same entry
    in an answers file; 422, no verdicts, the typed text kept; several bad entries all marked."""
    answers = tmp_path / "a.toml"
    answers.write_text('weights = [0.2, "0.3.4", 0.5]\n')
    line = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(answers)).stderr
    message = line.split(": weights: ")[1].strip()  # "entry 2: ..."
    r = examples_client().post(
        "/problems/decoder-dot/check",
        data={"weights[0]": "0.2", "weights[1]": "0.3.4", "weights[2]": "0.5", "scores[2]": "2+", "action": "check"},
    )
    assert r.status_code == 422
    import html

    text = html.unescape(r.text)
    assert f'id="f-4-1-e">{message}</span>' in text
    assert (
        'name="weights[1]" value="0.3.4" class="entry bad" autocomplete="off" autocapitalize="off" autocorrect="off" spellcheck="false" size="6" aria-invalid="true" aria-describedby="f-4-1-e"'
        in r.text
    )
    assert 'id="f-1-2-e">entry 3: ' in text
    assert "2 entries could not be read" in text
    assert '<a href="#f-1-2">the first here</a>' in text  # scores[2], step 1: the first marked field
    assert field_value(r.text, "weights[1]") == "0.3.4"
    assert 'class="step v-' not in r.text


def test_bad_json_answers_are_422_with_checks_line(cli: Any, tmp_path: Path) -> None:
    """JSON: 422 and {"error": the line check prints after "attncalc: error: "}."""
    answers = tmp_path / "a.json"
    answers.write_text('{"weights": [0.2, "0.3.4", 0.5]}')
    line = cli("check", str(PROBLEMS / "decoder-dot.toml"), str(answers)).stderr
    r = examples_client().post("/problems/decoder-dot/check", json={"answers": {"weights": [0.2, "0.3.4", 0.5]}})
    assert r.status_code == 422
    assert r.json()["error"].split(": weights: ")[1] == line.split(": weights: ")[1].strip()
    for body in (
        "{",
        "[]",
        '{"answers": 3}',
        '{"answers": {}}',
        '{"answers": {"weights": NaN}}',
        '{"answers": {"exp_sum": -Infinity}}',
        "\xff",
    ):
        r = examples_client().post(
            "/problems/decoder-dot/check", content=body.encode("latin-1"), headers={"content-type": "application/json"}
        )
        assert r.status_code == 422 and r.json()["error"], body


def test_an_unknown_field_is_422() -> None:
    c = examples_client()
    for name in ("nope[0]", "weights[7]", "weights[0][0]", "<script>", "weights"):
        r = c.post("/problems/decoder-dot/check", data={name: "1", "action": "check"})
        assert r.status_code == 422 and "is not an" in r.text, name
        assert "<script>" not in r.text.split("<main")[1]


JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    answers=st.dictionaries(
        st.sampled_from(["weights", "scores", "context", "prediction", "exp_sum", "x"]), JSON_VALUE, max_size=3
    )
)
def test_any_json_answers_are_graded_or_refused_never_a_500(answers: dict[str, Any]) -> None:
    c = examples_client()
    for route in ("check", "answers.toml"):
        r = c.post(f"/problems/decoder-dot/{route}", json={"answers": answers})
        assert r.status_code in (200, 422), (r.status_code, r.text[:300])
        if r.status_code == 422:
            assert r.json()["error"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fields=st.dictionaries(
        st.sampled_from(
            ["weights[0]", "weights[1]", "scores[2]", "prediction", "exp_sum", "action", "reveal", "checked"]
        ),
        st.text(max_size=30),
        max_size=5,
    )
)
def test_any_form_is_a_page_never_a_500(fields: dict[str, str]) -> None:
    c = examples_client()
    for route in ("check", "answers.toml"):
        r = c.post(f"/problems/decoder-dot/{route}", data=fields)
        assert r.status_code in (200, 422), (r.status_code, r.text[:300])


HOSTILE = "<script>alert(1)</script>"


def test_every_user_text_is_escaped(tmp_path: Path) -> None:
    """Tokens, titles and the vocabulary of a problem, and typed answers, reach the page as text."""
    (tmp_path / "evil.toml").write_text(
        f'title = "{HOSTILE} & co"\nkind = "attention"\nscore = "dot"\n'
        f'tokens = ["<img src=x onerror=alert(1)>", "\\"onmouseover=alert(1) x=\\"", "{HOSTILE}"]\n'
        "[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2], [1, 1]]\n"
        '[head]\ncombine = "add"\nW_out = [[1, 0], [0, 1]]\nvocab = ["<b>A</b>", "B\'"]\n'
    )
    c = client([str(tmp_path)])
    pages = [
        c.get("/").text,
        c.get("/problems/evil").text,
        c.post("/problems/evil/check", data={"weights[0]": '"><script>alert(2)</script>', "action": "check"}).text,
        c.post("/problems/evil/check", data={"action": "reveal", "reveal": "9"}).text,
        c.get("/problems/evil/solution?reveal=1").text,
    ]
    for page in pages:
        assert "<script>alert" not in page and "<img src=x" not in page and "<b>A</b>" not in page
        assert not re.search(r"<[^>]*\sonmouseover=", page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in pages[1]
    assert field_value(pages[2], "weights[0]") == '"><script>alert(2)</script>'


def test_security_headers_and_no_inline_script() -> None:
    """Every response carries a CSP whose scripts come only from the server (no 'unsafe-inline'),
    and no page holds an inline script or an event handler attribute."""
    c = examples_client()
    responses = [
        c.get("/"),
        c.get("/problems/decoder-dot"),
        c.post("/problems/decoder-dot/check", data={"weights[0]": "x", "action": "check"}),
        c.get("/problems/decoder-dot/solution?reveal=1"),
        c.get("/problems/nope"),
        c.get("/healthz"),
    ]
    for r in responses:
        csp = r.headers["content-security-policy"]
        script = next(p for p in csp.split(";") if p.strip().startswith("script-src"))
        assert script.split()[1:] == ["'self'"]
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert not re.search(r"<script(?![^>]*\ssrc=)[^>]*>", r.text)
        assert not re.search(r"<[a-z]+[^>]*\son[a-z]+=", r.text)


def test_the_file_limits_apply_to_served_files(tmp_path: Path) -> None:
    """A file over --max-file-size is not served: named on the command line it is refused; in a
    folder it is skipped with a note, and an answers file there is no problem."""
    from attncalc.errors import AttncalcError
    from attncalc.serve.app import create_app

    (tmp_path / "big.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text() + "\n" + "#" * 3000 + "\n")
    (tmp_path / "small.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text())
    (tmp_path / "key.toml").write_text('problem = "small.toml"\nweights = [0.155, 0.422, 0.422]\n')
    with pytest.raises(AttncalcError, match=r"big\.toml"):
        create_app([str(tmp_path / "big.toml")], max_bytes=2000)
    c = client([str(tmp_path)], max_bytes=2000)
    assert c.get("/problems/small").status_code == 200
    assert c.get("/problems/big").status_code == 404 and c.get("/problems/key").status_code == 404


def test_names_are_made_unique(tmp_path: Path) -> None:
    one, two = tmp_path / "a", tmp_path / "b"
    one.mkdir(), two.mkdir()
    for folder in (one, two):
        (folder / "p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text())
    (one / "variant-attention-3.toml").write_text((PROBLEMS / "lecture-dot.toml").read_text())
    c = client([str(one), str(two)], practice=True)
    assert c.get("/problems/p").status_code == c.get("/problems/p-2").status_code == 200
    assert "Lecture" in c.get("/problems/file-variant-attention-3").text
    assert "Lecture" not in c.get("/problems/variant-attention-3").text  # the generated variant


@pytest.mark.parametrize("control", ["\x01", "\x07", "\x08", "\x0b", "\x0c", "\r", "\x1b", "\x7f"])
def test_a_control_character_in_a_title_or_token_is_shown_escaped_on_every_page(tmp_path: Path, control: str) -> None:
    """A title "T<control>U" and a token "x<control>1" reached the index and the practice page raw
    (invisible, and no valid HTML), while the solution page showed \\x08: every page shows the escape."""
    import json

    escaped = f"\\x{ord(control):02x}"
    f = tmp_path / "cc.json"
    raw = {"title": f"T{control}U", "tokens": [f"x{control}1", "x2"], "kind": "attention"}
    f.write_text(json.dumps({**raw, "given": {"query": [1, 1], "keys": [[1, 0], [0, 2]]}}))
    c = client([str(f)])
    for route in ("/", "/problems/cc", "/problems/cc/solution"):
        page = c.get(route).text
        assert control not in page, route
        assert f"T{escaped}U" in page, route
    practice = c.get("/problems/cc").text
    assert f"x{escaped}1" in practice
    typed = c.post("/problems/cc/check", data={"weights[0]": "0.5 & <b>", "action": "check"}).text
    assert field_value(typed, "weights[0]") == "0.5 & <b>"  # typed text shown as typed (HTML-escaped once)


@pytest.mark.parametrize("control", ["\n", "\t", "\x85", "\u2028"])
def test_a_newline_or_tab_in_a_token_or_label_is_shown_escaped_on_the_practice_page(
    tmp_path: Path, control: str
) -> None:
    """A token "a\\nb" was shown raw: in HTML it reads "a b", as a token "a b" does (while \\r, U+0085
    and U+2028 were escaped). Every place the practice page shows a token writes its escape. (A vocabulary
    label holding one is refused when the problem is read: tests/input/test_label_refusals.py.)"""
    import json

    escaped = f"\\x{ord(control):02x}" if ord(control) < 0x100 else f"\\u{ord(control):04x}"
    f = tmp_path / "nl.json"
    raw = {"title": f"T{control}U", "tokens": [f"a{control}b", "a b"], "kind": "attention"}
    head = {"W_out": [[1, 0], [0, 1]], "vocab": ["A", "B"], "combine": "add"}
    f.write_text(json.dumps({**raw, "given": {"query": [1, 1], "keys": [[1, 0], [0, 2]]}, "head": head}))
    c = client([str(f)])
    page = c.get("/problems/nl").text
    # the givens' table, the columns' heads and every field's label: escaped, never raw
    assert f"a{control}b" not in page and f"T{control}U" not in page
    assert page.count(f"a{escaped}b") >= 3 and f"T{escaped}U" in page
    assert f"T{escaped}U" in c.get("/").text
    # a checked page: no raw control either
    checked = c.post("/problems/nl/check", data={"prediction": "A", "action": "check"}).text
    assert f"a{control}b" not in checked
