"""Intervals and standard errors against SciPy, NumPy and their formulas computed one resample at a time."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from tealeaves.errors import InputError
from tealeaves.rng import family_generator
from tealeaves.stats import (
    bootstrap_se,
    bootstrap_t_interval,
    delete_d_jackknife_se,
    jackknife_se,
    mean_with_interval,
    percentile_interval,
    ratio_bootstrap_t_interval,
    t_interval,
)


def test_t_interval_is_scipys_at_any_confidence_and_batched():
    for df in (1.0, 4.0, 37.5, 1000.0, np.inf):
        for confidence in (0.9, 0.95, 0.99):
            expected = stats.t.interval(confidence, df, loc=0.3, scale=0.1)
            assert t_interval(0.3, 0.1, df, confidence) == pytest.approx(expected, rel=1e-12)
    low, high = t_interval(np.array([0.3, 0.5]), np.array([0.1, 0.2]), np.array([4.0, 0.0]))
    assert (low[0], high[0]) == pytest.approx(stats.t.interval(0.95, 4, loc=0.3, scale=0.1))
    assert np.isnan(low[1]) and np.isnan(high[1])
    assert all(np.isnan(t_interval(1.0, 0.5, np.nan))) and all(np.isnan(t_interval(1.0, 0.5, 0)))
    assert isinstance(t_interval(1.0, 0.5, 3)[0], float)


def test_percentile_interval_is_numpys_quantiles_and_its_nan_policy():
    x = np.random.default_rng(0).normal(size=999)
    for confidence in (0.95, 0.9):
        tail = (1 - confidence) / 2  # as the evaluation and the analysis always computed it
        assert percentile_interval(x, confidence) == (np.quantile(x, tail), np.quantile(x, 1 - tail))
    with_nan = np.append(x, np.nan)
    assert percentile_interval(with_nan) == percentile_interval(x)  # omitted
    assert all(np.isnan(percentile_interval(with_nan, nan_policy="propagate")))
    with pytest.raises(InputError, match="nan_policy"):
        percentile_interval(x, nan_policy="raise")


def test_bootstrap_se_is_the_resamples_standard_deviation():
    x = np.random.default_rng(1).normal(size=200)
    assert bootstrap_se(x) == x.std(ddof=1) == bootstrap_se(x, nan_policy="propagate")
    assert bootstrap_se(np.append(x, np.nan)) == x.std(ddof=1)
    assert np.isnan(bootstrap_se(np.append(x, np.nan), nan_policy="propagate"))
    assert np.isnan(bootstrap_se([1.0, np.nan]))


def studentised(values: np.ndarray) -> tuple[float, float]:
    """The bootstrap-t interval from its formula (Efron and Tibshirani 1993, ch. 12.5), one resample at a
    time, on the resamples ``bootstrap_t_interval`` draws: 2,000 rows of indices into the sorted values
    from the family "bootstrap-t interval" (seed 0); t* = ±inf for a resample of equal values."""
    x = np.sort(values[np.isfinite(values)])
    n, mean, se = len(x), x.mean(), x.std(ddof=1) / np.sqrt(len(x))
    draws = family_generator(0, "bootstrap-t interval").integers(0, n, size=(2000, n))
    t = []
    for row in x[draws]:
        if len(set(row)) == 1:
            t.append(np.sign(row[0] - mean) * np.inf if row[0] != mean else 0.0)
        else:
            t.append((row.mean() - mean) / (row.std(ddof=1) / np.sqrt(n)))
    t = sorted(t)
    return mean - t[1949] * se, mean - t[49] * se  # the 1,950th and the 50th of 2,000


def test_the_interval_of_a_mean_over_topics_is_the_studentised_bootstraps():
    rng = np.random.default_rng(3)
    skewed = np.append(rng.gamma(2.0, 0.05, 20), np.nan)  # 20 topics of skewness 1.41, one unscored
    low, high = bootstrap_t_interval(skewed)
    assert (low, high) == pytest.approx(studentised(skewed), abs=1e-12)
    mean = np.nanmean(skewed)
    assert mean_with_interval(skewed) == (mean, low, high)
    assert high - mean > mean - low  # skewed to the right: the interval reaches further up, unlike t's
    # deterministic and order-free: the same values always give the same interval
    assert bootstrap_t_interval(skewed[::-1]) == (low, high) == bootstrap_t_interval(skewed)
    # five values are enough for the bootstrap; without spread, or with one value, no bootstrap
    five = skewed[:5]
    assert bootstrap_t_interval(five) == pytest.approx(studentised(five), abs=1e-12)
    assert bootstrap_t_interval([0.3] * 8) == pytest.approx((0.3, 0.3))
    assert all(np.isnan(bootstrap_t_interval([0.3])))
    # ties: 16 of 20 topics at 1, so 0.8^20 = 1.2% of resamples are all 1 (s* = 0); they count as
    # t* = +inf, which widens the interval downwards where leaving them out would narrow it
    tied = np.array([1.0] * 16 + [0.875, 0.75, 0.625, 0.5])
    low, high = bootstrap_t_interval(tied)
    assert (low, high) == pytest.approx(studentised(tied), abs=1e-12)
    x = np.sort(tied)
    draws = x[family_generator(0, "bootstrap-t interval").integers(0, 20, size=(2000, 20))]
    spread = draws[np.ptp(draws, axis=1) > 0]
    t = np.sort((spread.mean(axis=1) - x.mean()) / (spread.std(axis=1, ddof=1) / np.sqrt(20)))
    dropped = x.mean() - t[int(np.ceil(0.975 * len(t))) - 1] * stats.sem(x)  # their 97.5% point without them
    assert 0 < 2000 - len(spread) < 50 and low < dropped - 0.1
    # 17 of 20 at 1: 0.85^20 = 3.9% of resamples are constant, the bootstrap's 97.5% point is infinite: t
    tied = np.array([1.0] * 17 + [0.875] * 3)
    t_bounds = stats.t.interval(0.95, 19, loc=tied.mean(), scale=stats.sem(tied))
    assert bootstrap_t_interval(tied) == pytest.approx(t_bounds, abs=1e-12)


def test_the_mean_of_few_values_has_the_t_interval():
    x = np.array([0.1, 0.3, np.nan, 0.2, 0.6])
    finite = x[np.isfinite(x)]
    low, high = stats.t.interval(0.95, len(finite) - 1, loc=finite.mean(), scale=stats.sem(finite))
    assert mean_with_interval(x) == pytest.approx((finite.mean(), low, high), abs=1e-12)
    assert bootstrap_t_interval(x, 0.9) == pytest.approx(
        stats.t.interval(0.9, len(finite) - 1, loc=finite.mean(), scale=stats.sem(finite)), abs=1e-12
    )
    assert mean_with_interval([2.0])[0] == 2.0 and np.isnan(mean_with_interval([2.0])[1])
    assert all(np.isnan(mean_with_interval([np.nan])))


def test_jackknife_se_is_tukeys_formula():
    rng = np.random.default_rng(4)
    x = rng.gamma(2.0, size=13)
    ratio = np.array([np.delete(x, j).std() / np.delete(x, j).mean() for j in range(13)])  # a non-linear statistic
    expected = np.sqrt(12 / 13 * sum((v - ratio.mean()) ** 2 for v in ratio))
    assert jackknife_se(ratio) == pytest.approx(expected, rel=1e-12)
    mean = np.array([np.delete(x, j).mean() for j in range(13)])
    assert jackknife_se(mean) == pytest.approx(stats.sem(x), rel=1e-12)  # for a mean: s / sqrt(n)


def test_the_delete_d_jackknife_of_a_mean_is_its_standard_error():
    """Over all subsets the delete-d variance of a mean is s²/K exactly (Shao and Wu 1989); over
    20,000 random subsets of K - d = 6 of 11 values it is within 5% of it (the variance estimate's
    relative MC SE is about 1%), from the stream it is given."""
    x = np.random.default_rng(6).gamma(2.0, size=11)
    drawn = []

    def mean(kept: np.ndarray) -> np.ndarray:
        drawn.append(kept)
        return kept @ x / kept.sum(axis=1)

    se = delete_d_jackknife_se(mean, 11, np.random.default_rng(7), n_resamples=20_000)
    assert se == pytest.approx(x.std(ddof=1) / np.sqrt(11), rel=0.05)
    assert (drawn[0].sum(axis=1) == 6).all() and len({row.tobytes() for row in drawn[0]}) == 462  # C(11, 5)
    assert delete_d_jackknife_se(mean, 11, np.random.default_rng(7), n_resamples=20_000) == se
    # the formula on the subsets it drew
    theta = drawn[0] @ x / 6
    assert se == pytest.approx(np.sqrt(6 / (5 * 20_000) * np.sum((theta - theta.mean()) ** 2)), rel=1e-12)


def symmetric_logit(values: np.ndarray, low: float, high: float) -> tuple[float, float]:
    """The bounded interval from its formula, one resample at a time on the same resamples as
    :func:`studentised`: t* of the logit of the rescaled mean, studentised by the delta method's
    slope at the resample's mean, and the 1,900th of the 2,000 |t*| either side of the logit."""
    x = np.sort(values)
    n, mean, se = len(x), x.mean(), x.std(ddof=1) / np.sqrt(len(x))

    def logit(m):
        return np.log((m - low) / (high - m))

    def slope(m):
        return (high - low) / ((m - low) * (high - m))

    draws = family_generator(0, "bootstrap-t interval").integers(0, n, size=(2000, n))
    t = sorted(
        abs(logit(row.mean()) - logit(mean)) / (slope(row.mean()) * row.std(ddof=1) / np.sqrt(n)) for row in x[draws]
    )
    centre, reach = logit(mean), t[1899] * slope(mean) * se
    return tuple(low + (high - low) / (1 + np.exp(-z)) for z in (centre - reach, centre + reach))


