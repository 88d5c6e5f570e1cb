"""Problem and answers files from anyone: whatever a file holds, a result or one line, in bounded time and memory.

Each case was a traceback, a hang or gigabytes of memory. The CLI runs in a subprocess
(tests/helpers.run_cli) where a hang would otherwise hang the suite.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ..helpers import PROBLEMS, json_of, one_line_refusal, run_cli

SOFTMAX = 'kind = "softmax"\n[given]\nlogits = [2, 1, 0.1]\ntarget = 0\n'


@pytest.mark.parametrize(
    ("ext", "text"),
    [
        (".json", '{"kind": "softmax", "given": {"logits": [1e999999999, 0]}}'),
        (".json", '{"kind": "softmax", "given": {"logits": ["1e-999999999", 0]}}'),
        (".yaml", "kind: softmax\ngiven:\n  logits: [1e999999999, 0]\n"),
        (".toml", 'kind = "softmax"\n[given]\nlogits = [1e-999999999, 0]\n'),
        (".json", '{"kind": "softmax", "given": {"logits": [%s, 0]}}' % ("7" * 5000)),
        (".yaml", "kind: softmax\ngiven:\n  logits: [%s, 0]\n" % ("7" * 5000)),
    ],
    ids=["json number", "json string", "yaml", "toml", "5000-digit json integer", "5000-digit yaml integer"],
)
def test_huge_numbers_in_files_are_one_line_refusals(tmp_path: Path, ext: str, text: str) -> None:
    """1e999999999 ran until killed; a 5,000-digit integer was Python's ValueError. Now: the key."""
    f = tmp_path / f"p{ext}"
    f.write_text(text)
    err = one_line_refusal(run_cli("solve", str(f)), str(f), "given.logits")
    assert "exponent is out of range" in err or "more than 40 digits" in err


def test_a_5000_digit_toml_integer_is_refused(cli: Any, tmp_path: Path) -> None:
    """tomllib itself raises ValueError for it: the file is named, with what is wrong."""
    f = tmp_path / "p.toml"
    f.write_text(SOFTMAX.replace("[2, 1, 0.1]", f"[{'7' * 5000}, 0]"))
    err = one_line_refusal(cli("solve", str(f)), str(f))
    assert "more than 4300 digits" in err


# ------------------------------------------------------------------ what is read: regular files, bounded


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_not_read(tmp_path: Path, device: str) -> None:
    """/dev/zero took 3.7 GB of memory before a MemoryError; as an answers file's problem too."""
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    one_line_refusal(run_cli("solve", device), device)
    answers = tmp_path / "a.toml"
    answers.write_text(f'problem = "{device}"\nloss = 1\n')
    # an answers file's problem = is read only inside its folder, and what was found is not said
    err = one_line_refusal(run_cli("check", str(answers)), str(answers), "problem")
    assert "could not be used" in err and device not in err


def test_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    """A named pipe with no writer waited forever."""
    fifo = tmp_path / "p.toml"
    os.mkfifo(fifo)
    err = one_line_refusal(run_cli("solve", str(fifo), timeout=30), str(fifo))
    assert "FIFO" in err


def test_a_large_file_is_refused_unless_the_limit_is_raised(tmp_path: Path) -> None:
    """A 50 MB problem file took up to 4 GB and two minutes before a traceback; 2M shows the limit.
    (100,000 logits written long: the numbers in a problem have a limit of their own.)"""
    big = tmp_path / "big.json"
    big.write_text('{"kind": "softmax", "given": {"logits": [' + "1.00000000000000000000, " * 99_999 + "2]}}")
    assert big.stat().st_size > 2 * 2**20
    err = one_line_refusal(run_cli("solve", str(big)), str(big))
    assert "larger than the 1M limit" in err and "--max-file-size" in err
    result = run_cli("solve", "-f", "json", "--max-file-size", "3M", str(big))
    assert result.returncode == 0, result.stderr[-500:]


@pytest.mark.parametrize("size", ["3X", "-1", "", "0"])
def test_a_bad_size_is_one_line(cli: Any, size: str) -> None:
    result = cli("solve", "--max-file-size", size, str(PROBLEMS / "decoder-dot.toml"))
    err = one_line_refusal(result, "--max-file-size")
    assert "is not a size" in err


def test_sizes_read_as_documented(cli: Any, tmp_path: Path) -> None:
    """--max-file-size takes bytes, K, M or G (powers of 1024): a 2,000-byte file needs 2K, not 1K."""
    f = tmp_path / "p.toml"
    f.write_text(SOFTMAX + "#" * (2000 - len(SOFTMAX) - 1) + "\n")
    assert f.stat().st_size == 2000
    one_line_refusal(cli("solve", "--max-file-size", "1K", str(f)), str(f))
    one_line_refusal(cli("solve", "--max-file-size", "1999", str(f)), str(f))
    for ok in ("2000", "2K", "2k", "1M", "1G"):
        assert cli("solve", "--max-file-size", ok, str(f)).exit_code == 0, ok


# ------------------------------------------------------------------ structure: nesting, aliases, duplicates

DEEP = {
    ".json": "[" * 5000 + "]" * 5000,
    ".toml": "a = " + "[" * 5000 + "]" * 5000 + "\n",
    ".yaml": "a: " + "[" * 5000 + "]" * 5000 + "\n",
}


@pytest.mark.parametrize("ext", sorted(DEEP))
def test_deep_nesting_is_refused(tmp_path: Path, ext: str) -> None:
    """Nested a few thousand deep was a RecursionError (and a 3,000-line traceback for TOML)."""
    f = tmp_path / f"deep{ext}"
    f.write_text(DEEP[ext])
    err = one_line_refusal(run_cli("solve", str(f)), str(f))
    assert "nested too deeply" in err


