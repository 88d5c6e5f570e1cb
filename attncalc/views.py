"""Views of the result objects, looked up in a table so that the model never imports a renderer.

The model (``derivation.py``, ``check.py``) defines *what* a result is; the renderers in
``render/`` know *how* to show it. A renderer registers one function per (object, format) here,
and the result classes inherit the methods below, which only look the function up. The table is
filled by :mod:`attncalc.reports.exports`, which the package's ``__init__`` imports (it is cheap:
the renderers themselves load on first use). This module imports nothing from attncalc (the exception for a keyword a view does not take is installed
the same way: :func:`register_argument_error`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

View = Callable[..., Any]

_TABLE: dict[tuple[str, str], View] = {}


def register(what: str, fmt: str) -> Callable[[View], View]:
    """Decorator: ``@register("derivation", "markdown")`` installs a view of one object type."""

    def add(fn: View) -> View:
        _TABLE[(what, fmt)] = fn
        return fn

    return add


def view(what: str, fmt: str) -> View | None:
    """The registered view, or None when no renderer registered one."""
    return _TABLE.get((what, fmt))


def show(obj: object, what: str, fmt: str, **options: Any) -> Any:
    """Render obj (a ``what``) as ``fmt``; LookupError when no renderer is registered for it."""
    fn = _TABLE.get((what, fmt))
    if fn is None:
        raise LookupError(f"no {fmt} view of a {what} is registered; import attncalc.reports.exports")
    return fn(obj, **options)


# the exception a view raises for a keyword it does not take: attncalc.errors.ArgumentError, installed by
# attncalc.reports.exports (this module imports nothing from attncalc); a TypeError until then
_ERRORS: dict[str, Callable[[str, str, str], Exception]] = {}


def register_argument_error(make: Callable[[str, str, str], Exception]) -> None:
    """Install the exception for a view called with a keyword it does not take (where, key, message)."""
    _ERRORS["argument"] = make


def _argument_error(where: str, key: str, message: str) -> Exception:
    make = _ERRORS.get("argument")
    return make(where, key, message) if make is not None else TypeError(f"{where}: {key}: {message}")


def _checked(owner: str) -> Callable[[View], View]:
    """A view method whose keywords are checked before the call: one it does not take (``to_text(widht=
    60)``) is attncalc's :class:`~attncalc.errors.ArgumentError` naming ``Derivation.to_text`` and the
    close ones, never Python's bare TypeError (the errors module is imported only then)."""
    import functools
    import inspect

    def wrap(fn: View) -> View:
        sig = inspect.signature(fn)
        named = [n for n in sig.parameters if n != "self"]

        @functools.wraps(fn)
        def run(self: object, *args: Any, **kwargs: Any) -> Any:
            try:
                sig.bind(self, *args, **kwargs)
            except TypeError as exc:
                import difflib

                where = f"{owner}.{fn.__name__}"
                unknown = [k for k in kwargs if k not in named]
                if not unknown:
                    raise _argument_error(where, "", str(exc).split("() ", 1)[-1]) from None
                close = difflib.get_close_matches(unknown[0], named, n=3, cutoff=0.6)
                hint = f"did you mean {' or '.join(close)}? " if close else ""
                message = f"not a keyword of this function; {hint}it takes {', '.join(named) if named else 'none'}"
                raise _argument_error(where, unknown[0], message) from None
            return fn(self, *args, **kwargs)

        return run

    return wrap


def _maybe(obj: object, what: str, fmt: str, **options: Any) -> str | None:
    """For Jupyter's _repr_*_ hooks: None (no such representation) instead of an error."""
    fn = _TABLE.get((what, fmt))
    return None if fn is None else str(fn(obj, **options))


class DerivationViews:
    """The views of a derivation: sheets, text, JSON, and the Jupyter representations."""

    @_checked("Derivation")
    def to_json(self) -> dict[str, Any]:
        """The derivation as ``attncalc solve --format json`` writes it, as a dict.

        ``json.dumps(d.to_json(), indent=2, ensure_ascii=False) + "\\n"`` is the command's output.
        """
        out: dict[str, Any] = show(self, "derivation", "json")
        return out

    # detail: "full" | "first" | "summary" (``--detail``): how much of a recurrent derivation's time
    # steps is written out; other kinds are the same at every level.
    @_checked("Derivation")
    def to_markdown(self, sheet: str = "solution", detail: str = "first") -> str:
        """The Markdown sheet (``--format markdown``); sheet is solution, answers or question."""
        return str(show(self, "derivation", "markdown", sheet=sheet, detail=detail))

    @_checked("Derivation")
    def to_latex(self, sheet: str = "solution", fragment: bool = False, detail: str = "first") -> str:
        """The LaTeX document (``--format latex``), or only its body with fragment=True."""
        return str(show(self, "derivation", "latex", sheet=sheet, fragment=fragment, detail=detail))

    @_checked("Derivation")
    def to_html(
        self, sheet: str = "solution", fragment: bool = False, reveal: bool = False, detail: str = "first"
    ) -> str:
        """The HTML page (``--format html``), or only its body with fragment=True; reveal=True opens
        each step in stages (``--reveal``)."""
        return str(show(self, "derivation", "html", sheet=sheet, fragment=fragment, reveal=reveal, detail=detail))

    @_checked("Derivation")
    def to_text(self, width: int = 80, detail: str = "first") -> str:
        """The terminal view without colours, as ``attncalc solve --width W -o FILE`` writes it."""
        return str(show(self, "derivation", "text", width=width, detail=detail))

    # Jupyter shows a derivation as a solution sheet; IPython's terminal shows the text view.
    def _repr_markdown_(self) -> str | None:
        return _maybe(self, "derivation", "markdown", sheet="solution")

    # what nbconvert's LaTeX template and a notebook page define is all they can count on: these carry
    # their own colour and stylesheet (render/notebook.py)
    def _repr_latex_(self) -> str | None:
        return _maybe(self, "derivation", "notebook-latex", sheet="solution")

    def _repr_html_(self) -> str | None:
        return _maybe(self, "derivation", "notebook-html", sheet="solution")

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        text = None if cycle else _maybe(self, "derivation", "text", width=80)
        p.text(repr(self) if text is None else text.rstrip("\n"))


class ReportViews:
    """The views of a check report: the JSON and text that ``attncalc check`` prints."""

    @_checked("Report")
    def to_json(self) -> dict[str, Any]:
        """The report as ``attncalc check --format json`` writes it (for one answers file), as a dict."""
        out: dict[str, Any] = show(self, "report", "json")
        return out

    @_checked("Report")
    def to_text(self, width: int = 80) -> str:
        """The report table without colours, as ``attncalc check --width W`` prints it."""
        return str(show(self, "report", "text", width=width))

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        text = None if cycle else _maybe(self, "report", "text", width=80)
        p.text(repr(self) if text is None else text.rstrip("\n"))
