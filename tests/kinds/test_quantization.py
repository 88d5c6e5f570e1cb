"""Kind quantization: every number against an oracle written apart from attncalc (torch's
quantize_per_tensor / quantize_per_channel where installed, a numpy formula per scheme and granularity,
and a quantization tutorial's table recomputed by hand); exact and float agree; bad files are refused
with one message; the slips' arithmetic."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from attncalc.check import check
from attncalc.errors import ProblemError
from attncalc.mechanisms import solve
from attncalc.parse import load_problem, parse_problem

from ..helpers import PROBLEMS

TUTORIAL = [1.2, -0.5, -4.3, 1.2, -3.1, 0.8, 2.4, 5.4]


def problem(W: Any, **given: Any) -> Any:
    return parse_problem({"kind": "quantization", "given": {"W": W, **given}}, "q.toml")


def numpy_oracle(W: np.ndarray, bits: int, scheme: str, granularity: str, group: int | None = None) -> dict[str, Any]:
    """Written from the definitions: blocks sharing a scale, then np.round (half to even) and np.clip."""
    R, C = W.shape
    blocks = {"tensor": W.reshape(1, -1), "row": W, "group": W.reshape(R * (C // (group or C)), -1)}[granularity]
    if scheme == "absmax":
        qmax = 2 ** (bits - 1) - 1
        rng = np.abs(blocks).max(axis=1)
        scale = np.where(rng == 0, 1.0, rng / qmax)
        zp = np.zeros_like(scale)
        lo, hi = -qmax, qmax
    else:
        mn = np.minimum(blocks.min(axis=1), 0)
        mx = np.maximum(blocks.max(axis=1), 0)
        scale = np.where(mx - mn == 0, 1.0, (mx - mn) / (2**bits - 1))
        zp = np.round(-mn / scale)
        lo, hi = 0, 2**bits - 1
    q = np.clip(np.round(blocks / scale[:, None]) + zp[:, None], lo, hi)
    deq = (q - zp[:, None]) * scale[:, None]
    err = blocks - deq
    return {
        "scales": scale,
        "zero_points": zp,
        "quantized": q.reshape(R, C),
        "dequantized": deq.reshape(R, C),
        "errors": err.reshape(R, C),
        "max_error": np.abs(err).max(),
        "mse": np.mean(err**2),
    }


def test_the_tutorials_table_absmax_and_zeropoint_at_8_bits() -> None:
    """The vector of Labonne's "Introduction to Weight Quantization" (and Hugging Face's docs), worked by
    hand. absmax: scale = 5.4/127; q = round(x · 127/5.4) = 28, −12, −101, 28, −73, 19, 56, 127
    (1.2 · 23.5185 = 28.22, −0.5 · 23.5185 = −11.76, −4.3 · 23.5185 = −101.13, −3.1 · 23.5185 = −72.91,
    0.8 · 23.5185 = 18.81, 2.4 · 23.5185 = 56.44). zero-point over [−4.3, 5.4]: scale = 9.7/255,
    zero point round(4.3 · 255/9.7) = round(113.04) = 113; q = round(x · 26.2887) + 113 = 145, 100, 0,
    145, 32, 134, 176, 255 (31.55, −13.14, −113.04, −81.49, 21.03, 63.09, 141.96): the tutorial's int8
    values 17, −28, −128, 17, −96, 6, 48, 127 shifted by 128 (it stores q − 128 in a signed byte)."""
    d = solve(problem([TUTORIAL], bits=8, scheme="absmax"), exact=True)
    assert float(d["scales"]) == pytest.approx(5.4 / 127)
    assert np.asarray(d["quantized"]).reshape(-1).tolist() == [28, -12, -101, 28, -73, 19, 56, 127]
    deq = [28, -12, -101, 28, -73, 19, 56, 127]
    np.testing.assert_allclose(np.asarray(d["dequantized"]).reshape(-1), np.asarray(deq) * 5.4 / 127, atol=1e-12)
    assert (
        str(d.step("scales").exact.item() if hasattr(d.step("scales").exact, "item") else d.step("scales").exact)
        == "27/635"
    )

    z = solve(problem([TUTORIAL], bits=8, scheme="zeropoint"), exact=True)
    assert np.asarray(z["ranges"]).tolist() == [-4.3, 5.4]
    assert float(z["scales"]) == pytest.approx(9.7 / 255)
    assert float(z["zero_points"]) == 113
    q = np.asarray(z["quantized"]).reshape(-1)
    assert q.tolist() == [145, 100, 0, 145, 32, 134, 176, 255]
    assert (q - 128).tolist() == [17, -28, -128, 17, -96, 6, 48, 127]


CASES = [
    ([[0.5, -1.2, 0.3, 2.0], [-0.4, 0.1, 0.9, -0.6]], 8, "absmax", "row", None),
    ([[0.5, -1.2, 0.3, 2.0], [-0.4, 0.1, 0.9, -0.6]], 8, "absmax", "tensor", None),
    ([[0.5, -1.2, 0.3, 2.0], [-0.4, 0.1, 0.9, -0.6]], 4, "zeropoint", "row", None),
    ([TUTORIAL, TUTORIAL[::-1]], 4, "absmax", "group", 2),
    ([TUTORIAL, TUTORIAL[::-1]], 8, "zeropoint", "group", 4),
    ([[0.2, 0.7, 1.3], [0.0, 0.0, 0.0]], 3, "zeropoint", "row", None),  # an all-positive row, an all-zero row
    ([[0.0, 0.0], [0.0, 0.0]], 8, "absmax", "tensor", None),  # scale 1
]


@pytest.mark.parametrize(("W", "bits", "scheme", "gran", "group"), CASES)
def test_every_step_against_the_numpy_formula_exact_and_float(
    W: Any, bits: int, scheme: str, gran: str, group: int | None
) -> None:
    extra = {"group": group} if group else {}
    p = problem(W, bits=bits, scheme=scheme, granularity=gran, **extra)
    want = numpy_oracle(np.asarray(W, dtype=float), bits, scheme, gran, group)
    for exact in (True, False):
        d = solve(p, exact=exact)
        for key, v in want.items():
            if key == "zero_points" and scheme == "absmax":
                assert "zero_points" not in [s.id for s in d.steps]
                continue
            got = np.asarray(d[key], dtype=float).reshape(np.shape(v))
            np.testing.assert_allclose(got, v, rtol=1e-12, atol=1e-12, err_msg=f"{key} exact={exact}")
        if exact:  # the exact forms are the float values
            for s in d.steps:
                if s.exact is not None:
                    ex = np.vectorize(float, otypes=[float])(np.asarray(s.exact, dtype=object))
                    np.testing.assert_allclose(ex, np.asarray(s.value, dtype=float), rtol=1e-12, atol=1e-15)


def test_ties_round_half_to_even_exactly_where_floats_miss_the_half() -> None:
    """0.35 / 0.1 is 3.4999999999999996 in floats: the exact quotient 7/2 is a tie, and goes to 4 (even);
    2.5 goes to 2, −0.5 to 0 (np.round, as torch.round)."""
    W = [[0.35, 0.25, -0.05, 0.7]]  # absmax, 4 bits: scale 0.7 / 7 = 0.1
    for exact in (True, False):
        d = solve(problem(W, bits=4), exact=exact)
        assert np.asarray(d["quantized"]).reshape(-1).tolist() == [4, 2, 0, 7]
    assert np.round([3.5, 2.5, -0.5]).tolist() == [4, 2, 0]


def test_outputs_with_an_input_row() -> None:
    p = load_problem(Path(PROBLEMS, "quantization-absmax-rows.toml"))
    d = solve(p, exact=True)
    W = np.array([[0.5, -1.2, 0.3, 2.0], [-0.4, 0.1, 0.9, -0.6]])
    x = np.array([1, 0, -1, 2])
    s = np.abs(W).max(axis=1) / 127
    deq = np.round(W / s[:, None]) * s[:, None]
    np.testing.assert_allclose(np.asarray(d["output"], dtype=float), x @ W.T, atol=1e-12)
    np.testing.assert_allclose(np.asarray(d["output_dequantized"], dtype=float), x @ deq.T, atol=1e-12)
    np.testing.assert_allclose(np.asarray(d["output_error"], dtype=float), x @ W.T - x @ deq.T, atol=1e-12)


# torch 2.x warns that its quantized tensors are deprecated; they are still the reference here
TORCH_DEPRECATION = pytest.mark.filterwarnings("ignore:.*quantize_per_tensor.*:UserWarning")


def _torch() -> Any:
    return pytest.importorskip("torch", reason="the torch oracle needs PyTorch")


@TORCH_DEPRECATION
@pytest.mark.parametrize(("W", "bits", "scheme", "gran", "group"), [c for c in CASES if c[1] == 8])
def test_against_torch_quantize(W: Any, bits: int, scheme: str, gran: str, group: int | None) -> None:
    """torch.quantize_per_tensor / quantize_per_channel (a group: the channels of W cut into groups)
    with the scales and zero points of the definitions; int_repr and dequantize against attncalc."""
    torch = _torch()
    Wn = np.asarray(W, dtype=np.float64)
    extra = {"group": group} if group else {}
    d = solve(problem(W, bits=bits, scheme=scheme, granularity=gran, **extra), exact=False)
    R, C = Wn.shape
    blocks = {"tensor": Wn.reshape(1, -1), "row": Wn, "group": Wn.reshape(R * (C // (group or C)), -1)}[gran]
    t = torch.tensor(blocks, dtype=torch.float32)
    if scheme == "absmax":
        rng = np.abs(blocks).max(axis=1)
        scale = np.where(rng == 0, 1.0, rng / 127)
        zp = np.zeros(len(scale), dtype=np.int64)
        dtype = torch.qint8
    else:
        mn, mx = np.minimum(blocks.min(axis=1), 0), np.maximum(blocks.max(axis=1), 0)
        scale = np.where(mx - mn == 0, 1.0, (mx - mn) / 255)
        zp = np.asarray(
            [int(torch.round(torch.tensor(-a / s, dtype=torch.float64))) for a, s in zip(mn, scale, strict=True)]
        )
        dtype = torch.quint8
    if len(scale) == 1:
        qt = torch.quantize_per_tensor(t, float(scale[0]), int(zp[0]), dtype)
    else:
        qt = torch.quantize_per_channel(t, torch.tensor(scale, dtype=torch.float64), torch.tensor(zp), 0, dtype)
    q = qt.int_repr().numpy().astype(int).reshape(R, C)
    assert np.asarray(d["quantized"]).astype(int).tolist() == q.tolist()
    np.testing.assert_allclose(
        np.asarray(d["dequantized"], dtype=float), qt.dequantize().numpy().reshape(R, C), atol=1e-6
    )
    np.testing.assert_allclose(np.asarray(d["scales"], dtype=float).reshape(-1), scale, rtol=1e-12)
    if scheme == "zeropoint":
        assert np.asarray(d["zero_points"], dtype=float).reshape(-1).tolist() == zp.tolist()


@TORCH_DEPRECATION
def test_drawn_homework_against_torch() -> None:
    """Variants the drawer makes, 8-bit ones per tensor or row, against torch."""
    torch = _torch()
    from attncalc.homework.generate import generate
    from attncalc.homework.options import Options

    res = generate(Options(kind="quantization", count=12, seed=3))
    seen = 0
    for raw, d in zip(res.problems, res.derivations, strict=True):
        g = raw["given"]
        if g["bits"] != 8 or g["granularity"] == "group" or g["scheme"] != "absmax":
            continue
        W = torch.tensor(g["W"], dtype=torch.float64)
        if g["granularity"] == "tensor":
            qt = torch.quantize_per_tensor(W.float(), float(W.abs().max() / 127), 0, torch.qint8)
        else:
            qt = torch.quantize_per_channel(
                W.float(), W.abs().amax(dim=1) / 127, torch.zeros(W.shape[0], dtype=torch.long), 0, torch.qint8
            )
        assert np.asarray(d["quantized"]).astype(int).tolist() == qt.int_repr().numpy().astype(int).tolist()
        seen += 1
    assert seen >= 1


@pytest.mark.parametrize(
    ("given", "key", "words"),
    [
        ({"granularity": "group"}, "given.group", "missing"),
        ({"granularity": "group", "group": 3}, "given.group", "divide"),
        ({"group": 2}, "given.group", "group"),
        ({"bits": 1}, "given.bits", ""),
        ({"scheme": "nf4"}, "given.scheme", ""),
        ({"x": [1, 2]}, "given.x", ""),
    ],
)
def test_bad_files_are_refused_naming_the_key(given: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ProblemError) as e:
        problem([[0.5, -1.2, 0.3, 2.0]], **{"bits": 8, **given})
    assert key in str(e.value) and words in str(e.value)


def _grade(p: Any, step: str, value: Any) -> Any:
    return check(p, {step: value}, "a.toml").results[0]


def test_each_slip_is_named_from_its_own_arithmetic() -> None:
    """Answers worked by hand with each slip (numbers recomputed here, not taken from attncalc)."""
    rows = load_problem(Path(PROBLEMS, "quantization-absmax-rows.toml"))
    # 2^(b−1) = 128: scales 2/128 and 0.9/128
    r = _grade(rows, "scales", [0.015625, 0.0070313])
    assert r.mistake == "absmax_power_of_two", r.note
    # one scale for the tensor: 2/127 for both rows
    r = _grade(rows, "scales", [0.0157, 0.0157])
    assert r.mistake == "per_tensor_for_row", r.note
    # ties: 0.5, 6, −2.5, 7 at scale 1 (4 bits) rounded away from zero: 1, 6, −3, 7 (half to even: 0, 6, −2, 7;
    # with 2^(b−1), s = 7/8: 0.57, 6.86, −2.86, 8 → 1, 7, −3, 7)
    ties = problem([[0.5, 6.0, -2.5, 7.0]], bits=4)
    assert _grade(ties, "quantized", [[0, 6, -2, 7]]).verdict == "correct"
    r = _grade(ties, "quantized", [[1, 6, -3, 7]])
    assert r.mistake == "round_half_away", r.note
    # zero point sign: the tutorial's zero point −113 instead of 113
    zp = problem([TUTORIAL], bits=8, scheme="zeropoint")
    r = _grade(zp, "zero_points", -113)
    assert r.mistake == "zero_point_sign", r.note
    # the clamp: −0.03 and 5.07 over 255 steps, s = 0.02, z = round(1.5) = 2, 5.07 / 0.02 = 253.5 → 254 + 2 = 256
    cl = problem([[-0.03, 5.07, 1.0]], bits=8, scheme="zeropoint")
    r = _grade(cl, "quantized", [[0, 256, 52]])
    assert r.mistake == "no_clamp", r.note
    r = _grade(cl, "quantized", [[0, 255, 52]])
    assert r.verdict == "correct", r.note


def test_json_has_integers_and_labels() -> None:
    """ "JSON, completed": the integers as JSON integers, a labelled step's labels beside its value."""
    import json

    p = problem([TUTORIAL[:4], TUTORIAL[4:]], bits=8, scheme="zeropoint", granularity="row")
    out = json.loads(json.dumps(solve(p, exact=True).to_json()))
    steps = {s["id"]: s for s in out["steps"]}
    assert all(isinstance(v, int) for row in steps["quantized"]["value"] for v in row)
    assert all(isinstance(v, int) for v in steps["zero_points"]["value"])
    assert steps["scales"]["labels"] == ["row 1", "row 2"]
    assert steps["quantized"]["labels"]["rows"] == ["row 1", "row 2"]
    # row 1 [1.2, −0.5, −4.3, 1.2]: s = 5.5/255, z = round(4.3 · 255/5.5) = round(199.36) = 199
    assert steps["zero_points"]["value"][0] == 199


