"""Validating automated metrics against human judgments: correlations, paired tests, a leaderboard.

For every metric and every human data set, :func:`validate` correlates the metric's per-topic
values with the topics' mean human scores (Spearman's rho, Pearson's r, Kendall's tau-b). With
the answers, each correlation gets Hoyle et al.'s (2021, Table 3) 95% bootstrap interval: every
resample draws each topic's annotators with replacement, keeping their number
(:func:`~tealeaves.analysis.bootstrap_correlations`; the mean over resamples is the estimate,
as in Table 3); it holds the topics fixed. With one mean per topic and no answers, the interval
comes from a bootstrap over the topics, stratified by (dataset, model), and the estimate is the
observed correlation (:func:`~tealeaves.analysis.topic_bootstrap_correlations`). The
``uncertainty`` column says which.

Whether two metrics correlate equally well is a paired bootstrap test over the topics
(:mod:`tealeaves.analysis.paired_tests`), with Holm over each data set's pairs;
:meth:`~tealeaves.analysis.ValidationResult.versus_best` adds Holm and a max-T adjustment
(:func:`tealeaves.stats.max_t_pvalues`) over the family it returns, and
:meth:`~tealeaves.analysis.ValidationResult.select_and_test` chooses a variant on some data sets
and tests it on the others.

The run is this module's; each of its parts is a module of its own:

- the human data sets, :mod:`tealeaves.analysis.judgments` (:class:`~tealeaves.analysis.HumanJudgments`:
  Hoyle et al.'s released files, a tealeaves study export or a generic CSV); each is a data set
  of its own, and a summary over data sets weights them explicitly (the leaderboard);
- the metrics, :mod:`tealeaves.analysis.metric_specs` (:class:`~tealeaves.analysis.MetricSpec`,
  :func:`~tealeaves.analysis.parse_metric`: any coherence measure with a reference index, the
  embedding measures and embedding word intrusion with an encoder, the metrics that came with
  the data, or a CSV of per-topic scores), whose values :mod:`tealeaves.analysis.topic_metrics`
  computes through :mod:`tealeaves.metrics`, the registry ``evaluate`` and ``sweep`` share;
- the paired tests, :mod:`tealeaves.analysis.paired_tests`;
- the result and its selection-aware comparisons, :mod:`tealeaves.analysis.validation_result`;
  writing it, :func:`tealeaves.analysis.write_validation`.

The result's tables are tidy (one row per observation, keys first) so that reports can use
them as they are: ``correlations`` (data set x metric x method), ``comparisons`` (data set x
ordered metric pair), ``leaderboard`` (one row per metric), ``topic_values`` (data set x
topic x metric).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tealeaves.analysis.correlation import (
    Method,
    bootstrap_correlations,
    check_resampling,
    resampled_correlations,
    topic_bootstrap_correlations,
)
from tealeaves.analysis.judgments import TOPIC_KEYS, HumanJudgments
from tealeaves.analysis.metric_specs import REFERENCE_CORPUS, MetricSpec, default_metrics, parse_metric
from tealeaves.analysis.paired_tests import ANNOTATOR_INTERVAL, RESAMPLING, pairwise_comparisons, resampled_means
from tealeaves.analysis.topic_metrics import MetricSources, metric_values
from tealeaves.analysis.validation_result import ValidationResult
from tealeaves.deprecation import moved_names, renamed_parameters
from tealeaves.errors import InputError, describe
from tealeaves.progress import ProgressCallback, notify

METHODS: tuple[Method, ...] = ("spearman", "pearson", "kendall")
__getattr__ = moved_names(
    __name__,
    {
        "hoyle2021_judgments": "tealeaves.analysis.judgments.hoyle2021_judgments",
        "export_judgments": "tealeaves.analysis.judgments.export_judgments",
        "csv_judgments": "tealeaves.analysis.judgments.csv_judgments",
        "Metric": "tealeaves.analysis.metric_specs.MetricSpec",
        "paired_bootstrap": "tealeaves.analysis.paired_tests.paired_bootstrap",
        "write_validation": "tealeaves.analysis.output.write_validation",
    },
)


@renamed_parameters(n_boot="n_resamples")
def validate(
    judgments: Sequence[HumanJudgments] | HumanJudgments,
    metrics: Iterable[MetricSpec | str] | MetricSpec | str | None = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
    resample: str = "topics",
    intervals: str = "hoyle",
) -> ValidationResult:
    """Correlate every metric with every human data set; test every pair of metrics; rank them.

    Parameters
    ----------
    judgments : sequence of HumanJudgments, or one
        From :func:`hoyle2021_judgments`, :func:`export_judgments`, :func:`csv_judgments`; each
        is a data set of its own (never pooled topic by topic).
    metrics : MetricSpec or str, or a list of them, optional
        Specs for :func:`parse_metric`. Default: :func:`default_metrics` (embedding coherence,
        its centroid variant, embedding word intrusion). The metrics that come with the human
        data (``given``: Hoyle's NPMI and C_v) are always added.
    n_resamples : int
        Bootstrap resamples, for the intervals and for the paired tests (Hoyle et al.: 1,000;
        ``n_boot``, its old name, is deprecated).
    confidence : float
        Of the intervals.
    seed : int
        Seeds the bootstraps and the intruder sets embedding word intrusion draws.
    cache_dir : path, optional
        The encoders' vector cache (default: :func:`~tealeaves.coherence.encoders.default_cache_dir`).
    progress : callable, optional
        Receives a ``"validate"`` update after each metric of each data set.
    resample : str
        What the paired tests resample (:func:`~tealeaves.analysis.paired_tests.resampled_means`): ``"topics"`` (default,
        stratified by dataset and model) or ``"topics+annotators"`` (crossed; needs annotator ids).
    intervals : str
        What the correlations' intervals resample: ``"hoyle"`` (default: each topic's answers,
        topics fixed, as Table 3; the estimate is the mean over resamples), ``"topics"`` or
        ``"topics+annotators"`` (as ``resample``; the estimate is the observed correlation).
        Means-only data sets always get ``"topics"``.

    Returns
    -------
    ValidationResult

    Raises
    ------
    InputError
        Without judgments, or for a bad ``n_resamples``, ``confidence``, ``resample`` or
        ``intervals``.

    Examples
    --------
    Eight topics' mean ratings (a means-only data set: intervals over topics) and two metrics
    from a CSV of per-topic scores:

    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from tealeaves.analysis import csv_judgments, validate
    >>> folder = tempfile.TemporaryDirectory()
    >>> keys = {"model": ["lda"] * 4 + ["nmf"] * 4, "topic": [0, 1, 2, 3] * 2}
    >>> human = Path(folder.name) / "ratings.csv"
    >>> pd.DataFrame({
    ...     **keys,
    ...     "words": ["tax budget", "war peace", "court law", "oil gas", "tax war", "law oil", "court gas", "peace oil"],
    ...     "mean": [2.8, 2.5, 2.2, 2.6, 1.4, 1.2, 1.9, 1.6],  # each topic's mean rating
    ... }).to_csv(human, index=False)
    >>> scores = Path(folder.name) / "scores.csv"
    >>> pd.DataFrame({
    ...     **keys,
    ...     "npmi": [0.14, 0.10, 0.05, 0.12, -0.02, -0.05, 0.03, 0.04],
    ...     "umass": [-1.1, -1.5, -1.2, -2.8, -2.0, -2.2, -1.4, -1.3],
    ... }).to_csv(scores, index=False)
    >>> result = validate(csv_judgments(human), [f"csv:{scores}"], n_resamples=200, seed=0)
    >>> result.leaderboard[["rank", "metric", "mean_spearman", "wins"]].round(3)
       rank metric  mean_spearman  wins
    0     1   npmi          0.976     1
    1     2  umass          0.333     0
    >>> result.correlations[["metric", "method", "estimate", "ci_low", "ci_high"]].round(3)
      metric    method  estimate  ci_low  ci_high
    0   npmi  spearman     0.976   0.848    1.000
    1  umass  spearman     0.333  -0.409    0.976
    2   npmi   pearson     0.969   0.883    0.999
    3  umass   pearson     0.166  -0.486    0.939
    4   npmi   kendall     0.929   0.749    1.000
    5  umass   kendall     0.286  -0.360    0.925
    >>> folder.cleanup()
    """
    judgments = _judgment_list(judgments)
    _check_settings(judgments, n_resamples, confidence, resample, intervals)
    chosen = [m for spec in _spec_list(metrics) for m in _as_metrics(spec)]
    given = [
        MetricSpec(c, "given", c, family=REFERENCE_CORPUS) for c in dict.fromkeys(c for j in judgments for c in j.given)
    ]
    all_metrics = _distinct([*given, *chosen])
    sources = MetricSources(cache_dir)
    run = (n_resamples, confidence, seed, resample, intervals)
    parts = [
        _data_set(judgment, all_metrics, run, sources, progress, (i, len(judgments)))
        for i, judgment in enumerate(judgments)
    ]
    family = {m.label: m.family for m in all_metrics}
    correlations = pd.concat([p.correlations for p in parts], ignore_index=True)
    correlations = correlations.assign(family=correlations["metric"].map(family))[list(CORRELATION_COLUMNS)]
    topic_values = pd.concat([p.topic_values for p in parts], ignore_index=True)
    settings = {
        "n_resamples": n_resamples,
        "confidence": confidence,
        "seed": seed,
        "resample": RESAMPLING[resample],
        "intervals": intervals,
        "human": [j.name for j in judgments],
        "means_only": [j.name for j in judgments if j.means_only],
        "pooled_summary": "mean_spearman weights each data set equally; pooled_spearman weights each topic "
        "equally, human scores and metric values ranked within their data set",
        "metrics": [
            {"label": m.label, "kind": m.kind, "measure": m.measure, "source": m.source, "options": m.options}
            for m in all_metrics
        ],
        "encoders": {str(spec): enc.identity() for spec, enc in sources.encoders.items()},
        "dropped_fewer_than_three_topics": [row for p in parts for row in p.dropped],
    }
    return ValidationResult(
        correlations=correlations,
        comparisons=pd.concat([p.comparisons for p in parts], ignore_index=True),
        leaderboard=_leaderboard(correlations, topic_values),
        topic_values=topic_values,
        settings=settings,
        resamples={key: d for p in parts for key, d in p.resamples.items()},
    )


CORRELATION_COLUMNS = (
    "human",
    "task",
    "metric",
    "family",
    "method",
    "estimate",
    "ci_low",
    "ci_high",
    "observed",
    "n_topics",
    "coverage",
    "best",
    "overlaps_best",
    "uncertainty",
)
"""The columns of :attr:`ValidationResult.correlations <tealeaves.analysis.ValidationResult.correlations>`."""


def _check_settings(
    judgments: Sequence[HumanJudgments], n_resamples: int, confidence: float, resample: str, intervals: str
) -> None:
    """Refuse what :func:`validate` cannot run, before any metric is computed."""
    if not judgments:
        raise InputError("no human judgments given: pass --hoyle2021 DIR, a study export or a CSV")
    check_resampling("validate", n_resamples, confidence, least=2)
    if not isinstance(resample, str) or resample not in RESAMPLING:
        raise InputError(f"resample must be one of {sorted(RESAMPLING)}, got {resample!r}")
    if not isinstance(intervals, str) or intervals not in ("hoyle", *RESAMPLING):
        raise InputError(f"intervals must be 'hoyle', 'topics' or 'topics+annotators', got {intervals!r}")
    names = [j.name for j in judgments]
    if len(set(names)) < len(names):
        raise InputError(f"two human data sets share a name ({names}); give each file its own dataset column or name")


@dataclass(frozen=True)
class _DataSet:
    """What one human data set adds to the result's tables."""

    correlations: pd.DataFrame
    comparisons: pd.DataFrame
    topic_values: pd.DataFrame
    dropped: list[dict[str, str]]
    resamples: dict[tuple[str, str, str], np.ndarray]


