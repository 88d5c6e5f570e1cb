"""Error types raised by the library; only the CLI turns them into messages and exit codes."""

from __future__ import annotations


class AttncalcError(Exception):
    """Base class for every error attncalc reports to a person instead of a traceback."""

    exit_code = 2


class ProblemError(AttncalcError):
    """A problem file (or an option standing in for one) is unusable.

    The message always names the file and the key, e.g.
    ``problems/x.toml: given.query: expected a vector, got a table``.
    """

    def __init__(self, file: str, key: str, message: str) -> None:
        self.file = file
        self.key = key
        self.message = message
        where = f"{file}: {key}" if key else file
        super().__init__(f"{where}: {message}")


class NumberSyntaxError(ValueError):
    """A string in a number field does not follow attncalc's number grammar."""
