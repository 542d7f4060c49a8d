"""The evaluation's tests and intervals are calibrated, by simulation (tealeaves.evaluation.calibration).

Small versions of ``benchmarks/calibration_verdicts.py``. A rate over R replicates has the Monte
Carlo standard error sqrt(p (1 - p) / R) at its target p; each check passes within four of them
(R = 2000 under the null: MC SE 0.0049, the band 0.030-0.070). The bands still separate right from wrong: the unpaired test the paired one replaced rejects nearly never under the null
(and finds the paired test's 80%-power difference in under half the replicates); the per-topic
Welch test of topic uniqueness rejects about 11% under the null, the jackknife t-test that came
after it 2%; the t interval over topics the bootstrap-t interval replaced covers 91.9% of very
skewed values, below the band its successor lies in.
"""

from __future__ import annotations

import numpy as np
import pytest

from tealeaves.evaluation.calibration import (
    coverage,
    document_rejection,
    documents,
    evaluation_rejection,
    paired_detectable,
    rejection,
    report_rejection,
    shape_rejection,
    welch_detectable,
    zipf_topics,
)
from tealeaves.rng import family_generator
from tealeaves.stats import welch_test


@pytest.mark.parametrize(
    ("plan", "k", "replicates", "kind"),
    [
        ("independent", 20, 2000, "moderate"),  # the bootstrap-t test, MC SE 0.0049
        ("independent", 20, 2000, "skewed"),
        ("independent", 20, 2000, "discrete"),  # WI-Auto-like shares of 8 sets: the studentised permutation test
        ("paired", 200, 1000, ""),  # 200 held-out documents, the studentised paired randomisation test, MC SE 0.0069
    ],
)
def test_tests_reject_at_the_level_under_the_null(plan, k, replicates, kind):
    """The tests the evaluation runs (each as a comparison of its report family alone, 199 resamples)."""
    result = rejection(plan, k, replicates, seed=0, kind=kind or "moderate", resamples=199)
    assert result.within, result


def test_the_model_level_randomisation_test_rejects_at_the_level_under_the_null():
    """Topic uniqueness at K = 20, R = 2000 (MC SE 0.0049, the band 0.030-0.070), 199 regroupings a
    test (its level is exact for any number). The jackknife t-test it replaced rejects 2.0% here
    (``benchmarks/calibration_verdicts.py``, 3,000 replicates), below the band; without its random
    tie-breaking the randomisation test rejects about 3.6% (uniqueness is a ratio of counts)."""
    result = rejection("jackknife", 20, 2000, seed=0)
    assert result.within, result


@pytest.mark.parametrize(
    ("plan", "k", "replicates", "kind"),
    [
        # the bootstrap-t interval over topics (tealeaves.stats.bootstrap_t_interval, as evaluate uses it)
        ("independent", 20, 4000, "moderate"),  # skewness 0.82, MC SE 0.0034 (band 0.936-0.964): 95.3%
        ("independent", 50, 2000, "skewed"),  # skewness 1.41, MC SE 0.0049 (band 0.930-0.970): 95.4%
        ("independent", 20, 4000, "very skewed"),  # skewness 2, MC SE 0.0034: 95.1%, where t covers 91.9%
        ("paired", 200, 600, ""),  # the bootstrap interval of the token-weighted ratio, MC SE 0.0089
    ],
)
def test_intervals_cover_at_the_nominal_rate(plan, k, replicates, kind):
    result = coverage(plan, k, replicates, seed=0, kind=kind or "moderate")
    assert result.within, result


def test_the_replaced_t_interval_under_covers_skewed_topics():
    """The t interval over topics, on the very skewed values the bootstrap-t interval covers 95.1% of
    (R = 4000, MC SE 0.0034, the band 0.936-0.964): 91.9%, below the band."""
    result = coverage("independent", 20, 4000, seed=0, kind="very skewed", interval="t")
    assert result.rate < result.target - 4 * result.mc_se, result


def test_the_delete_d_jackknife_interval_covers_at_the_nominal_rate():
    """Topic uniqueness at K = 20, R = 2000 (MC SE 0.0049, the band 0.930-0.970), the per-model
    table's delete-d jackknife interval (d = K/2, 1,000 subsets): 95.9% here. Tukey's delete-1
    interval it replaced covers 97.25% at K = 20 (``benchmarks/calibration_verdicts.py``, R = 2000),
    above the band; this check separates the two only narrowly, the benchmark's R does."""
    result = coverage("jackknife", 20, 2000, seed=0, truth_replicates=1000)
    assert result.within, result


def test_power_at_the_minimal_detectable_difference_is_80_percent():
    """At the difference the formula says is found with 80% power, the tests the evaluation runs find it
    (299 resamples a test; MC SE 0.0089 at R = 2000, 0.0126 at R = 1000)."""
    for plan, k, shift, replicates in (
        ("independent", 20, welch_detectable(20), 2000),
        ("paired", 200, paired_detectable(200), 1000),
    ):
        result = rejection(plan, k, replicates, seed=1, shift=shift, target=0.8, resamples=299)
        assert result.within, result


def test_the_randomisation_test_finds_a_less_redundant_model():
    """Stated alternative: model B's topics from a Zipf vocabulary of exponent 1.3 instead of 1.0
    (fewer shared popular words, higher uniqueness): found in at least 90% of 200 replicates
    (about 99% in ``benchmarks/calibration_verdicts.py``)."""
    result = rejection("jackknife", 20, 200, seed=2, shift=0.3, target=0.8)
    assert result.rate >= 0.9, result


