"""Runs and the bootstrap of §6.2."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.errors import InputError
from tealeaves.likelihood.uncertainty import average_runs, bootstrap_sd, run_seed


def test_average_runs_is_the_log_of_the_mean_probability():
    runs = np.log(np.array([[0.1, 0.02], [0.3, 0.04]]))
    assert np.allclose(average_runs(runs), np.log([0.2, 0.03]))
    assert np.allclose(average_runs(runs - 2000.0), np.log([0.2, 0.03]) - 2000.0)  # no underflow


def test_bootstrap_sd_matches_the_variance_of_resampled_means():
    # with tiny spreads log-mean-exp is the mean, whose bootstrap variance is σ²_d / R (σ² with ddof 0)
    rng = np.random.default_rng(0)
    runs = -50.0 + 1e-3 * rng.normal(size=(10, 40)) * np.linspace(0.5, 3, 40)
    expected = np.sqrt((runs.var(axis=0) / 10).sum())
    assert bootstrap_sd(runs, n_resamples=20_000, seed=1) == pytest.approx(expected, rel=0.03)
    assert bootstrap_sd(np.full((10, 5), -3.0)) == 0.0
    assert bootstrap_sd(runs[:1]) is None


def test_run_seeds_are_distinct_and_stable():
    seeds = [run_seed(7, r) for r in range(5)]
    assert seeds[0] == 7 and len(set(seeds)) == 5 and seeds == [run_seed(7, r) for r in range(5)]
    assert run_seed(8, 1) != run_seed(7, 1)


def test_bootstrap_resamples_must_be_at_least_two():
    with pytest.raises(InputError, match="resamples"):
        bootstrap_sd(np.zeros((3, 2)), n_resamples=1)
