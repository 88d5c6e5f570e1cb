"""The gallery: every problem of problems/ as its solution sheet, grouped as a course would be.

A problem goes to the part of the course its kind belongs to (KIND_PART); a kind not listed there
(a new one) goes to a last page, "More", so that the site still builds and shows it.
"""

from __future__ import annotations

import html
import logging
from pathlib import Path
from typing import Any

# (page, title, what the part is about, its kinds), in the order a course meets them
PARTS: list[tuple[str, str, str, tuple[str, ...]]] = [
    (
        "attention",
        "Attention",
        "One query attending over keys and values: scores, softmax weights, context vectors, an output head; "
        "similarities between vectors.",
        ("attention", "self-attention", "similarity"),
    ),
    (
        "recurrent",
        "Recurrent networks",
        "RNN, LSTM and GRU cells over a sequence, and encoder-decoder models with Bahdanau and Luong attention.",
        ("rnn", "lstm", "gru", "seq2seq"),
    ),
    (
        "transformer",
        "The Transformer",
        "Multi-head self- and cross-attention, masks, grouped queries, KV caches, positions (sinusoidal, RoPE, "
        "ALiBi), and whole encoder and decoder layers.",
        ("multi-head", "positional-encoding", "transformer-layer"),
    ),
    (
        "training",
        "Training",
        "Softmax and cross-entropy, sequence probabilities and perplexity, gradients through attention, "
        "AdamW and clipping, learning-rate schedules.",
        ("softmax", "sequence", "attention-backward", "lr-schedule"),
    ),
    (
        "systems",
        "Systems",
        "Counting a model (parameters, FLOPs, memory, the KV cache) and the tiled softmax of FlashAttention.",
        ("accounting", "online-softmax"),
    ),
    ("tokenization", "Tokenization", "Byte-pair encoding: pair counts, merges, encoding new words.", ("bpe",)),
    (
        "post-training",
        "Post-training: decoding and evaluation",
        "What is done with a trained model's output: choosing the next token (greedy, temperature, top-k, top-p, "
        "beam search) and scoring a translation with BLEU.",
        ("decode", "bleu"),
    ),
]
MORE = ("more", "More", "Problems of kinds not yet placed in a part of the course.", ())

_made: list[tuple[str, str]] = []  # (page uri, title) of the part pages written, in order


def part_of(kind: str) -> tuple[str, str, str, tuple[str, ...]]:
    for part in PARTS:
        if kind in part[3]:
            return part
    return MORE


def description(path: Path) -> str:
    """The problem file's opening comment (every example starts with one saying what it shows)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(x for x in lines if x)


def _figure(d: Any, log: logging.Logger) -> bytes | None:
    """The heat map `attncalc plot` draws of the derivation (None: the kind or this problem has no
    attention weights to draw, or matplotlib is absent)."""
    import attncalc
    from attncalc.errors import ProblemError
    from attncalc.kinds import entry

    if entry(d.problem.kind).plot_step is None:
        return None
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        log.info("matplotlib is not installed: the gallery has no figures (pip install '.[docs]' brings it)")
        return None
    try:
        return attncalc.plot(d, format="svg")
    except ProblemError:  # a seq2seq without attention: `attncalc plot` asks for a step, there is no default
        return None


def pages(problems: Path, log: logging.Logger) -> dict[str, str | bytes]:
    """gallery/index.md, one page per part, and the sheets and figures they show."""
    import attncalc
    from attncalc.render.writers import render

    out: dict[str, str | bytes] = {}
    by_part: dict[str, list[tuple[Path, str, str]]] = {}
    for path in sorted(problems.glob("*.toml")):
        d = attncalc.solve(path)
        kind = d.problem.kind
        by_part.setdefault(part_of(kind)[0], []).append((path, kind, d.problem.title))
        out[f"gallery/sheets/{path.stem}.html"] = render([d], "html", "solution")
        fig = _figure(d, log)
        if fig is not None:
            out[f"gallery/figures/{path.stem}.svg"] = fig
    _made.clear()
    index = [
        "# Gallery",
        "",
        "Every problem of the repository's `problems/` folder, solved: the solution sheet that "
        "`attncalc solve PROBLEM -f html` writes and, where the kind has one, the figure of "
        "`attncalc plot PROBLEM`. These pages are made from the files when the site is built.",
        "",
        "| part | problems | kinds |",
        "| --- | --- | --- |",
    ]
    for part in [*PARTS, MORE]:
        page, title, about, _ = part
        items = by_part.get(page, [])
        if not items:
            continue
        uri = f"gallery/{page}.md"
        _made.append((uri, title))
        kinds = sorted({k for _, k, _ in items})
        index.append(
            f"| [{title}]({page}.md) | {len(items)} | {', '.join(f'[{k}](../reference/kinds/{k}.md)' for k in kinds)} |"
        )
        out[uri] = _part_page(title, about, items, out)
    out["gallery/index.md"] = "\n".join(index) + "\n"
    return out


def _part_page(title: str, about: str, items: list[tuple[Path, str, str]], out: dict[str, str | bytes]) -> str:
    lines = [f"# {title}", "", about, ""]
    lines += [f"- [{html.escape(t)}](#{p.stem}) (`{p.name}`, kind {k})" for p, k, t in items]
    for path, kind, ptitle in items:
        stem = path.stem
        lines += [
            "",
            f"## {html.escape(ptitle)} {{ #{stem} }}",
            "",
            f"`problems/{path.name}` · kind [{kind}](../reference/kinds/{kind}.md) · "
            f"`attncalc solve problems/{path.name}`",
            "",
            html.escape(description(path)),
            "",
        ]
        if f"gallery/figures/{stem}.svg" in out:
            lines += [f"![The figure of attncalc plot for {stem}](figures/{stem}.svg){{ loading=lazy }}", ""]
        lines += [
            f'??? note "The problem file, {path.name}"',
            "",
            "    ```toml",
            *[("    " + x).rstrip() for x in path.read_text(encoding="utf-8").splitlines()],
            "    ```",
            "",
            f"[The solution sheet on its own page](sheets/{stem}.html)",
            "",
            f'<iframe class="attncalc-sheet" src="sheets/{stem}.html" title="{html.escape(ptitle)}" loading="lazy" '
            "onload=\"try{this.style.height=(this.contentWindow.document.documentElement.scrollHeight+24)+'px'}catch(e){}\">"
            "</iframe>",
        ]
    return "\n".join(lines) + "\n"


def nav() -> list[dict[str, str]]:
    return [{title: uri} for uri, title in _made]