def test_nesting_just_within_the_limit_is_read(cli: Any, tmp_path: Path) -> None:
    """The limit is on structure, not on problem files: 20 levels of lists in an unused key are read."""
    f = tmp_path / "p.json"
    f.write_text('{"kind": "softmax", "given": {"logits": [1, 2]}, "answers": {"x": ' + "[" * 17 + "]" * 17 + "}}")
    result = cli("solve", str(f))
    assert result.exit_code == 0, result.output


def _laughs(levels: int = 9) -> str:
    text = "x0: &x0 [1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
    for n in range(1, levels + 1):
        text += f"x{n}: &x{n} [" + ", ".join([f"*x{n - 1}"] * 9) + "]\n"
    return text


def test_a_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    """A "billion laughs" answers file ran until killed: its aliases expand to 9^10 values."""
    (tmp_path / "p.toml").write_text(SOFTMAX)
    bomb = tmp_path / "a.yaml"
    bomb.write_text("problem: p.toml\n" + _laughs())
    assert bomb.stat().st_size < 1000
    err = one_line_refusal(run_cli("check", str(bomb)), str(bomb))
    assert "values (YAML aliases counted in full)" in err


def test_yaml_aliases_within_reason_are_read(cli: Any, tmp_path: Path) -> None:
    """An anchor used for a repeated matrix is fine: the same problem as with the matrix written twice."""
    f = tmp_path / "p.yaml"
    f.write_text("kind: self-attention\ngiven:\n  X: [[1, 0], [0, 1]]\n  W_Q: &w [[1, 2], [3, 4]]\n  W_K: *w\n")
    g = tmp_path / "q.yaml"
    g.write_text(
        "kind: self-attention\ngiven:\n  X: [[1, 0], [0, 1]]\n  W_Q: [[1, 2], [3, 4]]\n  W_K: [[1, 2], [3, 4]]\n"
    )
    a, b = json_of(cli("solve", "-f", "json", str(f))), json_of(cli("solve", "-f", "json", str(g)))
    assert a["steps"] == b["steps"]


def test_a_yaml_value_inside_itself_is_refused(cli: Any, tmp_path: Path) -> None:
    f = tmp_path / "p.yaml"
    f.write_text("kind: softmax\ngiven:\n  logits: &a [1, *a]\n")
    err = one_line_refusal(cli("solve", str(f)), str(f))
    assert "inside itself" in err


@pytest.mark.parametrize(
    ("ext", "text"),
    [
        (".json", '{"kind": "softmax", "given": {"logits": [1, 2], "logits": [3, 4]}}'),
        (".yaml", "kind: softmax\ngiven:\n  logits: [1, 2]\n  logits: [3, 4]\n"),
        (".toml", 'kind = "softmax"\n[given]\nlogits = [1, 2]\nlogits = [3, 4]\n'),
    ],
)
def test_a_key_written_twice_is_refused_in_every_format(cli: Any, tmp_path: Path, ext: str, text: str) -> None:
    """JSON and YAML silently kept the last one; TOML refused. Now all three refuse."""
    f = tmp_path / f"p{ext}"
    f.write_text(text)
    err = one_line_refusal(cli("solve", str(f)), str(f))
    assert ": logits: appears twice" in err if ext != ".toml" else "Cannot overwrite a value (at line 4" in err


def test_a_yaml_merge_key_may_be_overridden(cli: Any, tmp_path: Path) -> None:
    """<<: *base followed by a key of its own is YAML's override, not a key written twice."""
    f = tmp_path / "p.yaml"
    f.write_text(
        "kind: softmax\ngiven:\n  logits: [1, 2]\nsettings:\n  <<: {decimals: 2, exact: true}\n  decimals: 4\n"
    )
    data = json_of(cli("solve", "-f", "json", str(f)))
    assert data["decimals"] == 4


# ------------------------------------------------------------------ paths named inside files


@pytest.mark.parametrize(
    ("problem", "words"),
    [('""', "expected the path of a problem file"), ("'   '", "expected the path of a problem file")],
)
def test_an_empty_problem_path_names_the_key(cli: Any, tmp_path: Path, problem: str, words: str) -> None:
    """problem = "" gave ".: is a directory", naming neither the file nor the key."""
    a = tmp_path / "a.toml"
    a.write_text(f"problem = {problem}\nloss = 1\n")
    err = one_line_refusal(cli("check", str(a)), str(a), "problem")
    assert words in err


def test_a_nul_in_a_path_is_one_line(cli: Any, tmp_path: Path) -> None:
    """A NUL byte in problem = (possible in JSON) was Python's ValueError."""
    a = tmp_path / "a.json"
    a.write_text('{"problem": "p\\u0000.toml", "loss": 1}')
    err = one_line_refusal(cli("check", str(a)), str(a), "problem")
    assert "could not be used" in err


def test_a_newline_in_a_path_or_key_stays_on_one_line(cli: Any, tmp_path: Path) -> None:
    """A step id or a path holding a newline split the message over two lines."""
    (tmp_path / "p.toml").write_text(SOFTMAX)
    a = tmp_path / "a.json"
    a.write_text('{"probab\\nilities": [0.5, 0.3, 0.2]}')
    err = one_line_refusal(cli("check", str(tmp_path / "p.toml"), str(a)), str(a), "probab\\x0ailities")
    assert "not a step" in err
    b = tmp_path / "b.json"
    b.write_text('{"problem": "p\\n.toml", "loss": 1}')
    one_line_refusal(cli("check", str(b)), str(b), "problem")