def test_the_bounded_interval_is_the_symmetric_bootstrap_t_on_the_logit_scale():
    shares = np.random.default_rng(4).beta(8.0, 1.5, 20)  # word intrusion near its ceiling
    low, high = bootstrap_t_interval(shares, bounds=(0.0, 1.0))
    assert (low, high) == pytest.approx(symmetric_logit(shares, 0.0, 1.0), abs=1e-12)
    assert bootstrap_t_interval(2 * shares - 1, bounds=(-1.0, 1.0)) == pytest.approx(
        (2 * low - 1, 2 * high - 1), abs=1e-12
    )  # rescaled: the same interval on NPMI's range
    # every topic at the ceiling: the exact bound, P(all n at 1) <= mean^n
    assert bootstrap_t_interval([1.0] * 10, bounds=(0.0, 1.0)) == pytest.approx((0.025**0.1, 1.0))
    assert bootstrap_t_interval([0.0] * 10, bounds=(0.0, 1.0)) == pytest.approx((0.0, 1 - 0.025**0.1))


def test_bounded_intervals_always_lie_within_the_bounds():
    rng = np.random.default_rng(5)
    for trial in range(300):
        n = int(rng.integers(2, 40))
        bounds = [(0.0, 1.0), (-1.0, 1.0), (0.0, np.inf), (-np.inf, 0.0)][trial % 4]
        low, high = (b if np.isfinite(b) else s * 5.0 for b, s in zip(bounds, (-1, 1)))
        at_bound = rng.random(n) < rng.choice([0.0, 0.5, 0.9, 1.0])  # ties at a bound, up to all of them
        edge = bounds[1] if np.isfinite(bounds[1]) else bounds[0]
        x = np.where(at_bound, edge, low + (high - low) * rng.beta(rng.uniform(0.2, 5), rng.uniform(0.2, 5), n))
        lo, hi = bootstrap_t_interval(x, bounds=bounds)
        assert bounds[0] <= lo <= x.mean() <= hi <= bounds[1], (trial, x)


