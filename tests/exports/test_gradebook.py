"""The gradebook: `check P answers/*.toml --format csv` gives one row per answers file (file, problem, score,
out of, a verdict per step) that a spreadsheet reads; JSON gives the same; -o writes it as the project writes
files (never over a file without --force, with the umask's mode)."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS


def unbom(text: str) -> str:
    """The CSV without the byte order mark it begins with (for Excel)."""
    assert text.startswith("\ufeff")
    return text[1:]


@pytest.fixture
def klass(cli: Any, tmp_path: Path) -> tuple[Path, list[str]]:
    """Three LSTM variants and three students: alice hands in variant 1's key, bob variant 2's key with one entry
    of 1.f wrong, carol the first five steps of variant 3 only."""
    assert (
        cli(
            "generate", "--kind", "lstm", "--head", "--count", "3", "--seed", "1", "--out", str(tmp_path / "hw")
        ).exit_code
        == 0
    )
    folder = tmp_path / "class"
    folder.mkdir()

    def key(k: int) -> list[str]:
        return (tmp_path / "hw" / "answers" / f"variant-{k:02d}.toml").read_text(encoding="utf-8").splitlines()

    def named(k: int, lines: list[str]) -> str:
        body = [line for line in lines if not line.startswith(("#", "problem"))]
        return "\n".join([f'problem = "../hw/variant-{k:02d}.toml"', *body]) + "\n"

    (folder / "alice.toml").write_text(named(1, key(1)), encoding="utf-8")
    bob = key(2)
    i = next(n for n, line in enumerate(bob) if line.startswith("1.f = "))
    first = bob[i].split("[")[1].split(",")[0]
    bob[i] = bob[i].replace(f"[{first},", f"[{float(first) + 0.1:.3f},", 1)
    (folder / "bob.toml").write_text(named(2, bob), encoding="utf-8")
    steps = [line for line in key(3) if not line.startswith(("#", "problem"))]
    (folder / "carol.toml").write_text(named(3, steps[:5]), encoding="utf-8")
    return folder, [str(folder / n) for n in ("alice.toml", "bob.toml", "carol.toml")]


def test_one_row_per_answers_file(cli: Any, klass: tuple[Path, list[str]]) -> None:
    """alice: every point; bob: half of 1.f's point lost (one of its two entries), the rest correct; carol: 5 points."""
    _, files = klass
    result = cli("check", "--problems", str(klass[0].parent / "hw"), *files, "--format", "csv")
    assert result.exit_code == 1  # not every answer is correct
    rows = list(csv.DictReader(io.StringIO(unbom(result.stdout))))
    assert [Path(r["file"]).name for r in rows] == ["alice.toml", "bob.toml", "carol.toml"]
    header = next(csv.reader(io.StringIO(unbom(result.stdout))))
    assert header[:4] == ["file", "problem", "score", "out_of"] and "1.f" in header and "grad_W_out" in header
    assert header[-2:] == ["student", "error"]
    steps = header[4:-2]
    n = len(steps)  # one point per step by default
    assert [r["out_of"] for r in rows] == [str(n)] * 3
    assert rows[0]["score"] == str(n) and all(rows[0][s] == "correct" for s in steps)
    assert float(rows[1]["score"]) == n - 0.5 and rows[1]["1.f"] == "wrong"
    assert rows[2]["score"] == "5" and [rows[2][s] for s in steps[:6]] == ["correct"] * 5 + [""]
    assert Path(rows[1]["problem"]).name == "variant-02.toml"


def test_json_gives_the_same(cli: Any, klass: tuple[Path, list[str]]) -> None:
    _, files = klass
    rows = list(
        csv.DictReader(
            io.StringIO(
                unbom(cli("check", "--problems", str(klass[0].parent / "hw"), *files, "--format", "csv").stdout)
            )
        )
    )
    data = json.loads(cli("check", "--problems", str(klass[0].parent / "hw"), *files, "--format", "json").stdout)
    for row, sub in zip(rows, data["submissions"], strict=True):
        assert sub["answers"] == row["file"] and sub["problem"] == row["problem"]
        assert f"{sub['score']['points']:g}" == row["score"] and f"{sub['score']['out_of']:g}" == row["out_of"]
        verdicts = {r["id"]: r["verdict"] for r in sub["results"]}
        for step in sub["unanswered"]:
            assert row[step] == ""
        assert all(row[k] == v for k, v in verdicts.items())


