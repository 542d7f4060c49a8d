"""The evaluation's plans against independent computations: the paired t of ratios, regroupings, verdict wording.

The tests themselves (Welch, TOST, the minimal detectable difference, permutations, the delete-d
jackknife) are tealeaves.stats', tested in tests/stats.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tealeaves.coherence import diversity
from tealeaves.errors import InputError
from tealeaves.evaluation.stats import (
    COMPARISON_COLUMNS,
    PERMUTATIONS,
    linearised,
    paired_t,
    per_model_table,
    permutation,
    randomisation,
    regrouped,
    runs_test,
    verdicts,
)
from tealeaves.metrics import Items
from tealeaves.metrics.words import model_level_topics


def test_paired_t_tests_the_difference_of_two_token_weighted_ratios():
    rng = np.random.default_rng(1)
    w = 5.0 + rng.poisson(40, 300)
    base = rng.normal(-7, 0.5, 300)
    a = Items(w * (base + rng.normal(0, 0.3, 300)), w, np.arange(300))
    b = Items(w * (base + rng.normal(0.05, 0.3, 300)), w, np.arange(300))
    c = paired_t(a, b)
    assert c.difference == pytest.approx(a.ratio() - b.ratio())  # the mean of the linearised differences
    assert linearised(a).mean() == pytest.approx(a.ratio())
    assert c.pvalue == pytest.approx(stats.ttest_rel(linearised(a), linearised(b)).pvalue)
    # only the documents both scored are paired
    fewer = Items(b.values[::2], b.weights[::2], b.ids[::2])
    assert paired_t(a, fewer).n == 150


def test_the_paired_test_over_runs_is_the_mixed_models_t_calibrated_by_swaps_of_the_common_documents():
    """Runs scored on partly different documents: the test is over the documents every run scored, on
    the degrees of freedom the swaps of the run-averaged documents allow, drawn from the given stream;
    without a stream it is refused rather than drawn from a hidden one."""
    from tealeaves.stats import runs_t_test, swap_calibrated

    rng = np.random.default_rng(6)
    w = np.ceil(np.exp(rng.normal(3.5, 1.2, 30)))  # heavy-tailed lengths
    own = rng.normal(0, 0.3, (2, 30))
    runs = [[w * (-7.0 + own[m] + rng.normal(0, 0.05, 30)) for _ in range(3)] for m in (0, 1)]
    ids = np.arange(30)
    a = [Items(v[1:], w[1:], ids[1:]) for v in runs[0]]  # every run of a skipped document 0
    b = [Items(v[::-1], w[::-1], ids[::-1]) for v in runs[1]]  # in another order
    tested = runs_test(a, b, "paired", rng=np.random.default_rng(7))
    common = [Items(v[1:], w[1:], ids[1:]) for v in runs[1]]
    t = runs_t_test([linearised(x) for x in a], [linearised(x) for x in common], paired=True)
    swaps = np.random.default_rng(7).random((999, 29)) < 0.5
    expected = swap_calibrated(t, (np.mean(runs[0], 0)[1:], w[1:]), (np.mean(runs[1], 0)[1:], w[1:]), swaps)
    assert tested.difference == pytest.approx(t.difference) and tested.df == pytest.approx(expected.df)
    assert tested.pvalue == pytest.approx(expected.pvalue) and expected.df < t.df  # the swaps did calibrate
    with pytest.raises(ValueError, match="needs rng"):
        runs_test(a, b, "paired")


def test_one_models_interval_over_runs_is_no_narrower_than_its_documents_bootstrap_t():
    """The per-model interval over runs of a paired output: the mixed model's t over the documents every
    run scored, calibrated by resamples of the run-averaged documents from the given stream; a bounded
    output's within its bounds on the logit scale, on those degrees of freedom."""
    from tealeaves.stats import bootstrap_calibrated, bounded_t_interval, runs_t_test

    rng = np.random.default_rng(8)
    w = np.ceil(np.exp(rng.normal(3.5, 1.2, 25)))
    own = rng.normal(0, 0.3, 25)
    runs = [w * (-7.0 + own + rng.normal(0, 0.05, 25)) for _ in range(3)]
    ids = np.arange(25)
    a = [Items(v[1:], w[1:], ids[1:]) for v in runs[:2]] + [Items(runs[2], w, ids)]  # two runs skipped doc 0
    found = runs_test(a, None, "paired", rng=np.random.default_rng(9))
    t = runs_t_test([linearised(Items(v[1:], w[1:], ids[1:])) for v in runs], paired=True)
    expected = bootstrap_calibrated(t, (np.mean(runs, 0)[1:], w[1:]), 999, np.random.default_rng(9))
    assert expected.df < t.df  # the bootstrap did widen it
    assert (found.difference, found.df, found.ci_low, found.ci_high) == pytest.approx(
        (expected.difference, expected.df, expected.ci_low, expected.ci_high)
    )
    right = [Items((rng.random(25) < 0.8).astype(float), np.ones(25), ids) for _ in range(3)]
    bounded = runs_test(right, None, "paired", (0.0, 1.0), np.random.default_rng(9))
    alone = bootstrap_calibrated(
        runs_t_test([r.values for r in right], paired=True),
        (np.mean([r.values for r in right], 0), np.ones(25)),
        999,
        np.random.default_rng(9),
    )
    assert (bounded.ci_low, bounded.ci_high) == pytest.approx(bounded_t_interval(alone.difference, alone.se, alone.df))
    assert 0.0 < bounded.ci_low < bounded.ci_high < 1.0
    with pytest.raises(ValueError, match="needs rng"):
        runs_test(a, None, "paired")
    elsewhere = [Items(runs[0], w, ids + 100), Items(runs[1], w, ids + 100)]
    with pytest.raises(InputError, match="share no held-out document"):
        runs_test(a, elsewhere, "paired", rng=np.random.default_rng(9))


