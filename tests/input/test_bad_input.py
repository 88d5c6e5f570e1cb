"""Bad input: one clear message naming the file and the key, exit code 2, never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..helpers import ROOT, run_cli

GOOD = 'kind = "attention"\n[given]\nquery = [1, 1]\nkeys = [[1, 0], [0, 2]]\n'

CASES = [
    # (name, file text, key the message must name, words it must contain)
    ("misspelt key", GOOD.replace("query", "qeury"), "given.qeury", ["unknown key", "did you mean 'query'"]),
    ("unknown top key", "titel = 'x'\n" + GOOD, "titel", ["did you mean 'title'"]),
    ("unknown kind", GOOD.replace('"attention"', '"atention"'), "kind", ["did you mean 'attention'"]),
    ("unknown score", 'score = "dott"\n' + GOOD, "score", ["did you mean 'dot'"]),
    ("missing input", 'kind = "attention"\n[given]\nkeys = [[1, 0]]\n', "given.query", ["missing"]),
    ("missing kind", "[given]\nquery = [1]\n", "kind", ["missing"]),
    ("ragged rows", GOOD.replace("[[1, 0], [0, 2]]", "[[1, 0], [0, 2, 3]]"), "given.keys", ["ragged", "row 2 has 3"]),
    ("empty list", GOOD.replace("query = [1, 1]", "query = []"), "given.query", ["empty"]),
    ("shape mismatch", GOOD.replace("query = [1, 1]", "query = [1, 1, 1]"), "given.query", ["length 3", "width 2"]),
    (
        "non-number",
        GOOD.replace("query = [1, 1]", 'query = [1, "one"]'),
        "given.query",
        ["entry 2", "'one' is not a number"],
    ),
    ("NaN", GOOD.replace("query = [1, 1]", "query = [1, nan]"), "given.query", ["not a finite number"]),
    ("infinity", GOOD.replace("query = [1, 1]", "query = [1, inf]"), "given.query", ["not a finite number"]),
    ("not TOML", 'kind = "attention\n', "", ["not valid TOML", "line 1"]),
    ("vector for matrix", GOOD.replace("[[1, 0], [0, 2]]", "[1, 0]"), "given.keys", ["expected a matrix"]),
    ("boolean", GOOD.replace("query = [1, 1]", "query = [1, true]"), "given.query", ["boolean"]),
    ("W wrong shape", 'score = "general"\n' + GOOD + "W = [[1, 0, 0]]\n", "given.W", ["1×3", "2×2"]),
    ("input of another score", GOOD + "W = [[1, 0], [0, 1]]\n", "given.W", ["not used by score 'dot'", "general"]),
    ("tokens count", 'tokens = ["a"]\n' + GOOD, "tokens", ["1 labels", "2 rows"]),
    ("bad decimals", GOOD + "[settings]\ndecimals = -1\n", "settings.decimals", ["0 to 12"]),
    (
        "bad mask",
        'kind = "self-attention"\n[given]\nX = [[1, 0], [0, 1]]\nmask = [[1, 0], [0, 0]]\n',
        "given.mask",
        ["row 2", "nothing"],
    ),
    ("head vocab", GOOD + '[head]\nW_out = [[1, 0], [0, 1]]\nvocab = ["A"]\n', "head.vocab", ["1 labels", "2 logits"]),
    (
        "target label",
        'kind = "softmax"\n[given]\nlogits = [1, 2]\nvocab = ["a", "b"]\ntarget = "c"\n',
        "given.target",
        ["not a vocabulary label"],
    ),
    (
        "target index",
        'kind = "softmax"\n[given]\nlogits = [1, 2]\ntarget = 2\n',
        "given.target",
        ["out of range", "0-based"],
    ),
    (
        "weights under [cell]",
        'kind = "gru"\n[cell]\nW_r = [[1, 0]]\n[given]\nx = [[1]]\n',
        "cell.W_r",
        ["go in [given]"],
    ),
    (
        "decoder inputs too wide",
        (ROOT / "problems" / "seq2seq-luong.toml")
        .read_text()
        .replace("inputs = [[0, 0], [1, 0]]", "inputs = [[0, 0, 0], [1, 0, 0]]"),
        "decoder.W_r",
        ["x of length 3 (the rows of decoder.inputs)", "2×5"],
    ),
    (
        "encoder x too wide",
        (ROOT / "problems" / "seq2seq-luong.toml")
        .read_text()
        .replace("x = [[1, 0], [0, 1]]", "x = [[1, 0, 0], [0, 1, 0]]"),
        "encoder.W_r",
        ["x of length 3 (the rows of encoder.x)"],
    ),
]


@pytest.mark.parametrize(("name", "text", "key", "words"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_gives_one_clear_message(
    cli: Any, tmp_path: Path, name: str, text: str, key: str, words: list[str]
) -> None:
    """The message names the file and the key, says what is wrong, and exits 2 without a traceback."""
    f = tmp_path / "bad.toml"
    f.write_text(text)
    result = cli("solve", str(f))
    assert result.exit_code == 2, result.output
    err = result.stderr
    assert err.count("\n") == 1, err  # one line
    assert err.startswith("attncalc: error: ") and str(f) in err
    if key:
        assert f": {key}:" in err
    for w in words:
        assert w in err, err
    assert "Traceback" not in result.output


def test_missing_file(cli: Any, tmp_path: Path) -> None:
    """A file that does not exist is bad input too."""
    result = cli("solve", str(tmp_path / "nope.toml"))
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_invalid_yaml_and_json(cli: Any, tmp_path: Path) -> None:
    """Broken YAML and JSON files name the format and the line."""
    (tmp_path / "p.yaml").write_text("kind: [attention\n")
    (tmp_path / "p.json").write_text('{"kind": }')
    for name, fmt in (("p.yaml", "YAML"), ("p.json", "JSON")):
        result = cli("solve", str(tmp_path / name))
        assert result.exit_code == 2 and f"not valid {fmt}" in result.stderr and "line" in result.stderr


def test_code_in_a_number_field_is_refused_and_never_run(cli: Any, tmp_path: Path) -> None:
    """A string such as __import__('os').system(...) is refused as a number, and nothing runs."""
    marker = tmp_path / "pwned"
    payload = f"__import__('os').system('touch {marker}')"
    f = tmp_path / "evil.toml"
    f.write_text(GOOD.replace("query = [1, 1]", f'query = [1, "{payload}"]'))
    result = cli("solve", str(f))
    assert result.exit_code == 2 and "given.query" in result.stderr and "is not a number" in result.stderr
    assert not marker.exists()


def test_unknown_answer_id_points_to_the_right_step(cli: Any, tmp_path: Path) -> None:
    """A wrong id among a seq2seq's ~60 ids: no misleading near miss (decoder.1.input is not
    decoder.1.i), a real near miss suggested (decoder.1.hh → decoder.1.h), and the ids listed as
    time-step patterns on one line instead of every id."""
    seq2seq = str(ROOT / "problems" / "lstm-doc-seq2seq.toml")
    for wrong, hint in (("decoder.1.input", None), ("decoder.1.hh", "decoder.1.h")):
        (tmp_path / "a.toml").write_text(f'[answers]\n"{wrong}" = [1, 0]\n')
        result = cli("check", seq2seq, str(tmp_path / "a.toml"))
        err = result.stderr
        assert result.exit_code == 2 and len(err.strip().splitlines()) == 1, err
        assert f"{wrong}: not a step of this problem" in err
        assert (f"did you mean '{hint}'?" in err) if hint else ("did you mean" not in err)
        assert "decoder.t.tanh_c, decoder.t.h;" in err and "decoder.2.h" not in err


def test_an_unknown_settings_key_lists_the_kinds_own_settings(tmp_path: Path) -> None:
    """settings.margin in a dpo file: the keys listed are dpo's (not every kind's convention, temperature, ...)."""
    f = tmp_path / "d.toml"
    f.write_text(
        'kind = "dpo"\n[given]\nbeta = 0.1\npolicy_chosen = [-1.0]\npolicy_rejected = [-2.0]\n'
        "reference_chosen = [-1.5]\nreference_rejected = [-1.5]\n[settings]\nmargin = 1\n",
        encoding="utf-8",
    )
    r = run_cli("solve", str(f))
    assert (
        r.returncode == 2 and "settings.margin: unknown key; allowed here: decimals, carry_rounded, exact" in r.stderr
    )
    assert "convention" not in r.stderr and "temperature" not in r.stderr
