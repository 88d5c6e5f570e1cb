"""The class rule of `check --problems DIR` over generated layouts, not case by case: whatever a class's
students put where the submissions were unpacked (their own problem files, links to the set's problems,
to the TA's answer keys, to folders here and elsewhere, folders that are links, `problem =` leaving the
folders), every row of the gradebook is graded against a problem file directly in DIR, no TA key and no
file outside the submissions is graded as a student's, and every honest student's file is graded against
the problem it names, with every point (docs/interface.md, "Answers files").

The layouts are docs/lms.md's: generate's set in hw3/ (its keys in hw3/answers/), the submissions in a
folder beside it, inside it, or below another, given as a folder, as the shell's glob of them, or after
the PROBLEM given first. The expectations are the layout's own: which real file each student wrote or
linked to, and which variant's key an honest student copied (the key's answers are the set's true values,
written by generate)."""

from __future__ import annotations

import csv
import io
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from .class_layouts import answers_text, fake_problem, key_body, run_in

# what a student's entry in the submissions folder is
HONEST = ("honest-flat", "honest-folder", "honest-by-name", "honest-deep")
KINDS = (
    *HONEST,
    "own-problem",  # a problem file of their own beside their answers, named by problem =
    "own-problem-named-like-the-set",  # subs/variant-01.toml: a problem file of theirs named as the set's
    "link-to-set-problem",  # subs/x.toml -> ../hw3/variant-02.toml
    "link-to-key",  # subs/x.toml -> ../hw3/answers/variant-01.toml
    "link-to-elsewhere",  # subs/x.toml -> /elsewhere/stolen.toml
    "folder-link-to-elsewhere-with-attempts",  # subs/x -> /elsewhere, graded by a loop over subs/*/*/
    "link-to-folder",  # subs/x.toml -> ..
    "link-dangling",
    "folder-link-to-keys",  # subs/x -> ../hw3/answers
    "folder-link-to-set",  # subs/x -> ../hw3
    "folder-link-to-elsewhere",  # subs/x -> /elsewhere
    "escape-to-key",  # problem = "../hw3/answers/variant-01.toml"
    "escape-absolute",  # problem = "/.../hw3/variant-01.toml"
    "escape-elsewhere",  # problem = "../../elsewhere/fake.toml"
    "escape-below-set",  # problem = "answers/variant-01.toml" (looked up from DIR: a folder below it)
    "link-named-like-the-set",  # subs/variant-01.toml -> ../hw3/variant-02.toml
    "link-to-link-to-key",  # subs/x.toml -> x-via.toml -> ../hw3/answers/variant-01.toml
    "link-loop",  # subs/x.toml -> x.toml
    "folder-link-to-parent",  # subs/x -> ..
    "folder-link-to-itself",  # subs/x -> . (every student's file again, below a link)
    "own-problem-sorted-first",  # subs/0000.toml: a problem file of theirs, first in the glob
    "dotdot-through-a-link",  # subs/x -> ../hw3/answers, and problem = "x/../variant-02.toml"
)
WHERE = ("subs", "hw3/subs", "class/sec1")
# each-folder: a TA's loop over subs/*/; each-attempt: over subs/*/*/
HOW = ("folder", "glob", "problem-first", "each-folder", "each-attempt")


