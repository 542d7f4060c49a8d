"""Trained runs as the units (tealeaves.stats.runs_t_test): against scipy and by the variance it estimates."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tealeaves.errors import InputError
from tealeaves.stats import bootstrap_calibrated, runs_t_test, swap_calibrated


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


def _crossed_documents(rng, w, runs=3, own=0.3, between=0.02, noise=0.05):
    """Raw values (runs x documents) of two models, each with its own effect on each document (shared by
    its runs), a run effect and noise, nats per token times the documents' lengths w."""
    models = []
    for _ in range(2):
        effect = rng.normal(0, own, len(w))
        models.append(
            np.array([w * (-7.0 + effect + rng.normal(0, between) + rng.normal(0, noise, len(w))) for _ in range(runs)])
        )
    return models


def _linearised(v, w):
    r = v.sum() / w.sum()
    return r + (v - r * w) / w.mean()


def test_swap_calibration_takes_the_swaps_quantile_as_its_t_quantile():
    """Brute force: each swap row's statistic recomputed document by document, the degrees of freedom
    whose t quantile is their 95% quantile, and the p-value and interval of the t on them."""
    rng = np.random.default_rng(2)
    w = np.array([10.0, 12.0, 8.0, 11.0, 9.0, 400.0, 14.0, 7.0])
    a, b = _crossed_documents(rng, w)
    t = runs_t_test([_linearised(v, w) for v in a], [_linearised(v, w) for v in b], paired=True)
    swaps = np.random.default_rng(5).random((499, len(w))) < 0.5
    calibrated = swap_calibrated(t, (a.mean(0), w), (b.mean(0), w), swaps)
    d = _linearised(a.mean(0), w) - _linearised(b.mean(0), w)
    run_part = t.se**2 - d.var(ddof=1) / len(w)
    drawn = []
    for row in swaps:
        x, y = np.where(row, b.mean(0), a.mean(0)), np.where(row, a.mean(0), b.mean(0))
        e = _linearised(x, w) - _linearised(y, w)
        drawn.append(abs(e.mean()) / np.sqrt(max(run_part, 0.0) + e.var(ddof=1) / len(w)))
    q = np.quantile(drawn, 0.95)
    assert q > stats.t.ppf(0.975, t.df)  # the long document: the swaps reach further than Satterthwaite's t
    assert stats.t.ppf(0.975, calibrated.df) == pytest.approx(q)
    assert calibrated.pvalue == pytest.approx(2 * stats.t.sf(abs(t.difference) / t.se, calibrated.df))
    half = stats.t.ppf(0.975, calibrated.df) * t.se
    assert (calibrated.ci_low, calibrated.ci_high) == pytest.approx((t.difference - half, t.difference + half))
    assert (calibrated.difference, calibrated.se, calibrated.statistic) == (t.difference, t.se, t.statistic)


def test_swap_calibration_leaves_documents_of_even_length_to_the_t():
    """200 documents of similar length: the swaps' quantile is the normal's, below the t's, so the
    result is the t's unchanged."""
    rng = np.random.default_rng(4)
    w = 5.0 + rng.poisson(40, 200)
    a, b = _crossed_documents(rng, w)
    t = runs_t_test([_linearised(v, w) for v in a], [_linearised(v, w) for v in b], paired=True)
    swaps = rng.random((999, len(w))) < 0.5
    assert swap_calibrated(t, (a.mean(0), w), (b.mean(0), w), swaps) is t


def _jackknifed(v, w):
    """Brute force: the ratio and its jackknife se, each document left out in turn."""
    n = len(w)
    left_out = np.array([np.delete(v, i).sum() / np.delete(w, i).sum() for i in range(n)])
    return v.sum() / w.sum(), np.sqrt((n - 1) / n * ((left_out - left_out.mean()) ** 2).sum())


def test_the_bootstrap_calibration_of_one_models_interval_reaches_as_far_as_the_documents_bootstrap_t():
    """Brute force: each resample's ratio and jackknife se recomputed document by document, the 95% quantile
    of |R* - R| / sqrt(run part + J*), the t on the degrees of freedom whose quantile reaches that times
    sqrt(run part + J) / se, the run part the t's se² less the documents' part."""
    rng = np.random.default_rng(2)
    w = np.array([10.0, 12.0, 8.0, 11.0, 9.0, 400.0, 14.0, 7.0, 15.0, 9.0])
    a, _ = _crossed_documents(rng, w)
    t = runs_t_test([_linearised(v, w) for v in a], paired=True)
    calibrated = bootstrap_calibrated(t, (a.mean(0), w), 499, np.random.default_rng(5))
    u = _linearised(a.mean(0), w)
    run_part = max(t.se**2 - u.var(ddof=1) / len(w), 0.0)
    value, se = _jackknifed(a.mean(0), w)
    draws = np.random.default_rng(5).integers(0, len(w), size=(499, len(w)))
    drawn = []
    for row in draws:
        r, s = _jackknifed(a.mean(0)[row], w[row])
        drawn.append(abs(r - value) / np.sqrt(run_part + s**2))
    reach = np.quantile(drawn, 0.95) * np.sqrt(run_part + se**2) / t.se
    assert reach > stats.t.ppf(0.975, t.df)  # the long document: the bootstrap reaches further than the t
    assert stats.t.ppf(0.975, calibrated.df) == pytest.approx(reach)
    half = reach * t.se
    assert (calibrated.ci_low, calibrated.ci_high) == pytest.approx((t.difference - half, t.difference + half))
    assert (calibrated.difference, calibrated.se) == (t.difference, t.se)


def test_the_bootstrap_calibration_leaves_the_t_where_the_runs_dominate_or_documents_are_even():
    """Run effects far larger than the documents' spread, or 200 documents of similar length: the
    bootstrap-t reaches no further than the t, which is returned unchanged."""
    rng = np.random.default_rng(4)
    w = 5.0 + rng.poisson(40, 200)
    for a in (_crossed_documents(rng, w)[0], _crossed_documents(rng, w[:12], between=1.0)[0]):
        width = len(a[0])
        t = runs_t_test([_linearised(v, w[:width]) for v in a], paired=True)
        assert bootstrap_calibrated(t, (a.mean(0), w[:width]), 999, rng) is t


def test_the_bootstrap_calibration_leaves_fewer_than_five_documents_to_the_t():
    """Four documents, one of them long: too few to resample (a resample of one document repeated has no
    spread), so the interval is the t's, as the single-run bootstrap-t falls back to the t."""
    w = np.array([10.0, 12.0, 8.0, 900.0])
    a, _ = _crossed_documents(np.random.default_rng(1), w)
    t = runs_t_test([_linearised(v, w) for v in a], paired=True)
    assert bootstrap_calibrated(t, (a.mean(0), w), 999, np.random.default_rng(0)) is t
    five = np.append(w, 11.0)  # five: resampled, and here widened
    a5, _ = _crossed_documents(np.random.default_rng(1), five)
    t5 = runs_t_test([_linearised(v, five) for v in a5], paired=True)
    assert bootstrap_calibrated(t5, (a5.mean(0), five), 999, np.random.default_rng(0)).df < t5.df
