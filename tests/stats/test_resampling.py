"""The resampling engines against the same draws taken one by one."""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.stats import (
    bootstrap_counts,
    paired_ratio_bootstrap,
    random_orders,
    resampled_group_means,
    stratified_counts,
    stratified_indices,
    two_way_cluster_bootstrap,
    weighted_group_means,
    within_group_draws,
)
from tealeaves.stats.resampling import ratio_jackknife, resampled_ratio_jackknife


def test_random_orders_are_permutations_from_the_stream():
    orders = random_orders(np.random.default_rng(0), 50, 7)
    assert (np.sort(orders, axis=1) == np.arange(7)).all()
    assert np.array_equal(orders, np.argsort(np.random.default_rng(0).random((50, 7)), axis=1))


def test_paired_ratio_bootstrap_resamples_every_series_with_the_same_units():
    rng = np.random.default_rng(1)
    weights = rng.integers(5, 50, 30).astype(float)
    a = (weights * rng.normal(-7, 0.5, 30), weights)
    b = (weights * rng.normal(-7.1, 0.5, 30), weights)
    out = paired_ratio_bootstrap({"a": a, "b": b}, 40, np.random.default_rng(2))
    draws = np.random.default_rng(2).integers(0, 30, size=(40, 30))
    for key, (values, w) in (("a", a), ("b", b)):
        expected = [values[row].sum() / w[row].sum() for row in draws]
        np.testing.assert_allclose(out[key], expected, rtol=1e-14)


def test_paired_ratio_bootstrap_draws_in_chunks_of_bounded_memory():
    """2,000,000 indices a chunk: with 600,000 units, three resamples a chunk, the same draws in order."""
    n = 600_000
    values, weights = np.arange(n, dtype=float), np.ones(n)
    out = paired_ratio_bootstrap({0: (values, weights)}, 7, np.random.default_rng(3))[0]
    rng = np.random.default_rng(3)
    expected = np.concatenate([rng.integers(0, n, size=(size, n)).mean(axis=1) for size in (3, 3, 1)])
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_stratified_indices_and_counts_keep_every_stratum_and_its_size():
    strata = np.array(["m2", "m1", "m1", "m2", "m1", "m3"])
    drawn = stratified_indices(strata, 500, np.random.default_rng(4))
    assert (strata[drawn] == strata).all()  # every position draws from its own stratum
    rng = np.random.default_rng(4)  # stratum after stratum in sorted order: m1, m2, m3
    for own in (np.array([1, 2, 4]), np.array([0, 3]), np.array([5])):
        assert np.array_equal(drawn[:, own], own[rng.integers(len(own), size=(500, len(own)))])
    counts = stratified_counts(strata, 500, np.random.default_rng(5))
    for label in ("m1", "m2", "m3"):
        own = strata == label
        assert (counts[:, own].sum(axis=1) == own.sum()).all()
    assert counts.dtype == np.float64 and abs(counts[:, 1].mean() - 1) < 0.1


def test_bootstrap_counts_are_multinomial_multiplicities():
    counts = bootstrap_counts(8, 4000, np.random.default_rng(6))
    assert counts.shape == (4000, 8) and (counts.sum(axis=1) == 8).all()
    assert abs(counts.mean() - 1) < 0.02 and abs(counts.var() - 7 / 8) < 0.05  # Binomial(8, 1/8)


def test_weighted_group_means_against_a_loop():
    rng = np.random.default_rng(7)
    values, group = rng.normal(size=12), rng.integers(0, 4, 12)
    group[:4] = [0, 1, 2, 3]
    weights = rng.integers(0, 3, size=(5, 12)).astype(float)
    weights[0, group == 2] = 0  # no weight: NaN
    means = weighted_group_means(values, group, 5, weights)
    for b in range(5):
        for g in range(5):
            w = weights[b, group == g]
            expected = (w * values[group == g]).sum() / w.sum() if w.sum() > 0 else np.nan
            assert means[b, g] == pytest.approx(expected, rel=1e-12, nan_ok=True)


def test_within_group_draws_and_their_means():
    values = np.array([1.0, 2.0, 3.0, 10.0, 20.0, 7.0])
    sizes = np.array([3, 2, 1])
    drawn = within_group_draws(values, sizes, 300, np.random.default_rng(8))
    u = np.random.default_rng(8).random((300, 6))
    starts, owner = np.array([0, 0, 0, 3, 3, 5]), np.array([0, 0, 0, 1, 1, 2])
    assert np.array_equal(drawn, values[starts + (u * sizes[owner]).astype(np.int64)])
    means = resampled_group_means(values, sizes, 300, np.random.default_rng(8))
    np.testing.assert_allclose(means, np.column_stack([drawn[:, :3].mean(1), drawn[:, 3:5].mean(1), drawn[:, 5]]))
    assert (means[:, 2] == 7.0).all()