def test_output_file_umask_and_force(cli: Any, klass: tuple[Path, list[str]], tmp_path: Path) -> None:
    _, files = klass
    target = tmp_path / "grades.csv"
    old = os.umask(0o027)
    try:
        assert (
            cli(
                "check", "--problems", str(klass[0].parent / "hw"), *files, "--format", "csv", "-o", str(target)
            ).exit_code
            == 1
        )
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
        first = target.read_bytes()
        assert first.count(b"\r\n") == 4  # the header and three rows (CSV's own line ends)
        again = cli(
            "check", "--problems", str(klass[0].parent / "hw"), *files[:1], "--format", "csv", "-o", str(target)
        )
        assert again.exit_code == 2 and "--force" in again.stderr
        assert target.read_bytes() == first
        assert (
            cli(
                "check",
                "--problems",
                str(klass[0].parent / "hw"),
                *files[:1],
                "--format",
                "csv",
                "-o",
                str(target),
                "--force",
            ).exit_code
            == 0
        )
        assert target.read_bytes().count(b"\r\n") == 2
        assert (
            cli(
                "check", "--problems", str(klass[0].parent / "hw"), *files, "-o", str(tmp_path / "report.txt")
            ).exit_code
            == 1
        )
        text = (tmp_path / "report.txt").read_text(encoding="utf-8")
        assert "Total: 3 submissions" in text and "\x1b[" not in text  # plain text, no colours
        n = len(first.split(b"\r\n")[0].split(b",")) - 6  # steps, one point each
        assert f"mean score {round((n + (n - 0.5) + 5) / 3, 2):g} / {n}" in text
    finally:
        os.umask(old)


