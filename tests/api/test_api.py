"""The Python API: attncalc.solve / check / generate, a derivation's views and d[step_id].

Expected numbers come from numpy formulas written here (softmax, dot products), and every view is
compared with what the command writes for the same problem.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import attncalc
from attncalc.check import Report
from attncalc.derivation import Derivation
from attncalc.errors import AttncalcError, ProblemError

from ..helpers import PROBLEMS, ROOT

DECODER = PROBLEMS / "decoder-dot.toml"


def softmax(x: Any) -> np.ndarray:
    e = np.exp(np.asarray(x, dtype=float) - np.max(x))
    return e / e.sum()


def cli_error(cli: Any, *args: str) -> str:
    """The one line the command prints for bad input, without its 'attncalc: error: ' prefix."""
    result = cli(*args)
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert line.startswith("attncalc: error: ") and "\n" not in line, line
    return line.removeprefix("attncalc: error: ")


# ---------------------------------------------------------------------------------- import


def test_import_attncalc_is_cheap() -> None:
    """`import attncalc` (and reading attncalc.solve) loads neither numpy, sympy nor rich."""
    code = (
        "import sys, attncalc\n"
        "assert callable(attncalc.solve) and callable(attncalc.check) and callable(attncalc.generate)\n"
        "print('HEAVY', sorted(m for m in ('numpy', 'sympy', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out


def test_check_and_generate_stay_functions_after_their_modules_load() -> None:
    """attncalc/check/grade.py and generate.py are modules too; importing them does not replace the functions."""
    import attncalc.check as check_module  # noqa: F401
    from attncalc.homework.generate import Options  # noqa: F401

    assert callable(attncalc.check) and callable(attncalc.generate)
    assert sys.modules["attncalc.check"].Report is Report
    assert attncalc.Variant.__name__ == "Variant"


# ---------------------------------------------------------------------------------- solve


def test_solve_by_keywords_matches_numpy() -> None:
    """The issue's example: weights = softmax(K q), context = weights · K."""
    q, K = np.array([1.0, 1.0]), np.array([[1.0, 0.0], [0.0, 2.0]])
    d = attncalc.solve(kind="attention", score="dot", query=[1, 1], keys=[[1, 0], [0, 2]])
    assert isinstance(d, Derivation)
    np.testing.assert_allclose(d["scores"], K @ q, rtol=1e-12)
    np.testing.assert_allclose(d["weights"], softmax(K @ q), rtol=1e-12)
    np.testing.assert_allclose(d["context"], softmax(K @ q) @ K, rtol=1e-12)
    assert d["exp_sum"] == pytest.approx(np.exp(1) + np.exp(2), rel=1e-12)


def test_solve_keywords_route_tables_and_top_level_keys() -> None:
    """tokens/title at the top, settings= and head= dicts to their tables, the rest to [given]."""
    q = np.array([1.0, 1.0])
    K = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    W_out = np.array([[1.0, 0.0], [0.0, 1.0]])
    d = attncalc.solve(
        kind="attention",
        title="By keywords",
        tokens=["x1", "x2", "x3"],
        query=q,  # numpy arrays are accepted
        keys=K.tolist(),
        head={"combine": "add", "W_out": W_out, "vocab": ["A", "B"]},
        settings={"decimals": 4},
    )
    assert d.problem.title == "By keywords" and d.problem.tokens == ("x1", "x2", "x3")
    assert d.decimals == 4 and d.step("weights").rows == ("x1", "x2", "x3")
    c = softmax(K @ q) @ K
    probs = softmax(W_out @ (q + c))
    np.testing.assert_allclose(d["probabilities"], probs, rtol=1e-12)
    assert d["prediction"] == ["A", "B"][int(np.argmax(probs))]


