"""Analysis of human and automated topic evaluations (Chang et al. 2009 §4.3; Lau et al. 2014 §4-5;
Hoyle et al. 2021 §5-6, A.5-A.7): scores, agreement, significance, correlation, regression,
false discovery rates and power analysis; and the validation of any metric against human
judgments (:func:`validate`: correlations with bootstrap CIs, paired tests, a leaderboard).
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.analysis.agreement import OneVsRest, krippendorff_alpha, one_vs_rest, split_half
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
    from tealeaves.analysis.output import write_replication, write_study_analysis
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
    from tealeaves.analysis.significance import (
        TestResult,
        holm,
        mann_whitney,
        mann_whitney_counts,
        minimal_detectable_difference,
        proportion_test,
        t_test,
        welch_test,
    )
    from tealeaves.analysis.study_analysis import StudyAnalysis, analyze_export, read_metrics
    from tealeaves.analysis.validation import (
        HumanJudgments,
        Metric,
        PairedTest,
        ValidationResult,
        csv_judgments,
        export_judgments,
        hoyle2021_judgments,
        paired_bootstrap,
        parse_metric,
        validate,
        write_validation,
    )

__getattr__, __dir__ = attach(__name__, __file__, extra="report")

__all__ = [
    "HUMAN_MARGINS",
    "METRIC_MARGINS",
    "Correlations",
    "DiscoveryRates",
    "Hoyle2021",
    "Hoyle2021Replication",
    "HumanJudgments",
    "HumanScores",
    "Metric",
    "OneVsRest",
    "PairedTest",
    "RaggedScores",
    "RegressionResult",
    "StudyAnalysis",
    "StudySize",
    "TestResult",
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
    "equivalence_margin",
    "export_judgments",
    "failed_checks",
    "false_discovery_rates",
    "holm",
    "hoyle2021_judgments",
    "human_scores",
    "krippendorff_alpha",
    "load_hoyle2021",
    "mann_whitney",
    "mann_whitney_counts",
    "minimal_detectable_difference",
    "model_level_correlation",
    "model_precision",
    "one_vs_rest",
    "paired_bootstrap",
    "pairwise_tests",
    "parse_metric",
    "power_curve",
    "proportion_test",
    "read_export",
    "read_metrics",
    "regress",
    "replicate_hoyle2021",
    "select",
    "simulate_power",
    "split_half",
    "t_test",
    "topic_bootstrap_correlations",
    "topic_level_power",
    "topic_log_odds",
    "validate",
    "welch_test",
    "write_replication",
    "write_study_analysis",
    "write_validation",
]
