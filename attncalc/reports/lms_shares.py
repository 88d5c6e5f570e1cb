"""``generate``'s lines on standard error where a quiz format cannot give the shares ``check`` gives: the
``[grading]`` slip share (a named slip) and carried share (a step that follows from a slip made earlier)."""

from __future__ import annotations

from . import moodle, qti12


def share_warnings(fmt: str, slip: float | None, carried: float | None) -> str:
    """Every warning for ``--slip-share`` and ``--carried-share`` in format ``fmt`` (empty where it gives both
    as check does)."""
    qti = qti12.slip_warning(fmt, slip, carried)  # (says what the later entries earn where it speaks)
    return moodle.slip_warning(fmt, slip) + qti + (carried_warning(fmt, carried) if not qti else "")


def carried_warning(fmt: str, share: float | None) -> str:
    """Moodle's answer grades are a fixed list (0.55 becomes 50 %); QTI 1.2's numbers and choices give full marks
    or none, so a carried share between 0 and 1 earns none there."""
    if share is None or share == 1:
        return ""
    if fmt in ("moodle", "moodle-cloze") and abs(moodle.moodle_grade(share) - share) > 1e-6:
        return (
            f"attncalc: warning: --carried-share {share:g} is not one of Moodle's answer grades: the quiz gives a "
            f"step carried from a slip {moodle.slip_percent(share)} % of its points, check {share:g}; for the same "
            f"share in both, choose one of {', '.join(f'{g:g}' for g in moodle.GRADES if 0 <= g <= 1)}\n"
        )
    if fmt in qti12.NO_SLIPS and share > 0:
        return (
            f"attncalc: warning: --carried-share {share:g}: --format {fmt} gives full marks or none, so a step "
            f"carried from a slip earns 0 there, check gives it {share:g} of the step; the share is in --format "
            "moodle, moodle-cloze and qti\n"
        )
    return ""