def test_solve_path_dict_and_keywords_agree() -> None:
    """A path (str or Path), the same file as a dict, and as keywords give the same derivation."""
    raw = tomllib.loads(DECODER.read_text(), parse_float=Decimal)
    by_path = attncalc.solve(str(DECODER)).to_json()
    assert attncalc.solve(DECODER).to_json() == by_path
    assert attncalc.solve(raw).to_json() == by_path
    keywords = {k: v for k, v in raw.items() if k != "given"} | raw["given"]
    assert attncalc.solve(**keywords).to_json() == by_path


def test_solve_overrides_match_the_cli_options(cli: Any) -> None:
    """decimals=, exact=, carry= do what --decimals, --no-exact, --carry do."""
    d = attncalc.solve(DECODER, decimals=5, exact=False, carry=True)
    out = json.loads(cli("solve", str(DECODER), "-f", "json", "--decimals", "5", "--no-exact", "--carry").stdout)
    assert d.to_json() == out
    assert d.decimals == 5 and not d.exact_requested and d.carry_rounded
    assert all(s.exact is None for s in d.steps)


def test_solve_exact_mode_value_is_the_exact_value() -> None:
    """In exact mode d["weights"] is the exact 1/(1+2e), e/(1+2e) evaluated."""
    d = attncalc.solve(DECODER, exact=True)
    e = np.e
    np.testing.assert_allclose(d["weights"], [1 / (1 + 2 * e), e / (1 + 2 * e), e / (1 + 2 * e)], rtol=1e-15)
    assert str(d.step("weights").exact[0]) == "1/(1 + 2*E)"


def test_solve_a_yaml_file_and_another_kind(tmp_path: Path) -> None:
    """A YAML file by path; kind similarity by keywords (cosine = a·b / (‖a‖‖b‖))."""
    f = tmp_path / "p.yaml"
    f.write_text("kind: softmax\ngiven:\n  logits: [2, 1, 0.5]\n")
    np.testing.assert_allclose(attncalc.solve(f)["probabilities"], softmax([2, 1, 0.5]), rtol=1e-12)
    A, B = np.array([[1.0, 2.0], [3.0, 1.0]]), np.array([[2.0, 0.0], [1.0, 1.0]])
    d = attncalc.solve(kind="similarity", measure="cosine", A=A, B=B)
    cos = (A @ B.T) / np.outer(np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1))
    cos_id = next(i for i in d.step_ids if "cos" in i)
    np.testing.assert_allclose(d[cos_id], cos, rtol=1e-12)


# ---------------------------------------------------------------------------------- errors


def test_solve_errors_are_problem_errors_naming_the_key() -> None:
    with pytest.raises(ProblemError) as exc:
        attncalc.solve(kind="attention", quey=[1, 1], keys=[[1, 0]])
    assert exc.value.key == "given.quey" and "did you mean 'query'" in str(exc.value)
    assert str(exc.value).startswith("<keywords>: given.quey: ")
    with pytest.raises(ProblemError, match=r"^<dict>: kind: missing"):
        attncalc.solve({"given": {"query": [1]}})
    with pytest.raises(ProblemError, match="not both"):
        attncalc.solve(DECODER, query=[1, 1])
    with pytest.raises(ProblemError, match="no problem"):
        attncalc.solve()
    with pytest.raises(ProblemError, match="expected a path, a dict"):
        attncalc.solve(42)  # type: ignore[arg-type]


def test_solve_error_is_the_line_the_cli_prints(cli: Any, tmp_path: Path) -> None:
    """Same file, same message: the exception's text is what `attncalc solve` prints after 'error:'."""
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "attention"\n[given]\nquery = [1, 1]\nkeys = [[1, 0, 3], [0, 2]]\n')
    with pytest.raises(ProblemError) as exc:
        attncalc.solve(bad)
    assert str(exc.value) == cli_error(cli, "solve", str(bad))
    assert "given.keys" in str(exc.value)
    missing = tmp_path / "missing.toml"
    with pytest.raises(ProblemError) as exc2:
        attncalc.solve(missing)
    assert str(exc2.value) == cli_error(cli, "solve", str(missing))


