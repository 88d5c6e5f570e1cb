"""Names the typesetters (LaTeX and HTML) write as words, not as a letter with a subscript or a
subtraction: top_k (top-k), aux_coef, recurrent_kernel, and the hyphen of r-th and 1-based."""

from __future__ import annotations

# words a hyphen joins to the letter or number before it (r-th, 1-based): text, not subtraction
WORD_ENDINGS = frozenset({"th", "st", "nd", "rd", "based"})

# names written with an underscore that read as one hyphenated name, not a letter and its subscript:
# top_k is "top-k" (moe's key), never top with a subscript k
HYPHENATED = {"top_k": ("top", "k"), "top_p": ("top", "p")}


def hyphenated(word: str, nxt: tuple[str, str]) -> tuple[str, str] | None:
    """(top, k) for the word top followed by _k; None for any other pair."""
    return HYPHENATED.get(word + nxt[1]) if nxt[0] == "sub" else None


# short names joined by _ that the length rule below does not catch (moe's aux_coef, not aux with a
# subscript coef)
ONE_NAMES = frozenset({"aux_coef"})


def one_name(word: str, nxt: tuple[str, str]) -> bool:
    """Two words joined by _ (recurrent_kernel, capacity_factor, aux_coef): one name, not a subscript."""
    if nxt[0] == "sub" and word + nxt[1] in ONE_NAMES:
        return True
    return len(word) > 3 and nxt[0] == "sub" and len(nxt[1]) > 4 and nxt[1][1:].isalpha()
