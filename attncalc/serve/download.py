"""The practice page's answers file: what was typed (or sent as JSON) as the text of a TOML answers
file, and that text read back as ``attncalc check`` reads a file.

The page grades the table it reads back from the very text it would download, so that ``attncalc
check PROBLEM DOWNLOAD`` gives the page's verdicts by construction: a number is written bare only
when it is plain ASCII digits that TOML reads back to the same number as written (``0.420`` keeps
its 3 decimals), anything else is a TOML basic string with every control character escaped, which
any TOML reader reads back to the same text.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from ..derivation import Derivation
from ..errors import ProblemError, unprintable

MAX_ENTRY = 200  # characters of one entry, as the page's fields (the number grammar's own limit)
ANSWERS_FILE = "<answers>"  # how check's messages name the answers the page grades
# written bare: "17", "-0.50"; not "-0" (TOML reads it back as 0), not 19 digits or more (TOML's
# whole numbers stop at 2**63), not Unicode digits (Python's \d matches "١٥٥"; TOML does not)
_BARE = re.compile(r"(?:0|-?[1-9][0-9]{0,17})|-?(?:0|[1-9][0-9]{0,17})\.[0-9]{1,30}")


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string: quotes, backslashes and every character that is not printable
    text escaped (:func:`attncalc.errors.unprintable`: TOML refuses U+0000-U+001F and U+007F raw in a
    string; the others, a bidirectional mark such as U+061C or U+202E, a zero-width or other format
    character, a space other than " ", are escaped so that the file shows them, and reads back as the
    same text). A lone surrogate cannot be written: the caller refuses it first."""
    out = ['"']
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif unprintable(ch):
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch) or _escape(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def entry_text(x: Any, key: str) -> Any:
    """An entry (or nested lists of them) as the text it is written as: typed text as it is, a JSON
    number with the decimals it was written with (``1.7E+1``, read as ``Decimal("17")`` to 0
    decimals, as ``1.7e+1``, not ``17``, which check judges at the file's precision). Raises :class:`ProblemError` for what is neither a number nor text (true, null), or
    is longer than a field takes (the caller lets check name a long number first)."""
    if isinstance(x, list):
        return [entry_text(v, key) for v in x]
    if isinstance(x, bool) or not isinstance(x, (str, Decimal, int, float)):
        what = "true or false" if isinstance(x, bool) else "null" if x is None else "a table"
        raise ProblemError(ANSWERS_FILE, key, f"expected a number, a list or a label, got {what}")
    if (
        isinstance(x, (Decimal, int))
        and len(x.as_tuple().digits if isinstance(x, Decimal) else str(abs(x))) > MAX_ENTRY
    ):
        raise ProblemError(ANSWERS_FILE, key, f"a number of more than {MAX_ENTRY} digits")
    exponent = x.as_tuple().exponent if isinstance(x, Decimal) else None
    if isinstance(exponent, int) and exponent >= 0:
        # 1.7E+1 is Decimal("17") to 0 decimals, which "17" would not say (a whole number is judged at
        # the file's precision): 1.7e+1 says it, as check reads a calculator's display
        text = format(x, "e")
    else:
        text = x if isinstance(x, str) else repr(x) if isinstance(x, float) else str(x)
    if len(text) > MAX_ENTRY:
        raise ProblemError(ANSWERS_FILE, key, f"an entry of more than {MAX_ENTRY} characters")
    return text


def _toml_value(x: Any, label: bool) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_toml_value(v, label) for v in x) + "]"
    text = str(x)
    # a label (a prediction) is always quoted: a vocabulary entry "0.5" is not a number
    return text if not label and _BARE.fullmatch(text) else toml_string(text)


def answers_toml(answers: dict[str, Any], d: Derivation, name: str, source: str = "") -> str:
    """The answers (step id -> text, or nested lists of text) as an answers file: the problem's steps
    in derivation order, then any other key as it came (check names it: not a step)."""
    title = " ".join(d.problem.title.split())
    lines = [
        _comment(f"My answers to {toml_string(title)} (attncalc serve: {name})."),
        _comment(f"Grade them with: attncalc check {_shell_word(source) if source else name + '.toml'} THIS_FILE"),
        _comment('Entries written "?" are not graded.'),
    ]
    labels = {s.id for s in d.steps if isinstance(s.value, str)}
    for key, value in in_step_order(answers, d).items():
        lines.append(f"{toml_string(key)} = {_toml_value(value, key in labels)}")
    return "\n".join(lines) + "\n"


def in_step_order(answers: dict[str, Any], d: Derivation) -> dict[str, Any]:
    """The answers in the order the downloaded file writes them (and check reads them): the problem's
    steps in derivation order, then any other key as it came."""
    order = {s.id: k for k, s in enumerate(d.steps)}
    return {key: answers[key] for key in sorted(answers, key=lambda k: order.get(k, len(order)))}


def read_back(text: str) -> dict[str, Any]:
    """The answers table ``attncalc check`` reads from ``text`` as a downloaded file."""
    from ..check.answers import answers_of_table
    from ..parse.formats import parse_text

    raw = parse_text(ANSWERS_FILE, text, ".toml")
    if not isinstance(raw, dict):  # (a TOML document is always a table)
        raise ProblemError(ANSWERS_FILE, "", "expected a table of answers")
    return answers_of_table(raw, ANSWERS_FILE)[0]


def _comment(text: str) -> str:
    """A comment line: no control character (TOML allows a tab, but a file name's tab is shown too),
    and every character that is not printable text is shown as its escape."""
    return "# " + "".join(_escape(c) if unprintable(c) else c for c in text)


def _escape(ch: str) -> str:
    """A character as TOML's escape of it: ``\\u061C``, ``\\U000E0041`` above U+FFFF."""
    code = ord(ch)
    return f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"


def _shell_word(path: str) -> str:
    """The served file's path as one word of a command line (quoted when it has to be), on one line."""
    import shlex

    return shlex.quote(" ".join(path.split()))