def test_the_bounded_interval_covers_the_ceiling_where_the_previous_did_not():
    """Word intrusion with 5 annotators at K = 10 (half the topics at 1): over 1,000 simulated models the
    bounded interval covers within 4 Monte Carlo SE of 95%; the previous one (equal-tailed, raw scale,
    clipped) covers about 88%, below 95% by over 4 SE (0.0069 a side)."""
    from tealeaves.evaluation.calibration import bounded_coverage

    new = bounded_coverage("ceiling, 5 annotators", 10, 1000, 0)
    previous = bounded_coverage("ceiling, 5 annotators", 10, 1000, 0, previous=True)
    assert new.within and abs(new.rate - 0.95) < 4 * new.mc_se
    assert previous.rate < 0.95 - 4 * previous.mc_se


def test_gaffkes_limit_holds_where_ten_topics_mostly_miss_the_junk():
    """Shares at 1 with probability 0.9, else a junk topic in [0, 0.2] (mean 0.91): ten topics hold no junk
    topic with probability 0.35. Gaffke's lower limit lies above the mean in at most 2.5% of 2,000 samples
    (its one-sided level, for every distribution in [0, 1]; band 4 MC SE = 0.014), where the bootstrap-t's
    lower end alone does so in a third of them (0.0% and 33.3% here)."""
    from tealeaves.stats import gaffke_limit

    rng = np.random.default_rng(4)
    truth = 0.9 + 0.1 * 0.1
    above, bootstrap_above = 0, 0
    for _ in range(2000):
        x = np.sort(np.where(rng.random(10) < 0.9, 1.0, rng.uniform(0.0, 0.2, 10)))
        above += gaffke_limit(x, 0.0, 0.95, rng) > truth
        bootstrap_above += bootstrap_t_interval(x, bounds=(-1e-9, 1.0 + 1e-9))[0] > truth
    assert above / 2000 <= 0.025 + 4 * np.sqrt(0.025 * 0.975 / 2000)
    assert bootstrap_above / 2000 > 0.2


