"""Translate attncalc's plain mathematical notation into LaTeX math and into HTML.

The plain notation is the one the terminal view prints ("e_2 = 1·0 + 1·2 = 2", "S'[1,3]",
"exp(e_1)", "√2", "W_Qᵀ", "9.023e-232"); it is small and produced only by attncalc, so a
tokenizer with a fixed vocabulary translates it faithfully. Words that are not mathematics
("where", "target") become \\text{...} in LaTeX.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import groupby

from .typeset_names import WORD_ENDINGS, hyphenated, one_name

TOKEN = re.compile(
    r"(?P<sci>\d+(?:\.\d+)?e[+-]?\d+)"
    r"|(?P<grouped>\d{1,3}(?:,\d{3})+(?![\d.]))"  # a whole number with thousands separators: 124,439,808
    r"|(?P<num>\d+(?:\.\d+)?)"
    r"|(?P<idx>\[\d+(?:,\d+)+\])"  # an entry: [2,1], or [2,1,3] (three axes)
    r"|(?P<tag><[A-Za-z/][\w/]*>)"  # a special token such as <eos> or <s>: a word, not two relations
    r"|(?P<name>[A-Za-z0-9]*__[A-Za-z0-9_]*)"  # a token such as __init__ or a__b: a name, not subscripts
    r"|(?P<word>[A-Za-z]+)"
    r"|(?P<sub>_(?:[A-Za-z]{2,}(?:-[A-Za-z]{2,})+|[A-Za-z0-9]+(?:,[0-9A-Za-z]+)?))"  # N_non-emb: one subscript
    r"|(?P<space>\s+)"
    r"|(?P<other>.)",
    re.S,
)

PAREN_SUB = re.compile(r"(?<=[A-Za-z'])_\(([^()]*)\)")  # p_(j), F_(i−1): a subscript in parentheses

ARROWS = {"→": r"\overrightarrow", "←": r"\overleftarrow"}  # a bidirectional encoder's two directions

_ACCENTED = {
    "\x0e": "^{",  # base^(2i/d): a power written with its exponent in parentheses
    "\x0f": "}",
    "\x10": "_{(",  # p_(j), F_(i−1): a subscript written in parentheses (the j-th largest, i − 1)
    "\x11": ")}",
}
# a letter with a combining accent (h̃, m̂, Q̃, a kind's own τ̂) is one token, coded as one character of
# the private-use area (0xE000 + the letter: a tilde; 0xE800 + the letter: a hat) and written
# \tilde{h}, \hat{m}: any letter takes either accent, so no kind's notation is listed here
_ACCENT_MARKS = {"\u0303": (0xE000, "tilde"), "\u0302": (0xE800, "hat")}
_FUNCS = {
    "exp": r"\exp",
    "tanh": r"\tanh",
    "ln": r"\ln",
    "max": r"\max",
    "argmax": r"\operatorname{argmax}",
    "log": r"\log",
    "sqrt": r"\sqrt",
    "cos": r"\cos",
    "sin": r"\sin",
}
# Greek letters the notes and formulas use (β1 of Adam, Δθ of an update), as LaTeX commands
GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "Δ": "Delta",
    "ε": "varepsilon",
    "η": "eta",
    "θ": "theta",
    "λ": "lambda",
    "μ": "mu",
    "π": "pi",
    "ρ": "rho",
    "σ": "sigma",
    "τ": "tau",
    "φ": "phi",
    "ω": "omega",
    "Σ": "Sigma",
}
_ACCENTED_LETTER = re.compile("([A-Za-z" + "".join(GREEK) + "])([\u0302\u0303])")


def _decomposed(text: str) -> str:
    """A letter beyond Latin-1 written with its hat or tilde in one character (ẑ, ĥ, ŝ) as the letter
    and the combining accent, so that it is typeset as one: \\hat{z} (Latin-1's ñ, â stay text)."""
    if all(ord(c) < 0x100 for c in text):
        return text
    return "".join(
        d if ord(c) >= 0x100 and len(d := unicodedata.normalize("NFD", c)) == 2 and d[1] in _ACCENT_MARKS else c
        for c in text
    )


def _accented(code: str) -> str:
    """\\tilde{h} from the one character that codes h̃ (see _ACCENT_MARKS)."""
    offset, accent = (0xE800, "hat") if ord(code) >= 0xE800 else (0xE000, "tilde")
    letter = chr(ord(code) - offset)
    base = "\\" + GREEK[letter] if letter in GREEK else letter
    return rf"\{accent}{{{base}}}"


_SYMBOLS = {
    **{ch: f"\\{name} " for ch, name in GREEK.items()},
    "·": r"\cdot ",
    "−": "-",
    "…": r"\dots ",
    "⋮": r"\vdots ",
    "∞": r"\infty ",
    "Σ": r"\sum ",
    "∂": r"\partial ",
    "ŷ": r"\hat{y}",
    "ᵀ": r"^{\top}",
    "≈": r"\approx ",
    ";": r";\,",
    "%": r"\%",
    "#": r"\#",
    "&": r"\&",
    "$": r"\$",
    "{": r"\{",
    "}": r"\}",
    "~": r"\sim ",
    "^": r"\hat{}",
    "\\": r"\backslash ",
    "′": "'",
    "″": "''",
    "◀": "",
    "×": r"\times ",
    "⊙": r"\odot ",
    "∘": r"\circ ",  # A ∘ (dA − D): the element-wise product (issue 29)
    "→": r"\rightarrow ",
    "←": r"\leftarrow ",
    "|": r"|",
    "₀": "_0",
    "‖": r"\| ",
    "²": "^{2}",
    "–": "\\text{--}",
    "≤": r"\le ",
    "≠": r"\ne ",
    "⌈": r"\lceil ",  # moe's capacity ⌈capacity_factor · n · top_k / E⌉ (transliterated, it was [ ])
    "⌉": r"\rceil ",
    "⌊": r"\lfloor ",
    "⌋": r"\rfloor ",
}
# symbols of the sheets' running text and how LaTeX's text mode sets them (write_tex)
TEXT_SYMBOLS = {
    **{ch: f"$\\{name}$" for ch, name in GREEK.items()},
    "ᵀ": r"$^\top$",
    "✓": r"$\checkmark$",
    "✗": r"$\times$",
    "–": "--",
    "∞": r"$\infty$",
    "∂": r"$\partial$",
    "≈": r"$\approx$",
    "ŷ": r"$\hat y$",
    "◀": "",
    "′": "'",
    "″": r"$''$",
    "‖": r"$\|$",
    "⋮": r"$\vdots$",
    "⟨": r"$\langle$",
    "⟩": r"$\rangle$",
    "█": "",
    "×": r"$\times$",
    "→": r"$\to$",
    "←": r"$\leftarrow$",
    "⊙": r"$\odot$",
    "∘": r"$\circ$",
    "₀": r"$_0$",
    "−": "-",
    "⌈": r"$\lceil$",
    "⌉": r"$\rceil$",
    "⌊": r"$\lfloor$",
    "⌋": r"$\rfloor$",
}
# characters kept for the writers to set (the rest beyond Latin-1 is transliterated)
_KEEP = frozenset(_SYMBOLS) | frozenset(TEXT_SYMBOLS) | frozenset(ARROWS) | {"√", "…", "·", "−"}

_TEXT_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\^{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\~{}",
}


def _foreign(c: str) -> bool:
    """A character pdflatex's fonts cannot set (a word in Bengali, Cyrillic or Han, an emoji, a euro
    sign, a Latin letter beyond Latin-1): written in ASCII as anyascii spells it (আমি → ami, € → EUR).
    Latin-1, the combining accents (h̃, m̂) and the symbols the writers set themselves are kept."""
    if ord(c) < 0x100 or 0x300 <= ord(c) < 0x370:
        return False
    return c not in _KEEP


def transliterate(text: str) -> str:
    """Words in such scripts written in Latin letters: আমি → ami, so a LaTeX sheet keeps its labels."""
    if not any(_foreign(c) for c in text):
        return text
    from anyascii import anyascii

    return "".join(
        (anyascii(run) or "?") if foreign else run
        for foreign, run in ((k, "".join(g)) for k, g in groupby(text, key=_foreign))
    )


def _user_text(s: str) -> str:
    """A line break (a newline in a token) is a space, as in a paragraph; other control characters
    are written as escapes (\\x07) before anything reads them as LaTeX or as the codes below."""
    from ..errors import printable

    return printable(" ".join(s.splitlines()) if "\n" in s or "\r" in s else s)


def tex_text(s: str) -> str:
    """Escape plain text for LaTeX text mode (a token ``a__b`` is text, not two subscripts)."""
    s = _TEXT_SUPERSCRIPT.sub(lambda m: "\x14" + m.group().translate(_SUPERSCRIPTS) + "\x15", _user_text(s))
    out = "".join(_TEXT_ESCAPES.get(c, c) for c in transliterate(s))
    out = out.replace("\x14", r"\textsuperscript{").replace("\x15", "}")  # eˣ, 10⁻⁶: not "ex", "10-6"
    return out.replace("−", "-").replace("…", r"\ldots{}").replace("·", r"$\cdot$").replace("√", r"$\surd$")


_SUPERSCRIPTS = str.maketrans("⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹ˣⁱⁿ", "-+0123456789xin")
# in running text: a lone ², ³ or ¹ is a Latin-1 character pdflatex sets; any other run is raised
_TEXT_SUPERSCRIPT = re.compile(r"[⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹ˣⁱⁿ]{2,}|[⁻⁺⁰⁴⁵⁶⁷⁸⁹ˣⁱⁿ]")
# a superscript exponent other than a lone ² (10⁻⁶): written base^(…) before anything transliterates it
_SUPERSCRIPT_RUN = re.compile(r"[⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹ˣⁱⁿ]{2,}|[⁻⁺⁰¹³⁴⁵⁶⁷⁸⁹ˣⁱⁿ]")


# a power written with a bare exponent (x^2, (1 − p)^γ, ((5 + L)/6)^0.6): one number, word or Greek letter
BARE_POWER = re.compile(r"\^(-?[0-9]+(?:\.[0-9]+)?|[A-Za-z][A-Za-z0-9]*|[α-ωΑ-Ω])")


def to_tex(plain: str) -> str:
    """Plain notation → LaTeX math (without the surrounding $)."""
    tokens = _tex_tokens(plain)
    pieces = _TexWriter(tokens).pieces_of()
    return _joined_tex(pieces)


def _tex_tokens(plain: str) -> list[tuple[str, str]]:
    """The notation's tokens (kind, text) once superscripts, accents and ^( … ) groups are marked."""
    plain = _SUPERSCRIPT_RUN.sub(lambda m: "^(" + m.group().translate(_SUPERSCRIPTS) + ")", _user_text(plain))
    plain = BARE_POWER.sub(r"^(\1)", plain)  # (1 − p_t)^γ, ((5 + L)/6)^0.6: the exponent raised, not a hat
    plain = transliterate(_decomposed(plain))
    plain = _ACCENTED_LETTER.sub(lambda m: chr(_ACCENT_MARKS[m[2]][0] + ord(m[1])), plain)
    plain = re.sub(r"\^\(([^()]*)\)", "\x0e\\1\x0f", plain)
    plain = PAREN_SUB.sub("\x10\\1\x11", plain)
    return [(m.lastgroup or "", m.group()) for m in TOKEN.finditer(plain)]


def _kind_piece(kind: str, text: str, before: tuple[str, str], nxt: tuple[str, str]) -> str | None:
    """The LaTeX of a number, name, index, word or subscript token (None for any other kind)."""
    if kind == "sci":
        mant, exp = text.split("e")
        return rf"{mant}\times 10^{{{int(exp)}}}"
    if kind == "num":
        return text
    if kind == "grouped":  # {,}: a comma between digits, not punctuation followed by a space
        return text.replace(",", "{,}")
    if kind in ("tag", "name"):
        return rf"\text{{{tex_text(text)}}}"
    if kind == "idx" and numbered(before):
        return text  # dQ_1[2,1]: head 1's entry (2, 1), not dQ_{1,2,1} (issue 29)
    if kind == "idx":
        return "_{" + text[1:-1] + "}"
    if kind == "word":
        return _word_piece(text, nxt)
    if kind == "sub" and "-" in text:  # words joined by a hyphen (N_non-emb): upright, not a minus
        return rf"_{{\text{{{tex_text(text[1:])}}}}}"
    if kind == "sub":
        return "_{" + text[1:] + "}"
    return None


def _word_piece(text: str, nxt: tuple[str, str]) -> str:
    """A word: a function's name (\\exp), a letter or short subscripted name in italics, else text."""
    if text in _FUNCS:
        return _FUNCS[text]
    if len(text) == 1 or (nxt[0] == "sub" and len(text) <= 3):
        return text
    return rf"\text{{{tex_text(text)}}}"


class _TexWriter:
    """Walks the tokens once, keeping what spans several of them: an open √ and the parentheses'
    depth at which a √( … ) group closes its \\sqrt{ … }."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.pieces: list[str] = []  # " " marks a space, resolved at the end
        self.sqrt_open = False
        self.sqrt_groups: list[int] = []  # paren depths at which a √( … ) group closes its \sqrt{ … }
        self.depth = 0

    def pieces_of(self) -> list[str]:
        tokens = self.tokens
        skip = -1  # a token already written with the one before it
        for i, (kind, text) in enumerate(tokens):
            if i == skip:
                continue
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ("", "")
            if text == "-" and i and tokens[i - 1][0] in ("word", "num") and nxt[1] in WORD_ENDINGS:
                self.pieces.append(r"\text{-}")  # r-th, 1-based: a hyphen in words, not a minus
                continue
            joined = _joined_piece(kind, text, nxt)
            if joined is not None:
                self.pieces.append(joined)
                skip = i + 1
                continue
            piece = _kind_piece(kind, text, tokens[i - 1] if i else ("", ""), nxt)
            if piece is None:
                piece = self._other_piece(kind, text, nxt)
            if piece is None:
                continue
            self.pieces.append(piece)
            if self.sqrt_open and nxt[0] != "sub":
                self.pieces.append("}")
                self.sqrt_open = False
        if self.sqrt_open:
            self.pieces.append("}")
        return self.pieces

    def _other_piece(self, kind: str, text: str, nxt: tuple[str, str]) -> str | None:
        """A space, accent, root, parenthesis or symbol; None when the token only moved the state
        (or wrote its own pieces)."""
        if kind == "space":
            self.pieces.append(r"\quad " if len(text) > 1 else " ")
            return None
        if text in _ACCENTED:
            return _ACCENTED[text]
        if "\ue000" <= text < "\uf000":  # a letter with its accent (above)
            return _accented(text)
        if self._root(text, nxt):
            return None
        if text == "_" and nxt[1] != "(":  # an underscore that subscripts nothing (a token "x_")
            return r"\_"
        if text not in _SYMBOLS and not text.isascii():  # é, ±: text-mode characters
            return rf"\text{{{tex_text(text)}}}"
        self.depth += {"(": 1, ")": -1}.get(text, 0)
        return _SYMBOLS.get(text, text)

    def _root(self, text: str, nxt: tuple[str, str]) -> bool:
        """A √ opening its \\sqrt{, or the parenthesis of a √( … ) group: True when handled."""
        groups = self.sqrt_groups
        if text == "√" and nxt[1] == "(":  # √(0.8² + 0.2²): the root covers the whole group
            self.pieces.append(r"\sqrt{")
            groups.append(self.depth + 1)
        elif text == "(" and groups and groups[-1] == self.depth + 1 and self.pieces[-1] == r"\sqrt{":
            self.depth += 1
        elif text == ")" and groups and groups[-1] == self.depth:
            self.depth -= 1
            groups.pop()
            self.pieces.append("}")
        elif text == "√":
            self.pieces.append(r"\sqrt{")
            self.sqrt_open = True
        else:
            return False
        return True


def _joined_piece(kind: str, text: str, nxt: tuple[str, str]) -> str | None:
    """A word written together with the token after it: h→ (an arrow over h), or two words joined
    by _ (recurrent_kernel, hidden_pre) that are one name, not a subscript."""
    if kind == "word" and len(text) == 1 and nxt[1] in ARROWS:  # h→ (forward), h← (backward)
        return rf"{ARROWS[nxt[1]]}{{{text}}}"
    if kind == "word" and (parts := hyphenated(text, nxt)) is not None:  # top_k: \mathrm{top}\text{-}k
        return rf"\mathrm{{{parts[0]}}}\text{{-}}{parts[1]}"
    if kind == "word" and one_name(text, nxt):
        return rf"\text{{{tex_text(text + nxt[1])}}}"
    return None


def _joined_tex(pieces: list[str]) -> str:
    """The pieces as one line: a space beside text is a control space; double subscripts merged;
    characters beyond Latin-1 replaced."""
    out: list[str] = []
    for k, piece in enumerate(pieces):
        if piece == " ":
            before = pieces[k - 1] if k else ""
            after = pieces[k + 1] if k + 1 < len(pieces) else ""
            out.append(r"\ " if before.startswith(r"\text") or after.startswith(r"\text") else " ")
        else:
            out.append(piece)
    text = "".join(out)
    # a state at a time step written with its entry: p_1 then _i -> p_{1,i} (no double subscript)
    text = re.sub(r"_\{([^{}]*)\}_\{([^{}]*)\}", r"_{\1,\2}", text)
    text = re.sub(r"_\{([^{}]*)\}'_\{([^{}]*)\}", r"'_{\1,\2}", text)
    # pdflatex without extra fonts has no glyphs beyond Latin-1 (foreign words are transliterated above)
    return "".join(c if ord(c) < 0x100 else "?" for c in text).strip()


def numbered(token: tuple[str, str]) -> bool:
    """A numeric subscript such as _1 (head 1's dQ_1): an entry index after it is written [2,1], since
    a second subscript would run into it."""
    kind, text = token
    return kind == "sub" and text[1:].isdigit()