def test_work_from_a_wrong_scale_is_carried() -> None:
    """A student who took 2/127 as 0.018 (row 1) quantizes from it: the integers are carried, not wrong."""
    p = load_problem(Path(PROBLEMS, "quantization-absmax-rows.toml"))
    W = np.array([[0.5, -1.2, 0.3, 2.0], [-0.4, 0.1, 0.9, -0.6]])
    s = np.array([0.018, 0.9 / 127])
    q = np.clip(np.round(W / s[:, None]), -127, 127)
    report = check(p, {"scales": [0.018, 0.0071], "quantized": q.astype(int).tolist()}, "a.toml")
    verdicts = {r.id: r.verdict for r in report.results}
    assert verdicts == {"scales": "wrong", "quantized": "carried"}, [(r.id, r.verdict, r.note) for r in report.results]


@pytest.mark.parametrize(
    ("step", "answer"),
    [
        ("scales", [0.0157, 0.0081]),  # the true scales, the second mistyped (0.0071)
        ("scales", [0.015625, 0.0080313]),  # 2^(b−1) for row 1, a typo in row 2
        ("quantized", [[32, -76, 19, 127], [-56, 41, 127, -85]]),  # 14 written 41
    ],
)
def test_a_typo_is_not_taken_for_a_slip(step: str, answer: Any) -> None:
    r = _grade(load_problem(Path(PROBLEMS, "quantization-absmax-rows.toml")), step, answer)
    assert r.verdict == "wrong" and r.mistake is None, (r.mistake, r.note)