def test_the_interval_of_shares_with_junk_topics_covers_with_gaffkes_limit():
    """WI-Auto-like shares with a junk topic in ten at K = 10 (calibration's case): with Gaffke's limit the
    interval covers at least 95% of 1,000 simulated models; on the same values, the bootstrap-t alone (the
    bounds moved out so that no value lies at them) covers at least 3 points less (98.6% and 90.9% here)."""
    from tealeaves.evaluation.calibration import bounded_values

    rng = family_generator(0, "calibration bounded ceiling, 8 sets, junk topics 10")
    shipped = alone = 0
    for _ in range(1000):
        x, truth, (low, high) = bounded_values(rng, 10, "ceiling, 8 sets, junk topics")
        lower, upper = bootstrap_t_interval(x, bounds=(low, high))
        shipped += lower <= truth <= upper
        lower, upper = bootstrap_t_interval(x, bounds=(low - 1e-9, high + 1e-9))
        alone += lower <= truth <= upper
    assert shipped / 1000 >= 0.95 and (shipped - alone) / 1000 >= 0.03, (shipped, alone)


def test_gaffkes_limit_takes_values_in_any_order_and_refuses_a_bound_among_them():
    from tealeaves.stats import gaffke_limit

    shares = np.array([0.6, 0.7, 0.8, 0.8, 0.9, 0.9, 1.0, 1.0, 1.0, 1.0])
    limits = [gaffke_limit(v, 0.0, 0.95, family_generator(0, "bootstrap-t interval")) for v in (shares, shares[::-1])]
    assert limits[0] == limits[1] < shares.mean()
    upper = gaffke_limit(1.0 - shares, 1.0, 0.95, family_generator(0, "bootstrap-t interval"))
    assert abs(upper - (1.0 - limits[0])) < 0.02  # a floor mirrors a ceiling, up to the Monte Carlo draws
    with pytest.raises(InputError, match=r"gaffke_limit needs a bound at or beyond the values"):
        gaffke_limit(shares, 0.75, 0.95, family_generator(0, "bootstrap-t interval"))


def test_at_a_ceiling_the_end_at_gaffkes_limit_is_the_conservative_one():
    """Word intrusion's shares at K = 20 (a third of the topics at 1): over 1,000 simulated models the lower end,
    which reaches to Gaffke's limit, lies above the mean far less often than 2.5% (0.0% here), while the
    upper end, the bootstrap-t's, lies below it within 4 MC SE of 2.5% (band 0.6-4.5%; 2.7% here): the
    interval's coverage above 95% comes from the limit's guarantee, not from a bootstrap-t too wide on both
    sides."""
    from tealeaves.evaluation.calibration import bounded_ends

    lower, upper = bounded_ends("ceiling", 20, 1000, 0)
    assert lower.rate < 0.01 and upper.within, (lower.rate, upper.rate)


def _jackknifed(a, b, w):
    """Brute force: the (difference of) ratios and the jackknife se, each document left out in turn."""
    n = len(w)
    value = a.sum() / w.sum() - (b.sum() / w.sum() if b is not None else 0.0)
    left_out = []
    for i in range(n):
        keep = np.arange(n) != i
        left_out.append(a[keep].sum() / w[keep].sum() - (b[keep].sum() / w[keep].sum() if b is not None else 0.0))
    return value, np.sqrt((n - 1) / n * ((np.array(left_out) - np.mean(left_out)) ** 2).sum())


