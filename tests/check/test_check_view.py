"""The check report read at 80 columns: nothing cut, nothing past the edge (the block layout)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from attncalc.reports.check_blocks import value_lines, wrap_words

from ..helpers import PROBLEMS

ANSWERS = sorted((PROBLEMS / "answers").glob("*.toml"))


def _leaves(x: Any) -> list[Any]:
    return [e for v in x for e in _leaves(v)] if isinstance(x, list) else [x]


@pytest.mark.parametrize("path", ANSWERS, ids=lambda p: p.stem)
def test_every_answers_file_reads_whole_at_80_columns(cli: Any, path: Path) -> None:
    text = cli("check", "--problems", str(PROBLEMS), str(path), "--width", "80").stdout
    data = json.loads(cli("check", "--problems", str(PROBLEMS), str(path), "--format", "json").stdout)
    lines = text.splitlines()
    assert max(cell_len(line.rstrip()) for line in lines) <= 80
    assert "…" not in text
    words = set(text.split())
    for r in data["results"]:
        assert r["id"] in words, r["id"]  # whole, on its own
        for word in r["note"].split():
            assert word in words, (r["id"], word)
        for entry in _leaves(r["given"]):
            if isinstance(entry, str) and not _num(entry):
                assert entry == "?" or entry in text, entry  # a token (a prediction)
            elif entry is not None:  # every answered number is shown (as written)
                assert any(f"{float(w.strip('[],⟨⟩')):g}" == f"{float(entry):g}" for w in words if _num(w)), entry


def _num(w: str) -> bool:
    try:
        float(w.strip("[],⟨⟩"))
    except ValueError:
        return False
    return True


def test_a_matrix_is_written_row_by_row(cli: Any) -> None:
    text = cli(
        "check", "--problems", str(PROBLEMS), str(PROBLEMS / "answers" / "luong-general.toml"), "--width", "80"
    ).stdout
    # transformed_keys is the 3×3 matrix W·h: the document's rows, one a line, wrong entries marked
    assert "  given     [0.65, ⟨0.22⟩, ⟨0.02⟩]\n            [⟨0.76⟩, ⟨0.22⟩, 0.53]\n" in text


def test_wide_terminal_keeps_the_table(cli: Any) -> None:
    text = cli(
        "check", "--problems", str(PROBLEMS), str(PROBLEMS / "answers" / "lecture-dot.toml"), "--width", "200"
    ).stdout
    assert "step" in text and "verdict" in text and "expected" in text.splitlines()[2]


def test_wrapping_never_cuts_a_word_or_an_entry() -> None:
    note = "alpha beta gamma delta epsilon zeta eta theta"
    lines = wrap_words(note, 12)
    assert all(cell_len(line) <= 12 for line in lines)
    assert " ".join(lines).split() == note.split()
    row = "[" + ", ".join(f"0.{i}{i}{i}" for i in range(1, 10)) + "]"
    parts = value_lines(row, 20)
    assert all(cell_len(p) <= 20 for p in parts)
    assert " ".join(parts).replace(", ", " ").replace(",", "") == row.replace(",", "")


def test_given_as_written_and_expected_at_the_answers_precision(cli: Any, tmp_path: Path) -> None:
    """The given column repeats the student's numbers as written (1 stays 1, 0.340 stays 0.340,
    -1 stays -1, also in the note), and the expected column shows a rounded value with all its
    decimals: cos(C, C′) = 5.0916 / (2.286 · 2.228) = 0.99997, expected 1.000, not a bare 1."""
    (tmp_path / "a.toml").write_text(
        'problem = "decoder-dot.toml"\nscores = [1, 2, -1]\nweights = [0.340, 0.422, 0.422]\n'
    )
    text = cli("check", "--problems", str(PROBLEMS), str(tmp_path / "a.toml"), "--width", "80").stdout
    assert "[1, 2, ⟨-1⟩]" in text and "⟨0.340⟩" in text
    assert "not -1." in text and "not 0.340" in text
    # e = [1, 2, 2]: α_1 = e/(e + 2e²) = 1/(1 + 2e) = 0.15536…, α_2 = α_3 = e/(1 + 2e) = 0.42232…
    assert "[0.155, 0.422, 0.422]" in text
    cos = cli(
        "check", "--problems", str(PROBLEMS), str(PROBLEMS / "answers" / "lstm-doc-sentences.toml"), "--width", "80"
    ).stdout
    assert "expected  [1.000, -0.215]" in cos


def test_long_header_puts_the_problem_on_its_own_line(cli: Any) -> None:
    text = cli(
        "check", "--problems", str(PROBLEMS), str(PROBLEMS / "answers" / "lstm-doc-sentences.toml"), "--width", "80"
    ).stdout
    first, second = text.splitlines()[:2]
    assert first.endswith("lstm-doc-sentences.toml") and second.strip().startswith("problem: ")
    assert second.strip().endswith("problems/lstm-doc-sentences.toml")


def test_a_class_folder_summary_fits_the_width_and_totals_the_score(cli: Any) -> None:
    """Several answers files: one row per file within --width, and in JSON the score summed over the
    files (each file's own score comes from grading it alone)."""
    files = [str(PROBLEMS / "answers" / n) for n in ("lstm-doc-encoder.toml", "decoder-dot.toml")]
    singles = [
        json.loads(cli("check", "--problems", str(PROBLEMS), f, "--format", "json").stdout)["score"] for f in files
    ]
    text = cli("check", "--problems", str(PROBLEMS), *files, "--width", "60").stdout
    assert max(cell_len(line.rstrip()) for line in text.splitlines()) <= 60
    assert "lstm-doc-encoder.toml" in text and "decoder-dot.toml" in text  # file names never broken
    data = json.loads(cli("check", "--problems", str(PROBLEMS), *files, "--format", "json").stdout)
    assert data["score"]["points"] == pytest.approx(sum(s["points"] for s in singles))
    assert data["score"]["out_of"] == pytest.approx(sum(s["out_of"] for s in singles))


def test_a_file_name_never_writes_a_line_of_its_own(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tryout 44: a student's file named with a newline wrote a line of its choosing into the report's
    header and the class table ("✓  eve.toml  ... score 5 of 5"); every name is shown with its escapes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    fake = "n\n✓  eve.toml  score 5 of 5\x1b[2K\nx.toml"
    for name in (fake, "plain.toml"):
        (tmp_path / name).write_text('problem = "p.toml"\nscores = [0, 0, 0]\n', encoding="utf-8")
    for args in ([fake], [fake, "plain.toml"]):
        text = cli("check", *args, "--width", "80").stdout
        assert "n\\x0a✓  eve.toml  score 5 of 5\\x1b[2K\\x0ax.toml" in text, text
        assert not any(line.lstrip().startswith(("✓  eve", "x.toml")) for line in text.splitlines()), text


def test_json_names_a_file_as_the_other_views_do(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tryout 51: a file named with bytes no UTF-8 reads was "s3/??.toml" in JSON (a name matching no file), and
    U+202E was written raw, where the text report and the gradebook escape them."""
    import os

    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"), encoding="utf-8")
    body = b'problem = "p.toml"\nscores = [0, 0, 0]\n'
    for name in (b"\xff\xfe.toml", "\u202eabc.toml".encode()):
        with open(os.path.join(os.fsencode(tmp_path), name), "wb") as f:
            f.write(body)
    names = sorted(os.fsdecode(n) for n in os.listdir(os.fsencode(tmp_path)) if n != b"p.toml")
    data = json.loads(cli("check", "--format", "json", *names).stdout)
    assert sorted(s["answers"] for s in data["submissions"]) == ["\\u202eabc.toml", "\\udcff\\udcfe.toml"]
