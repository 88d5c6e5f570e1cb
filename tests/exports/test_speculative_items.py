"""Kind speculative in the LMS items and on the practice page: the residual and its running sum are
labelled by the vocabulary (the problem's own tokens in their own order give nothing away, as
docs/interface.md says), the drawn token is asked as the next token, and the 0/1 accept flags say
what 1 and 0 mean rather than asking for a count."""

from __future__ import annotations

from typing import Any

from attncalc.reports.lms import Choice, Number, questions

from ..helpers import solve_file

VOCAB = ["a", "b", "c", "d"]


def _by_step() -> dict[str, Any]:
    return {q.step_id: q for q in questions(solve_file("speculative-two-drafts.toml"), 1)}


def test_the_residual_is_labelled_by_the_vocabulary() -> None:
    qs = _by_step()
    for step, symbol in (("residual", "p'"), ("residual_cumulative", "F")):
        labels = [e.label for e in qs[step].entries if isinstance(e, Number)]
        assert labels == [f"{symbol}_{i} ({t})" for i, t in enumerate(VOCAB, 1)], labels


def test_the_next_token_is_asked_as_the_next_token() -> None:
    (choice,) = _by_step()["next_token"].entries
    assert isinstance(choice, Choice) and choice.label == "next token"
    assert choice.correct == ("a",) and sorted(choice.options) == VOCAB


def test_accept_flags_say_what_one_and_zero_mean() -> None:
    qs = _by_step()
    assert qs["accepted"].precision == "Give 1 if accepted, 0 if rejected."
    assert qs["n_accepted"].precision == "Give a count (a whole number)."


def test_the_page_says_the_same_of_the_flags() -> None:
    from ..serve_support import examples_client

    page = examples_client().get("/problems/speculative-two-drafts").text
    accepted = next(s for s in page.split('<section class="step"')[1:] if 'name="accepted[0]"' in s)
    accepted = accepted.split("</section>")[0]
    assert "A flag: 1 if accepted, 0 if rejected." in accepted and "A count" not in accepted
    residual = next(s for s in page.split('<section class="step"')[1:] if 'name="residual[0]"' in s)
    assert "rank 1" not in residual.split("</section>")[0]
