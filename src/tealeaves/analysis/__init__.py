"""Analysis of human and automated topic evaluations (Chang et al. 2009 §4.3; Lau et al. 2014 §4-5;
Hoyle et al. 2021 §5-6, A.5-A.7): scores, agreement, model comparisons, correlation, regression,
false discovery rates and power analysis; and the validation of any metric against human
judgments (:func:`validate`: correlations with bootstrap CIs, paired tests, a leaderboard).

The tests, corrections, intervals and resampling are :mod:`tealeaves.stats`'s; this package
chooses which fits which score and unit. Their old names here (``holm``, ``welch_test``,
``t_test``, ``proportion_test``, ``mann_whitney``, ``mann_whitney_counts``,
``minimal_detectable_difference``, ``TestResult``, and ``PairedTest``, now
:class:`tealeaves.stats.TestResult`) still work, with a ``DeprecationWarning``.
"""

from typing import TYPE_CHECKING

from tealeaves.deprecation import moved_names
from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.analysis.agreement import OneVsRest, krippendorff_alpha, one_vs_rest, split_half
    from tealeaves.analysis.combinations import rank_mixtures
    from tealeaves.analysis.comparison import cluster_bootstrap_comparison, compare_models, pairwise_tests
    from tealeaves.analysis.correlation import (
        Correlations,
        RaggedScores,
        bootstrap_correlations,
        correlate_rows,
        model_level_correlation,
        topic_bootstrap_correlations,
    )
    from tealeaves.analysis.discovery import HUMAN_MARGINS, METRIC_MARGINS, DiscoveryRates, false_discovery_rates
    from tealeaves.analysis.hoyle2021 import Hoyle2021, load_hoyle2021
    from tealeaves.analysis.human_datasets import (
        HUMAN_DATASETS,
        HumanDataset,
        dataset_judgments,
        hoyle_pilot_judgments,
        palmetto_judgments,
    )
    from tealeaves.analysis.judgments import HumanJudgments, csv_judgments, export_judgments, hoyle2021_judgments
    from tealeaves.analysis.metric_specs import MetricSpec, parse_metric
    from tealeaves.analysis.output import write_replication, write_study_analysis, write_validation
    from tealeaves.analysis.paired_tests import paired_bootstrap
    from tealeaves.analysis.power import (
        StudySize,
        annotators_for_study,
        annotators_needed,
        equivalence_margin,
        power_curve,
        simulate_power,
        topic_level_power,
    )
    from tealeaves.analysis.regression import RegressionResult, regress
    from tealeaves.analysis.replication import Hoyle2021Replication, replicate_hoyle2021
    from tealeaves.analysis.responses import check_export, failed_checks, read_export, select
    from tealeaves.analysis.scores import HumanScores, human_scores, model_precision, topic_log_odds
    from tealeaves.analysis.study_analysis import StudyAnalysis, analyze_export, read_metrics
    from tealeaves.analysis.validation import validate
    from tealeaves.analysis.validation_result import ValidationResult

MOVED_TO_STATS = {
    "PairedTest": "tealeaves.stats.TestResult",
    "TestResult": "tealeaves.stats.TestResult",
    "holm": "tealeaves.stats.holm",
    "mann_whitney": "tealeaves.stats.mann_whitney",
    "mann_whitney_counts": "tealeaves.stats.mann_whitney_counts",
    "minimal_detectable_difference": "tealeaves.stats.minimal_detectable_difference",
    "proportion_test": "tealeaves.stats.proportion_test",
    "t_test": "tealeaves.stats.t_test",
    "welch_test": "tealeaves.stats.welch_test",
}
"""The old names of the statistics this package once held, now :mod:`tealeaves.stats`'s (deprecated)."""
RENAMED = {"Metric": "tealeaves.analysis.metric_specs.MetricSpec"}
"""Old names of this package's own (deprecated): ``Metric``, validate's metric spec, is :class:`MetricSpec`
(:class:`tealeaves.metrics.Metric` is the registry's metric)."""
_lazy, __dir__ = attach(__name__, __file__, extra="report")
__getattr__ = moved_names(__name__, {**MOVED_TO_STATS, **RENAMED}, fallback=_lazy)

__all__ = [
    "HUMAN_DATASETS",
    "HUMAN_MARGINS",
    "METRIC_MARGINS",
    "Correlations",
    "DiscoveryRates",
    "Hoyle2021",
    "Hoyle2021Replication",
    "HumanDataset",
    "HumanJudgments",
    "HumanScores",
    "MetricSpec",
    "OneVsRest",
    "RaggedScores",
    "RegressionResult",
    "StudyAnalysis",
    "StudySize",
    "ValidationResult",
    "analyze_export",
    "annotators_for_study",
    "annotators_needed",
    "bootstrap_correlations",
    "check_export",
    "cluster_bootstrap_comparison",
    "compare_models",
    "correlate_rows",
    "csv_judgments",
    "dataset_judgments",
    "equivalence_margin",
    "export_judgments",
    "failed_checks",
    "false_discovery_rates",
    "hoyle2021_judgments",
    "hoyle_pilot_judgments",
    "human_scores",
    "krippendorff_alpha",
    "load_hoyle2021",
    "model_level_correlation",
    "model_precision",
    "one_vs_rest",
    "paired_bootstrap",
    "pairwise_tests",
    "palmetto_judgments",
    "parse_metric",
    "power_curve",
    "rank_mixtures",
    "read_export",
    "read_metrics",
    "regress",
    "replicate_hoyle2021",
    "select",
    "simulate_power",
    "split_half",
    "topic_bootstrap_correlations",
    "topic_level_power",
    "topic_log_odds",
    "validate",
    "write_replication",
    "write_study_analysis",
    "write_validation",
]
