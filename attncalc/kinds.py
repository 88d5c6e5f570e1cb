"""The registry of kinds: where everything about a kind is found. Public API: :data:`KINDS`,
:class:`KindEntry`, :data:`BUILTIN` and the helpers below (docs/contributing.md, "Adding a kind").

:data:`KINDS` maps each kind's name to its :class:`KindEntry`: the built-in kinds of :data:`BUILTIN`
(the table below), then the plugin kinds other installed distributions declare in the entry-point group
``attncalc.kinds`` (:mod:`attncalc.plugins`; ``KINDS.origin(kind)`` names the distribution), read the
first time a kind is asked for. A plugin cannot replace a built-in kind.

Each entry names, by module path (``"module:attribute"``), the kind's schema declaration, its
parser, its mechanism, its step ids, its ``attncalc new`` template and its homework drawer (an
:class:`attncalc.homework.base.Drawer`, or ``None``: ``attncalc generate`` does not cover the kind). The
paths are strings, loaded only when asked for, so that ``attncalc --help`` and ``attncalc list`` import
neither numpy nor sympy. ``parse_problem``, the mechanisms' table, ``attncalc new``, ``list``, ``schema``
and ``generate`` read this table, and the top-level and ``[settings]`` keys a file may use are read from
its declarations.

Adding a kind (docs/contributing.md walks through it; tests/test_new_kind.py does it with a fixture, and
tests/test_plugin_kind.py installs a plugin kind): declare its file, write its parser, its mechanism
(``inputs`` and ``run``), its step ids, its template, its header line and its homework drawer in modules
of its own; then add one entry to :data:`BUILTIN`, or name it in an entry point. The optional fields
(convention, plot_step, entry_name, tables, recurrent, mistakes, elementwise) say what other modules
used to find by the kind's name; ``data`` names the payload class its parser puts in ``Problem.data``
(``parse_problem`` checks it).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .schema.decl import KindSchema


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
    # "module:attribute" of a dict slip name -> the words check's note uses (beside attncalc/mistakes.py's)
    mistakes: str | None = None
    # "module:attribute" of a dict name -> attncalc.elementwise.Elementwise (beside attncalc/elementwise.py's)
    elementwise: str | None = None

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


_FF = "attncalc.schema.feedforward"
_RNN = "attncalc.schema.recurrent"
_DRAW = "attncalc.homework.attention:DRAWER"
_HW = "attncalc.homework"
_HEAD = "attncalc.render.headers"
_P = "attncalc.parse"

BUILTIN: dict[str, KindEntry] = {
    e.name: e
    for e in (
        KindEntry(
            "attention",
            f"{_FF}:ATTENTION",
            "attncalc.parse.attention:parse",
            "attncalc.mechanisms.attention",
            "attncalc.catalog:STEP_IDS.attention",
            "attncalc.templates:attention",
            _DRAW,
            header=f"{_HEAD}:attention",
            data=f"{_P}.data:Attention",
            plot_step="weights",
            tables=(("weights", "attention"),),
        ),
        KindEntry(
            "self-attention",
            f"{_FF}:SELF_ATTENTION",
            "attncalc.parse.self_attention:parse",
            "attncalc.mechanisms.self_attention",
            "attncalc.catalog:STEP_IDS.self-attention",
            "attncalc.templates:SELF_ATTENTION",
            _DRAW,
            header=f"{_HEAD}:attention",
            data=f"{_P}.data:SelfAttention",
            convention="row",
            plot_step="weights",
        ),
        KindEntry(
            "softmax",
            f"{_FF}:SOFTMAX",
            "attncalc.parse.softmax:parse",
            "attncalc.mechanisms.softmax",
            "attncalc.catalog:STEP_IDS.softmax",
            "attncalc.templates:SOFTMAX",
            _DRAW,
            header=f"{_HEAD}:softmax",
            data=f"{_P}.softmax:Softmax",
        ),
        KindEntry(
            "sequence",
            f"{_FF}:SEQUENCE",
            "attncalc.parse.sequence:parse",
            "attncalc.mechanisms.sequence",
            "attncalc.catalog:STEP_IDS.sequence",
            "attncalc.templates:SEQUENCE",
            f"{_HW}.vectors:SEQUENCE",
            header=f"{_HEAD}:sequence",
            data=f"{_P}.data:Sequence",
        ),
        *(
            KindEntry(
                k,
                f"{_RNN}:{k.upper()}",
                "attncalc.parse.recurrent:parse",
                "attncalc.mechanisms.recurrent",
                f"attncalc.catalog:STEP_IDS.{k}",
                f"attncalc.templates:RECURRENT.{k}",
                f"{_HW}.recurrent:{k.upper()}",
                header=f"{_HEAD}:recurrent",
                data=f"{_P}.types:Recurrent",
                recurrent=True,
            )
            for k in ("rnn", "lstm", "gru")
        ),
        KindEntry(
            "seq2seq",
            f"{_RNN}:SEQ2SEQ",
            "attncalc.parse.seq2seq:parse",
            "attncalc.mechanisms.seq2seq",
            "attncalc.catalog:STEP_IDS.seq2seq",
            "attncalc.templates:SEQ2SEQ",
            f"{_HW}.seq2seq:DRAWER",
            header=f"{_HEAD}:seq2seq",
            data=f"{_P}.types:Seq2Seq",
            recurrent=True,
            plot_step="decoder.t.weights",
        ),
        KindEntry(
            "similarity",
            f"{_FF}:SIMILARITY",
            "attncalc.parse.similarity:parse",
            "attncalc.mechanisms.similarity",
            "attncalc.catalog:STEP_IDS.similarity",
            "attncalc.templates:SIMILARITY",
            f"{_HW}.vectors:SIMILARITY",
            header=f"{_HEAD}:similarity",
            data=f"{_P}.data:Similarity",
            entry_name="attncalc.parse.similarity:entry_name",
            tables=(("", "similarity"),),
        ),
        KindEntry(
            "multi-head",
            "attncalc.schema.transformer:MULTI_HEAD",
            "attncalc.parse.multihead:parse",
            "attncalc.mechanisms.multihead",
            "attncalc.catalog:STEP_IDS.multi-head",
            "attncalc.templates:MULTI_HEAD",
            f"{_HW}.transformer:MULTI_HEAD",
            header=f"{_HEAD}:multi_head",
            data=f"{_P}.types:MultiHead",
            convention="row",
            plot_step="head.t.weights",
        ),
        KindEntry(
            "positional-encoding",
            "attncalc.schema.transformer:POSITIONAL_ENCODING",
            "attncalc.parse.positional:parse",
            "attncalc.mechanisms.positional_encoding",
            "attncalc.catalog:STEP_IDS.positional-encoding",
            "attncalc.templates:POSITIONAL_ENCODING",
            f"{_HW}.transformer:PE",
            header=f"{_HEAD}:positional_encoding",
            data=f"{_P}.types:PosEnc",
            convention="row",
        ),
        KindEntry(
            "transformer-layer",
            "attncalc.schema.layer:TRANSFORMER_LAYER",
            "attncalc.parse.layer:parse",
            "attncalc.mechanisms.layer",
            "attncalc.catalog:STEP_IDS.transformer-layer",
            "attncalc.templates_output:LAYER",
            f"{_HW}.transformer:LAYER",
            header=f"{_HEAD}:transformer_layer",
            data=f"{_P}.types:Layer",
            convention="row",
            plot_step="self.head.t.weights",
        ),
        KindEntry(
            "bleu",
            "attncalc.schema.decoding:BLEU",
            "attncalc.parse.bleu:parse",
            "attncalc.mechanisms.bleu",
            "attncalc.catalog:STEP_IDS.bleu",
            "attncalc.templates_output:BLEU",
            f"{_HW}.output:BLEU",
            header=f"{_HEAD}:bleu",
            data=f"{_P}.types:Bleu",
        ),
        KindEntry(
            "decode",
            "attncalc.schema.decoding:DECODE",
            "attncalc.parse.decode:parse",
            "attncalc.mechanisms.decode",
            "attncalc.catalog:STEP_IDS.decode",
            "attncalc.templates_output:DECODE",
            f"{_HW}.output:DECODE",
            header=f"{_HEAD}:decode",
            data=f"{_P}.decode:Decode",
        ),
        KindEntry(  # issue 31: byte-pair encoding
            "bpe",
            "attncalc.schema.bpe:BPE",
            "attncalc.parse.bpe:parse",
            "attncalc.mechanisms.bpe",
            "attncalc.schema.bpe:STEP_IDS",
            "attncalc.templates_bpe:BPE",
            "attncalc.homework.bpe:DRAWER",
            header="attncalc.mechanisms.bpe:header",
            data=f"{_P}.bpe:Bpe",
        ),
        # issue 30: a learning-rate schedule (noam, cosine, linear), its own modules
        KindEntry(
            "lr-schedule",
            "attncalc.schema.lr_schedule:LR_SCHEDULE",
            "attncalc.parse.lr_schedule:parse",
            "attncalc.mechanisms.lr_schedule",
            "attncalc.schema.lr_schedule:STEP_IDS",
            "attncalc.mechanisms.lr_schedule:template",
            "attncalc.homework.lr_schedule:DRAWER",
            header="attncalc.mechanisms.lr_schedule:header",
            data=f"{_P}.lr_schedule:LrSchedule",
        ),
        # issue 31: parameters, FLOPs and memory of a decoder-only Transformer
        KindEntry(
            "accounting",
            "attncalc.schema.accounting:DECLARATION",
            "attncalc.parse.accounting:parse",
            "attncalc.mechanisms.accounting",
            "attncalc.schema.accounting:STEP_IDS",
            "attncalc.parse.accounting:TEMPLATE",
            "attncalc.homework.accounting:DRAWER",
            header="attncalc.parse.accounting:header",
            data=f"{_P}.accounting:Accounting",
        ),
        KindEntry(
            "attention-backward",
            "attncalc.schema.attention_backward:ATTENTION_BACKWARD",
            "attncalc.parse.attention_backward:parse",
            "attncalc.mechanisms.attention_backward",
            "attncalc.templates_backward:STEP_IDS",
            "attncalc.templates_backward:TEMPLATE",
            f"{_HW}.backward:DRAWER",
            header="attncalc.templates_backward:header",
            data=f"{_P}.attention_backward:AttentionBackward",
            convention="row",
            plot_step="head.t.weights",
        ),
        # issue 40: integer quantization of a weight tensor (its own modules)
        KindEntry(
            "quantization",
            "attncalc.schema.quantization:QUANTIZATION",
            "attncalc.parse.quantization:parse",
            "attncalc.mechanisms.quantization",
            "attncalc.schema.quantization:STEP_IDS",
            "attncalc.schema.quantization:TEMPLATE",
            "attncalc.homework.quantization:DRAWER",
            header="attncalc.mechanisms.quantization:header",
            data=f"{_P}.quantization:Quantization",
            convention="row",
        ),
        # issue 40: Direct Preference Optimization's loss (its own modules)
        KindEntry(
            "dpo",
            "attncalc.schema.dpo:DPO",
            "attncalc.parse.dpo:parse",
            "attncalc.mechanisms.dpo",
            "attncalc.schema.dpo:STEP_IDS",
            "attncalc.schema.dpo:TEMPLATE",
            "attncalc.homework.dpo:DRAWER",
            header="attncalc.mechanisms.dpo:header",
            data=f"{_P}.dpo:Dpo",
            convention="row",
            elementwise="attncalc.mechanisms.dpo:ELEMENTWISE",
        ),
        # issue 29: the online softmax of FlashAttention (its own modules)
        KindEntry(
            "online-softmax",
            "attncalc.schema.online_softmax:ONLINE_SOFTMAX",
            "attncalc.parse.online_softmax:parse",
            "attncalc.mechanisms.online_softmax",
            "attncalc.schema.online_softmax:STEP_IDS",
            "attncalc.schema.online_softmax:TEMPLATE",
            "attncalc.homework.online_softmax:DRAWER",
            header="attncalc.mechanisms.online_softmax:header",
            data=f"{_P}.online_softmax:OnlineSoftmax",
            convention="row",
            plot_step="weights",
        ),
        # issue 40: InfoNCE and CLIP's symmetric contrastive loss (its own modules)
        KindEntry(
            "contrastive",
            "attncalc.schema.contrastive:CONTRASTIVE",
            "attncalc.parse.contrastive:parse",
            "attncalc.mechanisms.contrastive",
            "attncalc.schema.contrastive:STEP_IDS",
            "attncalc.schema.contrastive:TEMPLATE",
            "attncalc.homework.contrastive:DRAWER",
            header="attncalc.mechanisms.contrastive:header",
            data=f"{_P}.contrastive:Contrastive",
            convention="row",
        ),
    )
}


class Registry(MutableMapping[str, KindEntry]):
    """The kinds by name: the built-ins, then the plugin kinds of the entry-point group
    ``attncalc.kinds`` (:mod:`attncalc.plugins`), read the first time a kind is asked for.
    ``origin(kind)`` names the distribution a plugin kind came from (None: a built-in)."""

    def __init__(self, builtin: dict[str, KindEntry]) -> None:
        self._builtin = builtin
        self._all: dict[str, KindEntry] | None = None
        self._origin: dict[str, str] = {}

    def _kinds(self) -> dict[str, KindEntry]:
        if self._all is None:
            from .plugins import discover

            found, self._origin = discover(self._builtin, KindEntry)
            self._all = {**self._builtin, **found}
        return self._all

    def __getitem__(self, kind: str) -> KindEntry:
        return self._kinds()[kind]

    def __setitem__(self, kind: str, e: KindEntry) -> None:  # a test registers a kind of its own
        self._kinds()[kind] = e

    def __delitem__(self, kind: str) -> None:
        del self._kinds()[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds())

    def __len__(self) -> int:
        return len(self._kinds())

    def origin(self, kind: str) -> str | None:
        """The distribution a plugin kind came from; None for a built-in (or a kind registered in-process)."""
        self._kinds()
        return self._origin.get(kind)


KINDS = Registry(BUILTIN)


def entry(kind: str) -> KindEntry:
    return KINDS[kind]


def entry_namer(problem: Any) -> Callable[[str, tuple[int, ...]], str] | None:
    """How the problem's kind names a step's entries (a similarity: by its vectors, cos(cat, chat)),
    or None: by the step's symbol and index, e_2."""
    e = entry(problem.kind)
    if e.entry_name is None:
        return None
    named = e.load("entry_name")
    return lambda step_id, idx: str(named(problem, step_id, idx))


def tables_after(kind: str, step_id: str) -> list[str]:
    """The tables the kind's sheets show after a step ("": after the last step)."""
    return [table for after, table in entry(kind).tables if after == step_id]


def declarations() -> list[KindSchema]:
    """Every kind's declaration, in the table's order."""
    return [e.declaration for e in KINDS.values()]


def template(kind: str, score: str | None = None) -> str:
    """The text `attncalc new KIND` prints."""
    t = entry(kind).load("template")
    return t(score or "dot") if callable(t) else str(t)


def recurrent() -> tuple[str, ...]:
    """The kinds that run a cell over time steps (rnn, lstm, gru, seq2seq)."""
    return tuple(k for k, e in KINDS.items() if e.recurrent)


def with_drawer() -> list[str]:
    """The kinds `attncalc generate` covers."""
    return [k for k, e in KINDS.items() if e.drawer is not None]


def declared(field: str) -> dict[str, Any]:
    """The union of what the kinds declare in a table field (``mistakes``, ``elementwise``), in the
    registry's order: a kind's own slips or element-wise functions, beside the shared tables."""
    out: dict[str, Any] = {}
    for e in KINDS.values():
        if getattr(e, field) is not None:
            out.update(e.load(field))
    return out
