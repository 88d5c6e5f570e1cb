"""A kind from another distribution: the fixture plugin of tests/fixtures/plugin_kind/ (the kind
``hinge``, a smooth multiclass hinge loss, with a setting, a named slip, an element-wise function and
notation of its own) is pip-installed with attncalc, from this tree, into a fresh venv, and every
command, the practice page, the LMS exports and the simulated student run on it there.

The venv has attncalc from this tree and the plugin in its own site-packages; the packages they need
(numpy, sympy, ...) and pip and setuptools come from this test run's environment, added after its own
site-packages by a .pth file, so nothing there can stand in for what was installed (a test asserts
where attncalc is imported from). Every expected number is worked here from the definition.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "plugin_kind"
PACKAGE = "attncalc_hinge"
KIND = "hinge"

pytestmark = pytest.mark.slow  # two venvs and some forty commands: about a minute

# the template's problem (tests/fixtures/plugin_kind/attncalc_hinge/declaration.py): s = [2, 1, −1],
# target class 1, Δ = 1; the other classes 2 and 3 have the margins 1 − 2 + 1 = 0 and −1 − 2 + 1 = −2
MARGINS = [0.0, -2.0]
LOSSES = [math.log(1 + math.exp(z)) for z in MARGINS]  # softplus, ln(1 + eᶻ)
LOSS = sum(LOSSES)
# the named slip, Δ left out: margins −1 and −3, and what follows from them
SLIP_MARGINS = [-1.0, -3.0]
SLIP_LOSSES = [math.log(1 + math.exp(z)) for z in SLIP_MARGINS]


class Venv:
    """A fresh venv with attncalc (from this tree) and some distributions installed."""

    def __init__(self, where: Path, *distributions: Path) -> None:
        self.dir = where / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.dir)], check=True)
        self.python = self.dir / "bin" / "python"
        own = subprocess.run(
            [str(self.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        self.site = Path(own)
        self.cwd = where / "work"
        self.cwd.mkdir()
        # this run's packages after the venv's own (a plain path line: its .pth files are not run, so
        # an editable attncalc there is not installed in the venv)
        (self.site / "zz-parent-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
        tree = where / "attncalc-tree"
        tree.mkdir()
        for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
            shutil.copy2(ROOT / name, tree / name)
        shutil.copytree(ROOT / "attncalc", tree / "attncalc", ignore=shutil.ignore_patterns("__pycache__"))
        copies = []
        for dist in distributions:
            copies.append(where / dist.name)
            shutil.copytree(dist, copies[-1], ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        self.run_python(
            "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", str(tree),
            *map(str, copies),
        )  # fmt: skip

    def run_python(self, *args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        env["COLUMNS"] = "100"
        result = subprocess.run(
            [str(self.python), *args], cwd=cwd or self.cwd, capture_output=True, text=True, env=env, timeout=600
        )
        if check:
            assert result.returncode == 0, (args, result.stdout[-2000:], result.stderr[-2000:])
        return result

    def attncalc(self, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        result = self.run_python("-m", "attncalc", *args, check=False)
        assert result.returncode == code, (args, result.returncode, result.stdout[-2000:], result.stderr[-2000:])
        return result


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    v = Venv(tmp_path_factory.mktemp("plugin"), FIXTURE)
    (v.cwd / "h.toml").write_text(v.attncalc("new", KIND).stdout, encoding="utf-8")
    return v


def _values(doc: dict[str, Any]) -> dict[str, Any]:
    return {s["id"]: s["value"] for s in doc["steps"]}


def test_attncalc_and_the_plugin_come_from_the_venv(venv: Venv) -> None:
    out = venv.run_python("-c", f"import attncalc, {PACKAGE}; print(attncalc.__file__); print({PACKAGE}.__file__)")
    for line in out.stdout.split():
        assert Path(line).is_relative_to(venv.site), line
    assert not venv.run_python("-m", "attncalc", "--help").stderr  # no warning: the plugin loads


def test_list_shows_the_plugin_kind_and_its_distribution(venv: Venv) -> None:
    text = venv.attncalc("list").stdout
    assert re.search(r"^  hinge +a smooth multiclass hinge loss", text, flags=re.M)
    assert "(plugin: attncalc-hinge)" in text and "Step ids for hinge, in order:" in text
    assert text.count("(plugin:") == 1  # the built-ins are not plugins
    listed = json.loads(venv.attncalc("list", "--format", "json").stdout)
    assert listed["plugins"] == {KIND: "attncalc-hinge"}
    assert listed["step_ids"][KIND] == ["margins", "losses", "loss"]


def test_help_and_list_import_neither_numpy_nor_sympy_with_the_plugin(venv: Venv) -> None:
    for args in (["--help"], ["new", "--help"], ["list"]):
        code = (
            "import sys\nfrom attncalc.cli import app\n"
            f"try:\n    app({args!r})\nexcept SystemExit:\n    pass\n"
            "print('HEAVY', sorted(m for m in ('sympy', 'numpy') if m in sys.modules))"
        )
        assert "HEAVY []" in venv.run_python("-c", code).stdout, args


def test_new_and_schema(venv: Venv) -> None:
    import jsonschema

    template = tomllib.loads((venv.cwd / "h.toml").read_text(encoding="utf-8"))
    assert template["kind"] == KIND and template["settings"]["margin"] == 1
    schema = json.loads(venv.attncalc("schema", KIND).stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(template, schema)
    with pytest.raises(jsonschema.ValidationError):  # the kind's own setting is declared: a number
        jsonschema.validate({**template, "settings": {"margin": "wide"}}, schema)
    assert '"hinge"' in venv.attncalc("schema").stdout


def test_solve_in_every_format(venv: Venv) -> None:
    steps = _values(json.loads(venv.attncalc("solve", "h.toml", "-f", "json").stdout))
    assert steps["margins"] == pytest.approx(MARGINS)
    assert steps["losses"] == pytest.approx(LOSSES, abs=1e-12)
    assert steps["loss"] == pytest.approx(LOSS, abs=1e-12)
    text = venv.attncalc("solve", "h.toml").stdout
    assert "hinge · 3 classes · target 1 · Δ = 1" in text and "ln(1 + exp(-2)) = 0.127" in text
    tex = venv.attncalc("solve", "h.toml", "-f", "latex").stdout
    assert r"\hat{z}_{j} = s_{j} - s_{y} + \Delta" in tex  # the kind's notation, with no table of its own
    for fmt, mark in (("markdown", "# Smooth hinge loss"), ("html", "<html")):
        assert mark in venv.attncalc("solve", "h.toml", "-f", fmt).stdout, fmt
    wider = venv.cwd / "wide.toml"
    wider.write_text((venv.cwd / "h.toml").read_text(encoding="utf-8").replace("margin = 1 ", "margin = 3 "))
    assert _values(json.loads(venv.attncalc("solve", "wide.toml", "-f", "json").stdout))["margins"] == [2, 0]


def test_the_pdf_sheet_and_the_plot(venv: Venv) -> None:
    """The kind's notation (ẑ) goes through pdflatex; plot draws one of its steps (it names no default)."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (CI installs it)")
    venv.attncalc("solve", "h.toml", "-f", "pdf", "-o", "h.pdf")
    assert (venv.cwd / "h.pdf").read_bytes().startswith(b"%PDF")
    err = venv.attncalc("plot", "h.toml", "-o", "h.svg", code=2).stderr
    assert "no attention weights" in err and "margins" in err  # no plot_step: the steps it could draw
    venv.attncalc("plot", "h.toml", "--step", "losses", "-o", "h.svg")
    assert "<svg" in (venv.cwd / "h.svg").read_text(encoding="utf-8")