def _tutorial_file(tmp_path: Path, scheme: str) -> Path:
    f = tmp_path / f"tutorial-{scheme}.toml"
    f.write_text(
        f'kind = "quantization"\n[given]\nW = [{TUTORIAL}]\nbits = 8\nscheme = "{scheme}"\n'
        'granularity = "tensor"\n[settings]\ndecimals = 3\n',
        encoding="utf-8",
    )
    return f


@pytest.mark.parametrize(
    ("scheme", "hand"),
    [
        ("absmax", [28, -12, -101, 28, -73, 19, 56, 127]),  # the tutorial's table (see the test above)
        ("zeropoint", [145, 100, 0, 145, 32, 134, 176, 255]),
    ],
)
def test_each_written_line_gives_its_result_as_written(tmp_path: Path, scheme: str, hand: list[int]) -> None:
    """The tutorial's vector at 3 decimals: s = 5.4/127 shows as 0.043, but round(−4.3 / 0.043) is −100
    and the integer is −101 (−4.3 · 127/5.4 = −101.13); the zero point's scale 9.7/255 shows as 0.038,
    and round(−3.1 / 0.038) + 113 is 31 where q is 32 (−81.49 + 113). Each line of the zero point, the
    integers and the dequantized weights is worked here from its numbers as written (Python's round is
    half to even, as torch.round): it must give the line's result, and the integers the hand values."""
    from ..helpers import run_cli

    out = run_cli("solve", str(_tutorial_file(tmp_path, scheme)), "--width", "200").stdout
    z = 0
    if scheme == "zeropoint":
        m = re.search(r"z = round\((\S+) / (\S+)\) = (\d+)", out)
        assert m is not None, out
        z = round(float(m[1]) / float(m[2]))
        assert z == int(m[3]) == 113
    lines = re.findall(r"q\[1,(\d)\] = round\((\S+) / (\S+)\)(?: \+ (\d+))? = (-?\d+)", out)
    assert len(lines) == 8, out
    for (_, w, s, zp, q), want in zip(lines, hand, strict=True):
        assert int(q) == want
        assert min(max(round(float(w) / float(s)) + int(zp or 0), -127 if scheme == "absmax" else 0), 255) == want
    deq = re.findall(r"w'\[1,(\d)\] = \(?(-?\d+)(?: − (\d+)\))? · (\S+) = (\S+)", out)
    assert len(deq) == 8, out
    for (_, q, zp, s, shown), want in zip(deq, hand, strict=True):
        assert int(q) == want
        assert abs((int(q) - int(zp or 0)) * float(s) - float(shown)) <= 0.5e-3 + 1e-12, (q, s, shown)


def test_with_carry_the_exact_lines_say_they_are_the_true_values(tmp_path: Path) -> None:
    """--carry: the integers are worked from the rounded scale 0.043 (round(−4.3 / 0.043) = −100), while
    the exact form of w'[1,3] is the true −101 · 27/635 = −2727/635: the line says which is which."""
    from ..helpers import run_cli

    f = _tutorial_file(tmp_path, "absmax")
    carried = run_cli("solve", str(f), "--carry", "--width", "200").stdout
    assert "q[1,3] = round(-4.3 / 0.043) = -100" in carried
    assert "exact (the true value, not carried): w'[1,3] = -2727/635" in carried
    assert "  exact: " not in carried
    md = run_cli("solve", str(f), "--carry", "-f", "markdown").stdout
    assert "- exact (the true value, not carried): " in md and "- exact: " not in md
    plain = run_cli("solve", str(f), "--width", "200").stdout
    assert "exact: w'[1,3] = -2727/635" in plain and "not carried" not in plain