def _data_set(
    judgment: HumanJudgments,
    metrics: list[MetricSpec],
    run: tuple[int, float, int, str, str],
    sources: MetricSources,
    progress: ProgressCallback | None,
    position: tuple[int, int],
) -> _DataSet:
    """Every metric's values on one data set, their correlations with people and their paired tests.

    ``run`` is ``(n_resamples, confidence, seed, resample, intervals)``; ``position`` the data set's
    number and how many there are, for the progress updates (one per metric, and one when the tests
    are done).
    """
    n_resamples, confidence, seed, resample, intervals = run
    steps_per_set = len(metrics) + 1
    index, total = position[0], position[1] * steps_per_set
    values: dict[str, np.ndarray] = {}
    coverage: dict[str, float] = {}
    for m_index, metric in enumerate(metrics):
        values[metric.label], coverage[metric.label] = metric_values(metric, judgment, seed, sources)
        notify(progress, "validate", index * steps_per_set + m_index + 1, total, metric=metric.label)
    table = pd.DataFrame(values)
    usable = [c for c in table.columns if np.isfinite(table[c]).sum() >= 3]
    correlations = []
    for method in METHODS:
        frame = _correlations(judgment, table[usable], method, n_resamples, confidence, seed, intervals)
        correlations.append(frame.assign(coverage=frame["metric"].map(coverage)))
    comparisons, resamples = pairwise_comparisons(judgment, table[usable], n_resamples, confidence, seed, resample)
    notify(progress, "validate", (index + 1) * steps_per_set, total)
    return _DataSet(
        pd.concat(correlations, ignore_index=True),
        comparisons,
        _topic_values(judgment, table),
        [{"human": judgment.name, "metric": c} for c in table.columns if c not in usable],
        resamples,
    )