def test_a_document_metrics_intervals_are_the_ratio_bootstrap_t_over_the_metrics_shared_resamples():
    """The per-model interval and the comparison's are the symmetric bootstrap-t of the ratio and of the
    difference (tealeaves.stats.ratio_bootstrap_t_interval) over the documents' positions, a document
    a model left unscored counting with value and weight 0, drawn from the metric's bootstrap stream;
    classification accuracy's within [0, 1]."""
    from tealeaves.evaluation.stats import Measurements, comparisons_table
    from tealeaves.rng import family_generator
    from tealeaves.stats import ratio_bootstrap_t_interval

    rng = np.random.default_rng(8)
    w = np.ceil(np.exp(rng.normal(3.5, 1.0, 40)))
    a = Items(w * rng.normal(-7.0, 0.3, 40), w, np.arange(40))
    b = Items(w[1:] * rng.normal(-7.1, 0.3, 39), w[1:], np.arange(1, 40))  # document 0 unscored
    right = (rng.random(40) < 0.9).astype(float)
    items = {("a", "heldout_log_likelihood"): a, ("b", "heldout_log_likelihood"): b}
    items |= {("a", "classification_accuracy"): Items(right, np.ones(40), np.arange(40))}
    measured = Measurements(items, {}, {})
    table, boots = per_model_table(measured, 400, seed=3)
    row = table.set_index(["model", "metric"]).loc[("b", "heldout_log_likelihood")]
    dense_a = (a.values, a.weights)
    dense_b = (np.r_[0.0, b.values], np.r_[0.0, b.weights])

    def stream():
        return family_generator(3, "evaluate bootstrap heldout_log_likelihood")

    assert (row.ci_low, row.ci_high) == pytest.approx(ratio_bootstrap_t_interval(dense_b, 400, stream()))
    accuracy = table.set_index(["model", "metric"]).loc[("a", "classification_accuracy")]
    expected = ratio_bootstrap_t_interval(
        (right, np.ones(40)), 400, family_generator(3, "evaluate bootstrap classification_accuracy"), bounds=(0, 1)
    )
    assert (accuracy.ci_low, accuracy.ci_high) == pytest.approx(
        expected
    ) and 0 <= accuracy.ci_low <= accuracy.ci_high <= 1
    [pair] = comparisons_table(measured, boots, ["a", "b"], 0.05, seed=3).itertuples()
    assert (pair.ci_low, pair.ci_high) == pytest.approx(
        ratio_bootstrap_t_interval(dense_a, 400, stream(), other=dense_b)
    )


def test_the_permutation_test_draws_from_its_own_stream_per_purpose():
    from tealeaves.rng import family_generator
    from tealeaves.stats import permutation_test

    a, b = np.array([1.0, 2.0, 2.5]), np.array([3.0, 4.0, 3.5])
    test = permutation(a, b, 3, "npmi x y")
    assert (
        test.pvalue == permutation_test(a, b, family_generator(3, "evaluate permutation npmi x y"), PERMUTATIONS).pvalue
    )
    assert permutation(np.ones(20), np.zeros(20), 0, "apart").pvalue == pytest.approx(1 / (1 + PERMUTATIONS))


def test_regrouped_model_level_quantities_are_the_librarys_measures_of_the_subsets():
    rng = np.random.default_rng(3)
    topics = [[f"w{i}" for i in rng.choice(60, 25, replace=False)] for _ in range(12)]
    pooled = model_level_topics(topics, 25, 10, 0.9)
    subsets = np.array([rng.permutation(12) < k for k in (3, 5, 7, 12)])
    for metric in ("topic_uniqueness", "topic_diversity", "inverted_rbo"):
        found = regrouped(metric, pooled)(subsets)
        for row, value in zip(subsets, found):
            expected = getattr(diversity([t for t, held in zip(topics, row) if held]), metric)
            assert value == pytest.approx(expected, abs=1e-6)


