"""Analysis of a tealeaves study export: human scores, agreement, model comparison, correlations.

:func:`analyze_export` reads the long-format export (CSV or Parquet, the columns of
:data:`tealeaves.study.schema.EXPORT_COLUMNS`), drops attention-check items and the annotators who
failed them, optionally keeps only familiar answers (Hoyle et al. 2021 A.7), and computes:

- per-topic / per-document scores and per-model means (MP, TLO, mean rating; Chang et al. 2009);
- agreement per task (one-vs-rest Spearman, split-half Pearson, Krippendorff's alpha);
- model comparisons with the topic (the document, for topic intrusion) as the unit: Welch's
  two-sided t on the per-topic scores, or a two-way (topic x annotator) cluster bootstrap of the
  same topic-averaged scores, Holm over each task's pairs (:mod:`tealeaves.analysis.comparison`);
  Hoyle et al. 2021's pooled one-tailed tests over answers (Fig. 2) on request, for replication;
- with automated metrics (a CSV with ``model``, ``topic`` and one column per metric): topic-level
  Spearman correlations with bootstrap CIs over annotators, model-level Pearson correlations
  (Lau et al. 2014) and the per-annotation regressions (Hoyle et al. 2021 A.6).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from tealeaves.analysis.agreement import krippendorff_alpha, one_vs_rest, split_half
from tealeaves.analysis.comparison import cluster_bootstrap_comparison, compare_models, pairwise_tests
from tealeaves.analysis.correlation import RaggedScores, bootstrap_correlations, model_level_correlation
from tealeaves.analysis.regression import regress
from tealeaves.analysis.responses import read_csv_table, read_export, select
from tealeaves.analysis.scores import human_scores
from tealeaves.deprecation import renamed_parameters
from tealeaves.errors import EmptyResultError, InputError, is_count
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Result
from tealeaves.study.tasks.base import HumanTask
from tealeaves.study.tasks.registry import task_named, task_names

POOLED_TEST = {"nominal": "proportion", "ordinal": "mann-whitney"}
"""Hoyle et al.'s pooled test of a task's answers by their level; a task scored per item only takes Welch's t."""
REGRESSION = {"nominal": "logistic", "ordinal": "ordered-probit"}
"""The per-annotation regression of a task's answers by their level (Hoyle et al. 2021 A.6)."""
COMPARISONS = ("topic", "cluster-bootstrap")
POOLED_LABEL = "Hoyle et al. 2021 pooled one-tailed test (answers as independent; for replication only)"


@dataclass(frozen=True)
class StudyAnalysis(Result):
    """Tables of the analysis of one study export (empty frames where a part does not apply).

    ``comparisons``: one row per task and unordered pair of models (the columns of
    :data:`~tealeaves.analysis.comparison.COMPARISON_COLUMNS` and ``task``): the topic-averaged
    difference, its interval, the two-sided test, Holm over the task's pairs, ``verdict``.
    ``pooled_comparisons`` (only when asked for): Hoyle et al.'s pooled one-tailed tests over
    answers, labelled in its ``note`` column.

    Attributes
    ----------
    scores : pandas.DataFrame
        Per (task, model, item): the human score (:attr:`HumanScores.per_item`).
    models : pandas.DataFrame
        Per (task, model): the mean score (:attr:`HumanScores.per_model`).
    agreement : pandas.DataFrame
        Per task and measure (one-vs-rest Spearman, split-half Pearson, Krippendorff's
        alpha): ``value`` (NaN when the study has too few shared items) and ``annotators``.
    comparisons : pandas.DataFrame
        As above.
    correlations : pandas.DataFrame
        With metrics: per task and metric, the topic-level Spearman correlation with its
        bootstrap interval (:func:`bootstrap_correlations`).
    model_correlations : pandas.DataFrame
        With metrics: per task and metric, the model-level Pearson correlation (NaN with
        fewer than three models).
    regressions : pandas.DataFrame
        With metrics: per task and metric, the per-annotation regression (:func:`regress`).
    settings : dict
        The filters, their effect, ``n_resamples``, ``seed``, ``comparison`` and the unit.
    pooled_comparisons : pandas.DataFrame
        As above.

    Examples
    --------
    >>> import pandas as pd
    >>> from tealeaves.analysis import check_export
    >>> from tealeaves.study import EXPORT_COLUMNS
    >>> found = {"lda": "111 110 111 101", "nmf": "010 001 100 000"}  # per topic: annotators a1 a2 a3
    >>> rows = [
    ...     (f"a{i + 1}", model, topic, answer == "1")
    ...     for model, topics in found.items()
    ...     for topic, answers in enumerate(topics.split())
    ...     for i, answer in enumerate(answers)
    ... ]
    >>> frame = pd.DataFrame(rows, columns=["annotator", "model", "topic", "correct"])
    >>> frame = frame.assign(task="word-intrusion", item_id=frame.model + "-" + frame.topic.astype(str))
    >>> export = check_export(frame.reindex(columns=list(EXPORT_COLUMNS)))
    >>> from tealeaves.analysis import analyze_export
    >>> analysis = analyze_export(export)
    >>> analysis.models[["model", "mean", "items", "measure"]].round(4)
      model    mean  items          measure
    0   lda  0.8333      4  model precision
    1   nmf  0.2500      4  model precision
    >>> analysis.settings["responses"], analysis.settings["excluded_annotators"]
    (24, 0)
    """

    scores: pd.DataFrame
    models: pd.DataFrame
    agreement: pd.DataFrame
    comparisons: pd.DataFrame
    correlations: pd.DataFrame = field(default_factory=pd.DataFrame)
    model_correlations: pd.DataFrame = field(default_factory=pd.DataFrame)
    regressions: pd.DataFrame = field(default_factory=pd.DataFrame)
    settings: dict = field(default_factory=dict)
    pooled_comparisons: pd.DataFrame = field(default_factory=pd.DataFrame)

    TABLES = (
        "scores",
        "models",
        "agreement",
        "comparisons",
        "pooled_comparisons",
        "correlations",
        "model_correlations",
        "regressions",
    )

    def to_frame(self) -> pd.DataFrame:
        return self.scores.copy()

    def to_dict(self) -> dict:
        return {"settings": self.settings, **{t: getattr(self, t).to_dict(orient="records") for t in self.TABLES}}