def _judgment_list(judgments: Sequence[HumanJudgments] | HumanJudgments) -> list[HumanJudgments]:
    """The data sets given: a list of them, or one alone; a path is refused, pointing to the readers."""
    if isinstance(judgments, HumanJudgments):
        return [judgments]
    if isinstance(judgments, (str, os.PathLike)):
        raise InputError(
            f"validate takes loaded human data sets, not a path ({os.fspath(judgments)!r}): read them with "
            "hoyle2021_judgments(PATH), csv_judgments(PATH) or export_judgments(PATH)"
        )
    if not isinstance(judgments, Iterable):
        raise InputError(f"validate takes a list of HumanJudgments, got {describe(judgments)}")
    found = list(judgments)
    for judgment in found:
        if not isinstance(judgment, HumanJudgments):
            raise InputError(
                f"validate takes a list of HumanJudgments (from hoyle2021_judgments, csv_judgments or "
                f"export_judgments), got {describe(judgment)} in it"
            )
    return found


def _spec_list(metrics: Iterable[MetricSpec | str] | MetricSpec | str | None) -> list[MetricSpec | str]:
    """The metrics given: the defaults for None, one spec alone, or a list of them."""
    if metrics is None:
        return list(default_metrics())
    if isinstance(metrics, (str, MetricSpec)):
        return [metrics]
    if not isinstance(metrics, Iterable):
        raise InputError(
            f"metrics must be a list of metric specs (e.g. ['npmi@INDEX', 'csv:scores.csv']), got {describe(metrics)}"
        )
    return list(metrics)


