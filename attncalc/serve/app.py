"""The Starlette app of ``attncalc serve``: routes (INTERFACE.md, "The practice page"), templates
and guards. A route finds the problem by its served name, calls the library's ``solve``/``check``
and renders a template; a request body is bounded, a bad answer is the message ``check`` gives.

``create_app`` builds the app; ``app_from_env`` is the factory uvicorn's workers import (each worker
reads the problems itself from the settings in :data:`ENV`; nothing is shared between them).
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, quote

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..check import flatten_ids
from ..errors import AttncalcError, ProblemError
from ..files import MAX_INPUT_BYTES
from . import answers as form
from .page import page_context, question_html, revealed_html, step_views, summary_of
from .served import Catalog, Served, collect

ENV = "ATTNCALC_SERVE"  # the settings handed to uvicorn's workers, as JSON
MAX_MARKED = 12  # bad entries marked in one answer before the rest is left to the next Check
MAX_FIELDS = 20000  # fields in one form (the largest example, a 700-step LSTM, has about 2000)

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class TooLarge(Exception):
    pass


class Guard:
    """Security headers on every response; a body over the limit refused (413) before it is read."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        for key, value in scope.get("headers", []):
            if key == b"content-length" and (not value.isdigit() or int(value) > self.max_body):
                await _too_large(self.max_body)(scope, receive, send_with_headers)
                return
        await self.app(scope, receive, send_with_headers)


def _too_large(limit: int) -> Response:
    return PlainTextResponse(f"The answers are over the limit of {limit} bytes.\n", status_code=413)


