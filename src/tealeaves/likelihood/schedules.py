"""Inverse-temperature schedules for annealed importance sampling (Wallach et al. 2009, §4.3).

A schedule is 0 = τ_0 < τ_1 < ... < τ_S = 1 (S = ``temperatures``), returned as float64[S + 1]:

- ``linear``: τ_s = s / S;
- ``geometric`` (the default of the estimators): τ_s = τ_min^((S - s) / (S - 1)) for s >= 1,
  with τ_min = 1e-4: more steps near the prior, where P_s changes fastest (Neal 2001). On
  60-token documents from peaked topics it needs about a tenth of the temperatures of the
  linear schedule for the same accuracy (tests/likelihood/test_estimate.py);
- ``sigmoid``: τ_s ∝ σ(δ (2s / S - 1)) rescaled to [0, 1], δ = 4 (Grosse, Maddison &
  Salakhutdinov 2013): slow at both ends.
"""

from __future__ import annotations

import numpy as np

from tealeaves.errors import InputError, is_count

GEOMETRIC_START = 1e-4
SIGMOID_DELTA = 4.0
SCHEDULES = ("linear", "geometric", "sigmoid")
"""The names of the inverse-temperature schedules of :func:`temperatures_schedule` (formulas above)."""


def temperatures_schedule(temperatures: int, schedule: str = "geometric") -> np.ndarray:
    """The inverse temperatures τ_0..τ_S of ``schedule`` with S = ``temperatures``.

    Parameters
    ----------
    temperatures : int
        S, the number of annealing steps.
    schedule : str
        One of :data:`SCHEDULES`: ``linear``, ``geometric`` or ``sigmoid`` (formulas in the
        module docstring).

    Returns
    -------
    ndarray of shape (S + 1,)
        0 = τ_0 < τ_1 < ... < τ_S = 1.

    Examples
    --------
    >>> from tealeaves.likelihood import temperatures_schedule
    >>> temperatures_schedule(4, "linear")
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    >>> [round(float(t), 4) for t in temperatures_schedule(4, "geometric")]  # 1e-4 ** (3/3, 2/3, 1/3, 0)
    [0.0, 0.0001, 0.0022, 0.0464, 1.0]
    >>> temperatures_schedule(4, "sigmoid").round(4)
    array([0.   , 0.105, 0.5  , 0.895, 1.   ])
    """
    if not isinstance(schedule, str) or schedule not in SCHEDULES:
        raise InputError(f"schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}")
    if not is_count(temperatures):
        raise InputError(f"temperatures must be a whole number of at least 1, got {temperatures!r}")
    s = np.arange(temperatures + 1, dtype=np.float64)
    if schedule == "linear" or temperatures == 1:
        taus = s / temperatures
    elif schedule == "geometric":
        taus = np.concatenate([[0.0], GEOMETRIC_START ** ((temperatures - s[1:]) / (temperatures - 1))])
    else:
        raw = 1.0 / (1.0 + np.exp(-SIGMOID_DELTA * (2.0 * s / temperatures - 1.0)))
        taus = (raw - raw[0]) / (raw[-1] - raw[0])
    taus[0], taus[-1] = 0.0, 1.0
    return taus