def _as_metrics(spec: MetricSpec | str) -> list[MetricSpec]:
    if isinstance(spec, MetricSpec):
        return [spec]
    if not isinstance(spec, str):
        raise InputError(f"a metric is a spec such as 'npmi@INDEX' or 'csv:scores.csv', or a MetricSpec; got {spec!r}")
    return parse_metric(spec)


def _distinct(metrics: list[MetricSpec]) -> list[MetricSpec]:
    seen: dict[str, MetricSpec] = {}
    for metric in metrics:
        if metric.label in seen:
            raise InputError(f"metric {metric.label!r} is given twice; give each metric once")
        seen[metric.label] = metric
    return list(seen.values())


def _correlations(
    judgment: HumanJudgments,
    table: pd.DataFrame,
    method: Method,
    n_resamples: int,
    confidence: float,
    seed: int,
    intervals: str,
) -> pd.DataFrame:
    """One data set's correlations with the intervals ``intervals`` asks for (topics only for means-only data)."""
    if judgment.means_only or intervals == "topics":
        means = judgment.answers.means()
        result = topic_bootstrap_correlations(means, table, judgment.strata(), method, n_resamples, confidence, seed)
        frame = result.table.assign(estimate=result.table["observed"], uncertainty=RESAMPLING["topics"])
    elif intervals == "topics+annotators":
        drawn, resampled = resampled_means(judgment, n_resamples, seed, intervals)
        result = resampled_correlations(judgment.answers.means(), table, drawn, resampled, method, confidence)
        frame = result.table.assign(estimate=result.table["observed"], uncertainty=RESAMPLING[intervals])
    else:
        result = bootstrap_correlations(judgment.answers, table, method, n_resamples, confidence, seed)
        frame = result.table.rename(columns={"mean": "estimate"}).assign(uncertainty=ANNOTATOR_INTERVAL)
    return frame.rename(columns={"metric_column": "metric"}).assign(
        human=judgment.name, task=judgment.task, method=method
    )