@dataclass
class State:
    catalog: Catalog
    env: Environment
    max_body: int
    static: dict[str, tuple[bytes, str]]


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
        raise AttncalcError(f"{', '.join(paths) or 'no paths'}: no problem files to serve")
    env = Environment(
        loader=PackageLoader("attncalc.serve", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    state = State(Catalog(served, practice), env, limit, _static())
    routes = [
        Route("/", _endpoint(state, index)),
        Route("/healthz", _endpoint(state, healthz)),
        Route("/static/{file}", _endpoint(state, static)),
        Route("/problems/{name}", _endpoint(state, practice_page)),
        Route("/problems/{name}/check", _endpoint(state, check), methods=["POST"]),
        Route("/problems/{name}/answers.toml", _endpoint(state, download), methods=["POST"]),
        Route("/problems/{name}/solution", _endpoint(state, solution)),
    ]
    handlers = {404: _not_found, 405: _not_allowed, _Stop: _stopped}
    app = Starlette(routes=routes, exception_handlers=handlers)
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
    return PlainTextResponse("Not found.\n", status_code=404)


async def _stopped(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, _Stop)
    return exc.response


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
        {"name": s.name, "href": _href(request, s.name), "title": s.problem.title, "kind": _kind(s), "source": s.source}
        for s in cat.served.values()
    ]
    variants = [{"kind": k, "href": _href(request, f"variant-{k}-{secrets.randbelow(10**6)}")} for k in cat.kinds]
    html = state.env.get_template("index.html").render(
        root=_root(request), problems=rows, variants=variants, practice=cat.practice
    )
    return HTMLResponse(html)


async def practice_page(state: State, request: Request) -> Response:
    served = await _served(state, request)
    reveal = _int(request.query_params.get("reveal"), 0)
    return await run_in_threadpool(_render_page, state, request, served, form.Typed({}), reveal=reveal)


async def check(state: State, request: Request) -> Response:
    served = await _served(state, request)
    body = await _body(state, request)
    kind = _content_type(request)
    if kind == "json":
        return await run_in_threadpool(_check_json, state, served, body)
    if kind != "form":
        return _unsupported()
    pairs = _pairs(body)
    fields = dict(pairs)
    action = fields.get("action", "check")
    reveal = _int(fields.get("reveal"), 0) + (1 if action == "reveal" else 0)
    grade = action == "check" or fields.get("checked") == "1"
    return await run_in_threadpool(_check_form, state, request, served, pairs, reveal, grade)


async def download(state: State, request: Request) -> Response:
    served = await _served(state, request)
    body = await _body(state, request)
    kind = _content_type(request)
    if kind == "json":
        return await run_in_threadpool(_download_json, state, served, body)
    if kind != "form":
        return _unsupported()
    return await run_in_threadpool(_download_form, state, request, served, _pairs(body))


async def solution(state: State, request: Request) -> Response:
    served = await _served(state, request)
    reveal = request.query_params.get("reveal", "") not in ("", "0")

    def sheet() -> str:
        from ..render.writers import render

        return render([state.catalog.derivation(served)], "html", "solution", reveal=reveal)

    return HTMLResponse(await run_in_threadpool(sheet))


# ------------------------------------------------------------------------------ helpers


class _Stop(Exception):
    def __init__(self, response: Response) -> None:
        self.response = response


def _root(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")


def _href(request: Request, name: str, tail: str = "") -> str:
    return f"{_root(request)}/problems/{quote(name, safe='')}{tail}"


def _kind(s: Served) -> str:
    p = s.problem
    return p.kind + (f" ({p.score})" if p.score else "")


def _int(text: str | None, default: int) -> int:
    return int(text) if text is not None and text.isdigit() and len(text) < 7 else default


def _content_type(request: Request) -> str:
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return {"application/json": "json", "application/x-www-form-urlencoded": "form", "": "form"}.get(media, "")


def _unsupported() -> Response:
    return PlainTextResponse(
        "Send the answers as a form (application/x-www-form-urlencoded) or as JSON (application/json).\n",
        status_code=415,
    )


def _pairs(body: bytes) -> list[tuple[str, str]]:
    try:
        return parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except ValueError:
        raise _Stop(PlainTextResponse(f"More than {MAX_FIELDS} fields.\n", status_code=413)) from None


async def _served(state: State, request: Request) -> Served:
    name = request.path_params["name"]
    try:
        served = await run_in_threadpool(state.catalog.get, name)
    except AttncalcError:
        served = None
    if served is None:
        raise _Stop(PlainTextResponse("No problem of that name is served here.\n", status_code=404))
    return served


async def _body(state: State, request: Request) -> bytes:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > state.max_body:
            raise _Stop(_too_large(state.max_body))
        chunks.append(chunk)
    return b"".join(chunks)


def _grade(served: Served, answers: dict[str, Any]) -> tuple[Any, dict[str, str]]:
    """check's report of the answers, or None and check's message for each bad entry (by field, or
    by step id or "" when it names no single field), found one after the other."""
    from ..api import check as api_check

    errors: dict[str, str] = {}
    for _ in range(MAX_MARKED):
        if not answers:
            break
        try:
            report = api_check(served.problem, answers)
        except ProblemError as exc:
            field = form.field_of_error(exc, answers)
            if field is None or field in errors:
                errors[exc.key if exc.key in answers else ""] = _message(exc)
                break
            errors[field] = _message(exc)
            answers = form.without_field(answers, field)
            continue
        return (report if not errors else None), errors
    return None, errors


def _message(exc: ProblemError) -> str:
    return exc.message


def _check_form(
    state: State, request: Request, served: Served, pairs: list[tuple[str, str]], reveal: int, grade: bool
) -> Response:
    d = state.catalog.derivation(served)
    try:
        typed = form.typed_from_form(pairs, d)
    except form.FormError as exc:
        return _render_page(state, request, served, form.Typed({}), reveal, problem=str(exc), status=422)
    if not grade:
        return _render_page(state, request, served, typed, reveal)
    answers = form.answers_of(typed, d)
    if not answers:
        note = "Type at least one answer, then Check."
        return _render_page(state, request, served, typed, reveal, problem=note, checked=False)
    report, errors = _grade(served, answers)
    status = 422 if errors else 200
    return _render_page(state, request, served, typed, reveal, report=report, errors=errors, status=status)


def _json_answers(served: Served, body: bytes) -> tuple[dict[str, Any] | None, Response | None]:
    try:
        answers = form.parse_json_answers(body)
        flatten_ids(answers)
    except ProblemError as exc:
        return None, _json_error(str(exc))
    return answers, None


def _json_error(message: str) -> Response:
    return Response(json.dumps({"error": message}, ensure_ascii=False) + "\n", 422, media_type="application/json")


def _check_json(state: State, served: Served, body: bytes) -> Response:
    from ..api import check as api_check
    from ..render.check_view import reports_json

    answers, failed = _json_answers(served, body)
    if failed is not None:
        return failed
    assert answers is not None
    try:
        report = api_check(served.problem, answers)
    except ProblemError as exc:
        return _json_error(str(exc))
    return Response(reports_json([report]), media_type="application/json")


def _download_json(state: State, served: Served, body: bytes) -> Response:
    from ..api import check as api_check

    answers, failed = _json_answers(served, body)
    if failed is not None:
        return failed
    assert answers is not None
    try:
        api_check(served.problem, answers)  # what cannot be graded is not written
    except ProblemError as exc:
        return _json_error(str(exc))
    flat = flatten_ids(answers)
    return _toml(served, state.catalog.derivation(served), {k: _text(v) for k, v in flat.items()})


def _text(x: Any) -> Any:
    if isinstance(x, list):
        return [_text(v) for v in x]
    if isinstance(x, Decimal):
        return format(x, "f")
    return str(x)


def _download_form(state: State, request: Request, served: Served, pairs: list[tuple[str, str]]) -> Response:
    d = state.catalog.derivation(served)
    fields = dict(pairs)
    reveal = _int(fields.get("reveal"), 0)
    try:
        typed = form.typed_from_form(pairs, d)
    except form.FormError as exc:
        return _render_page(state, request, served, form.Typed({}), reveal, problem=str(exc), status=422)
    answers = form.answers_of(typed, d)
    if not answers:
        note = "Type at least one answer, then download them."
        return _render_page(state, request, served, typed, reveal, problem=note, checked=False)
    _, errors = _grade(served, answers)
    if errors:
        return _render_page(state, request, served, typed, reveal, errors=errors, status=422)
    return _toml(served, d, answers)


def _toml(served: Served, d: Any, answers: dict[str, Any]) -> Response:
    text = form.answers_toml(answers, d, served.name)
    disposition = f'attachment; filename="{served.name}-answers.toml"'
    return Response(text, media_type="application/toml; charset=utf-8", headers={"content-disposition": disposition})


def _render_page(
    state: State,
    request: Request,
    served: Served,
    typed: form.Typed,
    reveal: int = 0,
    *,
    report: Any = None,
    errors: dict[str, str] | None = None,
    problem: str = "",
    status: int = 200,
    checked: bool | None = None,
) -> Response:
    cat = state.catalog
    d = cat.derivation(served)
    errors = errors or {}
    views = step_views(d, typed, errors, report)
    reveal = max(0, min(reveal, len(views)))
    if reveal:
        staged = cat.cached(("reveal", served.name), lambda: revealed_html(d))
        assert isinstance(staged, dict)
        for v in views[:reveal]:
            v.revealed = staged.get(v.id, "")
    question = cat.cached(("question", served.name), lambda: question_html(d))
    other_errors = [m for k, m in errors.items() if k == ""]
    another = ""
    if not served.source and cat.practice:
        another = _href(request, f"variant-{served.problem.kind}-{secrets.randbelow(10**6)}")
    html = state.env.get_template("practice.html").render(
        root=_root(request),
        href=_href(request, served.name),
        name=served.name,
        source=served.source,
        question=Markup(question),
        steps=views,
        revealed_html=Markup,
        summary=summary_of(report, d) if report is not None else None,
        reveal=reveal,
        next_reveal=views[reveal].anchor if reveal < len(views) else "",
        checked=(report is not None or bool(errors)) if checked is None else checked,
        problem=problem or ("; ".join(other_errors)),
        bad=len(errors),
        another=another,
        **page_context(d),
    )
    return HTMLResponse(html, status_code=status)
