"""AIS inverse-temperature schedules."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.errors import InputError
from tealeaves.likelihood import SCHEDULES, temperatures_schedule


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("temperatures", [1, 2, 5, 1000])
def test_schedules_rise_from_zero_to_one(schedule, temperatures):
    taus = temperatures_schedule(temperatures, schedule)
    assert len(taus) == temperatures + 1 and taus[0] == 0.0 and taus[-1] == 1.0
    assert np.all(np.diff(taus) > 0)


def test_schedule_shapes():
    assert np.allclose(temperatures_schedule(4, "linear"), [0, 0.25, 0.5, 0.75, 1])
    geometric = temperatures_schedule(5, "geometric")
    assert geometric[1] == pytest.approx(1e-4) and np.allclose(geometric[2:] / geometric[1:-1], 10.0)
    sigmoid = np.diff(temperatures_schedule(100, "sigmoid"))
    assert sigmoid[0] < sigmoid[50] > sigmoid[-1]  # slow at both ends


def test_unknown_schedule():
    with pytest.raises(InputError, match="schedule must be one of linear, geometric, sigmoid"):
        temperatures_schedule(10, "cosine")
