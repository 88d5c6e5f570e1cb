"""TOML, YAML and JSON text to plain tables, within bounds that hold whatever the file holds.

A problem or answers file may come from anyone (a student, a shared folder, an LMS export), so
reading one is bounded: no key may appear twice in one table (TOML refuses that itself; JSON and
YAML would silently keep the last), nothing is nested more than :data:`MAX_NESTING` deep, and a
YAML file's aliases may not expand it to more than :data:`MAX_VALUES` values (a "billion laughs"
file is a few hundred bytes). Whole numbers too long for Python's ``int`` (over 4,300 digits) are
kept as ``Decimal`` where the format allows it, so that the number grammar refuses them with the
key named. Every problem raises :class:`~attncalc.errors.ProblemError` naming the file.
"""

from __future__ import annotations

import json
import re
import tomllib
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import ProblemError

MAX_NESTING = 20  # tables and lists inside one another (a problem file needs about 6)
MAX_VALUES = 1_000_000  # values in a file once YAML aliases are expanded
LONG_INT = 1000  # digits from which a whole number is kept as a Decimal (Python's int stops at 4300)


class _Duplicate(Exception):
    def __init__(self, key: Any, where: str = "") -> None:
        self.key, self.where = key, where


def parse_text(file: str, text: str, suffix: str) -> Any:
    """Parse the text of file by its suffix (.yaml/.yml, .json, else TOML) and check its shape.

    A byte order mark at the start (Windows Notepad writes one) is not part of the text."""
    text = text.removeprefix("\ufeff")
    try:
        if suffix in (".yaml", ".yml"):
            raw = _yaml(file, text)
        elif suffix == ".json":
            raw = _json(file, text)
        else:
            raw = _toml(file, text)
    except RecursionError:
        raise ProblemError(
            file, "", f"is nested too deeply (more than {MAX_NESTING} levels of tables and lists)"
        ) from None
    except _Duplicate as dup:
        raise ProblemError(file, str(dup.key), f"appears twice in the same table{dup.where}") from None
    check_shape(file, raw, max(MAX_VALUES, len(text)))
    return raw


