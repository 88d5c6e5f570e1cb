"""The Starlette app of ``attncalc serve``: routes (INTERFACE.md, "The practice page"), templates
and guards. A route finds the problem by its served name, calls the library's ``solve``/``check``
and renders a template; a request body is bounded, a bad answer is the message ``check`` gives.

``create_app`` builds the app; ``app_from_env`` is the factory uvicorn's workers import (each worker
reads the problems itself from the settings in :data:`ENV`; nothing is shared between them).
"""

from __future__ import annotations

import functools
import json
import os
import secrets
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote

import anyio.to_thread
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp

from ..errors import AttncalcError
from ..files import MAX_INPUT_BYTES
from . import answers as form
from .costly import Busy, busy
from .guard import Guard, too_large
from .served import Catalog, Served, collect, page_fields
from .shown import shown
from .work import (
    ANOTHER,
    State,
    check_form,
    check_json,
    download_form,
    download_json,
    href,
    kind_of,
    new_variant,
    render_page,
    root,
    whole,
)

T = TypeVar("T")
ENV = "ATTNCALC_SERVE"  # the settings handed to uvicorn's workers, as JSON
MAX_FIELDS = 20000  # fields in one form (the largest example, a 700-step LSTM, has about 2000)
FORM_OWN = ("action", "reveal", "checked")  # the page's form's fields that are no answer


def _static() -> dict[str, tuple[bytes, str]]:
    root = resources.files("attncalc.serve") / "static"
    return {
        "practice.js": ((root / "practice.js").read_bytes(), "text/javascript; charset=utf-8"),
        "practice.css": ((root / "practice.css").read_bytes(), "text/css; charset=utf-8"),
    }