def test_a_setting_of_another_kind_and_a_bad_value_are_refused_in_one_line(venv: Venv) -> None:
    path = venv.cwd / "bad.toml"
    base = (venv.cwd / "h.toml").read_text(encoding="utf-8")
    path.write_text(base.replace("margin = 1 ", "jacobian = true "), encoding="utf-8")
    err = venv.attncalc("solve", "bad.toml", code=2).stderr
    assert err.count("\n") == 1 and "settings.jacobian" in err and "attention-backward" in err
    path.write_text(base.replace("target = 1 ", "target = 4 "), encoding="utf-8")
    err = venv.attncalc("solve", "bad.toml", code=2).stderr
    assert err.count("\n") == 1 and "bad.toml" in err and "given.target" in err
    other = tomllib.loads(venv.attncalc("new", "softmax").stdout)  # a built-in kind refuses the plugin's setting
    other.setdefault("settings", {})["margin"] = 2
    (venv.cwd / "other.json").write_text(json.dumps(other), encoding="utf-8")
    err = venv.attncalc("solve", "other.json", code=2).stderr
    assert "settings.margin" in err and "'hinge'" in err


def test_check_grades_and_names_the_kinds_own_slip(venv: Venv) -> None:
    right = venv.cwd / "right.toml"
    right.write_text(
        'problem = "h.toml"\n'
        f"margins = [0, -2]\nlosses = [{LOSSES[0]:.3f}, {LOSSES[1]:.3f}]\nloss = {LOSS:.3f}\n", encoding="utf-8"
    )  # fmt: skip
    assert venv.attncalc("check", "h.toml", "right.toml").stdout.strip().endswith("score 3 / 3")
    slip = venv.cwd / "slip.toml"
    slip.write_text(
        'problem = "h.toml"\nmargins = [-1, -3]\n'
        f"losses = [{SLIP_LOSSES[0]:.3f}, {SLIP_LOSSES[1]:.3f}]\nloss = {sum(SLIP_LOSSES):.3f}\n", encoding="utf-8"
    )  # fmt: skip
    report = json.loads(venv.attncalc("check", "h.toml", "slip.toml", "-f", "json", code=1).stdout)
    verdicts = {r["id"]: r["verdict"] for r in report["results"]}
    assert verdicts == {"margins": "wrong", "losses": "carried", "loss": "carried"}
    text = venv.attncalc("check", "h.toml", "slip.toml", "--width", "200", code=1).stdout
    assert "the margin Δ was left out" in text  # the words the plugin declares for its slip