def check_shape(file: str, raw: Any, limit: int = MAX_VALUES) -> None:
    """Refuse nesting deeper than MAX_NESTING, more than ``limit`` values, and a value inside itself.

    Walks without recursion and visits a value shared through YAML aliases once, but counts it once
    per use (as every later walk over it would): a billion laughs cost a few hundred steps here.
    """
    if not isinstance(raw, (dict, list)):
        return
    done: dict[int, tuple[int, int]] = {}  # id of a container -> (values in it, levels in it)
    open_: set[int] = set()  # containers being walked: meeting one again is a cycle
    stack: list[tuple[Any, bool]] = [(raw, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        children = [c for c in (node.values() if isinstance(node, dict) else node) if isinstance(c, (dict, list))]
        if finished:
            values = len(node) + 1 + sum(done[id(c)][0] - 1 for c in children)
            levels = 1 + max((done[id(c)][1] for c in children), default=0)
            if levels > MAX_NESTING:
                raise ProblemError(
                    file, "", f"is nested too deeply (more than {MAX_NESTING} levels of tables and lists)"
                )
            if values > limit:
                raise ProblemError(file, "", f"holds more than {limit:,} values (YAML aliases counted in full)")
            done[key] = (values, levels)
            open_.discard(key)
            continue
        if key in done:
            continue
        if key in open_:
            raise ProblemError(file, "", "holds a value inside itself (a YAML alias to its own anchor)")
        open_.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children)


# --------------------------------------------------------------------------- JSON


def _json_int(text: str) -> int | Decimal | str:
    if text == "-0":  # (kept as written: read 0, a student -0 was another student's id 0)
        return text
    return Decimal(text) if len(text) > LONG_INT else int(text)


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Duplicate(k)
        out[k] = v
    return out


def _decimal(text: str) -> Decimal | str:
    """A number as written; one whose exponent Decimal cannot hold (1e9999999999999999999) as its text,
    which the number grammar then refuses in one line, naming its key."""
    try:
        return Decimal(text)
    except InvalidOperation:
        return text


def _json(file: str, text: str) -> Any:
    try:
        return json.loads(text, parse_float=_decimal, parse_int=_json_int, object_pairs_hook=_json_object)
    except json.JSONDecodeError as exc:
        raise ProblemError(file, "", f"is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None


def read_json(file: str, data: bytes | str) -> Any:
    """JSON from anyone (a request's body, a file): numbers as written (``Decimal``; a whole number of
    more than LONG_INT digits too), a byte order mark skipped, duplicate keys, nesting past
    MAX_NESTING (a 100,000-deep array) and text that is not UTF-8 each one :class:`ProblemError`
    naming ``file``, never Python's own message."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ProblemError(file, "", "is not UTF-8 text") from None
    return parse_text(file, data, ".json")


# --------------------------------------------------------------------------- TOML


# One part of a TOML key (bare, "basic" or 'literal'), and the tokens the scan below steps over whole.
_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
_TOKEN = re.compile(
    rf"(?P<key>{_PART}(?:[ \t]*+\.[ \t]*+{_PART})++)"  # a dotted key (or a decimal: one dot)
    r'|"""(?:[^"\\]|\\[\s\S]|"(?!""))*+"""'  # a multi-line basic string
    r"|'''(?:[^']|'(?!''))*+'''"  # a multi-line literal string
    rf"|{_PART}"
    r"|#[^\n]*+"
)
_PARTS = re.compile(_PART)
# a line holding more dots than a key may have: only then is the text scanned for keys
_MANY_DOTS = re.compile(rf"(?m)^(?:[^\n.]*+\.){{{MAX_NESTING + 1}}}")


def _check_dotted_keys(file: str, text: str) -> None:
    """Refuse a key or table header of more than MAX_NESTING dots before tomllib reads it: tomllib
    takes time and memory quadratic in a dotted key's length (a key of 30,000 parts, 60 KB, took
    25 s and 3.5 GB) before the nesting check can see the tables it makes. Strings and comments
    are stepped over, so dots in them do not count. One pass of regular expressions, and none at
    all unless some line holds that many dots."""
    if _MANY_DOTS.search(text) is None:
        return
    for m in _TOKEN.finditer(text):
        key = m.group("key")
        if key is None or key.count(".") <= MAX_NESTING:
            continue
        parts = sum(1 for _ in _PARTS.finditer(key))
        if parts > MAX_NESTING + 1:
            line = text.count("\n", 0, m.start()) + 1
            raise ProblemError(
                file,
                "",
                f"is nested too deeply (more than {MAX_NESTING} levels of tables and lists): "
                f"line {line} holds a dotted key of {parts:,} parts",
            )


def _toml(file: str, text: str) -> Any:
    _check_dotted_keys(file, text)
    try:
        return tomllib.loads(text, parse_float=_decimal)
    except tomllib.TOMLDecodeError as exc:
        raise ProblemError(file, "", f"is not valid TOML: {exc}") from None
    except ValueError:  # tomllib's int() of a whole number of more than 4300 digits
        raise ProblemError(file, "", "is not valid TOML here: a whole number with more than 4300 digits") from None


# --------------------------------------------------------------------------- YAML


def _yaml(file: str, text: str) -> Any:
    import yaml

    try:
        return yaml.load(text, Loader=_loader())  # a yaml.SafeLoader, with the checks above
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ProblemError(file, "", f"is not valid YAML: {problem}{where}") from None


_LOADER: Any = None
_DECIMAL_INT = re.compile(r"0|-?[1-9][0-9]*")  # a whole number as people write one (+12 and -0 kept as written)


def _loader() -> Any:
    """yaml.SafeLoader that refuses a key written twice and keeps very long whole numbers as Decimal."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: set[Any] = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":  # <<: *base may be overridden
                        continue
                    key = self.construct_object(key_node, deep=deep)
                    try:
                        if key in seen:
                            raise _Duplicate(key, f" (line {key_node.start_mark.line + 1})")
                        seen.add(key)
                    except TypeError:  # an unhashable key: the SafeLoader says so below
                        pass
            return super().construct_mapping(node, deep)

        def construct_yaml_int(self, node: Any) -> Any:
            if not _DECIMAL_INT.fullmatch(str(node.value)):
                # YAML 1.1's other integers (00123 octal, 0x53, 1_234, 12:30:00 base 60) kept as written: as
                # a student = they were another student's id (00123 read 83), as an answer text reads them
                return str(node.value)
            value = str(node.value).replace("_", "")
            if len(value) > LONG_INT:
                if value.lstrip("+-").isdigit():
                    return Decimal(value)
                raise yaml.constructor.ConstructorError(
                    None, None, "a whole number with too many digits", node.start_mark
                )
            return super().construct_yaml_int(node)

    Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_yaml_int)
    _LOADER = Loader
    return Loader
