"""The stall watch runs around every learner call, not only the calls whose lists the
grader times itself (``sample-duration``): every list ``interval-clean`` may judge for
unrecorded blocking then has the run's measured wait for a CPU (its load allowance,
``checks_intervals.blocking_allowance_ns``) and the watch's holds of the interpreter,
in every exercise and every course, the probe's calls included."""

from __future__ import annotations

from typing import Any

import pytest
from service_support import SOLUTIONS

from syncgrade.grading import frames, grade_result


def test_every_call_frame_carries_the_watchs_load_measure(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    parsed: list[frames.Frames] = []
    real = frames.parse_frames

    def spy(*args: Any, **kwargs: Any) -> frames.Frames:
        parsed.append(real(*args, **kwargs))
        return parsed[-1]

    monkeypatch.setattr(frames, "parse_frames", spy)
    report = grade_result("exercise-1", SOLUTIONS / "exercise-1" / "solution.py",
                          timeout=120).report
    assert report.status == "passed", report.summary
    calls = {call_id: frame for run in parsed for call_id, frame in run.calls.items()}
    # The hidden workload's call (timed by the grader too) and the probe's (not).
    assert set(calls) == {"main", "probe"}
    for call_id, frame in calls.items():
        assert frame.latest_wake_s is not None, call_id
        assert frame.realtime_offset is not None, call_id