def test_generate_and_the_lms_exports(venv: Venv) -> None:
    for fmt, made in (("markdown", "solutions.md"), ("moodle", "quiz.xml"), ("qti", "qti.zip"), ("qti12", "qti12.zip")):
        out = venv.cwd / f"hw-{fmt}"
        venv.attncalc("generate", "--kind", KIND, "--out", str(out), "--count", "2", "--seed", "3", "-f", fmt)
        assert (out / made).is_file(), sorted(out.iterdir())
        variants = sorted(out.glob("variant-*.toml"))
        assert len(variants) == 2
        for v in variants:
            raw = tomllib.loads(v.read_text(encoding="utf-8"))
            assert raw["kind"] == KIND
            key = out / "answers" / v.name
            assert venv.attncalc("check", str(v), str(key)).returncode == 0  # the key checks correct
    xml = (venv.cwd / "hw-moodle" / "quiz.xml").read_text(encoding="utf-8")
    assert "margins" in xml or "Margins" in xml
    # what no table shows (the target class, the margin Δ) is stated in every item: its payload's stated()
    questions = [q for q in xml.split("<question ")[1:] if not q.startswith('type="category"')]
    assert questions and all("target = " in q and "margin Δ = " in q for q in questions)
    with zipfile.ZipFile(venv.cwd / "hw-qti" / "qti.zip") as z:
        assert any("<assessmentItem " in z.read(n).decode("utf-8") for n in z.namelist())


def test_the_practice_page_serves_and_checks_the_kind(venv: Venv) -> None:
    script = textwrap.dedent(
        f"""
        import json
        from starlette.testclient import TestClient
        from attncalc.serve.app import create_app
        c = TestClient(create_app(["h.toml"]))
        page = c.get("/problems/h")
        body = {{"answers": {{"margins": [-1, -3], "losses": [{SLIP_LOSSES[0]:.3f}, {SLIP_LOSSES[1]:.3f}]}}}}
        checked = c.post("/problems/h/check", json=body)
        print(json.dumps([page.status_code, "Margins" in page.text, checked.status_code, checked.json()]))
        """
    )
    status, titled, checked_status, report = json.loads(venv.run_python("-c", script).stdout)
    assert (status, titled, checked_status) == (200, True, 200)
    assert {r["id"]: r["verdict"] for r in report["results"]} == {"margins": "wrong", "losses": "carried"}


