"""Symbols: one letter, one meaning, and every symbol in a formula defined in the same view."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from attncalc.render.writers import render

from ..helpers import PROBLEM_FILES, PROBLEMS, solve_file

SINGLE = [
    f.name for f in PROBLEM_FILES if any(k in f.read_text() for k in ('"attention"', '"self-attention"', '"softmax"'))
]


@pytest.mark.parametrize("name", SINGLE)
def test_no_symbol_names_two_steps(name: str) -> None:
    """Z (softmax sum) is not also the self-attention output; z (logits) is not also W_c [c; s]."""
    d = solve_file(name)
    if d.problem.kind not in ("attention", "self-attention", "softmax"):
        pytest.skip("recurrent kinds are sectioned per encoder/decoder")
    owners: dict[str, list[str]] = defaultdict(list)
    for s in d.steps:
        owners[s.symbol].append(s.id)
    # masking refines the scaled scores in place (S' before and after the mask): one quantity
    dup = {k: v for k, v in owners.items() if len(v) > 1 and set(v) != {"scaled_scores", "masked_scores"}}
    assert not dup
    assert not {"Z", "z"} & {s.symbol for s in d.steps if s.id == "output"}


def test_luong_concat_head_names_the_projection_before_tanh_uses_it() -> None:
    d = solve_file("luong-general.toml")
    steps = {s.id: s for s in d.steps}
    assert steps["combined_projection"].formula.startswith("m = ")
    assert steps["attentional"].formula == "h̃ = tanh(m)"
    q = render([d], "markdown", sheet="question")
    assert q.index("$m = u W_{c}$") < q.index(r"$\tilde{h} = \tanh(m)$")
    assert r"\tanh(z)" not in q


def test_self_attention_output_is_o_as_in_vaswani() -> None:
    d = solve_file("self-attention-scaled.toml")
    out = next(s for s in d.steps if s.id == "output")
    assert out.formula.startswith("O = A V")
    assert out.symbol == "o"
    assert next(s for s in d.steps if s.id == "exp_sum").symbol == "Z"


@pytest.mark.parametrize(
    ("plain", "tex"),
    [
        ("recurrent_kernel", r"\text{recurrent\_kernel}"),  # one name (Keras's), not recurrent with a subscript
        ("weight_ih", r"\text{weight}_{ih}"),  # PyTorch's W_ih: the subscript stays
        ("W_out", r"W_{out}"),
    ],
)
def test_names_joined_by_an_underscore(plain: str, tex: str) -> None:
    from attncalc.render.typeset import to_tex

    assert to_tex(plain) == tex


def test_a_special_token_is_one_word_in_maths() -> None:
    """<eos> and <s> in a formula are tokens set as text, not "<" and ">" as relations around eos
    (the PDF showed "ŷ =< eos >"); a real comparison keeps its relation."""
    from attncalc.render.typeset import to_tex

    assert to_tex("ŷ = <eos>") == r"\hat{y} =\ \text{<eos>}"
    assert to_tex("p(<s>)") == r"p(\text{<s>})"
    assert to_tex("a < b") == "a < b"


def test_arrows_and_accents_sit_over_their_letter() -> None:
    """A bidirectional encoder's h→ and h← are h with an arrow over it (not "h →"), in LaTeX and HTML;
    a tilde stays on its letter in HTML."""
    from attncalc.render.typeset import to_tex
    from attncalc.render.typeset_html import to_html

    assert to_tex("[h→_3; h←_1]") == r"[\overrightarrow{h}_{3};\, \overleftarrow{h}_{1}]"
    assert to_html("h←_1") == '<span class="over" data-a="←"><i>h</i></span><sub>1</sub>'
    assert to_html("h\u0303_t") == "<i>h\u0303</i><sub>t</sub>"


def test_symbols_in_running_text_keep_their_subscripts() -> None:
    """W_out in a subtitle or a note is W with subscript out (not a literal underscore); a user's
    file_name in a title stays text."""
    from attncalc.render.writers import html_text, tex_safe

    assert tex_safe("z = W_out h + b_out") == "z = $W_{out}$ h + $b_{out}$"
    assert tex_safe("my_file_name") == r"my\_file\_name"
    assert html_text("W_out & <b>") == "<i>W</i><sub>out</sub> &amp; &lt;b&gt;"


def test_a_two_part_subscript_with_a_letter_stays_together() -> None:
    """p_1,i (entry i of p at step 1) was typeset p_{1},i: "p1 , i"."""
    from attncalc.render.typeset import to_tex
    from attncalc.render.typeset_html import to_html

    assert to_tex("p_1,i = exp(z_1,i)") == r"p_{1,i} = \exp(z_{1,i})"
    assert to_html("p_1,i") == "<i>p</i><sub>1,i</sub>"
    assert to_tex("f(x_1, y)") == "f(x_{1}, y)"  # a comma and a space end the subscript


def test_running_text_in_latex_keeps_options_and_minus_signs() -> None:
    """ "--carry" is two hyphens, not an en dash; a negative number in a table cell or a note has a
    minus sign, as in the maths; a range "1–2" is an en dash and "1-grams" a hyphen."""
    from attncalc.render.write_tex import tex_safe

    assert tex_safe("solve --carry") == "solve -{}-carry"
    assert tex_safe("-0.762 and [−0.259, 0.135]") == "$-$0.762 and [$-$0.259, 0.135]"
    assert tex_safe("rows 1–2, 1-grams, top-k") == "rows 1--2, 1-grams, top-k"


def test_symbols_in_html_table_cells_keep_their_subscripts(cli: Any) -> None:
    """The decoder states' table names its inputs y_0, y_1: HTML sets them with subscripts, as the
    headings do, not as the literal "y_0"."""
    page = cli("solve", str(PROBLEMS / "seq2seq-luong.toml"), "-f", "html").stdout
    assert "<td><i>y</i><sub>0</sub></td>" in page and "<td>y_0</td>" not in page


def test_a_quotation_in_latex_opens_with_an_opening_quote() -> None:
    """The closing note's 'as written: …' opens with ` in LaTeX (it printed as a closing quote);
    an apostrophe (the model's) stays."""
    from attncalc.render.write_tex import tex_safe

    assert tex_safe("adds 'as written: …' and the model's") == r"adds `as written: \ldots{}' and the model's"


def test_ceiling_and_floor_typeset_as_brackets_of_their_own() -> None:
    """⌈x⌉ and ⌊x⌋ were transliterated to [x] (anyascii), the bracket of an index: LaTeX writes
    \\lceil \\rceil and \\lfloor \\rfloor, HTML keeps the characters. Two
    words joined by _ (capacity_factor) are one name in HTML as in LaTeX, not a word and a subscript."""
    from attncalc.render.typeset import to_tex
    from attncalc.render.typeset_html import to_html

    assert to_tex("C = ⌈n / E⌉") == r"C = \lceil n / E\rceil"
    assert to_tex("⌊x⌋") == r"\lfloor x\rfloor"
    assert to_html("C = ⌈n / E⌉") == "<i>C</i> = ⌈<i>n</i> / <i>E</i>⌉"
    assert to_html("capacity_factor · n") == "capacity_factor · <i>n</i>"
    assert to_html("x_i") == "<i>x</i><sub>i</sub>"


def test_top_k_is_one_hyphenated_name() -> None:
    """moe's top_k reads as the name top-k, not "top" with a subscript k: \\mathrm{top}\\text{-}k in
    LaTeX (and so in the PDF), top-<i>k</i> in HTML; a word with a subscript otherwise stays one (W_router)."""
    from attncalc.render.typeset import to_tex
    from attncalc.render.typeset_html import to_html

    assert to_tex("top_k = 2") == r"\mathrm{top}\text{-}k = 2"
    assert to_html("top_k = 2") == "top-<i>k</i> = 2"
    assert to_tex("n · top_k / E") == r"n \cdot  \mathrm{top}\text{-}k / E"
    assert to_tex("W_router") == "W_{router}"
    assert to_html("top_i") == "top<sub>i</sub>"


@pytest.mark.parametrize("fmt", ["latex", "html"])
def test_moe_sheets_write_top_k_as_a_name(fmt: str) -> None:
    """The Switch example's given top_k and its capacity formula ⌈capacity_factor · n · top_k / E⌉."""
    text = render([solve_file("moe-switch.toml")], fmt)
    if fmt == "latex":
        assert r"$\mathrm{top}\text{-}k = 1$" in text
        assert r"n \cdot  \mathrm{top}\text{-}k / E\rceil" in text
        assert "top_{k}" not in text
    else:
        assert "top-<i>k</i> = 1" in text
        assert "top-<i>k</i> / <i>E</i>⌉" in text
        assert "top<sub>k</sub>" not in text


def test_aux_coef_is_one_name() -> None:
    """moe's aux_coef is the name of the loss's coefficient, not aux with a subscript coef."""
    from attncalc.render.typeset import to_tex
    from attncalc.render.typeset_html import to_html

    assert to_tex("aux_coef = 0.02") == r"\text{aux\_coef}\ = 0.02"
    assert to_html("aux_coef · E") == "aux_coef · <i>E</i>"
    assert to_tex("L_aux") == "L_{aux}"  # a subscript that is one stays one


def test_a_hyphen_inside_words_is_not_a_minus_sign() -> None:
    """ "the r-th largest" and "(1-based)" are words: a text hyphen, where r - 1 stays a subtraction."""
    from attncalc.render.typeset import to_tex

    assert to_tex("the r-th largest p_ie (1-based)") == (
        r"\text{the}\ r\text{-}\text{th}\ \text{largest}\ p_{ie} (1\text{-}\text{based})"
    )
    assert "-" in to_tex("r - 1") and r"\text{-}" not in to_tex("r - 1")
    assert r"\text{-}" not in to_tex("x-y")


@pytest.mark.parametrize("fmt", ["latex", "html"])
def test_moe_sheets_write_names_and_booleans_as_the_problem_file_does(fmt: str) -> None:
    """The Mixtral example: renormalize = true (the file's boolean, not 1), aux_coef as a name, and the
    top-k choice's words with text hyphens."""
    text = render([solve_file("moe-mixtral.toml")], fmt)
    if fmt == "latex":
        assert r"$\text{renormalize}\ =\ \text{true}$" in text
        assert r"renormalize}\ = 1" not in text
        assert r"$\text{aux\_coef}\ = 0.02$" in text
        assert "aux_{coef}" not in text
        assert r"r\text{-}\text{th}" in text and r"(1\text{-}\text{based})" in text
        assert "r-\\text{th}" not in text and "(1-\\text{based})" not in text
    else:
        assert "renormalize = true" in text
        assert "aux<sub>coef</sub>" not in text and "aux_coef = 0.02" in text
