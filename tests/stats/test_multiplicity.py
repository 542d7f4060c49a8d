"""Holm and Benjamini-Hochberg against statsmodels, the max-T adjustment against its definition."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.stats import benjamini_hochberg, holm, max_t_pvalues


@pytest.mark.parametrize(("ours", "method"), [(holm, "holm"), (benjamini_hochberg, "fdr_bh")])
def test_adjustments_equal_statsmodels(ours, method, statsmodels_holm):
    multipletests = statsmodels_holm
    rng = np.random.default_rng(0)
    for m in (1, 2, 3, 7, 40):
        for _ in range(5):
            p = rng.uniform(0, 1, m) ** 3
            p[rng.random(m) < 0.2] = p[0]  # ties
            np.testing.assert_array_equal(ours(p), multipletests(p, method=method)[1])  # bit for bit
    with_nan = np.array([0.01, 0.04, np.nan, 0.03, 0.5, 0.01])
    finite = np.isfinite(with_nan)
    adjusted = ours(with_nan)
    np.testing.assert_array_equal(adjusted[finite], multipletests(with_nan[finite], method=method)[1])
    assert np.isnan(adjusted[2]) and all(np.isnan(ours([np.nan, np.nan])))
    assert ours([]).shape == (0,)


def test_holm_is_bit_for_bit_what_the_evaluation_used(statsmodels_holm):
    """Every p-value of the evaluation's comparisons was Holm-corrected by statsmodels before: the
    hand-written step-down gives the same bits, ties included (the pairs of a model-level metric)."""
    rng = np.random.default_rng(1)
    for _ in range(40):
        p = np.round(rng.uniform(0, 1, rng.integers(1, 12)), 2)  # rounded: many ties
        np.testing.assert_array_equal(holm(p), statsmodels_holm(p, method="holm")[1])


def test_holm_equals_the_step_down_by_hand():
    rng = np.random.default_rng(5)
    for _ in range(50):
        p = rng.uniform(0, 0.2, size=rng.integers(2, 9))
        order = np.argsort(p)
        m = len(p)
        expected = np.empty(m)
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (m - rank) * p[i]))
            expected[i] = running
        assert np.allclose(holm(p), expected)


def test_max_t_counts_resamples_whose_largest_centred_statistic_exceeds_each_observed_one():
    rng = np.random.default_rng(2)
    d = np.array([0.3, 0.05, -0.1])
    se = np.array([0.1, 0.08, 0.12])
    resamples = [rng.normal(di, s, 300) for di, s in zip(d, se)]
    resamples[1][5] = np.nan  # left out of that resample's maximum
    p = max_t_pvalues(d, se, resamples)
    for i in range(3):
        count = 0
        for b in range(300):
            centred = [abs(resamples[j][b] - d[j]) / se[j] for j in range(3) if np.isfinite(resamples[j][b])]
            count += max(centred) >= abs(d[i]) / se[i]
        assert p[i] == (1 + count) / 301
    assert p[0] < p[2] < p[1]


def test_bonferroni_intervals_cover_together_and_agree_with_holm():
    """Six independent differences, each the mean of 5 normal values with its t-test's se on 4 df: the
    intervals cover all six true values together with probability exactly (1 - 0.05/6)^6 = 0.9510; over
    4,000 families within 4 MC SE (0.0034) of it (0.9543 here). Where one excludes 0, Holm's adjusted p is below 0.05."""
    from scipy import stats

    from tealeaves.stats import bonferroni_intervals

    rng = np.random.default_rng(3)
    truth = np.array([0.0, 0.1, -0.2, 0.5, 1.0, 0.0])
    covered, agreed = 0, True
    for _ in range(4000):
        x = truth[:, None] + rng.normal(size=(6, 5))
        d, se = x.mean(axis=1), x.std(axis=1, ddof=1) / np.sqrt(5)
        low, high = bonferroni_intervals(d, se, np.full(6, 4.0))
        covered += bool(np.all((low <= truth) & (truth <= high)))
        adjusted = holm(2 * stats.t.sf(np.abs(d / se), 4))
        agreed &= bool(np.all(~((low > 0) | (high < 0)) | (adjusted < 0.05)))
    exact = (1 - 0.05 / 6) ** 6
    assert abs(covered / 4000 - exact) < 4 * np.sqrt(exact * (1 - exact) / 4000) and agreed
    low, high = bonferroni_intervals([0.5, np.nan, 0.2], [0.1, 0.1, 0.0], [np.inf, 3.0, 3.0])  # untestable: NaN, m = 1
    assert low[0] == pytest.approx(0.5 - 1.959964 * 0.1) and np.isnan(high[1:]).all()
