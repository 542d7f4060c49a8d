"""Trained runs as the units (tealeaves.stats.runs_t_test): against scipy and by the variance it estimates."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tealeaves.errors import InputError
from tealeaves.stats import runs_t_test


def test_topics_within_runs_are_the_t_test_of_the_run_means():
    rng = np.random.default_rng(3)
    a = [rng.normal(0.1, 0.05, size=k) for k in (20, 18, 20)]  # a run may have lost topics
    b = [rng.normal(0.0, 0.05, size=20) + rng.normal(0, 0.02) for _ in range(3)]
    result = runs_t_test(a, b)
    means_a, means_b = [x.mean() for x in a], [x.mean() for x in b]
    pooled = stats.ttest_ind(means_a, means_b)  # balanced: the mixed model's 2R - 2 degrees of freedom
    assert result.pvalue == pytest.approx(pooled.pvalue) and result.df == 4
    assert result.difference == pytest.approx(np.mean(means_a) - np.mean(means_b)) and result.n == 6
    welch = stats.ttest_ind(means_a, [*means_b, np.mean(means_b)], equal_var=False)  # unbalanced: Welch
    assert runs_t_test(a, [*b, np.array([np.mean(means_b)])]).pvalue == pytest.approx(welch.pvalue)
    alone = runs_t_test(a)  # one model: the t interval over its run means
    low, high = stats.t.interval(0.95, 2, loc=np.mean(means_a), scale=stats.sem(means_a))
    assert (alone.ci_low, alone.ci_high) == pytest.approx((low, high))


def test_paired_documents_variance_is_unbiased_for_the_crossed_design():
    """Over simulated data of the crossed model u = a_mi + b_mr + e_mri with known components, the
    mean of se^2 equals the true variance of the difference (and the one-model variance too)."""
    rng = np.random.default_rng(0)
    runs, n, sd_delta, sd_b, sd_e = 3, 40, 0.3, 0.1, 1.0
    truth = sd_delta**2 / n + 2 * (sd_b**2 + sd_e**2 / n) / runs
    truth_alone = (sd_delta**2 / 2) / n + (sd_b**2 + sd_e**2 / n) / runs  # a_Ai has variance sd_delta^2 / 2
    se2, se2_alone, estimates = [], [], []
    for _ in range(4000):
        own = rng.normal(0, sd_delta / np.sqrt(2), size=(2, 1, n))
        u = own + rng.normal(0, sd_b, size=(2, runs, 1)) + rng.normal(0, sd_e, size=(2, runs, n))
        c = runs_t_test(u[0], u[1], paired=True)
        se2.append(c.se**2)
        estimates.append(c.difference)
        se2_alone.append(runs_t_test(u[0], paired=True).se ** 2)
    assert np.mean(se2) == pytest.approx(truth, rel=0.04)  # the MC error of the mean is about 1.5%
    assert np.var(estimates) == pytest.approx(truth, rel=0.1)
    assert np.mean(se2_alone) == pytest.approx(truth_alone, rel=0.04)


def test_paired_brute_force_components():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(3, 6)), rng.normal(size=(3, 6)) + 0.5
    v_runs = a.mean(axis=1).var(ddof=1) / 3 + b.mean(axis=1).var(ddof=1) / 3
    d = a.mean(axis=0) - b.mean(axis=0)
    residual = 0.0
    for u in (a, b):
        e = [[u[r, i] - u[r].mean() - u[:, i].mean() + u.mean() for i in range(6)] for r in range(3)]
        residual += np.sum(np.square(e)) / (2 * 5) / (6 * 3)
    expected = v_runs + d.var(ddof=1) / 6 - residual
    assert expected > 0
    assert runs_t_test(a, b, paired=True).se ** 2 == pytest.approx(expected)


@pytest.mark.parametrize(
    ("a", "b", "paired", "message"),
    [
        ([[1.0, 2.0]], [[1.0], [2.0]], False, "1 run"),
        ([[1.0], []], [[1.0], [2.0]], False, "without values"),
        ([[1.0, 2.0], [1.0]], [[1.0, 2.0], [2.0, 1.0]], True, "same documents"),
        ([[1.0, 2.0], [1.0, 3.0]], [[1.0, 2.0, 3.0], [2.0, 1.0, 3.0]], True, "different numbers"),
    ],
)
def test_refuses_what_is_not_two_runs_each(a, b, paired, message):
    with pytest.raises(InputError, match=message):
        runs_t_test(a, b, paired=paired)