def test_the_replaced_tests_were_miscalibrated():
    """What the bands separate from: an unpaired test of paired documents, a per-topic test of uniqueness."""
    from tealeaves.coherence import topic_uniqueness

    rng = family_generator(0, "calibration replaced")
    unpaired = 0
    for _ in range(600):
        a, b = documents(rng, 200, paired_detectable(200))
        unpaired += welch_test(a.values / a.weights, b.values / b.weights).pvalue < 0.05
    assert unpaired / 600 < 0.5  # the paired test finds this difference 80% of the time
    per_topic = 0
    for _ in range(600):
        x, y = (topic_uniqueness(zipf_topics(rng, 20), 10) for _ in range(2))
        per_topic += welch_test(x, y).pvalue < 0.05
    assert per_topic / 600 > 0.05 + 4 * np.sqrt(0.05 * 0.95 / 600)  # anti-conservative: above the band


def test_the_topic_test_holds_its_level_under_opposite_skews():
    """Equal means, skewness +2 against -2, K = 5 topics (issue 38): the bootstrap-t test the evaluation
    runs rejects within the band (R = 1500, 299 resamples a test, MC SE 0.0056, band 0.028-0.072; the
    benchmark: 5.8% at R = 2000), Welch's t on its t distribution 9% (R = 4000), above it."""
    chosen = shape_rejection("evaluation", 5, 1500, seed=0, resamples=299)
    assert chosen.within, chosen
    welch = shape_rejection("Welch's t", 5, 4000, seed=0)
    assert welch.rate > chosen.target + 4 * chosen.mc_se, welch


def test_lognormal_values_of_real_spread_keep_the_level_and_the_coverage():
    """LogNormal(0, 0.5) against LogNormal(0.09375, 0.25), equal means, K = 10 (skewness 1.75, as real metrics
    show): the evaluation's test rejects within the band (R = 1500, MC SE 0.0056; the benchmark: 4.6% at
    R = 2000) and the bounded interval covers within it (R = 1000, MC SE 0.0069; 95.1% at R = 5000). At
    LogNormal(0, 1), beyond every real metric measured, neither does (docs/guide/evaluate.md)."""
    from tealeaves.evaluation.calibration import bounded_coverage

    test = shape_rejection("evaluation", 10, 1500, seed=0, resamples=299, kind="lognormal, σ 0.5")
    assert test.within, test
    interval = bounded_coverage("lognormal, σ 0.5", 10, 1000, 0)
    assert interval.within, interval


def test_the_paired_test_holds_its_level_with_20_documents_of_heavy_tailed_length():
    """20 held-out documents of lognormal length: the studentised paired randomisation test rejects within
    the band (R = 1500, MC SE 0.0056), the paired t on its t distribution about 13%, far above it."""
    chosen = document_rejection("paired randomisation", 20, 1500, seed=0, resamples=299)
    assert chosen.within, chosen
    paired = document_rejection("paired t", 20, 2000, seed=0)
    assert paired.rate > chosen.target + 4 * chosen.mc_se, paired


def test_a_models_interval_on_50_documents_of_heavy_tailed_length_covers_where_the_percentile_did_not():
    """50 held-out documents of lognormal length: the symmetric bootstrap-t of a model's ratio covers
    within the band (R = 2,000, MC SE 0.0049), the percentile interval it replaced below it (91.5% at
    R = 10,000 in the benchmark)."""
    shipped = coverage("paired", 50, 2000, seed=0, kind="heavy")
    assert shipped.within, shipped
    replaced = coverage("paired", 50, 2000, seed=0, kind="heavy", interval="percentile")
    assert replaced.rate < replaced.target - 4 * replaced.mc_se, replaced


def test_a_whole_report_under_the_null_shows_a_false_better_than_at_most_5_percent(monkeypatch):
    """Seven correlated per-topic metrics x 3 models (21 comparisons) through comparisons_table, 40 reports
    under the complete null, 999 joint replicates each: Westfall-Young's family shows a "better than" in at
    most 6 (at 5%, P(7 or more) = 0.3%), Holm within each metric's pairs in about a quarter of them (the
    benchmark's 10 metrics x 4 models: see docs/guide/evaluate.md)."""
    import tealeaves.evaluation.stats as evaluation_stats

    monkeypatch.setattr(evaluation_stats, "REPORT_RESAMPLES", 999)
    family, holm = report_rejection(40, seed=0, models=3, k=10, topics_only=True)
    assert family.rate * 40 <= 6, family
    assert holm.rate >= 0.15 and holm.rate > family.rate, holm


def test_a_whole_evaluation_under_the_null_shows_a_false_better_than_at_most_5_percent():
    """Ten tested outputs x 4 equally good simulated models (60 comparisons) through ``evaluate`` itself
    (tealeaves.evaluation.calibration.evaluation_rejection), 12 evaluations: the report-wide family shows
    a "better than" in at most 2 (at 5%, P(3 or more) = 2%; at the 27.5% of Holm per metric over the same
    number of comparisons, P(2 or fewer) = 32%). The benchmark: 500 evaluations, docs/guide/evaluate.md."""
    family, holm = evaluation_rejection(12, seed=0)
    assert family.plan.endswith("10 metrics x 4 models"), family
    assert family.rate * 12 <= 2, family
    assert holm.rate >= family.rate, holm