def create_app(paths: list[str], practice: bool = False, max_bytes: int | None = None, notes: bool = True) -> ASGIApp:
    """The app serving the problem files and folders in ``paths`` (read now, with ``max_bytes`` as
    the largest file read; it also bounds a request's body; ``notes``: name the files of a folder
    that are skipped, on stderr). Raises :class:`AttncalcError` for a
    named file that cannot be served, or when nothing is."""
    limit = MAX_INPUT_BYTES if max_bytes is None else max_bytes
    served = collect(paths, limit, notes)
    if not served and not practice:
        where = ", ".join(paths) or "."
        raise AttncalcError(f"{where}: no problem files to serve; give problem files, or folders that hold them")
    env = Environment(
        loader=PackageLoader("attncalc.serve", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=shown,
    )
    state = State(Catalog(served, practice), env, limit, _static())
    routes = [
        Route("/", _endpoint(state, index)),
        Route("/healthz", _endpoint(state, healthz)),
        Route("/static/{file}", _endpoint(state, static)),
        Route("/problems/{name}", _endpoint(state, practice_page)),
        Route("/problems/{name}/check", _endpoint(state, check), methods=["POST"]),
        Route("/problems/{name}/check", _endpoint(state, to_the_page), methods=["GET"]),
        Route("/problems/{name}/answers.toml", _endpoint(state, download), methods=["POST"]),
        Route("/problems/{name}/solution", _endpoint(state, solution)),
        Route("/problems/{name}/problem.toml", _endpoint(state, problem_file)),
    ]
    handlers = {404: _not_found, 405: _not_allowed, _Stop: _stopped, Busy: _busy}
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.router.redirect_slashes = False  # Starlette's redirect names the Host header's host: _not_found's instead
    app.state.attncalc = state  # (what the routes share: the tests look at its caches and bounds)
    return Guard(app, limit)


def app_from_env() -> ASGIApp:
    """The app from the settings ``attncalc serve`` put in the environment (uvicorn's factory)."""
    settings = json.loads(os.environ[ENV])
    return create_app(settings["paths"], settings["practice"], settings["max_bytes"], notes=False)


def _endpoint(state: State, fn: Any) -> Any:
    async def endpoint(request: Request) -> Response:
        response: Response = await fn(state, request)
        return response

    return endpoint


async def _not_found(request: Request, exc: Exception) -> Response:
    """404; or, for an address of a route with trailing slashes (``/problems/NAME/``), a redirect
    to it without them, by path alone under the configured root path (``--root-path``): the request's
    Host header is never repeated in a Location."""
    location = _without_slash(request)
    if location is not None:
        return RedirectResponse(location, status_code=307)
    return PlainTextResponse("Not found.\n", status_code=404)


def _without_slash(request: Request) -> str | None:
    scope = request.scope
    root_path = root(request)
    path = str(scope.get("path", ""))
    path = path[len(root_path) :] if root_path and path.startswith(root_path + "/") else path
    stripped = path.rstrip("/")
    if path == stripped or not stripped.startswith("/") or stripped.startswith("//"):
        return None
    app = scope.get("app")
    routes = app.router.routes if isinstance(app, Starlette) else []
    probe = {**scope, "path": stripped, "root_path": ""}
    if not any(route.matches(probe)[0] is not Match.NONE for route in routes):
        return None
    query = scope.get("query_string", b"").decode("latin-1")
    return root_path + quote(stripped, safe="/") + (f"?{query}" if query else "")


async def _stopped(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, _Stop)
    return exc.response


async def _busy(request: Request, exc: Exception) -> Response:
    return busy(request)


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return PlainTextResponse("Method not allowed.\n", status_code=405)


# ------------------------------------------------------------------------------ routes


async def healthz(state: State, request: Request) -> Response:
    return PlainTextResponse("ok")


async def static(state: State, request: Request) -> Response:
    found = state.static.get(request.path_params["file"])
    if found is None:
        return await _not_found(request, Exception())
    body, media = found
    return Response(body, media_type=media, headers={"cache-control": "public, max-age=3600"})


async def index(state: State, request: Request) -> Response:
    cat = state.catalog
    rows = [
        {
            "name": s.name,
            "href": href(request, s.name),
            "title": s.problem.title,
            "kind": kind_of(s),
            "source": s.source,
        }
        for s in cat.served.values()
        if not s.refused  # (said on stderr at start; its address says why)
    ]
    variants = [{"kind": k, "href": href(request, f"variant-{k}-{secrets.randbelow(10**6)}")} for k in cat.kinds]
    html = state.env.get_template("index.html").render(
        root=root(request), problems=rows, variants=variants, practice=cat.practice
    )
    return HTMLResponse(html)


async def practice_page(state: State, request: Request) -> Response:
    """A problem's page as first shown: rendered once per worker (by steps revealed and root path),
    each render not yet cached in a costly bound (:mod:`.costly`: 503 beyond it), as a new variant
    is drawn there: a served file's in the files' own lane, which no variant drawn fills."""
    reveal = _count(request.query_params.getlist("reveal"))
    if reveal is None:
        return PlainTextResponse(BAD_REVEAL + "\n", status_code=400)
    name = request.path_params["name"]
    cat = state.catalog
    at_hand = cat.at_hand(name)
    if at_hand is not None and at_hand.refused:
        raise _Stop(_refused(request, at_hand))
    if at_hand is not None:
        reveal = min(reveal, len(form.asked(at_hand.derivation)))
    key = (name, reveal, root(request))
    html = cat.page(key) if at_hand is not None else None
    drawn: Served | None = None  # (the problem rendered: a variant may have left the cache since)
    if html is None:
        if not cat.offers(name):
            await _served(state, request)  # (404)

        async def page() -> tuple[str, Served]:
            served = await _served(state, request, gate=False)
            link = ANOTHER if new_variant(request, served, cat.practice) else ""
            made = await in_turn(state, render_page, state, request, served, form.Typed({}), reveal, another=link)
            text = bytes(made.body).decode("utf-8")
            cat.keep_page((name, min(reveal, len(form.asked(served.derivation))), root(request)), text)
            return text, served

        # a served file's page in its own lane: a flood of new variants never refuses it
        made, drawn = await state.lane(name).run(page, key=("page", *key))
        html = made
    served = drawn if drawn is not None else at_hand
    another = new_variant(request, served, cat.practice) if served is not None else ""
    return HTMLResponse(html.replace(ANOTHER, another) if ANOTHER in html else html)


def _refused(request: Request, served: Served) -> Response:
    """A problem too large for a practice page (:data:`~.served.MAX_PAGE_FIELDS`): 422, saying why."""
    if _content_type(request) == "json" and request.method == "POST":
        return Response(
            json.dumps({"error": served.refused}, ensure_ascii=False) + "\n", 422, media_type="application/json"
        )
    return PlainTextResponse(served.refused + "\n", status_code=422)


async def check(state: State, request: Request) -> Response:
    served = await _served(state, request)
    state.catalog.keep(served.name)  # a variant a student works on: kept apart from seeds only looked at
    body = await _body(state, request)
    kind = _content_type(request)
    if kind == "json":
        return await in_turn(state, check_json, state, served, body)
    if kind != "form":
        return _unsupported()
    pairs = _pairs(body, served)
    fields = dict(pairs)
    action = fields.get("action", "check")
    shown = _count([v for k, v in pairs if k == "reveal"])
    if shown is None:
        return await _bad_reveal(state, request, served)
    reveal = shown + (1 if action == "reveal" else 0)
    grade = action == "check" or fields.get("checked") == "1"
    return await in_turn(state, check_form, state, request, served, pairs, reveal, grade)


async def to_the_page(state: State, request: Request) -> Response:
    """GET of a check's address (the page reloaded after a Check without JavaScript, or the address
    shared): the problem's page, where the answers are typed (303: a GET)."""
    served = await _served(state, request)
    return RedirectResponse(href(request, served.name), status_code=303)


async def download(state: State, request: Request) -> Response:
    served = await _served(state, request)
    state.catalog.keep(served.name)
    body = await _body(state, request)
    kind = _content_type(request)
    if kind == "json":
        return await in_turn(state, download_json, state, served, body)
    if kind != "form":
        return _unsupported()
    pairs = _pairs(body, served)
    if _count([v for k, v in pairs if k == "reveal"]) is None:
        return await _bad_reveal(state, request, served)
    return await in_turn(state, download_form, state, request, served, pairs)


async def solution(state: State, request: Request) -> Response:
    served = await _served(state, request)
    shown = _count(request.query_params.getlist("reveal"))  # ?reveal=1: the staged sheet; 0 or none: the whole
    if shown is None:
        return PlainTextResponse(BAD_REVEAL + "\n", status_code=400)
    reveal = shown > 0

    from markupsafe import escape

    back = href(request, served.name)  # quoted: a served name in a URL path

    def sheet() -> str:
        from ..render.writers import render

        html = render([state.catalog.derivation(served)], "html", "solution", reveal=reveal)
        # an empty icon, as the practice pages have, so the browser asks for no /favicon.ico (a 404)
        return html.replace('<meta charset="utf-8">', '<meta charset="utf-8">\n<link rel="icon" href="data:,">', 1)

    key = (served.name, reveal)  # all that changes the sheet (the back link, by the root path, is put in after)
    html = state.catalog.sheet(key)
    if html is None:  # rendered once per worker: 0.1-0.4 s of CPU for the larger problems, in the costly bound
        html = await state.lane(served.name).run(lambda: in_turn(state, sheet), key=("sheet", *key))
        state.catalog.keep_sheet(key, html)
    return HTMLResponse(
        html.replace("<body>", f'<body>\n<p><a href="{escape(back)}">Back to the practice page</a></p>', 1)
    )


async def problem_file(state: State, request: Request) -> Response:
    """A generated variant as a problem file (as `generate` writes it), for `attncalc check`; a
    served file is not given out (it may hold an [answers] table)."""
    served = await _served(state, request)
    if served.raw is None:
        return await _not_found(request, Exception())
    state.catalog.keep(served.name)
    from ..homework.generate import problem_toml

    seed = int(served.name.rsplit("-", 1)[1])
    disposition = f'attachment; filename="{served.name}.toml"'
    return Response(
        problem_toml(served.raw, seed),
        media_type="application/toml; charset=utf-8",
        headers={"content-disposition": disposition},
    )


# ------------------------------------------------------------------------------ helpers


async def in_turn(state: State, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
    """``fn(*args, **kw)`` in the worker's grading thread, once the requests before it are done.

    Grading is CPU work under the interpreter's lock: threads sharing it would take turns every few
    milliseconds, so that with 25 requests in a worker each would wait for all the others, and a long
    check (a wrong step, recomputed from the answerer's numbers) longest. One at a time, in the order
    they came, each waits only for those before it, and the event loop still reads the next requests
    (and answers /healthz) meanwhile. More processes (``--workers``) use more cores."""
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kw), limiter=state.limiter)