def _build(root: Path, hw3: Path, where: str, kinds: list[str], variants: list[int]) -> dict[str, Any]:
    """The layout under ``root``: the set, a folder elsewhere, and the students' entries in ``where``.
    Returns what each entry is: the paths the shell's glob gives, and the honest students' variants."""
    shutil.copytree(hw3, root / "hw3")
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "fake.toml").write_text(fake_problem(root / "hw3" / "variant-01.toml"), encoding="utf-8")
    (elsewhere / "sub").mkdir()  # (an attempt's folder, as a student's folder with one per attempt has)
    (elsewhere / "sub" / "stolen.toml").write_text(
        answers_text("variant-01.toml", key_body(root / "hw3" / "answers" / "variant-01.toml"), "stolen"),
        encoding="utf-8",
    )
    (elsewhere / "stolen.toml").write_text(
        answers_text("fake.toml", key_body(root / "hw3" / "answers" / "variant-01.toml"), "stolen"), encoding="utf-8"
    )
    subs = root / where
    subs.mkdir(parents=True)
    up = os.path.relpath(root, subs)  # from subs/ to the root
    honest: dict[str, int] = {}  # answers file (relative to root) -> the variant it must be graded against
    for i, (kind, k) in enumerate(zip(kinds, variants, strict=True)):
        name = f"s{i:02d}"
        key = key_body(root / "hw3" / "answers" / f"variant-{k:02d}.toml")
        target_set = f"{up}/hw3/variant-{k:02d}.toml"
        if kind == "honest-flat":
            (subs / f"{name}.toml").write_text(answers_text(target_set, key, name), encoding="utf-8")
            honest[f"{where}/{name}.toml"] = k
        elif kind == "honest-folder":
            (subs / name).mkdir()
            (subs / name / "work.toml").write_text(answers_text(f"../{target_set}", key, name), encoding="utf-8")
            honest[f"{where}/{name}/work.toml"] = k
        elif kind == "honest-deep":  # a folder per student, a folder per attempt
            (subs / name / "sub").mkdir(parents=True)
            (subs / name / "sub" / "work.toml").write_text(
                answers_text(f"variant-{k:02d}.toml", key, name), encoding="utf-8"
            )
            honest[f"{where}/{name}/sub/work.toml"] = k
        elif kind == "folder-link-to-elsewhere-with-attempts":
            (subs / name).symlink_to(elsewhere, target_is_directory=True)
        elif kind == "honest-by-name":  # looked up from the --problems folder
            (subs / f"{name}.toml").write_text(answers_text(f"variant-{k:02d}.toml", key, name), encoding="utf-8")
            honest[f"{where}/{name}.toml"] = k
        elif kind == "own-problem":
            (subs / name).mkdir()
            (subs / name / "p.toml").write_text(fake_problem(root / "hw3" / "variant-01.toml"), encoding="utf-8")
            (subs / name / "work.toml").write_text(answers_text("p.toml", key, name), encoding="utf-8")
        elif kind == "own-problem-named-like-the-set":
            (subs / "variant-01.toml").write_text(fake_problem(root / "hw3" / "variant-01.toml"), encoding="utf-8")
        elif kind == "link-to-set-problem":
            (subs / f"{name}.toml").symlink_to(f"{up}/hw3/variant-02.toml")
        elif kind == "link-to-key":
            (subs / f"{name}.toml").symlink_to(f"{up}/hw3/answers/variant-{k:02d}.toml")
        elif kind == "link-to-elsewhere":
            (subs / f"{name}.toml").symlink_to(elsewhere / "stolen.toml")
        elif kind == "link-to-folder":
            (subs / f"{name}.toml").symlink_to("..")
        elif kind == "link-dangling":
            (subs / f"{name}.toml").symlink_to("nothing-here.toml")
        elif kind == "folder-link-to-keys":
            (subs / name).symlink_to(f"{up}/hw3/answers", target_is_directory=True)
        elif kind == "folder-link-to-set":
            (subs / name).symlink_to(f"{up}/hw3", target_is_directory=True)
        elif kind == "folder-link-to-elsewhere":
            (subs / name).symlink_to(elsewhere, target_is_directory=True)
        elif kind == "escape-to-key":
            (subs / f"{name}.toml").write_text(
                answers_text(f"{up}/hw3/answers/variant-{k:02d}.toml", key, name), encoding="utf-8"
            )
        elif kind == "escape-absolute":
            (subs / f"{name}.toml").write_text(
                answers_text(str(root / "hw3" / f"variant-{k:02d}.toml"), key, name), encoding="utf-8"
            )
        elif kind == "escape-elsewhere":
            (subs / f"{name}.toml").write_text(answers_text(f"{up}/elsewhere/fake.toml", key, name), encoding="utf-8")
        elif kind == "escape-below-set":
            (subs / f"{name}.toml").write_text(
                answers_text(f"answers/variant-{k:02d}.toml", key, name), encoding="utf-8"
            )
        elif kind == "link-to-link-to-key":
            (subs / f"{name}-via.toml").symlink_to(f"{up}/hw3/answers/variant-{k:02d}.toml")
            (subs / f"{name}.toml").symlink_to(f"{name}-via.toml")
        elif kind == "link-loop":
            (subs / f"{name}.toml").symlink_to(f"{name}.toml")
        elif kind == "folder-link-to-parent":
            (subs / name).symlink_to("..", target_is_directory=True)
        elif kind == "folder-link-to-itself":
            (subs / name).symlink_to(".", target_is_directory=True)
        elif kind == "own-problem-sorted-first":
            (subs / "0000.toml").write_text(fake_problem(root / "hw3" / "variant-01.toml"), encoding="utf-8")
        elif kind == "dotdot-through-a-link":
            (subs / f"{name}-keys").symlink_to(f"{up}/hw3/answers", target_is_directory=True)
            (subs / f"{name}.toml").write_text(
                answers_text(f"{name}-keys/../variant-02.toml", key, name), encoding="utf-8"
            )
        elif kind == "link-named-like-the-set":
            if not (subs / "variant-01.toml").exists() and not (subs / "variant-01.toml").is_symlink():
                (subs / "variant-01.toml").symlink_to(f"{up}/hw3/variant-02.toml")
        else:  # pragma: no cover
            raise AssertionError(kind)
    # the shell's `subs/*.toml subs/*/*.toml`, sorted as a shell sorts (links to folders followed, as bash does)
    glob = sorted(
        {str(p.relative_to(root)) for p in [*subs.glob("*.toml"), *subs.glob("*/*.toml"), *subs.glob("*/*/*.toml")]}
        - {""},
    )
    return {"glob": glob, "honest": honest, "where": where}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(kinds=["folder-link-to-elsewhere"], variants=[1] * 6, where="subs", how="problem-first", away=False)