def test_the_simulated_student_on_the_plugin_kind(venv: Venv) -> None:
    """tests/student_sim.py (copied beside the venv, so that this tree's attncalc is not on the path)
    draws hinge problems with the plugin's drawer and finds no rule of a fair TA broken."""
    sim = venv.cwd / "sim" / "tests"
    sim.mkdir(parents=True)
    (sim / "__init__.py").write_text("", encoding="utf-8")
    for name in ("student_sim.py", "student_problems.py", "student_judge.py"):
        shutil.copy2(ROOT / "tests" / name, sim / name)
    out = venv.run_python("-m", "tests.student_sim", "--kind", KIND, "--per-kind", "40", "--seed", "1", cwd=sim.parent)
    row = next(line for line in out.stdout.splitlines() if line.startswith(f"| {KIND} |"))
    students, _skipped, *failures = (int(c) for c in row.strip("| ").split(" | ")[1:])
    assert students > 20 and len(failures) >= 8 and failures == [0] * len(failures), row  # one column a rule


def test_the_built_in_kinds_are_unchanged_beside_it(venv: Venv) -> None:
    got = venv.attncalc("solve", str(ROOT / "problems" / "decoder-dot.toml"), "-f", "json").stdout
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    here = subprocess.run(
        [sys.executable, "-m", "attncalc", "solve", str(ROOT / "problems" / "decoder-dot.toml"), "-f", "json"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout  # fmt: skip
    assert got == here


def test_a_broken_plugin_is_one_line_and_the_rest_still_work(tmp_path: Path) -> None:
    """A distribution whose entry points fail to import, name something else than a KindEntry, or take
    a built-in's name: one line each on standard error, no traceback, and the built-ins (and the
    plugin's usable kind) work."""
    dist = tmp_path / "src" / "attncalc-broken"
    (dist / "attncalc_broken").mkdir(parents=True)
    (dist / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [build-system]
            requires = ["setuptools>=77"]
            build-backend = "setuptools.build_meta"
            [project]
            name = "attncalc-broken"
            version = "0.1.0"
            [project.entry-points."attncalc.kinds"]
            missing = "attncalc_broken.nowhere:ENTRY"
            wrong = "attncalc_broken:NOT_AN_ENTRY"
            attention = "attncalc_broken:ATTENTION"
            [tool.setuptools]
            packages = ["attncalc_broken"]
            """
        ),
        encoding="utf-8",
    )
    (dist / "attncalc_broken" / "__init__.py").write_text(
        "from attncalc.kinds import BUILTIN\nNOT_AN_ENTRY = 42\nATTENTION = BUILTIN['attention']\n", encoding="utf-8"
    )
    (tmp_path / "v").mkdir()
    v = Venv(tmp_path / "v", dist)
    result = v.attncalc("solve", str(ROOT / "problems" / "decoder-dot.toml"))
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.stderr and len(lines) == 3, result.stderr
    attention, missing, wrong = sorted(lines)  # each names the plugin, its distribution and the problem
    assert "'missing' of attncalc-broken" in missing and "ModuleNotFoundError" in missing
    assert "'wrong' of attncalc-broken" in wrong and "int, not an attncalc.kinds.KindEntry" in wrong
    assert "'attention' of attncalc-broken" in attention and "the built-in kind 'attention'" in attention
    assert "Context" in result.stdout  # the built-in attention solved as ever
    assert "(plugin:" not in v.attncalc("list").stdout


def test_the_plugin_is_only_the_files_the_guide_lists() -> None:
    """docs/contributing.md's list of a plugin's files is the fixture's files; no file of attncalc/
    names the plugin (its kind, its package or its distribution)."""
    guide = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
    section = guide[guide.index("### The files of a plugin kind") :]
    section = section[: section.index("\n#")]
    listed = {m.replace("PACKAGE", PACKAGE) for m in re.findall(r"^- `([^`]+)`", section, flags=re.M)}
    files = {
        p.relative_to(FIXTURE).as_posix()
        for p in FIXTURE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not any(s.endswith(".egg-info") for s in p.parts)
        and "build" not in p.relative_to(FIXTURE).parts
    }  # fmt: skip
    assert listed == files
    for path in (ROOT / "attncalc").rglob("*"):
        if path.is_file() and path.suffix in (".py", ".toml", ".html", ".js", ".css", ".txt", ".md"):
            text = path.read_text(encoding="utf-8")
            # the plugin's kind by name (kind = "hinge", a registry key) or its distribution; "hinge" as a
            # word may stand in a built-in's own text (dpo's hinge loss)
            assert not re.search(
                r"kind\s*[=:]\s*[\"']hinge[\"']|^\s*[\"']hinge[\"']\s*:\s*KindEntry|attncalc[_-]hinge", text, flags=re.M
            ), path