BAD_REVEAL = "reveal: expected a number of steps (0, 1, 2, ...), given once."


def _count(given: list[str]) -> int | None:
    """``reveal=K`` (a page's query, a form's field; each value given) as a number of steps (absent: 0);
    None when it is not one (only ASCII digits are: ``"²"`` is a digit to ``str.isdigit`` but not to
    ``int``; an empty ``reveal=`` and ``%ff`` are none) or when two values differ (``reveal=1&reveal=2``:
    which was meant? the page never sends two)."""
    if not given:
        return 0
    if len(set(given)) > 1:
        return None
    text = given[0]
    if not (text.isascii() and text.isdigit()):
        return None
    return whole(text, 10**6)  # (a count over the steps shows them all)


async def _bad_reveal(state: State, request: Request, served: Served) -> Response:
    """A form whose ``reveal`` is not a count (the page never sends one): the page, 422, saying so."""
    return await in_turn(state, render_page, state, request, served, form.Typed({}), problem=BAD_REVEAL, status=422)


class _Stop(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


def _content_type(request: Request) -> str:
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return {"application/json": "json", "application/x-www-form-urlencoded": "form", "": "form"}.get(media, "")


def _unsupported() -> Response:
    return PlainTextResponse(
        "Send the answers as a form (application/x-www-form-urlencoded) or as JSON (application/json).\n",
        status_code=415,
    )


def _pairs(body: bytes, served: Served) -> list[tuple[str, str]]:
    """A form's fields, at most as many as the problem's page has (one per entry, and the form's own
    three): more are refused (413) counted, before any is read, so a flood of bad fields costs the
    grading thread no more than a full page does."""
    entries = page_fields(served.derivation)
    limit = min(MAX_FIELDS, entries + len(FORM_OWN))
    try:
        # bytes that are not UTF-8 stay lone surrogates, so the field they are in is named (422)
        text = body.decode("utf-8", "surrogateescape")
        return parse_qsl(text, keep_blank_values=True, max_num_fields=limit, errors="surrogateescape")
    except ValueError:
        said = f"More than {limit} fields: this problem's page has {entries} answer fields."
        raise _Stop(PlainTextResponse(said + "\n", status_code=413)) from None


async def _served(state: State, request: Request, gate: bool = True) -> Served:
    """The problem a request names (404 if none); a variant not drawn yet is drawn in the costly bound
    (unless ``gate`` is False: the caller's work is in it already)."""
    name = request.path_params["name"]
    cat = state.catalog
    found = cat.served.get(name)
    if found is not None and found.refused:
        raise _Stop(_refused(request, found))
    if found is not None:  # a file's problem, read at start: no thread needed to look it up
        return found
    try:  # a variant may have to be drawn and solved: in a worker thread
        if gate and cat.offers(name) and not cat.drawn(name):
            served = await state.costly.run(lambda: in_turn(state, cat.get, name), key=("draw", name))
        else:
            served = await in_turn(state, cat.get, name)
    except AttncalcError:
        served = None
    if served is None:
        raise _Stop(PlainTextResponse("No problem of that name is served here.\n", status_code=404))
    if served.refused:
        raise _Stop(_refused(request, served))
    return served


async def _body(state: State, request: Request) -> bytes:
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > state.max_body:
                raise _Stop(too_large(state.max_body, _content_type(request) == "json"))
            chunks.append(chunk)
    except ClientDisconnect:  # gone before its body came (or closed for its slowness): no one to answer, no traceback
        raise _Stop(PlainTextResponse("The request's body did not come.\n", status_code=400)) from None
    return b"".join(chunks)
