"""The work behind the practice page's routes, run in a worker thread: what was sent, to check's
report (or its message for each bad entry), to the page, the JSON or the answers file.

Every verdict is :func:`attncalc.api.check`'s; this module only carries answers to it and back.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from anyio import CapacityLimiter
from jinja2 import Environment
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from ..check import Report, flatten_ids
from ..check.shapes import glanced
from ..errors import ProblemError
from . import answers as form
from .costly import SERVED_WAITING, Costly
from .download import ANSWERS_FILE, answers_toml, entry_text, in_step_order, read_back
from .page import page_context, question_html, revealed_html, step_views, summary_of
from .served import Catalog, Served

ANOTHER = "/attncalc-another-variant"  # in a cached page: its "Another variant" link, a new seed each time
MAX_MARKED = 12  # bad entries marked in one answer before the rest is left to the next Check


@dataclass
class State:
    catalog: Catalog
    env: Environment
    max_body: int
    static: dict[str, tuple[bytes, str]]
    # the one thread of this worker process that grades and renders: requests wait their turn in the
    # order they came, rather than share the interpreter between many threads (which makes every one
    # late, the longest most: see serve/app.py, in_turn)
    limiter: CapacityLimiter = field(default_factory=lambda: CapacityLimiter(1))
    # the bound on a page's costly work (a new variant, a solution sheet not yet rendered): serve/costly.py
    costly: Costly = field(default_factory=Costly)
    # the files' own lane (their pages and sheets not yet rendered): never refused for variants drawn
    served_lane: Costly = field(default_factory=lambda: Costly(waiting=SERVED_WAITING))

    def lane(self, name: str) -> Costly:
        """The bound a costly work for the problem ``name`` runs in: a served file's, or the variants'."""
        return self.served_lane if name in self.catalog.served else self.costly


def root(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")


def href(request: Request, name: str, tail: str = "") -> str:
    return f"{root(request)}/problems/{quote(name, safe='')}{tail}"


def new_variant(request: Request, served: Served, practice: bool) -> str:
    """The "Another variant" link of a variant's page (a new seed), or "" (a file's page)."""
    if served.source or not practice:
        return ""
    return href(request, f"variant-{served.problem.kind}-{secrets.randbelow(10**6)}")


def kind_of(s: Served) -> str:
    p = s.problem
    return p.kind + (f" ({p.score})" if p.score else "")


def whole(text: str | None, default: int) -> int:
    """``text`` as a count (ASCII digits only: ``"²"`` and other Unicode digits are ``default``, as
    ``int`` refuses them), else ``default``."""
    ok = text is not None and text.isascii() and text.isdigit() and len(text) < 7
    return int(text) if ok and text is not None else default


def check_answers(served: Served, answers: dict[str, Any]) -> Report:
    """What ``attncalc.api.check(problem, answers)`` returns for a dict of answers, with the served
    problem's prepared work (the same report, sooner)."""
    from ..api.args import plain
    from ..check import Tolerance, check

    return check(served.problem, plain(answers, ANSWERS_FILE), ANSWERS_FILE, Tolerance(), prepared=served.prepared)


def grade_as_downloaded(served: Served, d: Any, answers: dict[str, Any]) -> tuple[Report, str]:
    """check's report of the answers file the page downloads for ``answers`` (step id -> text, or
    nested lists of text), and that file's text: the page grades the table read back from the very
    text it writes, as ``attncalc check PROBLEM FILE`` reads it, so their verdicts are the same."""
    text = answers_toml(answers, d, served.name, served.source)
    return check_answers(served, read_back(text)), text


def _grade(served: Served, d: Any, answers: dict[str, Any]) -> tuple[Any, str, dict[str, str]]:
    """The downloaded file's report and text, or None, "" and check's message for each bad entry (by
    field, or by step id or "" when it names no single field), found one after the other."""
    errors: dict[str, str] = {}
    for _ in range(MAX_MARKED):
        if not answers:
            break
        try:
            report, text = grade_as_downloaded(served, d, answers)
        except ProblemError as exc:
            field = form.field_of_error(exc, answers)
            if field is None or field in errors:
                errors[exc.key if exc.key in answers else ""] = _message(exc)
                break
            errors[field] = _message(exc)
            answers = form.without_field(answers, field)
            continue
        return (report, text, errors) if not errors else (None, "", errors)
    return None, "", errors


def _message(exc: ProblemError) -> str:
    return exc.message