def test_errors_never_exit() -> None:
    """Bad input to every entry point raises AttncalcError, not SystemExit."""
    calls = [
        lambda: attncalc.solve(kind="attention", query=[1], keys="x"),
        lambda: attncalc.check(DECODER, {"weightz": [1, 2, 3]}),
        lambda: attncalc.generate(kind="transformer"),
        lambda: attncalc.generate(kind="lstm", layout="tf"),
    ]
    for call in calls:
        with pytest.raises(AttncalcError):
            call()


# ---------------------------------------------------------------------------------- d[...]


def test_getitem_values_and_unknown_ids() -> None:
    d = attncalc.solve(DECODER)
    assert isinstance(d["weights"], list) and all(isinstance(x, float) for x in d["weights"])
    assert isinstance(d["exp_sum"], float) and d["prediction"] == "B"
    assert "weights" in d and "weightz" not in d
    with pytest.raises(KeyError) as exc:
        d["weightz"]
    assert "weightz" in str(exc.value) and ", ".join(d.step_ids) in str(exc.value)


def test_getitem_matrix_and_masked_scores() -> None:
    """A causal self-attention: d["weights"] is a list of rows; masked scores are -inf."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    eye = np.eye(2)
    d = attncalc.solve(kind="self-attention", score="dot", X=X, W_Q=eye, W_K=eye, W_V=eye, mask="causal")
    S = X @ X.T
    S[np.triu_indices(3, 1)] = -np.inf
    W = np.array([softmax(row) for row in S])
    got = d["weights"]
    assert isinstance(got, list) and len(got) == 3 and isinstance(got[0], list)
    np.testing.assert_allclose(got, W, rtol=1e-12, atol=0)
    masked = next(s for s in d.step_ids if s.startswith("masked"))
    assert d[masked][0][2] == float("-inf")


# ---------------------------------------------------------------------------------- views


@pytest.mark.parametrize("name", ["decoder-dot.toml", "lstm-doc-seq2seq.toml"])
def test_every_view_is_what_the_cli_writes(cli: Any, tmp_path: Path, name: str) -> None:
    path = str(PROBLEMS / name)
    d = attncalc.solve(path)
    assert d.to_json() == json.loads(cli("solve", path, "-f", "json").stdout)
    assert d.to_markdown() == cli("solve", path, "-f", "markdown").stdout
    assert d.to_latex() == cli("solve", path, "-f", "latex").stdout
    assert d.to_html() == cli("solve", path, "-f", "html").stdout
    assert d.to_html(fragment=True) == cli("solve", path, "-f", "html", "--fragment").stdout
    assert d.to_markdown(sheet="question") == cli("solve", path, "-f", "markdown", "--sheet", "question").stdout
    out = tmp_path / "out.txt"
    assert cli("solve", path, "--width", "80", "-o", str(out)).exit_code == 0
    assert d.to_text(width=80) == out.read_text()
    assert d.to_text(width=80) == cli("solve", path, "--width", "80").stdout
    assert max(len(line) for line in d.to_text(width=80).splitlines()) <= 80


def test_jupyter_representations() -> None:
    """HTML/Markdown/LaTeX reprs are the solution sheet; the plain repr is one readable line."""
    d = attncalc.solve(DECODER)
    html = d._repr_html_()
    assert html is not None and "<html" not in html
    for s in d.steps:
        assert s.title in html
    assert d._repr_markdown_() == d.to_markdown()
    latex = d._repr_latex_()
    assert latex is not None and "\\begin{document}" not in latex
    text = repr(d)
    assert text.startswith("<Derivation 'Decoder dot-product attention at step t' (attention, dot)")
    assert "weights" in text and "Prediction: B" in text and "\n" not in text

    class Printer:
        def __init__(self) -> None:
            self.out = ""

        def text(self, s: str) -> None:
            self.out += s

    p = Printer()
    d._repr_pretty_(p, False)
    assert p.out == d.to_text(width=80).rstrip("\n")


# ---------------------------------------------------------------------------------- check


def test_check_dict_answers_against_numpy() -> None:
    """Right answers (numpy, rounded) grade correct; a wrong entry is named wrong."""
    q, K = np.array([1.0, 1.0]), np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    w = softmax(K @ q)
    right = {"scores": (K @ q).tolist(), "weights": [f"{x:.3f}" for x in w]}
    rep = attncalc.check(DECODER, right)
    assert isinstance(rep, Report) and rep.all_correct and rep.summary["correct"] == 2
    wrong = dict(right, weights=[f"{x:.3f}" for x in w[::-1]])
    rep2 = attncalc.check(DECODER, wrong)
    assert not rep2.all_correct and rep2.first_error == "weights"
    assert rep2.to_json()["results"][1]["verdict"] == "wrong"


def test_check_path_answers_matches_the_cli(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # relative paths: the command's reports never show an absolute path of the machine (the API's are as given)
    monkeypatch.chdir(PROBLEMS.parent)
    answers = Path("problems") / "answers" / "lecture-dot.toml"
    problem = Path("problems") / "lecture-dot.toml"
    rep = attncalc.check(problem, answers)
    result = cli("check", str(problem), str(answers), "-f", "json")
    assert result.exit_code == 1  # the lecture's sum of exponentials is a slip
    assert rep.to_json() == json.loads(result.stdout)
    assert rep.to_text(width=80) == cli("check", str(problem), str(answers), "--width", "80").stdout
    assert repr(rep).startswith(f"<Report {answers} on {problem}:")
    # the lecture's sum 4.02 is wrong: 1.094 + 2.560 + 1.221 = 4.876 (recomputed in the file's comment)
    assert {r.id: r.verdict for r in rep.results}["exp_sum"] == "wrong"


def test_check_the_problems_own_answers_and_tolerances() -> None:
    """answers=None grades the problem's [answers] table; rtol= loosens the comparison."""
    raw = {"kind": "softmax", "given": {"logits": [2, 1, 0]}}
    p = softmax([2, 1, 0])
    rough = [round(x, 1) for x in p]  # 1 decimal: right at that precision
    rep = attncalc.check(raw | {"answers": {"probabilities": rough}})
    assert rep.all_correct and rep.results[0].id == "probabilities"
    off = [x * 1.04 for x in p]
    assert not attncalc.check(raw, {"probabilities": [f"{x:.4f}" for x in off]}).all_correct
    assert attncalc.check(raw, {"probabilities": [f"{x:.4f}" for x in off]}, rtol=0.05).all_correct
    with pytest.raises(ProblemError, match="answers: none to check"):
        attncalc.check(raw)


