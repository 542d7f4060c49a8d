"""Every old name of issue 37's renames still works, with a DeprecationWarning naming the new one.

One name per concept: ``n_resamples`` for the number of bootstrap resamples (once ``n_boot``,
``replicates`` or ``bootstrap``), ``alpha`` for the significance level (once ``level``), and the
statistics in :mod:`tealeaves.stats`; and the names that moved when the import circles were cut,
the metric registry got one place (:mod:`tealeaves.metrics`) or two things shared one name
(:data:`MOVED_NAMES`). (The old names of ``TestResult``'s fields are tested in
tests/stats/test_result.py, those of ``tealeaves.display`` in tests/test_display.py, ``verdicts(level=)``
in tests/evaluate/test_stats.py and the command-line options beside each command's tests.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tealeaves import stats
from tealeaves.analysis import (
    MOVED_TO_STATS,
    HumanJudgments,
    RaggedScores,
    ValidationResult,
    analyze_export,
    bootstrap_correlations,
    cluster_bootstrap_comparison,
    paired_bootstrap,
    replicate_hoyle2021,
    topic_bootstrap_correlations,
    validate,
)
from tealeaves.analysis.paired_tests import resampled_means
from tealeaves.errors import InputError
from tealeaves.evaluation import read_config
from tealeaves.likelihood import bootstrap_sd, complete, estimate

HUMAN = RaggedScores([[3, 3, 2], [1, 2], [2, 2, 3, 3], [1, 1, 1], [3, 2], [2, 3]])
METRICS = pd.DataFrame({"npmi": [0.12, 0.02, 0.08, -0.05, 0.10, 0.07], "umass": [-1.2, -3.0, -1.5, -2.0, -2.5, -1.9]})


@pytest.mark.parametrize("old", sorted(MOVED_TO_STATS))
def test_the_statistics_of_tealeaves_analysis_are_tealeaves_stats(old):
    import tealeaves.analysis

    new = MOVED_TO_STATS[old]
    with pytest.warns(DeprecationWarning, match=f"tealeaves.analysis.{old} is deprecated; use {new}"):
        value = getattr(tealeaves.analysis, old)
    assert value is getattr(stats, new.rpartition(".")[2])
    assert old not in tealeaves.analysis.__all__


def same(old, new) -> bool:
    """Two results of the same call under the old and the new name: the same numbers."""
    if isinstance(old, pd.DataFrame):
        pd.testing.assert_frame_equal(old, new, check_exact=True)
        return True
    return old == new


@pytest.mark.parametrize(
    "call",
    [
        lambda **k: bootstrap_correlations(HUMAN, METRICS, seed=0, **k).table,
        lambda **k: topic_bootstrap_correlations(HUMAN.means(), METRICS, seed=0, **k).table,
        lambda **k: paired_bootstrap(HUMAN, METRICS["npmi"], METRICS["umass"], seed=0, **k).pvalue,
        lambda **k: resampled_means(
            HumanJudgments(
                "h", "rating", pd.DataFrame({"dataset": "", "model": "m", "topic": range(6), "words": ""}), HUMAN
            ),
            seed=0,
            **k,
        )[1].sum(),
    ],
    ids=["bootstrap_correlations", "topic_bootstrap_correlations", "paired_bootstrap", "resampled_means"],
)
def test_n_boot_is_the_old_name_of_n_resamples(call):
    with pytest.warns(DeprecationWarning, match="n_boot= is deprecated; use n_resamples="):
        old = call(n_boot=40)
    assert same(old, call(n_resamples=40))
    with pytest.raises(InputError, match="give n_resamples= only"):
        call(n_boot=40, n_resamples=40)


def test_n_boot_of_the_cluster_bootstrap_and_the_runs():
    answers = pd.DataFrame(
        {
            "model": ["a"] * 6 + ["b"] * 6,
            "topic": [0, 0, 1, 1, 2, 2] * 2,
            "annotator": [0, 1] * 6,
            "value": [1.0, 0.0] * 6,
        }
    )
    with pytest.warns(DeprecationWarning, match="n_boot="):
        old = cluster_bootstrap_comparison(answers, n_boot=50, seed=1)
    assert same(old, cluster_bootstrap_comparison(answers, n_resamples=50, seed=1))
    # the whole runs: the old name is accepted, and both names together are refused before any work
    for function, refused in ((validate, []), (analyze_export, "missing.csv"), (replicate_hoyle2021, "missing")):
        with pytest.raises(InputError, match="give n_resamples= only"):
            function(refused, n_boot=10, n_resamples=10)
        warned = pytest.warns(DeprecationWarning, match=f"{function.__name__}: n_boot= is deprecated")
        with warned, pytest.raises(InputError):  # then refused for its input, as under the new name
            function(refused, n_boot=10)


def test_the_results_old_field_names():
    result = bootstrap_correlations(HUMAN, METRICS, n_resamples=30, seed=0)
    with pytest.warns(DeprecationWarning, match="Correlations.n_boot is deprecated; use Correlations.n_resamples"):
        assert result.n_boot == 30
    with pytest.warns(DeprecationWarning, match="Correlations.replicates is deprecated; use Correlations.resamples"):
        assert result.replicates is result.resamples
    frames = [pd.DataFrame()] * 4
    validation = ValidationResult(*frames, resamples={("h", "a", "b"): np.zeros(3)})
    with pytest.warns(DeprecationWarning, match="ValidationResult.replicates is deprecated"):
        assert validation.replicates is validation.resamples
    assert result.to_dict()["n_resamples"] == 30


def test_the_configuration_keys_bootstrap_and_level():
    models = [{"name": "lda", "path": "lda"}]
    with pytest.warns(DeprecationWarning, match="configuration key 'bootstrap' is deprecated; use 'n_resamples'"):
        old = read_config({"models": models, "bootstrap": 200})
    assert old.n_resamples == 200 and old.source["bootstrap"] == 200  # the manifest keeps what was given
    with pytest.warns(DeprecationWarning, match="configuration key 'level' is deprecated; use 'alpha'"):
        assert read_config({"models": models, "level": 0.1}).alpha == 0.1
    with pytest.raises(InputError, match="both alpha and level"):
        read_config({"models": models, "level": 0.1, "alpha": 0.1})
    config = read_config({"models": models})
    with pytest.warns(
        DeprecationWarning, match="EvaluateConfig.bootstrap is deprecated; use EvaluateConfig.n_resamples"
    ):
        assert config.bootstrap == 1000
    with pytest.warns(DeprecationWarning, match="EvaluateConfig.level is deprecated; use EvaluateConfig.alpha"):
        assert config.level == 0.05


def test_the_likelihoods_bootstrap_and_replicates():
    runs = np.log(np.random.default_rng(0).uniform(0.1, 1, size=(3, 5)))
    with pytest.warns(DeprecationWarning, match="bootstrap_sd: replicates= is deprecated; use n_resamples="):
        assert bootstrap_sd(runs, replicates=50, seed=1) == bootstrap_sd(runs, n_resamples=50, seed=1)
    phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    docs = [np.array([0, 1, 1, 0]), np.array([2, 3, 3])]
    for function in (estimate, complete):
        with pytest.warns(DeprecationWarning, match=f"{function.__name__}: bootstrap= is deprecated"):
            old = function(phi, np.array([0.5, 0.5]), docs, seed=0, runs=2, bootstrap=50, particles=2)
        new = function(phi, np.array([0.5, 0.5]), docs, seed=0, runs=2, n_resamples=50, particles=2)
        assert old.total_sd == new.total_sd and np.array_equal(old.log_prob, new.log_prob)


# issue 37's structure: names that moved to cut the import circles, to give the metric registry
# one place, or because two things had one name; each old name reads the new object with a warning
MOVED_NAMES = [
    ("tealeaves.corpus.vocabulary", "OnMissing", "tealeaves.missing.OnMissingSkip"),
    ("tealeaves.likelihood.documents", "OnMissing", "tealeaves.missing.OnMissingSkip"),
    ("tealeaves.intrusion.features", "ON_MISSING", "tealeaves.missing.ZERO"),
    ("tealeaves.coherence.scoring", "ON_MISSING", "tealeaves.missing.ON_MISSING"),
    ("tealeaves.coherence.scoring", "WHOLE_TOPIC", "tealeaves.coherence.result.WHOLE_TOPIC"),
    ("tealeaves.coherence.scoring", "SEGMENT_COLUMNS", "tealeaves.coherence.result.SEGMENT_COLUMNS"),
    *[
        ("tealeaves.coherence.embedding", name, f"tealeaves.coherence.measures.{name}")
        for name in ("EmbeddingMeasure", "unit_rows", "pairwise_cosine", "centroid_cosine")
    ],
    ("tealeaves.models.topics", "as_topics", "tealeaves.models.adapters.as_topics"),
    *[
        ("tealeaves.corpus.readers", name, f"tealeaves.corpus.formats.{name}")
        for name in ("FORMATS", "detect_format", "read_inputs", "check_format", "input_format", "reader")
    ],
    ("tealeaves.results", "mean_interval", "tealeaves.topic_means.mean_interval"),
    ("tealeaves.results", "interval_label", "tealeaves.topic_means.interval_label"),
    ("tealeaves.display", "estimate", "tealeaves.display.interval_estimate"),
    *[
        ("tealeaves.evaluation.metrics", name, f"tealeaves.metrics.{name}")
        for name in ("Metric", "Items", "Measured", "Inputs", "register", "PAIRED", "JACKKNIFE", "unknown_keys")
    ],
    ("tealeaves.evaluation.metrics", "accepts", "tealeaves.metrics.accepts"),
    ("tealeaves.evaluation.metrics", "DEFAULT_PLAN", "tealeaves.metrics.measured.DEFAULT_PLAN"),
    ("tealeaves.evaluation.metrics", "model_level_topics", "tealeaves.metrics.words.model_level_topics"),
    ("tealeaves.evaluation.metrics", "leave_one_topic_out", "tealeaves.metrics.words.leave_one_topic_out"),
    ("tealeaves.evaluation.stats", "Estimates", "tealeaves.evaluation.stats.Measurements"),
    ("tealeaves.analysis", "Metric", "tealeaves.analysis.metric_specs.MetricSpec"),
    ("tealeaves.analysis.validation", "Metric", "tealeaves.analysis.metric_specs.MetricSpec"),
    *[
        ("tealeaves.analysis.validation", name, f"tealeaves.analysis.judgments.{name}")
        for name in ("hoyle2021_judgments", "export_judgments", "csv_judgments")
    ],
    ("tealeaves.analysis.validation", "paired_bootstrap", "tealeaves.analysis.paired_tests.paired_bootstrap"),
    ("tealeaves.analysis.validation", "write_validation", "tealeaves.analysis.output.write_validation"),
    ("tealeaves.intrusion.tables", "topics_table", "tealeaves.intrusion.tables.wi_auto_topics_table"),
    ("tealeaves.intrusion.tables", "models_table", "tealeaves.intrusion.tables.wi_auto_models_table"),
    ("tealeaves.cli.common", "number", "tealeaves.cli.common.parse_number"),
]


@pytest.mark.parametrize(("module", "old", "new"), MOVED_NAMES, ids=lambda value: str(value))
def test_a_moved_or_renamed_name_is_the_new_object_with_a_warning(module, old, new):
    import importlib

    home, _, name = new.rpartition(".")
    with pytest.warns(DeprecationWarning, match=f"{module}.{old} is deprecated; use {new} instead"):
        value = getattr(importlib.import_module(module), old)
    assert value is getattr(importlib.import_module(home), name)
