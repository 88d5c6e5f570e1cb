"""The entry a kind has in the registry (:mod:`attncalc.kinds`): :class:`KindEntry`, and
:func:`load`, which reads a ``"module:attribute"`` path the entry names."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..schema.decl import KindSchema


@dataclass(frozen=True)
class KindEntry:
    name: str
    schema: str  # the declaration: keys, types, shapes, defaults, descriptions
    parser: str  # file table -> typed problem (the validation past the declaration: shapes, cross-key rules)
    mechanism: str  # the module with inputs(problem) and run(problem, chain)
    step_ids: str  # the kind's step ids, in derivation order
    template: str  # the text `attncalc new KIND` prints (a function of the score for attention)
    drawer: str | None  # the homework drawer of `attncalc generate`; None: not covered
    header: str  # header(problem) -> the words of the line under the title (sheets and terminal)
    data: str  # "module:Class", the payload class its parser puts in Problem.data (parse_problem checks it)
    # weights on the left (W x) or "row" (x W) when settings.convention is "default", or always when the
    # declaration's settings leave convention out (convention_fixed)
    convention: str = "column"
    plot_step: str | None = None  # the step `attncalc plot` draws by default (its attention weights); None: none
    entry_name: str | None = None  # entry_name(problem, step_id, idx) -> "cos(C, C′)"; None: the step's symbol
    # (step id, table): the renderers draw the named table (their method _{table}_table) after that step,
    # "" after the last one: ("weights", "attention") is attention's table of the weights
    tables: tuple[tuple[str, str], ...] = ()
    recurrent: bool = False  # a cell run over time steps: inputs in its cell tables, a timeline in the sheets
    # "module:attribute" of a dict slip name -> the words check's note uses (beside attncalc/kinds/mistakes.py's)
    mistakes: str | None = None
    # "module:attribute" of a dict name -> attncalc.derivation.elementwise.Elementwise (beside attncalc/derivation/elementwise.py's)
    elementwise: str | None = None
    # how the JSON writes a step's entries where the numbers alone do not say it (step ids with "t" for a
    # number, as step_ids lists them): whole numbers by their meaning (counts, 0/1 flags, quantized
    # integers: JSON integers), lists of tokens or strings, lists of token lists (one per word)
    counts: tuple[str, ...] = ()
    token_lists: tuple[str, ...] = ()
    word_segments: tuple[str, ...] = ()

    def load(self, what: str) -> Any:
        """The object a field names (``entry.load("schema")``)."""
        path = getattr(self, what)
        if path is None:
            raise LookupError(f"kind {self.name!r} has no {what}")
        return load(path)

    @property
    def declaration(self) -> KindSchema:
        return self.load("schema")  # type: ignore[no-any-return]

    @property
    def convention_fixed(self) -> bool:
        """The kind always uses ``convention``: read from its declaration, whose settings leave
        ``convention`` out or allow only that one (so the parser refuses the other), and so the two
        cannot disagree."""
        top = self.declaration.top
        settings = top["settings"].table if "settings" in top else None
        if settings is None or "convention" not in settings:
            return True
        return set(settings["convention"].choices or ()) <= {"default", self.convention}


def load(path: str) -> Any:
    module, _, attr = path.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = obj[part] if isinstance(obj, dict) else getattr(obj, part)
    return obj