def test_two_way_cluster_bootstrap_against_its_definition():
    """Annotator multiplicities first, then each stratum's topic multiplicities; a topic's mean weights
    its answers by their annotators' multiplicities, and a stratum's value weights its topics' means by
    theirs, leaving out drawn topics none of whose annotators was drawn."""
    rng = np.random.default_rng(9)
    cluster = np.repeat(np.arange(6), 4)  # 6 topics of 4 answers
    crossed = rng.integers(0, 5, 24)
    values = rng.integers(0, 2, 24).astype(float)
    strata = np.array([0, 0, 0, 1, 1, 1])
    observed, resampled = two_way_cluster_bootstrap(values, cluster, crossed, strata, 50, np.random.default_rng(10))
    topic_means = np.array([values[cluster == t].mean() for t in range(6)])
    assert observed.tolist() == pytest.approx([topic_means[:3].mean(), topic_means[3:].mean()])
    draws = np.random.default_rng(10)
    annotators = draws.multinomial(5, np.full(5, 0.2), size=50)
    topics = np.column_stack([draws.multinomial(3, np.full(3, 1 / 3), size=50) for _ in range(2)])
    for b in range(50):
        for s, own in enumerate((range(3), range(3, 6))):
            num = den = 0.0
            for t in own:
                w = annotators[b, crossed[cluster == t]]
                if w.sum() > 0:
                    num += topics[b, t] * (w * values[cluster == t]).sum() / w.sum()
                    den += topics[b, t]
            expected = num / den if den > 0 else np.nan
            assert resampled[b, s] == pytest.approx(expected, rel=1e-12, nan_ok=True)


def test_the_ratio_jackknife_of_equal_weights_is_the_mean_and_its_standard_error():
    """With every weight 1 the ratio is the mean and the jackknife se is exactly s / sqrt(n); of a
    difference, those of the per-unit differences."""
    rng = np.random.default_rng(5)
    a, b = rng.normal(0, 1, (2, 17))
    r, se = ratio_jackknife(a[None], np.ones((1, 17)))
    assert float(r) == pytest.approx(a.mean()) and float(se) == pytest.approx(a.std(ddof=1) / np.sqrt(17))
    r, se = ratio_jackknife(np.stack([a, b]), np.ones((2, 17)))
    d = a - b
    assert float(r) == pytest.approx(d.mean()) and float(se) == pytest.approx(d.std(ddof=1) / np.sqrt(17))


def test_the_ratio_jackknife_leaves_each_unit_out_and_rows_keep_their_own_ratio():
    rng = np.random.default_rng(6)
    w = np.ceil(np.exp(rng.normal(3.5, 1.2, (3, 12))))
    v = w * rng.normal(-7, 0.5, (3, 12))
    r, se = ratio_jackknife(v[:, None, :], w[:, None, :])
    for row in range(3):
        left_out = [np.delete(v[row], i).sum() / np.delete(w[row], i).sum() for i in range(12)]
        assert r[row] == pytest.approx(v[row].sum() / w[row].sum())
        assert se[row] == pytest.approx(np.sqrt(11 / 12 * np.sum((left_out - np.mean(left_out)) ** 2)))
    unscored = ratio_jackknife(np.append(v[0], 0.0)[None], np.append(w[0], 0.0)[None])[0]
    assert float(unscored) == pytest.approx(r[0])  # a unit of value and weight 0 leaves the ratio
    assert np.isnan(ratio_jackknife(np.array([[5.0, 0.0]]), np.array([[2.0, 0.0]]))[1])  # one unit weighs all


def test_resampled_ratio_jackknife_is_the_jackknife_of_each_draw_from_the_stream():
    """The draws of unit_draws, in blocks of 2,000,000 indices (with 700,000 units, two a block)."""
    rng = np.random.default_rng(7)
    w = rng.integers(5, 50, (2, 30)).astype(float)
    v = w * rng.normal(-7, 0.5, (2, 30))
    ratios, ses = resampled_ratio_jackknife(v, w, 40, np.random.default_rng(8))
    draws = np.random.default_rng(8).integers(0, 30, size=(40, 30))
    expected = [ratio_jackknife(v[:, row], w[:, row]) for row in draws]
    np.testing.assert_allclose(ratios, [float(e[0]) for e in expected], rtol=1e-13)
    np.testing.assert_allclose(ses, [float(e[1]) for e in expected], rtol=1e-10)
    n = 700_000
    big = np.arange(n, dtype=float)[None]
    ratios, _ = resampled_ratio_jackknife(big, np.ones((1, n)), 3, np.random.default_rng(9))
    rng = np.random.default_rng(9)
    expected = np.concatenate([rng.integers(0, n, size=(size, n)).mean(axis=1) for size in (2, 1)])
    np.testing.assert_allclose(ratios, expected, rtol=1e-12)