def test_check_errors_name_the_key(cli: Any, tmp_path: Path) -> None:
    with pytest.raises(ProblemError) as exc:
        attncalc.check(DECODER, {"weightz": [0.1, 0.2, 0.7]})
    assert exc.value.key == "weightz" and "did you mean 'weights'" in str(exc.value)
    bad = tmp_path / "a.toml"
    bad.write_text("weights = [0.1, 0.2]\n")
    with pytest.raises(ProblemError) as exc2:
        attncalc.check(DECODER, bad)
    assert str(exc2.value) == cli_error(cli, "check", str(DECODER), str(bad))


# ---------------------------------------------------------------------------------- generate


def test_generate_returns_variants_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    variants = attncalc.generate(count=3, seed=7, tokens=3, dim=2)
    assert list(tmp_path.iterdir()) == []
    assert len(variants) == 3 and len({json.dumps(v.problem["given"]) for v in variants}) == 3
    for v in variants:
        q = np.array(v.problem["given"]["query"], dtype=float)
        K = np.array(v.problem["given"]["keys"], dtype=float)
        np.testing.assert_allclose(v.derivation["weights"], softmax(K @ q), rtol=1e-12)
        assert v.key["weights"] == [f"{x:.3f}" for x in softmax(K @ q)]  # 3 decimals, as asked
        assert attncalc.check(v.problem, v.key).all_correct


