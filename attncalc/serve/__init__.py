"""``attncalc serve``: the practice page, a web app over attncalc's own ``solve`` and ``check``.

Its place in the pipeline (docs/contributing.md, "The layers"):
parse → mechanisms → derivation → render | check → reports → cli | **serve**.

An optional extra (``pip install 'attncalc[serve]'``): Starlette for the routes, Jinja2 for the
templates (autoescaped), uvicorn as the server. The modules are split by responsibility:

* :mod:`.answers`: the page's fields to an answers mapping and back, and the answers file (no web import);
* :mod:`.served`: which problems are served under which names, loaded once with the file limits
  (and each prepared for grading once: :class:`attncalc.check.prepared.Prepared`);
* :mod:`.page`: what a template shows of a derivation and a check report;
* :mod:`.shown`: how a template writes text (unprintable characters as their escapes, typed text as typed);
* :mod:`.app`: the Starlette app and its routes (async: they read the request and hand the work on);
* :mod:`.work`: that work, in a worker thread: answers to check's report and back to a page or a file;
* :mod:`.guard`: security headers on every response, and the body limit;
* :mod:`.limits`, :mod:`.conn`, :mod:`.quiet`: on the network: the timeouts and the connection cap
  (fitted to the open-file limit), uvicorn's protocol that enforces them, and a log that says a
  repeated condition once per interval (docs/serving.md);
* :mod:`.workers`: ``--workers N`` on Linux, a listening socket per process.

No grading happens here: every verdict comes from :func:`attncalc.api.check`.
"""

from __future__ import annotations

from ..errors import AttncalcError

INSTALL = "attncalc serve needs Starlette, uvicorn and Jinja2: pip install 'attncalc[serve]' (from a clone: pip install -e '.[serve]')"


def require() -> None:
    """Raise :class:`AttncalcError` with the install command when the ``serve`` extra is missing."""
    try:
        import jinja2  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise AttncalcError(INSTALL) from None