@example(kinds=["folder-link-to-keys"], variants=[1] * 6, where="hw3/subs", how="glob", away=False)
@example(
    kinds=["folder-link-to-elsewhere", "honest-folder"], variants=[1] * 6, where="subs", how="each-folder", away=False
)
@example(kinds=["folder-link-to-parent", "honest-folder"], variants=[1] * 6, where="subs", how="each-folder", away=True)
@example(
    kinds=["folder-link-to-elsewhere-with-attempts", "honest-deep"],
    variants=[1] * 6,
    where="subs",
    how="each-attempt",
    away=True,
)
@example(kinds=["folder-link-to-elsewhere"], variants=[1] * 6, where="subs", how="each-folder", away=True)
@given(
    kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=6),
    variants=st.lists(st.sampled_from([1, 2]), min_size=6, max_size=6),
    where=st.sampled_from(WHERE),
    how=st.sampled_from(HOW),
    away=st.booleans(),
)
def test_every_row_is_graded_against_the_set_and_no_students_file_is_the_problem(
    the_set: Path, kinds: list[str], variants: list[int], where: str, how: str, away: bool
) -> None:
    """``away``: the TA works in a folder of their own beside the class, naming it by ``../`` (a path
    outside the current folder, whose links are judged from the folder the class's files share)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        if how == "problem-first":  # every honest student answers variant 1, the one given first
            variants = [1] * len(variants)
        layout = _build(root, the_set, where, kinds, variants[: len(kinds)])
        if how == "folder":  # a folder given is its own files (a student's folder in it is not listed)
            layout["honest"] = {p: k for p, k in layout["honest"].items() if p.count("/") == where.count("/") + 1}
        if how in ("each-folder", "each-attempt"):  # only the files of the folders graded, each alone
            depth = where.count("/") + (2 if how == "each-folder" else 3)
            layout["honest"] = {p: k for p, k in layout["honest"].items() if p.count("/") == depth}
        here, up = (root / "away", "../") if away else (root, "")
        here.mkdir(exist_ok=True)
        glob = [up + p for p in layout["glob"]]
        runs = {
            "folder": [[up + where]],
            "glob": [["--", *glob]],
            "problem-first": [[up + "hw3/variant-01.toml", "--", *glob]],
            # (bash's subs/*/ lists links to folders too; a link to .. or . included)
            "each-folder": [[f"{up}{where}/{p.name}/"] for p in sorted((root / where).iterdir()) if p.is_dir()],
            "each-attempt": [
                [f"{up}{where}/{p.name}/{q.name}/"]
                for p in sorted((root / where).iterdir())
                if p.is_dir()
                for q in sorted(p.iterdir())
                if q.is_dir()
            ],
        }[how]
        if how != "folder" and not layout["glob"]:
            return  # (the shell gives its pattern itself: nothing of attncalc's to judge)
        rows = []
        for args in runs:
            code, out = run_in(here, ["check", "--problems", up + "hw3", "--format", "csv", *args])
            assert code in (0, 1, 2)
            rows += list(csv.DictReader(io.StringIO(out.lstrip("\ufeff")))) if out else []
        set_problems = {os.path.realpath(root / "hw3" / f"variant-{k:02d}.toml") for k in (1, 2)}
        keys = os.path.realpath(root / "hw3" / "answers")
        elsewhere = os.path.realpath(root / "elsewhere")
        graded = {}
        for row in rows:
            if row["problem"]:
                # graded: against one of the set's own problem files, the file itself the student's
                assert os.path.realpath(here / row["problem"]) in set_problems, (row, kinds, where, how, away)
                real = os.path.realpath(here / row["file"])
                assert os.path.dirname(real) != keys, (row, kinds, where, how, away)
                assert not real.startswith(elsewhere + os.sep), (row, kinds, where, how, away)
                assert real not in set_problems, (row, kinds, where, how, away)
                assert "/away/" not in real, (row, kinds, where, how, away)
                graded[os.path.relpath(here / row["file"], root)] = row
            else:
                assert row["error"], row
        for path, k in layout["honest"].items():
            assert path in graded, (path, rows, kinds, where, how, away)
            row = graded[path]
            assert os.path.realpath(here / row["problem"]) == os.path.realpath(root / "hw3" / f"variant-{k:02d}.toml")
            assert row["score"] == row["out_of"], row


def test_the_layouts_cover_every_kind_of_entry(the_set: Path, tmp_path: Path) -> None:
    """Every kind of entry at once, in docs/lms.md's subs/ beside the set: the honest three graded with every
    point against the variant they name, every other entry refused in its row or graded against the set."""
    kinds = list(KINDS)
    variants = [1 + i % 2 for i in range(len(kinds))]
    layout = _build(tmp_path, the_set, "subs", kinds, variants)
    code, out = run_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "--", *layout["glob"]])
    rows = {r["file"]: r for r in csv.DictReader(io.StringIO(out.lstrip("\ufeff")))}
    assert code == 2  # refused files
    for path, k in layout["honest"].items():
        assert rows[path]["problem"] == f"hw3/variant-{k:02d}.toml" and rows[path]["score"] == rows[path]["out_of"]
    # the links out and the escapes are refused in their rows; the student's own problem file is no answers file
    for i, kind in enumerate(kinds):
        path = f"subs/s{i:02d}.toml"
        if kind in ("link-to-key", "link-to-elsewhere", "link-to-set-problem", "escape-to-key", "escape-absolute"):
            assert rows[path]["error"] and not rows[path]["problem"], rows[path]
        if kind in ("escape-elsewhere", "escape-below-set"):
            assert rows[path]["error"] and not rows[path]["problem"], rows[path]
    assert rows["subs/variant-01.toml"]["error"] and not rows["subs/variant-01.toml"]["problem"]


def test_one_students_linked_folder_graded_alone_is_not_followed(the_set: Path, tmp_path: Path) -> None:
    """Tryout 43: a TA grading one student's folder (``subs/mallory/``, or a loop over ``subs/*/``) whose folder
    links to the TA's keys kept elsewhere had the keys graded as that student's, as the folder every path
    shared was the link itself. Below the current folder, every folder of a class is read as it is."""
    shutil.copytree(the_set, tmp_path / "hw3")
    keys = tmp_path / "private"
    keys.mkdir()
    key = key_body(tmp_path / "hw3" / "answers" / "variant-01.toml")
    (keys / "k.toml").write_text(answers_text("variant-01.toml", key, "KEY"), encoding="utf-8")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "mallory").symlink_to("../private", target_is_directory=True)
    for args in (["subs/mallory/"], ["--", "subs/mallory/k.toml"], ["hw3/variant-01.toml", "subs/mallory/k.toml"]):
        code, out = run_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", *args])
        (row,) = list(csv.DictReader(io.StringIO(out.lstrip("\ufeff"))))
        assert code == 2 and row["score"] == "" and row["problem"] == "", (args, row)
        assert "in a linked folder (subs/mallory is a symbolic link)" in row["error"], row
    # from a folder of the TA's elsewhere, by absolute path (tryout 44: the folder the paths shared was the link)
    (tmp_path / "away").mkdir()
    for args in ([str(tmp_path / "subs" / "mallory") + "/"], [str(tmp_path / "subs" / "mallory" / "k.toml")]):
        code, out = run_in(tmp_path / "away", ["check", "--problems", str(tmp_path / "hw3"), "--format", "csv", *args])
        (row,) = list(csv.DictReader(io.StringIO(out.lstrip("\ufeff"))))
        assert code == 2 and row["score"] == "" and "(mallory is a symbolic link)" in row["error"], (args, row)
    # the folder it links to, given as itself, is graded (the TA's own choice)
    code, out = run_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "private/"])
    (row,) = list(csv.DictReader(io.StringIO(out.lstrip("\ufeff"))))
    assert code == 0 and row["score"] == row["out_of"] and row["student"] == "KEY", row


def test_a_folder_named_like_an_answers_file_in_any_case_is_not_a_folder_given(the_set: Path, tmp_path: Path) -> None:
    """Tryout 43: ``subs/zed.TOML/`` (a folder, or a student's link to one) given by the TA's ``subs/*`` was read
    as a folder given, its files graded, where a folder's listing (which reads suffixes in any case) skips it."""
    shutil.copytree(the_set, tmp_path / "hw3")
    subs = tmp_path / "subs"
    (subs / "zed.TOML").mkdir(parents=True)
    key = key_body(tmp_path / "hw3" / "answers" / "variant-01.toml")
    (subs / "zed.TOML" / "inner.toml").write_text(answers_text("variant-01.toml", key, "inner"), encoding="utf-8")
    (subs / "ann.toml").write_text(answers_text("variant-01.toml", key, "ann"), encoding="utf-8")
    for zed in ("subs/zed.TOML", "subs/zed.TOML/"):
        code, out = run_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "--", "subs/ann.toml", zed])
        rows = list(csv.DictReader(io.StringIO(out.lstrip("\ufeff"))))
        assert [r["file"] for r in rows] == ["subs/ann.toml", zed], rows
        assert code == 2 and rows[0]["score"] == rows[0]["out_of"] and rows[1]["error"] and not rows[1]["score"]


def test_a_link_of_the_tas_own_below_the_current_folder_is_refused_and_its_folder_graded(
    the_set: Path, tmp_path: Path
) -> None:
    """docs/interface.md: a class is read through real folders; a TA's own ``subs -> ~/Downloads/hw3`` below the
    current folder is refused in each row, saying which link, and the folder it links to, given, is graded."""
    work = tmp_path / "course"
    shutil.copytree(the_set, work / "hw3")
    downloads = tmp_path / "Downloads" / "hw3"
    downloads.mkdir(parents=True)
    key = key_body(work / "hw3" / "answers" / "variant-02.toml")
    (downloads / "ann.toml").write_text(answers_text("variant-02.toml", key, "ann"), encoding="utf-8")
    (work / "subs").symlink_to(downloads, target_is_directory=True)
    code, out = run_in(work, ["check", "--problems", "hw3", "--format", "csv", "subs/"])
    (row,) = list(csv.DictReader(io.StringIO(out.lstrip("\ufeff"))))
    assert code == 2 and not row["score"] and "(subs is a symbolic link)" in row["error"], row
    assert "give the folder it links to" in row["error"]
    code, out = run_in(work, ["check", "--problems", "hw3", "--format", "csv", str(downloads) + "/"])
    (row,) = list(csv.DictReader(io.StringIO(out.lstrip("\ufeff"))))
    assert code == 0 and row["file"] == "ann.toml" and row["problem"] == "hw3/variant-02.toml", row
    assert row["score"] == row["out_of"], row


def test_a_link_to_a_file_of_its_own_folder_is_read_as_that_file_inside_the_set_too(
    the_set: Path, tmp_path: Path
) -> None:
    """docs/interface.md: a link within a folder to another file of it is read as that file, with the
    submissions unpacked inside the set's folder (hw3/subs/) as beside it; a link to the keys is not read."""
    shutil.copytree(the_set, tmp_path / "hw3")
    subs = tmp_path / "hw3" / "subs"
    subs.mkdir()
    key = key_body(tmp_path / "hw3" / "answers" / "variant-01.toml")
    (subs / "amueller.toml").write_text(answers_text("variant-01.toml", key, "amueller"), encoding="utf-8")
    (subs / "zoe.toml").symlink_to("amueller.toml")
    (subs / "key.toml").symlink_to("../answers/variant-01.toml")
    code, out = run_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "hw3/subs/"])
    rows = {r["file"]: r for r in csv.DictReader(io.StringIO(out.lstrip("\ufeff")))}
    assert rows["hw3/subs/zoe.toml"]["score"] == rows["hw3/subs/zoe.toml"]["out_of"], rows
    assert rows["hw3/subs/amueller.toml"]["score"] == rows["hw3/subs/amueller.toml"]["out_of"], rows
    code, out = run_in(tmp_path, ["check", "--problems", "hw3", "--format", "csv", "--", "hw3/subs/key.toml"])
    (row,) = list(csv.DictReader(io.StringIO(out.lstrip("\ufeff"))))
    assert code == 2 and not row["score"] and "symbolic link out of its folder" in row["error"], row
