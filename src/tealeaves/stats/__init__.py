"""The statistics every part of tealeaves uses: tests, multiplicity, intervals, design, resampling.

One implementation of each procedure, on NumPy and SciPy alone (no pandas, no statsmodels, no
wording), so that it works in the core install; :mod:`tealeaves.evaluation` and
:mod:`tealeaves.analysis` only choose which procedure fits which metric and unit, and
:mod:`tealeaves.wording` says what it found.

- :mod:`~tealeaves.stats.tests`: Welch's t, the paired t, the t-test of any estimate with a
  standard error, the jackknife t, permutation and randomisation tests, the bootstrap normal
  test, and Hoyle et al.'s one-tailed tests (two proportions, Student's t, Mann-Whitney U);
- :mod:`~tealeaves.stats.multiplicity`: Holm and Bonferroni's simultaneous intervals,
  Benjamini-Hochberg, Westfall and Young's max-T and step-down min-P;
- :mod:`~tealeaves.stats.intervals`: t, percentile and bootstrap-t intervals (of a mean, of a ratio), Gaffke's limit, bootstrap,
  jackknife and delete-d jackknife standard errors;
- :mod:`~tealeaves.stats.design`: the minimal detectable difference (of a normal or of a
  resampled critical value), the two one-sided tests;
- :mod:`~tealeaves.stats.family`: one joint resampling of every comparison of a report, for
  Westfall and Young's step-down;
- :mod:`~tealeaves.stats.resampling`: the resampling engines (paired ratios over documents,
  stratified topics, annotators, crossed clusters), drawing from the caller's seeded stream
  (:func:`tealeaves.rng.family_generator`);
- :mod:`~tealeaves.stats.runs`: trained runs as the units, topics or documents within them (the
  mixed model's t-test, :func:`runs_t_test`, its degrees of freedom for documents calibrated by
  swapping the models' documents, :func:`swap_calibrated`, and one model's interval by the
  documents' bootstrap-t, :func:`bootstrap_calibrated`);
- :mod:`~tealeaves.stats.result`: :class:`TestResult`, what every test returns.
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.stats.design import detectable_difference, minimal_detectable_difference, tost_pvalue
    from tealeaves.stats.intervals import (
        bootstrap_se,
        bootstrap_t_interval,
        bounded_t_interval,
        check_confidence,
        delete_d_jackknife_se,
        gaffke_limit,
        jackknife_se,
        mean_with_interval,
        percentile_interval,
        ratio_bootstrap_t_interval,
        t_interval,
    )
    from tealeaves.stats.multiplicity import (
        StepDown,
        benjamini_hochberg,
        bonferroni_intervals,
        holm,
        max_t_pvalues,
        westfall_young,
    )
    from tealeaves.stats.resampling import (
        bootstrap_counts,
        check_draws,
        key_splits,
        paired_ratio_bootstrap,
        random_orders,
        resampled_group_means,
        stratified_counts,
        stratified_indices,
        two_way_cluster_bootstrap,
        weighted_group_means,
        within_group_draws,
    )
    from tealeaves.stats.result import TestResult
    from tealeaves.stats.runs import bootstrap_calibrated, runs_t_test, swap_calibrated
    from tealeaves.stats.tests import (
        bootstrap_z_test,
        jackknife_difference_test,
        mann_whitney,
        mann_whitney_counts,
        paired_t_test,
        permutation_test,
        proportion_test,
        randomisation_test,
        satterthwaite_df,
        split_welch_statistics,
        studentised_permutation_test,
        swapped_paired_moments,
        swapped_paired_statistics,
        t_test,
        t_test_moments,
        t_test_of_estimate,
        welch_test,
    )

__getattr__, __dir__ = attach(__name__, __file__)

__all__ = [
    "StepDown",
    "TestResult",
    "benjamini_hochberg",
    "bonferroni_intervals",
    "bootstrap_calibrated",
    "bootstrap_counts",
    "bootstrap_se",
    "bootstrap_t_interval",
    "bootstrap_z_test",
    "bounded_t_interval",
    "check_confidence",
    "check_draws",
    "delete_d_jackknife_se",
    "detectable_difference",
    "gaffke_limit",
    "holm",
    "jackknife_difference_test",
    "jackknife_se",
    "key_splits",
    "mann_whitney",
    "mann_whitney_counts",
    "max_t_pvalues",
    "mean_with_interval",
    "minimal_detectable_difference",
    "paired_ratio_bootstrap",
    "paired_t_test",
    "percentile_interval",
    "permutation_test",
    "proportion_test",
    "random_orders",
    "randomisation_test",
    "ratio_bootstrap_t_interval",
    "resampled_group_means",
    "runs_t_test",
    "satterthwaite_df",
    "split_welch_statistics",
    "stratified_counts",
    "stratified_indices",
    "studentised_permutation_test",
    "swap_calibrated",
    "swapped_paired_moments",
    "swapped_paired_statistics",
    "t_interval",
    "t_test",
    "t_test_moments",
    "t_test_of_estimate",
    "tost_pvalue",
    "two_way_cluster_bootstrap",
    "weighted_group_means",
    "welch_test",
    "westfall_young",
    "within_group_draws",
]
