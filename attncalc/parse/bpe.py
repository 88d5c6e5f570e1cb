"""Parsing of kind ``bpe``: the corpus (or its word counts), the number of merges, the tie rule, the
end-of-word marker and the words to encode. The declaration (:data:`attncalc.schema.bpe.GIVEN`) checks
the types and bounds; this module keeps the rules that tie keys together."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from ..errors import escape, hidden, visible
from ..numbers import MAX_LENGTH
from ..schema.bpe import GIVEN, TIE_RULE
from .declared import read_declared
from .reader import describe_raw
from .types import Problem

if TYPE_CHECKING:
    from .reader import Reader

MAX_CORPUS = 5_000  # characters of a corpus worked by hand
MAX_WORDS = 100  # distinct words
MAX_WORD = 40  # characters (symbols) of one word
MAX_COUNT = 1_000_000  # occurrences of one word given in `words`
MAX_ENCODE = 20  # words to encode


@dataclass(frozen=True)
class Bpe:
    """The kind's typed data (``problem.data``)."""

    words: tuple[tuple[str, int], ...]  # each distinct word and its count, in the order of first occurrence
    # consecutive words of the corpus (word, next word, how often): what a count across words would pair
    # (the `words` table read as each word written count times, in the table's order)
    adjacent: tuple[tuple[str, str, int], ...]
    corpus: tuple[str, ...]  # the corpus's words in order (() when the counts are given)
    merges: int
    tie: str  # "greater" | "first"
    end_of_word: str
    encode: tuple[str, ...]
    from_corpus: bool

    def stated(self) -> list[tuple[str, str]]:
        """(key, sentence): what the questions ask and the rules besides the corpus (a quiz item states
        them): how many merges are asked for, the tie rule, the end-of-word marker and the words to encode.
        The merges themselves are what is asked: never stated."""
        out = [
            (
                "merges",
                f"merges = {self.merges}: learn the first {self.merges}, one after the other, each merging the pair "
                "of adjacent symbols with the largest count (at least 2) wherever it occurs inside a word.",
            ),
            ("tie", f"tie = {self.tie}: {TIE_RULE[self.tie]}."),
        ]
        if self.end_of_word:
            out.append(
                ("end_of_word", f"End of word: {self.end_of_word} is appended to every word as one more symbol.")
            )
        if self.encode:
            words = ", ".join(self.encode)
            out.append(("encode", f"Words to encode with the learned merges, applied in the order learned: {words}."))
        return out


def _word(r: Reader, w: str, key: str) -> str:
    if not w or any(ch.isspace() for ch in w):
        raise r.fail(key, f"the word {w!r} is empty or holds whitespace: words are split on whitespace")
    if len(w) > MAX_WORD:
        raise r.fail(key, f"the word {w[:20]!r}… has {len(w)} characters: at most {MAX_WORD} (a word traced by hand)")
    if any(not ch.isprintable() for ch in w):
        raise r.fail(key, f"the word {w!r} holds a control character")
    _shown(r, w, key, "the word")
    return w


def _shown(r: Reader, w: str, key: str, what: str) -> None:
    """A word or the end-of-word marker, whose symbols answers write: no '?' (a token or an item '?', which
    an answer reads as not answered: c?d can leave one), nothing that shows nothing (U+2800, a lone mark, a
    filler: a token no one sees), and at most 200 characters (a practice-page field)."""
    if "?" in w:
        raise r.fail(key, f"{what} {w!r} holds '?': an answer '?' means not answered, so it could never be graded")
    bad = next((ch for ch in w if hidden(ch)), None)
    if bad is not None or not visible(w) or any(unicodedata.category(ch).startswith("M") for ch in w[:1]):
        raise r.fail(key, f"{what} {w!r} holds a character that shows nothing ({escape(bad or w[0])})")
    if len(w) > MAX_LENGTH:
        raise r.fail(key, f"{what} has {len(w):,} characters: at most {MAX_LENGTH}")


def parse(r: Reader, raw: dict[str, Any], common: dict[str, Any]) -> Problem:
    """Kind bpe, past the top level."""
    g = read_declared(r, raw["given"], GIVEN, "given")
    if common["tokens"] is not None:
        raise r.fail("tokens", "a bpe problem's words are given.corpus or given.words")
    corpus, table = g["corpus"], g["words"]
    if (corpus is None) == (table is None):
        raise r.fail("given", "give exactly one of corpus (a text) and words (a table of word counts)")
    if corpus is not None:
        if len(corpus) > MAX_CORPUS:
            raise r.fail(
                "given.corpus", f"{len(corpus):,} characters: at most {MAX_CORPUS:,} in a corpus traced by hand"
            )
        stream = tuple(_word(r, w, "given.corpus") for w in corpus.split())
        if not stream:
            raise r.fail("given.corpus", "the corpus has no words")
        counts: dict[str, int] = {}
        for w in stream:
            counts[w] = counts.get(w, 0) + 1
    else:
        assert isinstance(table, dict)
        if not table:
            raise r.fail("given.words", "the table of word counts is empty")
        counts = {}
        for w, n in table.items():
            key = f"given.words.{w}"
            _word(r, str(w), key)
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_COUNT:
                raise r.fail(key, f"expected a count, a whole number from 1 to {MAX_COUNT:,}, got {describe_raw(n)}")
            counts[str(w)] = n
        stream = ()
    if len(counts) > MAX_WORDS:
        raise r.fail(
            "given.corpus" if corpus is not None else "given.words",
            f"{len(counts)} distinct words: at most {MAX_WORDS}",
        )
    eow = g["end_of_word"]
    if any(ch.isspace() or not ch.isprintable() for ch in eow):
        raise r.fail("given.end_of_word", f"the marker {eow!r} holds whitespace or a control character")
    if eow:  # a symbol every answer writes: the same rules as a word's
        _shown(r, eow, "given.end_of_word", "the marker")
    encode = g["encode"] or ()
    if len(encode) > MAX_ENCODE:
        raise r.fail("given.encode", f"{len(encode)} words: at most {MAX_ENCODE}")
    encode = tuple(_word(r, w, "given.encode") for w in encode)
    data = Bpe(
        words=tuple(counts.items()),
        adjacent=_adjacent(stream, counts),
        corpus=stream,
        merges=g["merges"],
        tie=g["tie"],
        end_of_word=eow,
        encode=encode,
        from_corpus=corpus is not None,
    )
    return Problem(given={}, data=data, **common)


def _adjacent(stream: tuple[str, ...], counts: dict[str, int]) -> tuple[tuple[str, str, int], ...]:
    """Each pair of consecutive words and how often it occurs, in the order of first occurrence."""
    seen: dict[tuple[str, str], int] = {}
    if stream:
        for a, b in pairwise(stream):
            seen[(a, b)] = seen.get((a, b), 0) + 1
    else:
        order = list(counts.items())
        for i, (w, n) in enumerate(order):
            if n > 1:
                seen[(w, w)] = seen.get((w, w), 0) + n - 1
            if i + 1 < len(order):
                nxt = order[i + 1][0]
                seen[(w, nxt)] = seen.get((w, nxt), 0) + 1
    return tuple((a, b, n) for (a, b), n in seen.items())