def check_form(
    state: State, request: Request, served: Served, pairs: list[tuple[str, str]], reveal: int, grade: bool
) -> Response:
    d = state.catalog.derivation(served)
    typed, unread = form.typed_from_form(pairs, d)
    if unread:  # said at each field (or above the form), and nothing graded until it is fixed
        return render_page(state, request, served, typed, reveal, errors=unread, status=422)
    if not grade:
        return render_page(state, request, served, typed, reveal)
    answers = form.answers_of(typed, d)
    if not answers:
        note = "Type at least one answer, then Check."
        return render_page(state, request, served, typed, reveal, problem=note, checked=False)
    report, _, errors = _grade(served, d, answers)
    status = 422 if errors else 200
    return render_page(state, request, served, typed, reveal, report=report, errors=errors, status=status)


def _json_answers(served: Served, body: bytes) -> tuple[dict[str, Any] | None, Response | None]:
    """The answers of a JSON request as the text each entry is written as in the downloaded file
    (a number with the decimals it was written with: 1.7E+1 as 1.7e+1), or the 422 saying what is wrong."""
    try:
        answers = form.parse_json_answers(body)
        flat = flatten_ids(answers)
        if glanced(flat, served.derivation):  # an answer of another shape than its step: check refuses it
            check_answers(served, in_step_order(flat, served.derivation))  # unread (check/shapes.py)
        for key in glanced(flat, served.derivation, unanswered=True):
            flat[key] = form.UNANSWERED  # "?" throughout, of another shape: not answered, as check reads it
        flat = form.json_labels(flat, served.derivation)
        try:
            return {k: entry_text(v, k) for k, v in flat.items()}, None
        except ProblemError:
            check_answers(served, answers)  # check's own message for what is neither a number nor text
            raise
    except ProblemError as exc:
        return None, _json_error(str(exc))


def _json_error(message: str) -> Response:
    return Response(json.dumps({"error": message}, ensure_ascii=False) + "\n", 422, media_type="application/json")


def check_json(state: State, served: Served, body: bytes) -> Response:
    from ..reports.check_view import report_dict

    answers, failed = _json_answers(served, body)
    if failed is not None:
        return failed
    assert answers is not None
    try:
        report, _ = grade_as_downloaded(served, state.catalog.derivation(served), answers)
    except ProblemError as exc:
        return _json_error(str(exc))
    # the object `attncalc check --format json` prints, without its indentation (which only the pure-
    # Python encoder writes: 0.5 ms for the 2-head problem's report, against 0.1 ms without)
    text = json.dumps(report_dict(report), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Response(text + "\n", media_type="application/json")


def download_json(state: State, served: Served, body: bytes) -> Response:
    answers, failed = _json_answers(served, body)
    if failed is not None:
        return failed
    assert answers is not None
    try:
        _, text = grade_as_downloaded(served, state.catalog.derivation(served), answers)  # no file it cannot grade
    except ProblemError as exc:
        return _json_error(str(exc))
    return _toml(served, text)


def download_form(state: State, request: Request, served: Served, pairs: list[tuple[str, str]]) -> Response:
    d = state.catalog.derivation(served)
    fields = dict(pairs)
    reveal = whole(fields.get("reveal"), 0)
    typed, unread = form.typed_from_form(pairs, d)
    if unread:
        return render_page(state, request, served, typed, reveal, errors=unread, status=422)
    answers = form.answers_of(typed, d)
    if not answers:
        note = "Type at least one answer, then download them."
        return render_page(state, request, served, typed, reveal, problem=note, checked=False)
    _, text, errors = _grade(served, d, answers)
    if errors:
        return render_page(state, request, served, typed, reveal, errors=errors, status=422)
    return _toml(served, text)


def _toml(served: Served, text: str) -> Response:
    disposition = f'attachment; filename="{served.name}-answers.toml"'
    return Response(text, media_type="application/toml; charset=utf-8", headers={"content-disposition": disposition})


def render_page(
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
    another: str | None = None,
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
    # a message no field shows (a field that is not on the page, or none named) is said above the form
    shown = {c.name for v in views for _, cells in v.rows for c in cells if c.error and not c.fixed}
    shown |= {v.id for v in views if v.error}
    other_errors = [m for k, m in errors.items() if k not in shown]
    if another is None:  # (given: the practice page's cached render, its link put in per request)
        another = new_variant(request, served, cat.practice)
    html = state.env.get_template("practice.html").render(
        root=root(request),
        href=href(request, served.name),
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
        first_bad=next((c.id for v in views for _, cells in v.rows for c in cells if c.error and not c.fixed), ""),
        another=another,
        **page_context(d),
    )
    return HTMLResponse(html, status_code=status)
