"""The command line: one module a command group, over the library.

The pipeline, and this package's place in it::

    parse  ->  mechanisms  ->  derivation  ->  render            (solve)
                                    +------->  check  ->  reports  (check, generate's exports)
    cli (here) | serve: read options and files, call the stages, print or write the result.

:mod:`.app` builds the Typer application (``solve``, ``list``, ``new``, ``schema`` and the order of
the commands in ``--help``); :mod:`.homework` holds ``check`` and ``generate``, :mod:`.check` the
gradebook, :mod:`.plot` and :mod:`.serve` their commands; :mod:`.base`, :mod:`.io` and
:mod:`.files` the options, output and input files they share. Heavy modules (numpy, sympy, the
renderers) are imported inside the commands: ``attncalc --help`` imports neither numpy nor sympy.
"""

from __future__ import annotations

from .app import main  # registers every command on the application
from .base import app

__all__ = ["app", "main"]