def read_metrics(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Automated metrics per topic: a CSV with ``model``, ``topic`` (optionally ``dataset``) and one numeric column per metric.

    Parameters
    ----------
    path : str or path-like
        The CSV file.

    Returns
    -------
    pandas.DataFrame
        Its rows, ``model`` as text.

    Raises
    ------
    InputError
        When the file is missing, lacks ``model`` or ``topic``, has no metric column or a
        metric column that is not numeric.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.analysis import read_metrics
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "metrics.csv"
    ...     _ = path.write_text("model,topic,npmi\\nlda,0,0.14\\nlda,1,0.10\\nnmf,0,-0.02\\n")
    ...     metrics = read_metrics(path)
    >>> metrics
      model  topic  npmi
    0   lda      0  0.14
    1   lda      1  0.10
    2   nmf      0 -0.02
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"metrics file {path} does not exist")
    frame = read_csv_table(path, "metrics file")
    missing = {"model", "topic"} - set(frame.columns)
    if missing:
        raise InputError(f"{path} lacks the column(s) {sorted(missing)}; it needs model, topic and metric columns")
    metric_columns = [c for c in frame.columns if c not in ("model", "topic", "dataset")]
    if not metric_columns:
        raise InputError(f"{path} has no metric column besides model and topic")
    for column in metric_columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            raise InputError(f"{path}: metric column {column!r} must be numeric")
    frame["model"] = frame["model"].astype(str)
    return frame


def _agreement_value(measure: str, annotator, item, score, level: Literal["ordinal", "nominal"], seed: int) -> float:
    """One agreement measure; NaN when the study has too few shared items for it."""
    try:
        if measure == "one-vs-rest Spearman":
            return one_vs_rest(annotator, item, score, method="spearman").value
        if measure == "split-half Pearson":
            return split_half(item, score, seed=seed)
        return krippendorff_alpha(annotator, item, score, level=level)
    except EmptyResultError:
        return np.nan


def _tasks(answered: bool | None = None) -> list[HumanTask]:
    """The tasks whose answers are analysed (``answered``), those scored per item only (not
    ``answered``), or both, those first: in the registry's order each."""
    tasks = [task_named(name) for name in task_names()]
    first = [task for task in tasks if task.answer_column is not None]
    rest = [task for task in tasks if task.answer_column is None]
    return first if answered else rest if answered is not None else first + rest


def _agreement(kept: pd.DataFrame, seed: int) -> pd.DataFrame:
    rows = []
    for task in _tasks(answered=True):
        part = kept[kept["task"] == task.name]
        if part.empty:
            continue
        score = part[task.answer_column].astype(float)
        level = task.answer_level
        for measure in ("one-vs-rest Spearman", "split-half Pearson", f"Krippendorff alpha ({level})"):
            value = _agreement_value(measure, part["annotator"], part["item_id"], score, level, seed)
            rows.append(
                {"task": task.name, "measure": measure, "value": value, "annotators": part["annotator"].nunique()}
            )
    return pd.DataFrame(rows)


