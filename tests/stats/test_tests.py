"""Every test of tealeaves.stats equals SciPy, statsmodels or a brute-force computation on the same numbers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest
from statsmodels.stats.weightstats import ttest_ind as sm_ttest_ind

from tealeaves.errors import InputError
from tealeaves.stats import (
    bootstrap_z_test,
    jackknife_difference_test,
    mann_whitney,
    mann_whitney_counts,
    paired_t_test,
    permutation_test,
    proportion_test,
    randomisation_test,
    satterthwaite_df,
    t_test,
    t_test_moments,
    t_test_of_estimate,
    welch_test,
)
from tealeaves.stats.tests import PERMUTATIONS

SM_ALT = {"greater": "larger", "smaller": "smaller"}
SP_ALT = {"greater": "greater", "smaller": "less"}


def test_welch_is_scipys_unequal_variance_t_test_with_its_interval():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.1, 0.05, 20), rng.normal(0.13, 0.09, 17)
    result = welch_test(a, b)
    expected = stats.ttest_ind(a, b, equal_var=False)
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.df == pytest.approx(expected.df, rel=1e-12)
    assert result.difference == pytest.approx(a.mean() - b.mean(), rel=1e-12) and result.n == 37
    assert (result.ci_low, result.ci_high) == pytest.approx(tuple(expected.confidence_interval(0.95)), rel=1e-12)
    assert (welch_test(a, b, 0.9).ci_low, welch_test(a, b, 0.9).ci_high) == pytest.approx(
        tuple(expected.confidence_interval(0.9)), rel=1e-12
    )
    assert result.test == "Welch's t" and result.alternative == "two-sided"


def test_welch_batched_over_leading_axes_and_untestable_without_variation():
    a, b = np.random.default_rng(1).normal(size=(2, 3, 12))
    batched = welch_test(a, b)
    reference = stats.ttest_ind(a, b, axis=-1, equal_var=False)
    np.testing.assert_allclose(batched.pvalue, reference.pvalue, rtol=1e-12)
    np.testing.assert_allclose(batched.df, reference.df, rtol=1e-12)
    constant = welch_test([0.1, 0.1], [0.2, 0.2])
    assert np.isnan(constant.pvalue) and np.isnan(constant.statistic) and constant.se == 0
    with pytest.raises(InputError, match="at least two"):
        welch_test([1.0], [1.0, 2.0])


def test_satterthwaite_degrees_of_freedom():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=9), rng.normal(0, 3, size=14)
    df = satterthwaite_df(a.var(ddof=1) / 9, b.var(ddof=1) / 14, 9, 14)
    assert df == pytest.approx(stats.ttest_ind(a, b, equal_var=False).df, rel=1e-12)
    assert np.isnan(satterthwaite_df(0.0, 0.0, 5, 5))


def test_paired_t_is_scipys_ttest_rel():
    rng = np.random.default_rng(3)
    a = rng.normal(size=40)
    b = a + rng.normal(0.2, 0.5, size=40)
    result = paired_t_test(a, b)
    expected = stats.ttest_rel(a, b)
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12) and result.df == 39 and result.n == 40
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert (result.ci_low, result.ci_high) == pytest.approx(tuple(expected.confidence_interval(0.95)), rel=1e-12)


def test_t_test_of_an_estimate_and_its_degenerate_cases():
    result = t_test_of_estimate(0.3, 0.1, 12.0, test="x", n=14)
    assert result.pvalue == pytest.approx(2 * stats.t.sf(3.0, 12), rel=1e-12) and result.test == "x"
    assert (result.ci_low, result.ci_high) == pytest.approx(stats.t.interval(0.95, 12, loc=0.3, scale=0.1))
    nothing = t_test_of_estimate(0.0, 0.0, 12.0)  # no spread and no difference: nothing to find
    assert nothing.pvalue == 1.0 and (nothing.ci_low, nothing.ci_high) == (0.0, 0.0)
    apart = t_test_of_estimate(0.5, 0.0, 12.0)  # no spread but a difference: untestable
    assert np.isnan(apart.pvalue) and (apart.ci_low, apart.ci_high) == (0.5, 0.5)


def test_the_jackknife_difference_test_of_two_means_is_welchs():
    """Tukey's jackknife standard error of a mean is s / sqrt(n), so the test of two means is Welch's."""
    rng = np.random.default_rng(4)
    x, y = rng.gamma(2.0, size=11), rng.gamma(3.0, size=8)

    def leave_one_out(v):
        return np.array([np.delete(v, j).mean() for j in range(len(v))])

    result = jackknife_difference_test((x.mean(), leave_one_out(x)), (y.mean(), leave_one_out(y)))
    welch = welch_test(x, y)
    assert result.test == "jackknife t" and result.n == 19
    assert result.se == pytest.approx(welch.se, rel=1e-10) and result.df == pytest.approx(welch.df, rel=1e-10)
    assert result.pvalue == pytest.approx(welch.pvalue, rel=1e-9)
    flat = jackknife_difference_test((1.0, np.ones(4)), (0.5, np.ones(6)))  # neither varies: n_A + n_B - 2
    assert flat.df == 8.0 and np.isnan(flat.pvalue)


def test_permutation_test_counts_relabellings_as_extreme_as_the_data():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=6), rng.normal(0.8, size=5)
    draws = np.random.default_rng(6)
    result = permutation_test(a, b, draws, 999)
    # the same relabellings, counted one by one
    again = np.random.default_rng(6).random((999, 11)).argsort(axis=1)
    pooled = np.concatenate([a, b])
    extreme = sum(abs(pooled[o[:6]].mean() - pooled[o[6:]].mean()) >= abs(a.mean() - b.mean()) - 1e-12 for o in again)
    assert result.pvalue == (1 + extreme) / 1000
    # exact enumeration of the C(11, 6) = 462 splits agrees within Monte Carlo error
    splits = [np.array(c) for c in itertools.combinations(range(11), 6)]
    exact = np.mean([abs(pooled[c].mean() - np.delete(pooled, c).mean()) >= abs(a.mean() - b.mean()) for c in splits])
    assert abs(result.pvalue - exact) < 4 * np.sqrt(exact * (1 - exact) / 999) + 1e-3
    welch = welch_test(a, b)
    assert (result.se, result.ci_low, result.ci_high) == (welch.se, welch.ci_low, welch.ci_high)
    assert np.isnan(result.df) and result.n == 11 and result.test == "permutation"


def test_permutation_test_of_constant_groups():
    equal = permutation_test(np.ones(20), np.ones(20), np.random.default_rng(0))
    assert equal.pvalue == 1.0 and equal.se == 0.0 and np.isnan(equal.ci_low)
    apart = permutation_test(np.ones(20), np.zeros(20), np.random.default_rng(0))
    assert apart.pvalue == pytest.approx(1 / (1 + PERMUTATIONS))  # the smallest it can be
    few = permutation_test(np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.random.default_rng(0))
    assert few.pvalue == pytest.approx(2 / 6, abs=0.02)  # 6 relabellings, 2 as extreme


def test_randomisation_test_ranks_the_observed_split_with_random_tie_breaking():
    x = np.array([5.0, 6, 7, 8, 9, 0, 1, 2, 3, 4, 2, 3])

    def mean(rows):
        return rows @ x / rows.sum(axis=1)

    result = randomisation_test(mean, 5, 12, np.random.default_rng(0), 499)
    # by hand, from the same stream: the splits, then U
    rng = np.random.default_rng(0)
    orders = rng.random((499, 12)).argsort(axis=1)[:, :5]
    u = rng.random()
    observed = abs(x[:5].mean() - x[5:].mean())
    diffs = np.array([abs(x[o].mean() - np.delete(x, o).mean()) for o in orders])
    above, tied = np.sum(diffs > observed + 1e-12 * observed), np.sum(np.abs(diffs - observed) <= 1e-12 * observed)
    assert result.pvalue == pytest.approx((above + u * (1 + tied)) / 500, rel=1e-12)
    assert result.difference == pytest.approx(x[:5].mean() - x[5:].mean()) and result.n == 12


def test_randomisation_test_is_uniform_under_the_null():
    """Ties everywhere (a count statistic of few values): the randomised p-value still rejects 5%."""
    rng = np.random.default_rng(7)
    rejections = 0
    for _ in range(400):
        x = rng.integers(0, 3, 10).astype(float)
        p = randomisation_test(lambda rows, x=x: rows @ x, 5, 10, rng, 99).pvalue
        rejections += p < 0.05
    assert abs(rejections / 400 - 0.05) < 4 * np.sqrt(0.05 * 0.95 / 400)


def test_bootstrap_z_test_is_the_normal_test_with_the_resamples_sd():
    resamples = np.random.default_rng(8).normal(0.2, 0.1, 500)
    resamples[3] = np.nan  # an undefined resample is left out
    result = bootstrap_z_test(0.25, resamples, 0.9, test="paired bootstrap", n=30, estimand="spearman")
    se = np.nanstd(resamples, ddof=1)
    assert result.se == se and result.statistic == 0.25 / se
    assert result.pvalue == pytest.approx(2 * stats.norm.sf(0.25 / se), rel=1e-12)
    assert (result.ci_low, result.ci_high) == pytest.approx(stats.norm.interval(0.9, loc=0.25, scale=se))
    assert result.n_resamples == 500 and result.estimand == "spearman" and result.n == 30
    flat = bootstrap_z_test(0.1, np.full(10, 0.1))
    assert np.isnan(flat.pvalue) and np.isnan(flat.statistic)


@pytest.mark.parametrize("alternative", ["greater", "smaller"])
@pytest.mark.parametrize("value", [0.0, 0.05, -0.03])
def test_proportion_test_equals_statsmodels(alternative, value):
    rng = np.random.default_rng(1)
    for _ in range(20):
        na, nb = rng.integers(20, 2000, size=2)
        ca, cb = rng.integers(1, na), rng.integers(1, nb)
        ours = proportion_test(ca, na, cb, nb, alternative, value)
        z, p = proportions_ztest([ca, cb], [na, nb], value=value, alternative=SM_ALT[alternative])
        assert ours.statistic == pytest.approx(z, rel=1e-12)
        assert ours.pvalue == pytest.approx(p, rel=1e-10, abs=1e-300)
        assert ours.difference == pytest.approx(ca / na - cb / nb)


@pytest.mark.parametrize("alternative", ["greater", "smaller"])
def test_t_test_equals_scipy_and_statsmodels(alternative):
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.1, 1, size=(30, 50)), rng.normal(0, 1.3, size=(30, 45))
    ours = t_test(a, b, alternative)
    for i in range(30):
        ref = stats.ttest_ind(a[i], b[i], alternative=SP_ALT[alternative])
        assert ours.statistic[i] == pytest.approx(ref.statistic, rel=1e-12)
        assert ours.pvalue[i] == pytest.approx(ref.pvalue, rel=1e-10)
    shifted = t_test(a[0], b[0], alternative, value=0.11)
    t, p, df = sm_ttest_ind(a[0], b[0], value=0.11, alternative=SM_ALT[alternative])
    assert shifted.statistic == pytest.approx(t, rel=1e-12) and shifted.pvalue == pytest.approx(p, rel=1e-10)
    assert shifted.df == df and shifted.difference == pytest.approx(a[0].mean() - b[0].mean())


def test_t_test_from_moments_equals_t_test():
    rng = np.random.default_rng(3)
    a, b = rng.integers(1, 4, 120).astype(float), rng.integers(1, 4, 90).astype(float)
    direct = t_test(a, b, "smaller", 0.11)
    moments = t_test_moments(a.mean(), a.var(ddof=1), a.size, b.mean(), b.var(ddof=1), b.size, "smaller", 0.11)
    assert moments.statistic == pytest.approx(direct.statistic) and moments.pvalue == pytest.approx(direct.pvalue)


@pytest.mark.parametrize("alternative", ["greater", "smaller"])
def test_mann_whitney_equals_scipy_with_ties(alternative):
    rng = np.random.default_rng(4)
    for _ in range(20):
        a = rng.choice([1, 2, 3], size=rng.integers(5, 400), p=[0.2, 0.3, 0.5])
        b = rng.choice([1, 2, 3], size=rng.integers(5, 400), p=[0.3, 0.4, 0.3])
        ours = mann_whitney(a, b, alternative)
        ref = stats.mannwhitneyu(a, b, alternative=SP_ALT[alternative], method="asymptotic")
        assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_mann_whitney_continuous_values_and_counts_form():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=60), rng.normal(0.3, size=70)
    ref = stats.mannwhitneyu(a, b, alternative="greater", method="asymptotic")
    assert mann_whitney(a, b).pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    counts = mann_whitney_counts([[3, 5, 2], [0, 1, 9]], [[4, 4, 2], [5, 5, 0]])
    for i, (ca, cb) in enumerate(([[3, 5, 2], [4, 4, 2]], [[0, 1, 9], [5, 5, 0]])):
        x, y = np.repeat([1, 2, 3], ca), np.repeat([1, 2, 3], cb)
        assert counts.pvalue[i] == pytest.approx(
            stats.mannwhitneyu(x, y, alternative="greater", method="asymptotic").pvalue
        )


def test_bad_inputs_are_refused():
    with pytest.raises(InputError, match="alternative"):
        proportion_test(1, 10, 2, 10, "two-sided")
    with pytest.raises(InputError, match="at least two"):
        t_test([1.0], [1.0, 2.0])
    with pytest.raises(InputError, match="at least one"):
        proportion_test(0, 0, 1, 10)
    with pytest.raises(InputError, match="at least one response"):
        mann_whitney([], [1.0])
