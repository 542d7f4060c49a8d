"""Each metric's value for each topic of a human data set (:func:`metric_values`), and its coverage.

A coherence measure and embedding word intrusion are computed by their metric of
:mod:`tealeaves.metrics` (the dispatch ``tealeaves evaluate`` and ``sweep`` share); the metrics
that came with the data (``given``) and the columns of a CSV of per-topic scores (``table``) are
read as they are. Encoders and CSV tables load once per run (:class:`MetricSources`).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd

from tealeaves.analysis.judgments import HumanJudgments
from tealeaves.analysis.metric_specs import MetricSpec

COHERENCE_DEFAULTS: dict[str, Any] = {"topn": 10, "on_missing": "skip"}
"""Validate's defaults for a coherence measure: its top 10 words, a word the reference lacks left out
(the measure's own window, unlike ``evaluate``'s NPMI and C_V, which fix theirs)."""


class MetricSources:
    """Encoders and metric tables loaded once per run, shared by every data set.

    Parameters
    ----------
    cache_dir : path, optional
        The encoders' vector cache (default: :func:`~tealeaves.coherence.encoders.default_cache_dir`).
    """

    def __init__(self, cache_dir: str | os.PathLike[str] | None):
        self.cache_dir = cache_dir
        self.encoders: dict[str | None, Any] = {}
        self.tables: dict[str, pd.DataFrame] = {}

    def encoder(self, spec: str | None) -> Any:
        """The encoder of ``spec`` (:func:`~tealeaves.coherence.encoders.get_encoder`), made once."""
        from tealeaves.coherence.encoders import get_encoder

        if spec not in self.encoders:
            self.encoders[spec] = get_encoder(spec, cache_dir=self.cache_dir)
        return self.encoders[spec]

    def table(self, path: str) -> pd.DataFrame:
        """The CSV of per-topic scores at ``path`` (:func:`~tealeaves.analysis.read_metrics`), read once."""
        from tealeaves.analysis.study_analysis import read_metrics

        if path not in self.tables:
            self.tables[path] = read_metrics(path)
        return self.tables[path]


def metric_values(
    metric: MetricSpec, judgments: HumanJudgments, seed: int = 0, sources: MetricSources | None = None
) -> tuple[np.ndarray, float]:
    """The metric's value for each topic of ``judgments`` (NaN where it has none), and its coverage.

    Coverage is the share of the scored topic words the metric's index or encoder represents
    (1.0 for given and CSV metrics, which come as they are). A coherence measure or embedding
    word intrusion is computed by its metric of :mod:`tealeaves.metrics` (:func:`~tealeaves.metrics.get_metric`),
    the computation ``tealeaves evaluate`` and ``sweep`` use, with validate's defaults: the top
    10 words, ``on_missing="skip"`` for coherence; the registered ``embedding_intrusion``'s
    (Hoyle et al.'s protocol, 26 sets per topic, ``on_missing="zero"``) for intrusion.

    Parameters
    ----------
    metric : MetricSpec
        What :func:`~tealeaves.analysis.parse_metric` read.
    judgments : HumanJudgments
        The data set whose topics are scored.
    seed : int, optional
        Seeds the intruder sets embedding word intrusion draws.
    sources : MetricSources, optional
        Encoders and tables already loaded.

    Returns
    -------
    tuple of (ndarray, float)
        One value per topic of ``judgments``, and the coverage.

    Examples
    --------
    NPMI of three topics against a reference index where "army" never occurs:

    >>> import pandas as pd
    >>> from tealeaves.analysis import HumanJudgments, RaggedScores, parse_metric
    >>> from tealeaves.analysis.topic_metrics import metric_values
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> _ = RefIndex.build(Corpus.from_documents([[0, 1], [0, 1, 2], [2, 3]], vocab), out=f"{folder.name}/index")
    >>> topics = pd.DataFrame({"dataset": "d", "model": "m", "topic": [0, 1, 2], "words": ["tax budget", "war peace", "war army"]})
    >>> judgments = HumanJudgments("d rating", "rating", topics, RaggedScores([[3], [2], [1]]))
    >>> [npmi] = parse_metric(f"npmi@{folder.name}/index,window=document,topn=2")
    >>> values, coverage = metric_values(npmi, judgments)
    >>> values.round(4).tolist(), coverage  # the third topic keeps one word: not scored
    ([1.0, 0.3691, nan], 0.8333333333333334)
    >>> folder.cleanup()
    """
    from tealeaves.coherence.measures import EMBEDDING_MEASURES
    from tealeaves.metrics import Inputs, get_metric

    sources = sources or MetricSources(None)
    if metric.kind == "given":
        if metric.measure not in judgments.given:
            return np.full(len(judgments.topics), np.nan), 1.0
        return judgments.given[metric.measure].to_numpy(dtype=np.float64), 1.0
    if metric.kind == "table":
        return _table_values(sources.table(str(metric.source)), metric.measure, judgments.topics), 1.0
    if metric.kind == "embedding_intrusion":
        return _intrusion_values(metric, judgments, seed, sources.encoder(metric.source))
    if metric.kind == "wi_auto":
        return _wi_auto_values(metric, judgments, seed)
    options = {**COHERENCE_DEFAULTS, **metric.options}
    if metric.measure in EMBEDDING_MEASURES:
        inputs, options["encoder"] = Inputs(), sources.encoder(metric.source)
    else:
        inputs = Inputs(index=metric.source)
    words = judgments.words()
    measured = get_metric(metric.measure).compute(words, inputs, seed, **options)
    coverage = 1.0 if measured.coverage is None else measured.coverage  # a metric that reads no vocabulary
    return measured.topic_values(metric.measure, len(words)), coverage


def _table_values(table: pd.DataFrame, column: str, topics: pd.DataFrame) -> np.ndarray:
    keys = ["dataset", "model", "topic"] if "dataset" in table.columns else ["model", "topic"]
    left = topics[keys].astype({"model": str, **({"dataset": str} if "dataset" in keys else {})})
    right = table[[*keys, column]].astype({"model": str, **({"dataset": str} if "dataset" in keys else {})})
    merged = left.merge(right.drop_duplicates(keys), on=keys, how="left")
    return merged[column].to_numpy(dtype=np.float64)


def _intrusion_groups(judgments: HumanJudgments) -> dict[str, tuple[np.ndarray, Any, np.ndarray | None]]:
    """Per (dataset, model): its row positions, what word intrusion scores (the
    :class:`~tealeaves.intrusion.IntruderSets` people saw where the data has them, else the topics'
    words, from which sets are drawn) and, for shown sets, the study's topic id of each of their topics."""
    words, groups = judgments.words(), {}
    for (dataset, model), rows in judgments.groups().items():
        key = f"{dataset}/{model}"
        if model in judgments.sets:
            shown, ids = judgments.sets[model]
            groups[key] = (rows, shown, ids)
        else:
            groups[key] = (rows, [words[i] for i in rows], None)
    return groups


def _place(
    values: np.ndarray, rows: np.ndarray, ids: np.ndarray | None, per_topic: np.ndarray, topics: pd.DataFrame
) -> None:
    """Write one group's per-topic values into ``values`` at ``rows`` (by study topic id for shown sets)."""
    if ids is None:
        values[rows] = per_topic
    else:
        by_topic = dict(zip(ids.tolist(), per_topic))
        values[rows] = [by_topic.get(int(t), np.nan) for t in topics["topic"].to_numpy()[rows]]


def _intrusion_values(
    metric: MetricSpec, judgments: HumanJudgments, seed: int, encoder: Any
) -> tuple[np.ndarray, float]:
    """Embedding word intrusion of each (dataset, model)'s topics: on the sets people saw where the data
    has them, else on sets drawn from the topics' words; the coverage weighted by the sets."""
    from tealeaves.metrics import Inputs, get_metric

    intrusion = get_metric("embedding_intrusion")
    options = {**intrusion.defaults, **metric.options, "encoder": encoder}
    values = np.full(len(judgments.topics), np.nan)
    covered, total = 0.0, 0
    for rows, scored, ids in _intrusion_groups(judgments).values():
        measured = intrusion.compute(scored, Inputs(), seed, **options)
        per_topic = measured.topic_values("embedding_intrusion", len(rows) if ids is None else len(ids))
        _place(values, rows, ids, per_topic, judgments.topics)
        n = len(measured.result.sets["topic"])
        covered, total = covered + measured.coverage * n, total + n
    return values, covered / max(total, 1)


def _wi_auto_values(metric: MetricSpec, judgments: HumanJudgments, seed: int) -> tuple[np.ndarray, float]:
    """WI-Auto (Lau et al. 2014) of every topic, the (dataset, model) groups ranked by one pooled SVM
    per fold (the registered ``wi-auto``, :func:`~tealeaves.intrusion.compare_word_intrusion`): on
    the sets people saw where the data has them, so the machine meets the intruders the annotators
    met, else on sets drawn from the topics' words (seeded by ``seed``). Coverage: the share of the
    distinct (topic, set word) pairs the reference index has."""
    from tealeaves.metrics import Inputs, get_metric

    wi_auto = get_metric("wi-auto")
    options = {**wi_auto.defaults, **metric.options}
    output = f"wi_auto_{options.pop('association', 'pmi')}"
    groups = _intrusion_groups(judgments)
    measured = wi_auto.compute(
        {key: scored for key, (_, scored, _) in groups.items()}, Inputs(index=metric.source), seed, **options
    )
    values = np.full(len(judgments.topics), np.nan)
    pairs, lacking = 0, 0
    for key, (rows, _, ids) in groups.items():
        result = measured[key].result
        _place(values, rows, ids, measured[key].topic_values(output, len(result.per_topic)), judgments.topics)
        pairs += len({(t, w) for t, words in zip(result.sets["topic"], result.sets["words"]) for w in words.split()})
        lacking += len(result.missing)
    return values, 1.0 - lacking / max(pairs, 1)