def test_a_file_name_is_never_a_formula(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A spreadsheet would run "=1+1.toml" as a formula: such a cell gets a leading apostrophe."""
    monkeypatch.chdir(tmp_path)
    Path("=1+1.toml").write_text("weights = [0.155, 0.422, 0.422]\n", encoding="utf-8")
    out = cli("check", str(PROBLEMS / "decoder-dot.toml"), "=1+1.toml", "--format", "csv").stdout
    assert list(csv.reader(io.StringIO(unbom(out))))[1][0] == "'=1+1.toml"


def test_the_problem_grading_table_sets_the_points(cli: Any, tmp_path: Path) -> None:
    """[grading] in the problem: weights 4, everything else 0; a student with the weights right scores 4 of 4."""
    problem = tmp_path / "p.toml"
    problem.write_text(
        (PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8")
        + "\n[grading]\ndefault = 0\n[grading.points]\nweights = 4\n",
        encoding="utf-8",
    )
    (tmp_path / "a.toml").write_text("weights = [0.155, 0.422, 0.422]\n", encoding="utf-8")
    out = cli("check", str(problem), str(tmp_path / "a.toml"), "--format", "csv").stdout
    row = next(iter(csv.DictReader(io.StringIO(unbom(out)))))
    assert (row["score"], row["out_of"], row["weights"], row["scores"]) == ("4", "4", "correct", "")
    assert tomllib.loads(problem.read_text(encoding="utf-8"))["grading"]["points"]["weights"] == 4


def test_one_unreadable_file_does_not_cost_the_class_its_gradebook(cli: Any, tmp_path: Path) -> None:
    """A class folder with one broken answers file: the others are graded into the CSV, the broken one
    is named on one line of stderr and has its row with the reason, and the exit code (2) says that
    something was refused."""
    import csv
    import io

    good = str(PROBLEMS / "answers" / "decoder-dot.toml")
    bad = tmp_path / "broken.toml"
    bad.write_text("weights = [0.1, 0.2\n")  # not TOML
    out = tmp_path / "book.csv"
    # (--problems: without it a PROBLEM given first before answers files naming their own problem is refused)
    result = cli(
        "check",
        "--problems",
        str(PROBLEMS),
        str(PROBLEMS / "decoder-dot.toml"),
        good,
        str(bad),
        good,
        "-f",
        "csv",
        "-o",
        str(out),
    )
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("attncalc: error:")]
    assert len(errors) == 1 and str(bad) in errors[0]
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8-sig"))))
    assert [Path(r["file"]).name for r in rows] == ["decoder-dot.toml", "broken.toml", "decoder-dot.toml"]
    assert [r["score"] for r in rows] == ["9", "", "9"]  # the broken file's row: no score, and why
    # the file as the report names it (relative to the folder the files share: where that is depends on
    # where the tests run), never an absolute path
    named = rows[1]["error"].split(": ", 1)[0]
    assert named.endswith("broken.toml") and not named.startswith("/") and "not valid TOML" in rows[1]["error"]
    assert str(tmp_path) not in out.read_text(encoding="utf-8-sig")  # no absolute path of this machine
    assert rows[1]["student"] == "broken"
    assert rows[0]["error"] == rows[2]["error"] == ""


def _submissions(tmp_path: Path) -> Path:
    """A class's problem (decoder-dot) and a folder of submissions holding alice's answers, a problem
    file a student wrote (softmax of [0, 0]: 0.5, 0.5 is all it asks) and mallory's answers to it."""
    (tmp_path / "decoder-dot.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text(encoding="utf-8"))
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "easy.toml").write_text('kind = "softmax"\n[given]\nlogits = [0, 0]\n')
    (subs / "mallory.toml").write_text('problem = "easy.toml"\nprobabilities = [0.5, 0.5]\n')
    (subs / "alice.toml").write_text('student = "alice"\nproblem = "../decoder-dot.toml"\nscores = [1, 2, 2]\n')
    return subs


def test_with_problems_a_problem_beside_the_submissions_is_not_taken(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --problems, the problem a file names is read there, not from a file beside the answers
    (a student could grade themselves against one they wrote); alice's, in --problems, is read."""
    subs = _submissions(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--problems", ".", "subs/alice.toml", "subs/mallory.toml", "--format", "csv")
    rows = {Path(r["file"]).name: r for r in csv.DictReader(io.StringIO(unbom(result.stdout)))}
    assert result.exit_code == 2
    assert rows["alice.toml"]["score"] == "1" and rows["alice.toml"]["problem"] == "decoder-dot.toml"
    assert rows["mallory.toml"]["score"] == "" and "could not be used" in rows["mallory.toml"]["error"]
    # without --problems the answers file's own folder is where its problem is read (as documented)
    alone = cli("check", str(subs / "mallory.toml"))
    assert alone.exit_code == 0


def test_two_files_for_one_student_are_said(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    subs = _submissions(tmp_path)
    (subs / "zz.toml").write_text('student = "alice"\nproblem = "../decoder-dot.toml"\nscores = [9, 9, 9]\n')
    monkeypatch.chdir(tmp_path)
    result = cli(
        "check", "--problems", ".", "subs/alice.toml", "subs/zz.toml", "--format", "csv", "--gradebook", "canvas"
    )
    assert "2 answers files are the student alice (subs/alice.toml, subs/zz.toml)" in result.stderr


def test_a_formula_looking_student_is_not_an_email(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    subs = _submissions(tmp_path)
    for name in ("p", "q"):
        (subs / f"{name}.toml").write_text(
            f'student = "@SUM{name}"\nproblem = "../decoder-dot.toml"\nscores = [1, 2, 2]\n'
        )
    monkeypatch.chdir(tmp_path)
    result = cli(
        "check",
        "--problems",
        ".",
        "subs/alice.toml",
        "subs/p.toml",
        "subs/q.toml",
        "-f",
        "csv",
        "--gradebook",
        "moodle",
    )
    assert "some students are emails" not in result.stderr
    (subs / "r.toml").write_text('student = "r@uni.edu"\nproblem = "../decoder-dot.toml"\nscores = [1, 2, 2]\n')
    result = cli("check", "--problems", ".", "subs/alice.toml", "subs/r.toml", "-f", "csv", "--gradebook", "moodle")
    assert "some students are emails and some are not" in result.stderr


def test_two_unusable_files_sorted_first_do_not_cost_the_class_its_gradebook(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file over the size limit and one that names no problem, sorted first: each gets its row, and
    alice, whose file names its problem, is graded (the second file alone used to decide, and the
    whole gradebook was abandoned)."""
    subs = _submissions(tmp_path)
    (subs / "!a.toml").write_text("x" * 1_100_000)
    (subs / "!b.toml").write_text("scores = [1, 2, 2]\n")
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--problems", ".", "subs/!a.toml", "subs/!b.toml", "subs/alice.toml", "-f", "csv")
    rows = {Path(r["file"]).name: r for r in csv.DictReader(io.StringIO(unbom(result.stdout)))}
    assert result.exit_code == 2
    assert rows["alice.toml"]["score"] == "1"
    assert "1M limit" in rows["!a.toml"]["error"] and "names no problem" in rows["!b.toml"]["error"]


def test_a_student_named_points_possible_stays_a_student_in_canvas(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Canvas's importer takes a row whose first cell holds "Points Possible" (or "Muted") for no
    student (gradebook_importer.rb, check_for_non_student_row): such a name leaves the Student cell
    empty, the SIS Login ID column holding it, with a note."""
    subs = _submissions(tmp_path)
    (subs / "pp.toml").write_text('student = "Points Possible"\nproblem = "../decoder-dot.toml"\nscores = [1, 2, 2]\n')
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--problems", ".", "subs/alice.toml", "subs/pp.toml", "-f", "csv", "--gradebook", "canvas")
    rows = list(csv.reader(io.StringIO(unbom(result.stdout))))
    firsts = [r[0] for r in rows]
    assert firsts.count("Points Possible") == 1  # Canvas's own row only
    assert any(r[0] == "" and r[3] == "Points Possible" for r in rows)
    assert "would make Canvas skip the row" in result.stderr


HIDDEN = ("a\u202eb", "c\x1b[31md", "e\nf", "g\u2066h")  # an override, an ANSI escape, a newline, an isolate
# not printable text either, and each was written raw (refused as a student = is, by the same rule): the
# Arabic letter mark, zero-width space, word joiner, BOM, soft hyphen, tag A, private use, unassigned,
# the ideographic and the no-break space
UNSEEN = ("i\u061cj", "k\u200bl", "m\u2060n", "o\ufeffp", "q\u00adr", "s\U000e0041t", "u\ue000v", "w\u0378x")
SPACES = ("y\u3000z", "A\u00a0B")


def _escaped(name: str) -> str:
    """A name as Python's own escapes write it (a newline as \\x0a): what each cell must show."""
    return name.encode("unicode_escape").decode("ascii").replace("\\n", "\\x0a")


def _raw_controls(text: str) -> list[str]:
    """Characters a cell must not hold raw: controls (but the CSV's own CRLF between rows) and the
    bidirectional overrides and isolates, U+202A-U+202E and U+2066-U+2069."""
    import unicodedata

    return [
        c
        for c in text.replace("\r\n", "")
        if unicodedata.category(c) == "Cc"
        or 0x202A <= ord(c) <= 0x202E
        or 0x2066 <= ord(c) <= 0x2069
        or c in "\u061c\u200b\u2060\ufeff\u00ad\U000e0041\ue000\u0378\u3000\u00a0"
    ]


@pytest.mark.parametrize("hidden", [HIDDEN, UNSEEN + SPACES], ids=["controls", "format-and-spaces"])
@pytest.mark.parametrize("layout", ["plain", "canvas", "moodle"])
def test_a_file_name_with_a_control_character_is_refused_as_a_student_is(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, hidden: tuple[str, ...]
) -> None:
    """A file naming no student is the gradebook's student by its name: a U+202E or an escape there was
    written raw into the student and file cells. Such a file is refused as a `student = "a\\u202eb"`
    is (its row says why, one line on stderr, exit 2), and every cell shows the name escaped; a file
    whose name has one but that names its student is graded, its file cell escaped."""
    monkeypatch.chdir(tmp_path)
    subs = tmp_path / "subs"
    subs.mkdir()
    body = "weights = [0.155, 0.422, 0.422]\n"
    for name in hidden:
        (subs / f"{name}.toml").write_text(body, encoding="utf-8")
    (subs / "named\u202e.toml").write_text('student = "s1"\n' + body, encoding="utf-8")
    (subs / "said\u202e.toml").write_text('student = "x\u202ey"\n' + body, encoding="utf-8")
    (subs / "ok.toml").write_text(body, encoding="utf-8")
    files = sorted(str(p.relative_to(tmp_path)) for p in subs.iterdir())
    result = cli("check", str(PROBLEMS / "decoder-dot.toml"), *files, "-f", "csv", "--gradebook", layout, "-o", "g.csv")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    book = Path("g.csv").read_bytes().decode("utf-8")
    assert not _raw_controls(unbom(book)) and not _raw_controls(result.stderr.replace("\n", "\r\n"))
    refused = [
        line
        for line in result.stderr.splitlines()
        if "the file's name has a character that is not printable text" in line
    ]
    assert len(refused) == len(hidden)
    said = [line for line in result.stderr.splitlines() if "said\\u202e.toml: student:" in line]
    assert len(said) == 1  # the student = refused as before, in the same way
    rows = list(csv.reader(io.StringIO(unbom(book), newline="")))
    if layout == "moodle":  # an escaped name (a\u202eb) holds a backslash, which PHP's fgetcsv takes as an
        # escape, and no user of Moodle's has it: its row would stop the whole import, so it has none, a line
        assert [r[0] for r in rows[1:]] == ["s1", "ok"]
        assert sum(line.endswith("no row for it") for line in result.stderr.splitlines()) == len(files) - 2
        return
    assert len(rows) == 1 + len(files) + (1 if layout == "canvas" else 0)  # every file its row
    cells = [c for row in rows for c in row]
    for name in hidden:
        assert any(_escaped(name) in c for c in cells), (_escaped(name), cells)
    if layout == "plain":
        by_file = {r[0]: r for r in rows[1:]}
        assert by_file["subs/named\\u202e.toml"][-2:] == ["s1", ""] and by_file["subs/named\\u202e.toml"][2] == "1"
        assert by_file["subs/ok.toml"][-2:] == ["ok", ""]
        assert "student: none given" in by_file["subs/" + _escaped(hidden[0]) + ".toml"][-1]
        assert by_file["subs/" + _escaped(hidden[0]) + ".toml"][2] == ""  # not graded


@pytest.mark.parametrize("name", [*UNSEEN, *SPACES])
def test_a_student_of_text_that_is_not_printable_is_refused_and_shown_escaped(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """`student = "y\\u3000z"` was refused with a message about control characters and bidirectional
    overrides, which it holds neither of; the message now says what it is, and nothing is raw."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "subs").mkdir()
    body = "weights = [0.155, 0.422, 0.422]\n"
    Path("subs/one.toml").write_text(f'student = "{name}"\n' + body, encoding="utf-8")
    Path("subs/ok.toml").write_text(body, encoding="utf-8")
    result = cli(
        "check", str(PROBLEMS / "decoder-dot.toml"), "subs/one.toml", "subs/ok.toml", "-f", "csv", "-o", "g.csv"
    )
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    said = [line for line in result.stderr.splitlines() if "one.toml: student:" in line]
    assert len(said) == 1 and "a character that is not printable text" in said[0], result.stderr
    assert _escaped(name[1:-1]) in said[0]
    book = unbom(Path("g.csv").read_bytes().decode("utf-8"))
    assert not _raw_controls(book) and not _raw_controls(result.stderr.replace("\n", "\r\n"))


def test_with_problems_no_problem_below_the_submissions_is_taken(cli: Any, tmp_path: Path) -> None:
    """Tryout 36: with --problems, a problem a student wrote in a folder below their answers file
    (`sub/evil.toml`) or in another student's folder (`alice/beside.toml`) was graded against: the
    answers [0, 0, 0], wrong for the set's problem (carol's row), earned full marks. Only a problem
    inside the --problems folder is taken."""
    hw, subs = tmp_path / "hw", tmp_path / "subs"
    (subs / "alice" / "sub").mkdir(parents=True)
    hw.mkdir()
    real = (PROBLEMS / "decoder-dot.toml").read_text()
    (hw / "variant-01.toml").write_text(real)
    assert "query = [1, 1]" in real
    evil = real.replace("query = [1, 1]", "query = [0, 0]")  # every score 0: [0, 0, 0] is right for it
    (subs / "alice" / "sub" / "evil.toml").write_text(evil)
    (subs / "alice" / "beside.toml").write_text(evil)
    files = {
        "alice/alice.toml": 'problem = "sub/evil.toml"\nstudent = "alice"\nscores = [0, 0, 0]\n',
        "bob.toml": 'problem = "alice/beside.toml"\nstudent = "bob"\nscores = [0, 0, 0]\n',
        "carol.toml": 'problem = "variant-01.toml"\nstudent = "carol"\nscores = [0, 0, 0]\n',
        "dan.toml": 'problem = "../hw/variant-01.toml"\nstudent = "dan"\nscores = [0, 0, 0]\n',
    }
    for name, text in files.items():
        (subs / name).write_text(text)
    paths = [str(subs / name) for name in files]
    result = cli("check", "--problems", str(hw), *paths, "--format", "csv")
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(unbom(result.stdout)))}
    assert result.exit_code == 2
    for student in ("alice", "bob"):
        assert rows[student]["score"] == "" and "could not be used" in rows[student]["error"], rows[student]
    for student in ("carol", "dan"):  # the set's problem, found in --problems (dan's by .. back into it)
        assert rows[student]["score"] == "0" and rows[student]["problem"].endswith("variant-01.toml"), rows[student]


def test_a_formula_student_is_said_once_per_lms(cli: Any, tmp_path: Path) -> None:
    """The line for a student no import would find says what each LMS does: Moodle's stops the whole
    import (it read "Moodle's import would not find them (Moodle's stops the whole import)")."""
    (tmp_path / "p.toml").write_text((PROBLEMS / "decoder-dot.toml").read_text())
    (tmp_path / "a.toml").write_text('student = "=1+1"\nscores = [1, 2, 2]\n')
    args = ["check", str(tmp_path / "p.toml"), str(tmp_path / "a.toml"), "--format", "csv", "--gradebook"]
    moodle, canvas = cli(*args, "moodle").stderr, cli(*args, "canvas").stderr
    assert "Moodle's import would not find them (and stop the whole import there) or would give" in moodle
    assert "Canvas's import would not find them or would give" in canvas and "stop the whole" not in canvas


def _decoder(tmp_path: Path) -> tuple[str, str]:
    real = (PROBLEMS / "decoder-dot.toml").read_text()
    assert "query = [1, 1]" in real
    return real, real.replace("query = [1, 1]", "query = [0, 0]")  # every score 0: [0, 0, 0] is right for it


def test_the_lms_layout_never_takes_a_students_file_for_the_problem(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tryout 37: docs/lms.md grades `--problems . subs/*.toml` in the set's folder, so subs/ is inside
    the --problems folder; a student's subs/0000.toml holding a problem sorted first and was the PROBLEM
    for the whole class (the right answer 0 marks, the wrong one full)."""
    real, evil = _decoder(tmp_path)
    (tmp_path / "variant-01.toml").write_text(real)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "0000.toml").write_text(evil)
    (subs / "anna.toml").write_text('problem = "variant-01.toml"\nstudent = "anna"\nscores = [1, 2, 2]\n')
    (subs / "bob.toml").write_text('problem = "variant-01.toml"\nstudent = "bob"\nscores = [0, 0, 0]\n')
    monkeypatch.chdir(tmp_path)
    paths = ["subs/0000.toml", "subs/anna.toml", "subs/bob.toml"]
    result = cli("check", "--problems", ".", *paths, "--format", "csv")
    rows = {r["file"]: r for r in csv.DictReader(io.StringIO(unbom(result.stdout)))}
    assert rows["subs/anna.toml"]["score"] == "1" and rows["subs/bob.toml"]["score"] == "0", rows
    assert "a problem file, not an answers file" in rows["subs/0000.toml"]["error"]


def test_no_problem_from_another_students_folder_inside_the_problems_folder(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tryout 37: with subs/ inside the --problems folder, bob's `problem = "../alice/evil.txt"` reached
    a file in alice's folder; a folder given with one answers file is a class too (subs3/)."""
    real, evil = _decoder(tmp_path)
    (tmp_path / "hw.toml").write_text(real)
    for name in ("alice", "bob"):
        (tmp_path / "subs" / name).mkdir(parents=True)
    (tmp_path / "subs" / "alice" / "evil.txt").write_text(evil)
    (tmp_path / "subs" / "alice" / "a.toml").write_text('problem = "hw.toml"\nstudent = "alice"\nscores = [1, 2, 2]\n')
    (tmp_path / "subs" / "bob" / "b.toml").write_text(
        'problem = "../alice/evil.txt"\nstudent = "bob"\nscores = [0, 0, 0]\n'
    )
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--problems", ".", "subs/alice/a.toml", "subs/bob/b.toml", "--format", "csv")
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(unbom(result.stdout)))}
    assert rows["alice"]["score"] == "1" and rows["bob"]["score"] == "" and "could not be used" in rows["bob"]["error"]
    (tmp_path / "P").mkdir()
    (tmp_path / "P" / "hw.toml").write_text(real)
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "evil.txt").write_text(evil)
    (tmp_path / "one" / "b.toml").write_text('problem = "evil.txt"\nstudent = "bob"\nscores = [0, 0, 0]\n')
    alone = cli("check", "--problems", "P", "one/")
    assert alone.exit_code == 2 and "could not be used" in alone.output, alone.output


def test_students_folders_in_the_set_never_give_the_problem(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tryout 38: with the students' folders unpacked in the set's folder (`--problems . */*.toml`), a
    student's 0000/p.toml sorted first was the PROBLEM for everyone, and bob's problem =
    "../mallory/evil.txt" (a folder holding no answers file) was graded against. A class's problem is
    a file directly in a --problems folder."""
    real, evil = _decoder(tmp_path)
    (tmp_path / "variant-01.toml").write_text(real)
    for name in ("0000", "alice", "bob", "mallory"):
        (tmp_path / name).mkdir()
    (tmp_path / "0000" / "p.toml").write_text(evil)
    (tmp_path / "mallory" / "evil.txt").write_text(evil)
    (tmp_path / "alice" / "a.toml").write_text(
        'problem = "../variant-01.toml"\nstudent = "alice"\nscores = [1, 2, 2]\n'
    )
    (tmp_path / "bob" / "b.toml").write_text('problem = "../mallory/evil.txt"\nstudent = "bob"\nscores = [0, 0, 0]\n')
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--problems", ".", "0000/p.toml", "alice/a.toml", "bob/b.toml", "--format", "csv")
    rows = {r["file"]: r for r in csv.DictReader(io.StringIO(unbom(result.stdout)))}
    assert rows["alice/a.toml"]["score"] == "1" and rows["alice/a.toml"]["problem"] == "variant-01.toml", rows
    assert rows["bob/b.toml"]["score"] == "" and "could not be used" in rows["bob/b.toml"]["error"]
    assert "a problem file, not an answers file" in rows["0000/p.toml"]["error"]


def test_a_students_links_neither_choose_the_problem_nor_open_a_folder(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tryout 39: a student's link subs/0000.toml -> ../variant-02.toml sorted first and was the PROBLEM
    for the whole class (its target lies directly in the --problems folder; the link lies in subs/); a
    link named x.toml to a folder anywhere was read as a folder given, its files opened."""
    real, _ = _decoder(tmp_path)
    other = real.replace("query = [1, 1]", "query = [0, 0]")
    (tmp_path / "variant-01.toml").write_text(real)
    (tmp_path / "variant-02.toml").write_text(other)
    subs, secret = tmp_path / "subs", tmp_path / "secret"
    subs.mkdir()
    secret.mkdir()
    (secret / "a.toml").write_text("scores = SECRET\n")
    (subs / "s1.toml").write_text('problem = "../variant-01.toml"\nstudent = "s1"\nscores = [1, 2, 2]\n')
    (subs / "0000.toml").symlink_to(tmp_path / "variant-02.toml")
    (subs / "0001.toml").symlink_to(secret)
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--problems", ".", "subs/0000.toml", "subs/0001.toml", "subs/s1.toml", "--format", "csv")
    rows = {r["file"]: r for r in csv.DictReader(io.StringIO(unbom(result.stdout)))}
    assert rows["subs/s1.toml"]["score"] == "1" and rows["subs/s1.toml"]["problem"] == "variant-01.toml", rows
    assert rows["subs/0000.toml"]["score"] == "" and rows["subs/0001.toml"]["score"] == ""
    assert set(rows) == {"subs/0000.toml", "subs/0001.toml", "subs/s1.toml"}  # nothing of secret/ listed
    assert "SECRET" not in result.output and "a.toml" not in result.output


def test_a_students_link_regrades_no_one_and_is_no_answers_file(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tryout 40: a student's link subs/variant-01.toml -> ../hw3/variant-02.toml made everyone whose file
    names "variant-01.toml" be graded against variant 02 (looked up from subs/ first); a link
    subs/alice.toml -> the TA's answer key earned full marks. In a class the problem lies, as written,
    directly in a --problems folder, and an answers file that is a link is not read."""
    real, other = _decoder(tmp_path)
    hw3, subs = tmp_path / "hw3", tmp_path / "subs"
    hw3.mkdir()
    subs.mkdir()
    (hw3 / "variant-01.toml").write_text(real)
    (hw3 / "variant-02.toml").write_text(other)
    (hw3 / "key.toml").write_text('problem = "variant-01.toml"\nscores = [1, 2, 2]\n')
    (subs / "anna.toml").write_text('problem = "variant-01.toml"\nstudent = "anna"\nscores = [1, 2, 2]\n')
    (subs / "variant-01.toml").symlink_to(hw3 / "variant-02.toml")
    (subs / "alice.toml").symlink_to(hw3 / "key.toml")
    monkeypatch.chdir(tmp_path)
    paths = ["subs/alice.toml", "subs/anna.toml", "subs/variant-01.toml"]
    result = cli("check", "--problems", "hw3", *paths, "--format", "csv")
    rows = {r["file"]: r for r in csv.DictReader(io.StringIO(unbom(result.stdout)))}
    assert rows["subs/anna.toml"]["score"] == "1" and rows["subs/anna.toml"]["problem"] == "hw3/variant-01.toml", rows
    assert rows["subs/alice.toml"]["score"] == "" and "symbolic link out of" in rows["subs/alice.toml"]["error"]


def test_a_problem_no_file_can_have_linked_student_folders_and_another_spelling(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tryout 42: a `problem` of a lone surrogate crashed the class's run (no gradebook at all); a student
    folder that is a link (subs/mallory -> ../answers, subs/trudy -> a folder elsewhere) had the TA's
    keys and outside files read and quoted; and the set named by another spelling through a link
    (--problems $PWD/hw3 where the shell's folder is a link) refused every file of a correct class."""
    real, _ = _decoder(tmp_path)
    work = tmp_path / "work"
    hw3, subs, keys, elsewhere = work / "hw3", work / "hw3" / "subs", work / "hw3" / "answers", tmp_path / "elsewhere"
    for d in (subs / "good", keys, elsewhere):
        d.mkdir(parents=True)
    (hw3 / "variant-01.toml").write_text(real)
    (keys / "key.toml").write_text('problem = "../variant-01.toml"\nscores = [1, 2, 2]\n')
    (elsewhere / "notes.toml").write_text('student = "s7"\nscores = "SECRET"\n')
    (subs / "good" / "a.toml").write_text('problem = "../../variant-01.toml"\nstudent = "good"\nscores = [1, 2, 2]\n')
    (subs / "evil").mkdir()
    (subs / "evil" / "e.json").write_text('{"problem": "\\ud800", "student": "evil", "scores": [1, 2, 3]}')
    (subs / "mallory").symlink_to(keys)
    (subs / "trudy").symlink_to(elsewhere)
    (tmp_path / "alias").symlink_to(work)
    monkeypatch.chdir(tmp_path / "alias")  # the process's folder is work/; the TA names it through alias/
    files = ["hw3/subs/evil/e.json", "hw3/subs/good/a.toml", "hw3/subs/mallory/key.toml", "hw3/subs/trudy/notes.toml"]
    result = cli("check", "--problems", str(tmp_path / "alias" / "hw3"), "--format", "csv", "--", *files)
    assert "Traceback" not in result.output and "SECRET" not in result.output
    rows = {r["file"]: r for r in csv.DictReader(io.StringIO(unbom(result.stdout)))}
    assert rows["hw3/subs/good/a.toml"]["score"] == "1", rows
    assert "could not be used" in rows["hw3/subs/evil/e.json"]["error"]
    for linked in ("hw3/subs/mallory/key.toml", "hw3/subs/trudy/notes.toml"):
        assert rows[linked]["score"] == "" and "linked folder" in rows[linked]["error"], rows[linked]