def _comparisons(kept: pd.DataFrame, scores: pd.DataFrame, method: str, n_resamples: int, seed: int) -> pd.DataFrame:
    """Topic-level comparisons of every task: per-topic (per-document) scores, Welch t or the cluster bootstrap."""
    frames = []
    for task in _tasks():
        part = scores[scores["task"] == task.name]
        groups = {str(m): g["score"].to_numpy(np.float64) for m, g in part.groupby("model")}
        if len(groups) < 2 or any(len(v) < 2 for v in groups.values()):
            continue
        if method == "cluster-bootstrap" and task.answer_column is not None:
            answers = kept[kept["task"] == task.name]
            answers = answers.assign(value=answers[task.answer_column].astype(float))[
                ["model", "topic", "annotator", "value"]
            ]
            table = cluster_bootstrap_comparison(answers, n_resamples, seed)
        else:
            table = compare_models(groups, task.unit)
        frames.append(table.assign(task=task.name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _pooled_comparisons(kept: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Hoyle et al.'s Fig. 2 tests: pooled over answers (z, Mann-Whitney), t over documents; one-tailed."""
    frames = []
    for task in _tasks():
        if task.answer_column is None:
            part = scores[scores["task"] == task.name]
            groups = {m: g["score"].to_numpy() for m, g in part.groupby("model")}
        else:
            part = kept[kept["task"] == task.name]
            groups = {m: g[task.answer_column].astype(float).to_numpy() for m, g in part.groupby("model")}
        if len(groups) >= 2 and all(len(v) >= 2 for v in groups.values()):
            test = POOLED_TEST[task.answer_level] if task.answer_column is not None else "t"
            frames.append(pairwise_tests(groups, test).assign(task=task.name, note=POOLED_LABEL))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _with_metrics(kept, scores, metrics, n_resamples, seed, progress):
    corr_frames, model_rows, reg_rows = [], [], []
    metric_columns = [c for c in metrics.columns if c not in ("model", "topic", "dataset")]
    for task in _tasks(answered=True):
        part = kept[kept["task"] == task.name]
        if part.empty:
            continue
        answer = str(task.answer_column)
        answers = {key: g[answer].astype(float).to_numpy() for key, g in part.groupby(["model", "topic"])}
        table = metrics.set_index(["model", "topic"])
        keys = [key for key in answers if key in table.index]
        if len(keys) < 3:
            raise InputError(f"fewer than three {task.name} topics have automated metrics; check the model labels")
        human = RaggedScores([answers[key] for key in keys])
        values = table.loc[keys, metric_columns].reset_index(drop=True)
        result = bootstrap_correlations(human, values, "spearman", n_resamples, seed=seed)
        corr_frames.append(
            result.table.rename(columns={"metric_column": "metric", "mean": "spearman"}).assign(task=task.name)
        )
        models = [key[0] for key in keys]
        kind = REGRESSION[task.answer_level]
        for column in metric_columns:
            try:
                value, _ = model_level_correlation(human.means(), values[column].to_numpy(), models)
            except EmptyResultError:
                value = np.nan  # fewer than three models
            model_rows.append({"task": task.name, "metric": column, "pearson": value, "models": len(set(models))})
            fit = regress(human.values, np.repeat(values[column].to_numpy(), human.sizes), kind)
            reg_rows.append({"task": task.name, "metric": column, **fit.to_dict()})
        notify(progress, "correlations", len(corr_frames), 2)
    return pd.concat(corr_frames, ignore_index=True), pd.DataFrame(model_rows), pd.DataFrame(reg_rows)


@renamed_parameters(n_boot="n_resamples")
def analyze_export(
    export: str | os.PathLike[str] | pd.DataFrame,
    metrics: str | os.PathLike[str] | pd.DataFrame | None = None,
    familiar_only: bool = False,
    exclude_failed_checks: bool = True,
    max_failed_share: float = 0.0,
    n_resamples: int = 1000,
    seed: int = 0,
    progress: ProgressCallback | None = None,
    comparison: str = "topic",
    pooled_tests: bool = False,
) -> StudyAnalysis:
    """Analyse a study export (path or frame already checked by :func:`check_export`).

    ``comparison`` chooses how models are compared on each task's scores, the topic (document)
    being the unit either way: ``"topic"``, Welch's two-sided t on the per-topic scores;
    ``"cluster-bootstrap"``, a two-way (topic x annotator) cluster bootstrap with ``n_resamples``
    resamples (word intrusion and ratings; topic intrusion keeps Welch's t over documents).
    ``pooled_tests`` adds ``pooled_comparisons``, Hoyle et al.'s pooled one-tailed tests, which
    treat answers as independent and are only for replicating the paper.

    Parameters
    ----------
    export : str, path-like or pandas.DataFrame
        The export file (:func:`read_export`), or a frame already checked by
        :func:`check_export`.
    metrics : str, path-like or pandas.DataFrame, optional
        Automated metrics per topic (:func:`read_metrics`): adds ``correlations``,
        ``model_correlations`` and ``regressions``.
    familiar_only : bool, optional
        Keep only the answers of annotators familiar with the terms (Hoyle et al. A.7).
    exclude_failed_checks : bool, optional
        Drop the annotators who failed more than ``max_failed_share`` of the attention checks.
    max_failed_share : float, optional
        See :func:`select`.
    n_resamples : int, optional
        Bootstrap resamples of the correlations and of the cluster bootstrap (``n_boot``, its old
        name, is deprecated).
    seed : int, optional
        Seed of every resampling.
    progress : callable, optional
        Called with ``("correlations", done, total)``.
    comparison : {"topic", "cluster-bootstrap"}, optional
        How models are compared, as above.
    pooled_tests : bool, optional
        Also Hoyle et al.'s pooled tests, as above.

    Returns
    -------
    StudyAnalysis

    Raises
    ------
    InputError
        For an unknown ``comparison``, a bad export or metrics file, or metrics for fewer
        than three of a task's topics.
    EmptyResultError
        When no response is left after the filters.

    Examples
    --------
    Three annotators look for the intruders of four topics of each of two models; LDA's
    were found in 10 of 12 answers, NMF's in 3.

    >>> import pandas as pd
    >>> from tealeaves.analysis import check_export
    >>> from tealeaves.study import EXPORT_COLUMNS
    >>> found = {"lda": "111 110 111 101", "nmf": "010 001 100 000"}  # per topic: annotators a1 a2 a3
    >>> rows = [
    ...     (f"a{i + 1}", model, topic, answer == "1")
    ...     for model, topics in found.items()
    ...     for topic, answers in enumerate(topics.split())
    ...     for i, answer in enumerate(answers)
    ... ]
    >>> frame = pd.DataFrame(rows, columns=["annotator", "model", "topic", "correct"])
    >>> frame = frame.assign(task="word-intrusion", item_id=frame.model + "-" + frame.topic.astype(str))
    >>> export = check_export(frame.reindex(columns=list(EXPORT_COLUMNS)))
    >>> from tealeaves.analysis import analyze_export
    >>> analysis = analyze_export(export)
    >>> analysis
    StudyAnalysis(scores=8 rows × 6 columns, models=2 rows × 6 columns, agreement=3 rows × 4 columns, ...)
    >>> print(analysis.comparisons["verdict"][0])
    lda better than nmf (Holm p = 0.00396)
    >>> analysis.agreement[["measure", "value"]].round(4)
                            measure   value
    0          one-vs-rest Spearman  0.2372
    1            split-half Pearson  0.3392
    2  Krippendorff alpha (nominal)  0.1958

    With an automated metric per topic, its correlation with the topics' model precision:

    >>> metrics = pd.DataFrame(
    ...     {"model": ["lda"] * 4 + ["nmf"] * 4, "topic": [0, 1, 2, 3] * 2,
    ...      "npmi": [0.14, 0.10, 0.12, 0.08, -0.02, -0.05, 0.03, 0.04]}
    ... )
    >>> analysis = analyze_export(export, metrics, n_resamples=100)
    >>> analysis.correlations[["metric", "observed", "ci_low", "ci_high"]].round(3)
      metric  observed  ci_low  ci_high
    0   npmi     0.815   0.395    0.902
    """
    if not isinstance(comparison, str) or comparison not in COMPARISONS:
        raise InputError(f"comparison must be one of {COMPARISONS}, got {comparison!r}")
    if not is_count(n_resamples):
        raise InputError(f"n_resamples must be a whole number of at least 1, got {n_resamples!r}")
    responses = read_export(export) if not isinstance(export, pd.DataFrame) else export
    kept = select(responses, exclude_failed_checks, max_failed_share, familiar_only)
    scores = human_scores(kept)
    extra: dict = {}
    if metrics is not None:
        table = read_metrics(metrics) if not isinstance(metrics, pd.DataFrame) else metrics
        correlations, model_correlations, regressions = _with_metrics(
            kept, scores.per_item, table, n_resamples, seed, progress
        )
        extra = {"correlations": correlations, "model_correlations": model_correlations, "regressions": regressions}
    return StudyAnalysis(
        scores=scores.per_item,
        models=scores.per_model,
        agreement=_agreement(kept, seed),
        comparisons=_comparisons(kept, scores.per_item, comparison, n_resamples, seed),
        pooled_comparisons=_pooled_comparisons(kept, scores.per_item) if pooled_tests else pd.DataFrame(),
        settings={
            **kept.attrs["filters"],
            "n_resamples": n_resamples,
            "seed": seed,
            "responses": len(kept),
            "comparison": comparison,
            "unit": "topic (document for topic intrusion)",
        },
        **extra,
    )