def test_the_randomisation_test_ranks_the_observed_split_among_random_regroupings():
    rng = np.random.default_rng(4)
    same = [[f"w{i}" for i in rng.choice(40, 25, replace=False)] for _ in range(10)]
    apart = [[f"v{i}" for i in range(25 * j, 25 * j + 25)] for j in range(10)]  # no shared word: uniqueness 1
    a, b = model_level_topics(same, 25, 10, 0.9), model_level_topics(apart, 25, 10, 0.9)
    p = randomisation("topic_uniqueness", a, b, 0, "apart", 999).pvalue
    assert 0 < p <= 1 / 1000  # no regrouping is as extreme as the observed one
    for metric in ("topic_uniqueness", "topic_diversity", "inverted_rbo"):  # observed 0: the smallest there is
        assert randomisation(metric, a, a, 0, "same", 999).pvalue > 0.05
    # its level is checked by simulation in tests/evaluate/test_calibration.py


def _row(metric, a, b, difference, p_holm, better, mdd=0.07, margin=np.nan, equivalent=False):
    values = dict.fromkeys(COMPARISON_COLUMNS, np.nan)
    values |= {"metric": metric, "model_a": a, "model_b": b, "difference": difference, "p_holm": p_holm}
    values |= {"better": better, "mdd": mdd, "margin": margin, "equivalent": equivalent, "test": "paired t"}
    values |= {"ci_low": difference - 1, "ci_high": difference + 1} if better else {}
    return values


def test_verdicts_say_better_than_with_the_direction_of_the_metric_and_never_no_difference():
    rows = [
        _row("predictive_rank", "lda-gibbs", "lda-vb", -76.7, 1e-9, "lda-gibbs"),  # lower is better
        _row("predictive_rank", "lda-vb", "plsi", 3.3, 0.2, ""),
    ]
    line = verdicts(pd.DataFrame(rows), 0.05)["predictive_rank"]
    assert line.startswith("predictive rank (lower is better; documents as units")
    assert "lda-gibbs (this run) better than lda-vb (this run) by 76.7 [75.7, 77.7] (p < 0.001)" in line
    assert "Not significant (Holm, level 0.05): lda-vb vs plsi" in line and "80% power: 0.07" in line
    assert "no difference" not in line.lower() and ">" not in line
    rows = [_row("npmi", "a", "b", 0.01, 0.6, "", margin=0.05, equivalent=True)]
    rows[0]["test"] = "Welch's t"
    line = verdicts(pd.DataFrame(rows), 0.05)["npmi"]
    assert "Equivalent within ±0.05 (TOST, Holm, level 0.05): a and b." in line


def test_verdicts_take_the_old_name_of_alpha_with_a_warning():
    rows = [_row("npmi", "a", "b", 0.2, 0.01, "a")]
    with pytest.warns(DeprecationWarning, match="level= is deprecated; use alpha="):
        assert verdicts(pd.DataFrame(rows), level=0.05) == verdicts(pd.DataFrame(rows), 0.05)


def test_verdicts_name_the_test_each_pair_had():
    rows = [_row("npmi", "a", "b", 0.2, 0.01, "a"), _row("npmi", "a", "c", 0.01, 0.6, "")]
    rows[0]["test"], rows[1]["test"] = "permutation", "permutation"  # models of fewer than 5 topics
    assert "topics as units, independent across models (permutation test)" in verdicts(pd.DataFrame(rows), 0.05)["npmi"]
    rows[1]["test"] = "bootstrap-t"
    assert "(bootstrap-t test of Welch's t or permutation test)" in verdicts(pd.DataFrame(rows), 0.05)["npmi"]


def test_verdicts_rest_on_the_report_family_and_say_when_the_level_is_out_of_reach():
    family = "Westfall-Young report-wide over all 12 comparisons of 2 metrics"
    found = _row("npmi", "a", "b", 0.2, 0.001, "a") | {"family": family, "p_report": 0.03, "p_attainable": 0.001}
    stuck = _row("npmi", "a", "c", 0.5, 0.1, "", mdd=np.nan) | {"family": family, "p_report": 0.4, "p_attainable": 0.16}
    line = verdicts(pd.DataFrame([found, stuck]), 0.05)["npmi"]
    assert f"a (this run) better than b (this run) by 0.2 (p = 0.03) ({family}, level 0.05): a verdict about" in line
    assert (
        "Cannot reach level 0.05" in line
        and "a vs c; too few units, the smallest p-value these tests can attain is 0.16" in line
    )
    assert "would be found" not in line and "80% power" not in line  # no detectable difference where none can be found