def test_generate_out_writes_what_the_cli_writes(cli: Any, tmp_path: Path) -> None:
    opts = ["--kind", "self-attention", "--score", "scaled-dot", "--count", "2", "--seed", "5"]
    assert cli("generate", "--out", str(tmp_path / "cli"), *opts).exit_code == 0
    variants = attncalc.generate(kind="self-attention", score="scaled-dot", count=2, seed=5, out=tmp_path / "api")
    cli_files = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*") if p.is_file())
    api_files = sorted(p.relative_to(tmp_path / "api") for p in (tmp_path / "api").rglob("*") if p.is_file())
    assert cli_files == api_files and len(api_files) == 2 + 2 + 3
    for rel in api_files:
        assert (tmp_path / "api" / rel).read_bytes() == (tmp_path / "cli" / rel).read_bytes(), rel
    assert attncalc.solve(tmp_path / "api" / "variant-01.toml")["weights"] == variants[0].derivation["weights"]
    with pytest.raises(AttncalcError, match=r"already exists.*--force"):
        attncalc.generate(kind="self-attention", score="scaled-dot", count=2, seed=5, out=tmp_path / "api")
    attncalc.generate(kind="self-attention", score="scaled-dot", count=2, seed=5, out=tmp_path / "api", force=True)


def test_generate_errors_name_the_option() -> None:
    with pytest.raises(ProblemError, match="--tokens"):
        attncalc.generate(tokens=1)
    with pytest.raises(ProblemError, match="--format"):
        attncalc.generate(out=str(ROOT / "never-written"), format="docx")
    assert not (ROOT / "never-written").exists()


def test_api_refuses_what_the_command_refuses() -> None:
    """decimals outside 0..12, negative tolerances and sigfigs outside 1..15: one ProblemError each."""
    import pytest as _pytest

    for call in (
        lambda: attncalc.solve(DECODER, decimals=20),
        lambda: attncalc.check(DECODER, {"scores": [1, 2, 2]}, rtol=-1),
        lambda: attncalc.check(DECODER, {"scores": [1, 2, 2]}, sigfigs=0),
    ):
        with _pytest.raises(attncalc.ProblemError):
            call()


def test_check_an_answers_file_that_names_its_problem() -> None:
    """attncalc.check(ANSWERS) alone, as `attncalc check ANSWERS` does, when the file names its problem."""
    rep = attncalc.check(ROOT / "problems" / "answers" / "decoder-dot.toml")
    assert rep.results and rep.problem.endswith("decoder-dot.toml")


def test_keywords_of_the_transformer_kinds() -> None:
    """type and memory_tokens are top-level keys, cache= a table; generate takes the multi-head options.
    RoPE with d_k = 2 and the same q and k rows: score(a, b) = cos(pos_b − pos_a)."""
    d = attncalc.solve(kind="positional-encoding", type="rope", positions=3, q=[[1, 0]] * 3, k=[[1, 0]] * 3)
    np.testing.assert_allclose(d["scores"][0], np.cos([0, 1, 2]), atol=1e-12)
    cached = attncalc.solve(
        kind="multi-head",
        X=[[1, 0]],
        heads=1,
        W_Q=[[1, 0], [0, 1]],
        W_K=[[1, 0], [0, 1]],
        W_V=[[1, 0], [0, 1]],
        cache={"K": [[0, 1]], "V": [[0, 1]]},
    )
    assert cached.step_ids[:3] == ["Q", "K_new", "V_new"]
    variants = attncalc.generate(kind="multi-head", dim=4, heads=2, kv_heads=1, positions="rope", mask="causal")
    assert attncalc.check(variants[0].problem, variants[0].key).all_correct


def test_terms_that_cancel_give_zero_not_float_noise() -> None:
    """0.916·(−0.762) + 0.916·0.762 is 0; in floats it came out as −5.01e−17 and was printed so."""
    d = attncalc.solve(kind="attention", query=[0.916, 0.916], keys=[[-0.762, 0.762], [1, 0]], exact=False)
    assert d["scores"][0] == 0.0
    assert "0.916·(-0.762) + 0.916·0.762 = 0\n" in d.to_text(width=100)
