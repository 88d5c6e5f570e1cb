"""The base of the sheet writers: one ``_block_<TypeName>`` method per block type (a test holds
each writer to it); a writer knows nothing of attention, it only typesets what the sheet builder said."""

from __future__ import annotations

import re

from .blocks import Details, Sheet

# a symbol with subscripts in running text (W_out, b_hn, h_t, W_Q): set as maths, W with subscript out
SUBSCRIPTED = re.compile(
    # dA_l, dS_ik (a gradient), Σ_l, δ_kl: symbols too (issue 29's explanations); N_non-emb, F_scores (issue 31);
    # p'_i, F_(i−1): a primed symbol, a subscript in parentheses
    r"(?<![\w\\.])((?:d[A-Z]|[A-Za-zΣδ])[\u0303\u0302→←]?'?(?:_(?:[A-Za-z]{2,}-[A-Za-z]{2,}|[A-Za-z0-9]{1,6}|\([^()]{1,8}\)))+|weight_ih|weight_hh|bias_ih|bias_hh|recurrent_kernel)(?![\w])"
)


# a step id in brackets ([encoder.fwd.1.r_pre]) is copied into answers files: it stays as written
STEP_ID = re.compile(r"(\[[\w.]+\])")


# table headers that are words, not symbols (set upright, not as maths)
PLAIN_HEADERS = ("i", "token", "step", "value", "entry", "p", "#", "compute")


class Writer:
    """Base: dispatch on block type."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        self.out: list[str] = []

    def body(self) -> str:
        for block in self.sheet.blocks:
            getattr(self, f"_block_{type(block).__name__}")(block)
        return "\n".join(self.out).rstrip() + "\n"

    def _block_Details(self, b: Details) -> None:
        """Where nothing is hidden (Markdown, LaTeX), the revealed blocks are simply shown."""
        for block in b.blocks:
            getattr(self, f"_block_{type(block).__name__}")(block)