def _topic_values(judgment: HumanJudgments, table: pd.DataFrame) -> pd.DataFrame:
    base = judgment.topics[[*TOPIC_KEYS, "words"]].assign(
        human=judgment.name, task=judgment.task, human_mean=judgment.answers.means(), answers=judgment.answers.sizes
    )
    if judgment.means_only:
        base["answers"] = np.nan  # unknown
    long = table.assign(_row=np.arange(len(table))).melt(id_vars="_row", var_name="metric", value_name="value")
    merged = base.assign(_row=np.arange(len(base))).merge(long, on="_row").drop(columns="_row")
    return merged[["human", "task", *TOPIC_KEYS, "words", "human_mean", "answers", "metric", "value"]]


def pooled_spearman(topic_values: pd.DataFrame) -> pd.Series:
    """Per metric, the Spearman correlation over every topic of every data set, ranked within data set.

    Each data set's human means and metric values are turned into ranks scaled to (0, 1]
    (``rank / n`` among that data set's topics the metric scores), so topics rated on different
    scales are compared by their standing in their own data set; the Pearson correlation of
    the pooled scaled ranks weights every topic equally.
    """
    scored = topic_values[np.isfinite(topic_values["value"].astype(float))]
    grouped = scored.groupby(["metric", "human"], sort=False)
    scaled = scored.assign(
        h=grouped["human_mean"].rank(pct=True),
        v=grouped["value"].rank(pct=True),
    )
    return scaled.groupby("metric", sort=False).apply(lambda f: f["h"].corr(f["v"]), include_groups=False)


def _leaderboard(correlations: pd.DataFrame, topic_values: pd.DataFrame) -> pd.DataFrame:
    spearman = correlations[correlations["method"] == "spearman"]
    best = spearman.loc[spearman.groupby("human")["estimate"].idxmax(), "metric"].value_counts()
    board = (
        spearman.groupby(["metric", "family"], sort=False)
        .agg(
            mean_spearman=("estimate", "mean"),
            min_spearman=("estimate", "min"),
            datasets=("human", "nunique"),
            mean_coverage=("coverage", "mean"),
        )
        .reset_index()
    )
    board["wins"] = board["metric"].map(best).fillna(0).astype(int)
    board["pooled_spearman"] = board["metric"].map(pooled_spearman(topic_values))
    board = board.sort_values(["mean_spearman", "metric"], ascending=[False, True], ignore_index=True)
    board.insert(0, "rank", np.arange(1, len(board) + 1))
    columns = ["rank", "metric", "family", "mean_spearman", "pooled_spearman", "min_spearman", "datasets", "wins"]
    return board[[*columns, "mean_coverage"]]