@pytest.mark.parametrize("difference", [False, True])
def test_the_ratio_bootstrap_t_is_the_symmetric_studentised_interval_one_resample_at_a_time(difference):
    """Brute force: each resample's ratio (or difference of two ratios over the same documents) and
    jackknife standard error, the 95% order statistic of |t*| (the 285th of 300), and R ± q se."""
    rng = np.random.default_rng(3)
    w = np.ceil(np.exp(rng.normal(3.5, 1.2, 25)))
    a, b = w * rng.normal(-7.0, 0.4, 25), w * rng.normal(-7.1, 0.4, 25)

    def estimate(rows):
        return _jackknifed(a[rows], b[rows] if difference else None, w[rows])

    value, se = estimate(np.arange(25))
    draws = np.random.default_rng(4).integers(0, 25, size=(300, 25))
    q = np.sort([abs(estimate(row)[0] - value) / estimate(row)[1] for row in draws])[284]  # the 285th of 300
    found = ratio_bootstrap_t_interval((a, w), 300, np.random.default_rng(4), other=(b, w) if difference else None)
    assert found == pytest.approx((value - q * se, value + q * se), rel=1e-10)


def test_a_bounded_ratio_keeps_its_interval_within_the_bounds():
    """Accuracy over 40 documents, 39 right: on the logit scale the interval stays below 1 (a third of
    the resamples are all right, so it is the t interval there), where on the plain scale it crosses 1;
    all 40 right: the interval of values all at a bound."""
    right = np.ones(40)
    right[7] = 0.0
    bounded = ratio_bootstrap_t_interval((right, np.ones(40)), 999, np.random.default_rng(0), bounds=(0.0, 1.0))
    plain = ratio_bootstrap_t_interval((right, np.ones(40)), 999, np.random.default_rng(0))
    assert 0.0 < bounded[0] < 0.975 < bounded[1] < 1.0 < plain[1]
    every = ratio_bootstrap_t_interval((np.ones(40), np.ones(40)), 999, np.random.default_rng(0), bounds=(0.0, 1.0))
    assert every == pytest.approx((0.025 ** (1 / 40), 1.0))
    few = ratio_bootstrap_t_interval((right[:4] * 3.0, np.full(4, 3.0)), 999, np.random.default_rng(0))
    assert few == pytest.approx(t_interval(1.0, 0.0, 3.0))  # under five documents: the t interval (here no spread)


def test_a_ratio_over_one_scored_document_has_no_interval():
    """A model that scored one of six documents (the others value and weight 0): one document cannot
    give a standard error (its leave-one-out ratio is undefined), so the interval is NaN, not the
    zero-width interval at its ratio that the delta method's se of 0 gave."""
    v, w = np.array([-70.0, 0, 0, 0, 0, 0]), np.array([10.0, 0, 0, 0, 0, 0])
    for bounds in (None, (-np.inf, 0.0)):
        low, high = ratio_bootstrap_t_interval((v, w), 99, np.random.default_rng(0), bounds=bounds)
        assert np.isnan(low) and np.isnan(high)


@pytest.mark.parametrize("confidence", [95, 1.0, 0.0, -0.95, float("nan"), "0.95", None])
def test_a_confidence_that_is_not_a_share_is_refused_by_every_interval(confidence):
    # confidence=95 (a percentage) gave Welch's and the t interval (nan, nan) and the bootstrap-t an IndexError
    import tealeaves.stats as s

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=12), rng.normal(size=12)
    calls = [
        lambda: s.welch_test(a, b, confidence=confidence),
        lambda: s.paired_t_test(a, b, confidence=confidence),
        lambda: s.t_interval(0.5, 0.1, 20, confidence=confidence),
        lambda: s.bootstrap_t_interval(a, confidence=confidence),
        lambda: s.mean_with_interval(a, confidence=confidence),
        lambda: s.percentile_interval(a, confidence=confidence),
        lambda: s.permutation_test(np.ones(4), np.ones(4), rng, n_resamples=9, confidence=confidence),
        lambda: s.studentised_permutation_test(a, b, rng, n_resamples=9, confidence=confidence),
        lambda: s.bootstrap_z_test(0.1, rng.normal(size=50), confidence=confidence),
        lambda: s.bounded_t_interval(0.5, 0.1, 20, confidence=confidence),
    ]
    for call in calls:
        with pytest.raises(InputError, match=r"^confidence must lie in \(0, 1\), 0.95 for a 95% interval; got "):
            call()
