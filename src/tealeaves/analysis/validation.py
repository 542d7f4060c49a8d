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

Whether two metrics correlate equally well is a paired bootstrap test (:func:`paired_bootstrap`,
:func:`resampled_means`): each resample draws the topics with replacement within each
(dataset, model), keeps each drawn topic's observed mean (which already carries its annotators'
noise: resampling the answers inside it as well would count that noise twice), and computes
both metrics' correlations on the same drawn topics. The estimate is the observed difference,
its standard error the resamples' standard deviation, the test two-sided
(:func:`tealeaves.stats.bootstrap_z_test`) with Holm over each data set's pairs;
:meth:`ValidationResult.versus_best` adds Holm and a max-T adjustment
(:func:`tealeaves.stats.max_t_pvalues`) over
the family it returns, and :meth:`ValidationResult.select_and_test` chooses a variant on some
data sets and tests it on the others. ``resample="topics+annotators"`` resamples topics and
annotators crossed, when the answers name their annotators.

Human data sets (:class:`HumanJudgments`): Hoyle et al.'s released files
(:func:`hoyle2021_judgments`: NYT and WIKI, ratings and word intrusion, the resampled answers
behind Table 3), a tealeaves study export (:func:`export_judgments`) or a generic CSV
(:func:`csv_judgments`: answers, mean + std + count, or mean only). Each is a data set of its
own; a summary over data sets weights them explicitly (the leaderboard). Metrics (:class:`Metric`, :func:`parse_metric`): any coherence measure
with a reference index, the embedding measures and embedding word intrusion with an encoder,
the metrics that came with the data (Hoyle's NPMI and C_v), or a CSV of per-topic scores.

The result's tables are tidy (one row per observation, keys first) so that reports can use
them as they are: ``correlations`` (data set x metric x method), ``comparisons`` (data set x
ordered metric pair), ``leaderboard`` (one row per metric), ``topic_values`` (data set x
topic x metric).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tealeaves.analysis.correlation import (
    Method,
    RaggedScores,
    bootstrap_correlations,
    correlate_rows,
    masked_correlations,
    resampled_correlations,
    topic_bootstrap_correlations,
)
from tealeaves.analysis.hoyle2021 import Hoyle2021, load_hoyle2021
from tealeaves.analysis.responses import read_export, select
from tealeaves.deprecation import renamed_attribute, renamed_parameters
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.extras import installed
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Result
from tealeaves.stats.design import minimal_detectable_difference
from tealeaves.stats.multiplicity import holm, max_t_pvalues
from tealeaves.stats.resampling import bootstrap_counts, stratified_indices, weighted_group_means
from tealeaves.stats.result import TestResult
from tealeaves.stats.tests import bootstrap_z_test
from tealeaves.wording import pair_verdict

METHODS: tuple[Method, ...] = ("spearman", "pearson", "kendall")
TOPIC_KEYS = ["dataset", "model", "topic"]
HOYLE_TASKS = {"rating": "rating", "word-intrusion": "intrusion"}
COUNT_OPTIONS = {"topn", "on_missing", "window", "compat"}
VECTOR_OPTIONS = {"topn", "on_missing"}
INTRUSION_OPTIONS = {"draws", "protocol", "on_missing"}
DEFAULT_METRICS = ("embedding", "embedding,topn=5+10", "embedding_centroid", "embedding_intrusion")
REFERENCE_FREE = "reference-free"
REFERENCE_CORPUS = "reference corpus"


@dataclass(frozen=True)
class HumanJudgments:
    """One human data set: each topic's answers to one task, with the topic's words.

    Attributes
    ----------
    name : str
        A label, e.g. ``"NYT rating"``.
    task : str
        ``rating``, ``word-intrusion`` or what a CSV calls its task.
    topics : DataFrame
        One row per topic: ``dataset``, ``model``, ``topic`` and ``words`` (space-separated, in
        rank order when known).
    answers : RaggedScores
        Each topic's answers (per annotator), in the order of ``topics``.
    given : DataFrame
        Metric values that came with the data (Hoyle's NPMI and C_v), aligned with ``topics``;
        no columns otherwise.
    sets : dict
        Per model, the :class:`~tealeaves.intrusion.IntruderSets` the annotators saw (study
        exports; their topics numbered ``0 .. n-1``) and the study's topic id of each; empty
        when unknown, and embedding word intrusion then draws its own sets.
    means_only : bool
        The data give each topic's mean and nothing about its answers (``answers`` then holds
        the one mean per topic): intervals come from the topic bootstrap alone.
    annotators : ndarray or None
        The annotator of each answer, aligned with ``answers.values`` (study exports, CSVs with
        an ``annotator`` column); what the crossed (topic x annotator) resampling needs.

    Examples
    --------
    Human judgments come from :func:`csv_judgments`, :func:`export_judgments` or
    :func:`hoyle2021_judgments`; made directly:

    >>> import pandas as pd
    >>> from tealeaves.analysis import HumanJudgments, RaggedScores
    >>> topics = pd.DataFrame(
    ...     {"dataset": "demo", "model": "lda", "topic": [0, 1, 2], "words": ["tax budget", "war peace", "court law"]}
    ... )
    >>> judgments = HumanJudgments("demo rating", "rating", topics, RaggedScores([[3, 2], [1, 2, 1], [3]]))
    >>> judgments.answers.means().round(4).tolist()
    [2.5, 1.3333, 3.0]
    >>> judgments.words()[1]
    ['war', 'peace']
    """

    name: str
    task: str
    topics: pd.DataFrame
    answers: RaggedScores
    given: pd.DataFrame = field(default_factory=pd.DataFrame)
    sets: dict[str, Any] = field(default_factory=dict)
    means_only: bool = False
    annotators: np.ndarray | None = None

    def __post_init__(self) -> None:
        if len(self.topics) != len(self.answers):
            raise InputError(f"{self.name}: {len(self.topics)} topics for {len(self.answers)} answer groups")
        if self.annotators is not None and len(self.annotators) != len(self.answers.values):
            raise InputError(
                f"{self.name}: {len(self.annotators)} annotator ids for {len(self.answers.values)} answers"
            )

    def strata(self) -> np.ndarray:
        """Each topic's stratum of the topic bootstrap: its (dataset, model), as one label."""
        return (self.topics["dataset"].astype(str) + "\x1f" + self.topics["model"].astype(str)).to_numpy()

    def words(self) -> list[list[str]]:
        """Each topic's words."""
        return [str(w).split() for w in self.topics["words"]]

    def groups(self) -> dict[tuple[str, str], np.ndarray]:
        """Row positions of the topics of each (dataset, model), whose topics lend each other intruders."""
        keys = list(zip(self.topics["dataset"].astype(str), self.topics["model"].astype(str)))
        out: dict[tuple[str, str], list[int]] = {}
        for i, key in enumerate(keys):
            out.setdefault(key, []).append(i)
        return {key: np.array(rows) for key, rows in out.items()}


# ----------------------------------------------------------------------------------- human data
def hoyle2021_judgments(path_or_study: str | os.PathLike[str] | Hoyle2021, familiar_only: bool = False) -> list:
    """Hoyle et al. 2021's four (dataset, task) sets: NYT and WIKI, ratings and word intrusion.

    The answers are those Table 3 is computed from (``all_data.json``: 15 ratings, 26
    intrusion answers per topic), the words each topic's 20 released words, and ``given`` the
    paper's NPMI and C_v for each reference (``NPMI/NYT`` ... ``Cv/Val``, as Table 3). The
    intruder words shown to annotators were not released, so embedding word intrusion draws
    its own sets from these topics.

    Parameters
    ----------
    path_or_study : str, path-like or Hoyle2021
        The release folder (:func:`load_hoyle2021`) or the study loaded from it.
    familiar_only : bool, optional
        Keep only the answers of annotators familiar with the terms (Hoyle et al.'s Table 11).

    Returns
    -------
    list of HumanJudgments
        NYT rating, NYT intrusion, WIKI rating, WIKI intrusion.

    Examples
    --------
    A made-up release of the released files' shape (see :func:`load_hoyle2021`), two topics
    per model:

    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> def model(other, k=2):  # a model's topics, its metrics per reference, its resampled answers
    ...     metrics = {
    ...         f"{m}_{r}": rng.uniform(0, 0.2, k).tolist()
    ...         for m in ("c_npmi_10", "c_v")
    ...         for r in ("full", f"{other}_full", "train", "val")
    ...     }
    ...     for task, top in (("ratings", 3), ("intrusion", 1)):
    ...         metrics[f"{task}_scores_raw"] = rng.integers(top - 1, top + 1, (k, 4)).tolist()
    ...         metrics[f"{task}_confidences_raw"] = [[True, True, False, True]] * k  # familiar?
    ...     return {"topics": [[f"word{i}", f"term{i}"] for i in range(k)], "metrics": metrics}
    >>> data = {d: {m: model(o) for m in ("mallet", "dvae", "etm")} for d, o in (("nytimes", "wikitext"), ("wikitext", "nytimes"))}
    >>> folder = tempfile.TemporaryDirectory()  # a release of the shape of Hoyle et al.'s, made up
    >>> _ = (Path(folder.name) / "all_data.json").write_text(json.dumps(data))
    >>> for d in data:  # one row per respondent, "answer,familiarity" per topic shown
    ...     _ = (Path(folder.name) / f"{d}_ratings.csv").write_text(f',{d}_mallet_0,{d}_dvae_0\\n0,"3,4","1,5"\\n1,"2,4","1,4"\\n')
    ...     _ = (Path(folder.name) / f"{d}_intrusion.csv").write_text(f',{d}_mallet_0,{d}_dvae_0\\n0,"6,7","2,8"\\n1,"6,7","6,7"\\n')
    >>> from tealeaves.analysis import hoyle2021_judgments
    >>> judgments = hoyle2021_judgments(folder.name)
    >>> [j.name for j in judgments]
    ['NYT rating', 'NYT intrusion', 'WIKI rating', 'WIKI intrusion']
    >>> nyt = judgments[0]
    >>> len(nyt.answers), nyt.answers.sizes.tolist()  # 2 topics of 3 models, 4 answers each
    (6, [4, 4, 4, 4, 4, 4])
    >>> list(nyt.given.columns[:4])  # the paper's NPMI for each reference
    ['NPMI/NYT', 'NPMI/WIKI', 'NPMI/Train', 'NPMI/Val']
    >>> folder.cleanup()
    """
    from tealeaves.analysis.replication import TASK_LABELS, _pool

    study = path_or_study if isinstance(path_or_study, Hoyle2021) else load_hoyle2021(path_or_study)
    out = []
    for dataset in ("NYT", "WIKI"):
        for task in ("rating", "word-intrusion"):
            human, given, rows = _pool(study, task, (dataset,), familiar_only)
            topics = rows[TOPIC_KEYS].merge(study.topics, on=TOPIC_KEYS, how="left")
            name = f"{dataset} {TASK_LABELS[task].lower()}"
            out.append(HumanJudgments(name, task, topics, human, given.reset_index(drop=True)))
    return out


def export_judgments(
    export: str | os.PathLike[str] | pd.DataFrame,
    exclude_failed_checks: bool = True,
    familiar_only: bool = False,
    name: str | None = None,
) -> list:
    """A tealeaves study export's rating and word-intrusion answers, one :class:`HumanJudgments` per task.

    Attention checks and the annotators who failed them are dropped as in ``tealeaves analyze``
    (:func:`~tealeaves.analysis.select`). A topic's words are those its rating items showed
    (its top words in rank order), else the topic words of its intrusion sets; the word
    intrusion sets the annotators saw are kept (``sets``), so embedding word intrusion is
    scored on exactly them.

    Parameters
    ----------
    export : str, path-like or pandas.DataFrame
        The export file (:func:`~tealeaves.analysis.read_export`) or a checked frame.
    exclude_failed_checks : bool, optional
        Drop the annotators who failed an attention check.
    familiar_only : bool, optional
        Keep only the answers of annotators familiar with the terms.
    name : str, optional
        The data set's label (default: the file's name, or ``"study"`` for a frame).

    Returns
    -------
    list of HumanJudgments
        One per task that has answers: ratings first, then word intrusion.

    Raises
    ------
    EmptyResultError
        When the export has neither rating nor word-intrusion answers.

    Examples
    --------
    Three annotators look for the intruders of four topics of each of two models:

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
    >>> frame = frame.assign(
    ...     task="word-intrusion",
    ...     item_id=frame.model + "-" + frame.topic.astype(str),
    ...     words=["tax budget court apple", "war peace army apple"] * 12,  # the intruder last
    ...     intruder_position=3,
    ... )
    >>> export = check_export(frame.reindex(columns=list(EXPORT_COLUMNS)))
    >>> from tealeaves.analysis import export_judgments
    >>> [intrusion] = export_judgments(export)
    >>> intrusion.name, intrusion.task, len(intrusion.answers)
    ('study word-intrusion', 'word-intrusion', 8)
    >>> intrusion.answers.means().round(4).tolist()  # each topic's model precision
    [1.0, 0.6667, 1.0, 0.6667, 0.3333, 0.3333, 0.3333, 0.0]
    >>> intrusion.words()[1]  # the topic words shown, without the intruder
    ['war', 'peace', 'army']
    """
    from tealeaves.intrusion import IntruderSet, IntruderSets

    frame = export if isinstance(export, pd.DataFrame) else read_export(export)
    kept = select(frame, exclude_failed_checks, familiar_only=familiar_only)
    label = name or (Path(export).stem if not isinstance(export, pd.DataFrame) else "study")
    words: dict[tuple[str, int], list[str]] = {}
    sets: dict[str, Any] = {}
    intrusion = kept[kept["task"] == "word-intrusion"].drop_duplicates("item_id")
    for model, part in intrusion.groupby("model", sort=False):
        topic_ids = np.unique(part["topic"].astype(int))  # the study's topics of this model, numbered 0..n-1
        local = {int(t): i for i, t in enumerate(topic_ids)}
        items = []
        for draw, row in enumerate(part.itertuples()):
            shown = tuple(str(row.words).split())
            position = int(row.intruder_position)
            items.append(IntruderSet(local[int(row.topic)], draw, shown, position, -1, 0))
            own = words.setdefault((str(model), int(row.topic)), [])
            own.extend(w for i, w in enumerate(shown) if i != position and w not in own)
        sets[str(model)] = (IntruderSets(tuple(items), "study", 0, 0, -1), topic_ids)
    for row in kept[kept["task"] == "rating"].drop_duplicates(["model", "topic"]).itertuples():
        words[(str(row.model), int(row.topic))] = str(row.words).split()
    out = []
    for task, column in (("rating", "response"), ("word-intrusion", "correct")):
        part = kept[kept["task"] == task]
        if part.empty:
            continue
        grouped = {(str(m), int(t)): g for (m, t), g in part.groupby(["model", "topic"])}
        keys = sorted(grouped)
        topics = pd.DataFrame(
            {
                "dataset": label,
                "model": [m for m, _ in keys],
                "topic": [t for _, t in keys],
                "words": [" ".join(words.get(key, [])) for key in keys],
            }
        )
        answers = RaggedScores([grouped[k][column].astype(float).to_numpy() for k in keys])
        annotators = np.concatenate([grouped[k]["annotator"].astype(str).to_numpy() for k in keys])
        out.append(
            HumanJudgments(
                f"{label} {task}",
                task,
                topics,
                answers,
                sets=sets if task == "word-intrusion" else {},
                annotators=annotators,
            )
        )
    if not out:
        raise EmptyResultError(f"{label}: the export holds no rating or word-intrusion answers")
    return out


def csv_judgments(path: str | os.PathLike[str], name: str | None = None) -> list:
    """Human judgments from a generic CSV: one :class:`HumanJudgments` per data set.

    Columns: ``topic`` and ``words`` (the topic's words, space-separated, in rank order);
    optional ``model``, ``dataset``, ``task`` and ``scale`` (e.g. ``1-3``, ``1-5``). A data set
    is one (``dataset``, ``task``, ``scale``): topics rated on different scales are never put in
    one correlation. Three shapes of scores:

    - answers: a ``score`` column, one row per answer (and optionally ``annotator``, which the
      crossed resampling uses);
    - mean, standard deviation and count: one row per topic with ``mean``, ``annotators`` (the
      number of answers) and ``std`` (their standard deviation, ``ddof=0``); the answers are
      rebuilt as ``mean - s`` and ``mean + s`` in equal numbers (plus one at the mean when the
      count is odd, ``s`` chosen so that their standard deviation is ``std``): the same mean
      and standard deviation, so their bootstrap means have the variance ``std^2 / annotators``
      that resampling the real answers gives. From ``mean`` and ``annotators`` alone the
      answers are rebuilt exactly when they are 0/1 (``mean x annotators`` a whole number);
    - mean only: one row per topic with ``mean`` (and an ``annotators`` count that cannot
      rebuild the answers, or none): a means-only data set, whose intervals come from the
      topic bootstrap (:func:`~tealeaves.analysis.topic_bootstrap_correlations`).

    A file with neither ``score`` nor ``mean`` is refused.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    name : str, optional
        The data set's name when the file has no ``dataset`` column (default: the file's
        name without its suffix).

    Returns
    -------
    list of HumanJudgments
        One per (dataset, task, scale).

    Raises
    ------
    InputError
        When the file is missing, lacks ``topic`` or ``words``, or has no numeric ``score``
        or ``mean`` on every row.

    Examples
    --------
    Two topics with each answer on its own row, and the same topics given as mean, count and
    standard deviation: the rebuilt answers have that mean and standard deviation.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.analysis import csv_judgments
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     answers, summary = Path(folder) / "answers.csv", Path(folder) / "summary.csv"
    ...     _ = answers.write_text("topic,words,score\\n0,tax budget,3\\n0,tax budget,2\\n1,war peace,1\\n1,war peace,2\\n")
    ...     _ = summary.write_text("topic,words,mean,annotators,std\\n0,tax budget,2.5,2,0.5\\n1,war peace,1.5,2,0.5\\n")
    ...     [per_answer], [per_topic] = csv_judgments(answers), csv_judgments(summary)
    >>> per_answer.name, per_answer.answers.values.tolist()
    ('answers score', [3.0, 2.0, 1.0, 2.0])
    >>> per_topic.answers.values.tolist(), per_topic.means_only
    ([2.0, 3.0, 1.0, 2.0], False)
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"human judgments file {path} does not exist")
    frame = pd.read_csv(path)
    lacking = {"topic", "words"} - set(frame.columns)
    if lacking:
        raise InputError(f"{path} lacks the column(s) {sorted(lacking)}; it needs topic, words and scores")
    per_answer = "score" in frame.columns
    if not per_answer and "mean" not in frame.columns:
        raise InputError(
            f"{path} has no usable score column: give score (one row per answer), or mean per topic "
            "(with annotators and std when known)"
        )
    column = "score" if per_answer else "mean"
    if not pd.api.types.is_numeric_dtype(frame[column]) or frame[column].isna().any():
        raise InputError(f"{path}: the {column} column must be numeric on every row")
    frame = frame.assign(
        model=frame["model"].astype(str) if "model" in frame else "model",
        dataset=frame["dataset"].astype(str) if "dataset" in frame else (name or path.stem),
        task=frame["task"].astype(str) if "task" in frame else "score",
        scale=frame["scale"].astype(str) if "scale" in frame else "",
    )
    scales = frame.groupby(["dataset", "task"])["scale"].nunique()
    out = []
    for (dataset, task, scale), part in frame.groupby(["dataset", "task", "scale"], sort=False):
        label = f"{dataset} {task}" + (f" ({scale})" if scales[(dataset, task)] > 1 else "")
        topics, answers, annotators = [], [], []
        for (model, topic), rows in part.groupby(["model", "topic"], sort=False):
            topics.append({"dataset": dataset, "model": model, "topic": topic, "words": str(rows["words"].iloc[0])})
            if per_answer:
                answers.append(rows["score"].to_numpy(float))
                annotators.append(rows["annotator"].astype(str).to_numpy() if "annotator" in rows else None)
            else:
                answers.append(_rebuilt_answers(rows.iloc[0]))
        means_only = any(a is None for a in answers)
        if means_only:
            answers = [
                np.array([row_mean]) for row_mean in part.groupby(["model", "topic"], sort=False)["mean"].first()
            ]
        ids = [a for a in annotators if a is not None]
        known = per_answer and len(ids) == len(annotators)
        out.append(
            HumanJudgments(
                label,
                str(task),
                pd.DataFrame(topics),
                RaggedScores(answers),
                means_only=means_only,
                annotators=np.concatenate(ids) if known else None,
            )
        )
    return out


def _rebuilt_answers(row: pd.Series) -> np.ndarray | None:
    """A topic's answers from its mean, count and standard deviation; None when they cannot be rebuilt."""
    mean, n = float(row["mean"]), row.get("annotators", np.nan)
    if pd.isna(n) or not float(n).is_integer() or n < 1:
        return None
    n = int(n)
    hits = mean * n
    std = row.get("std", np.nan)
    if pd.notna(std):
        half, odd = divmod(n, 2)
        spread = float(std) * np.sqrt(n / (2 * half)) if half else 0.0
        return np.array([mean - spread] * half + [mean + spread] * half + [mean] * odd)
    if 0 <= mean <= 1 and abs(hits - round(hits)) < 1e-6:
        k = round(hits)
        return np.array([1.0] * k + [0.0] * (n - k))
    return None


# ---------------------------------------------------------------------------------------- metrics
@dataclass(frozen=True)
class Metric:
    """A metric to validate.

    Attributes
    ----------
    label : str
        Its name in the tables.
    kind : str
        ``coherence`` (a count measure with a reference index, or an embedding measure with an
        encoder), ``embedding_intrusion``, ``given`` (a column of the human data's own metrics)
        or ``table`` (a column of a CSV of per-topic scores).
    measure : str
        The coherence measure, the given column or the CSV column.
    source : str or None
        The reference index folder, the encoder spec or the CSV path.
    options : dict
        ``topn`` (default 10), ``on_missing`` (default "skip" for coherence, "zero" for
        intrusion), ``window``, ``compat`` (count measures), ``draws`` (default 26, the
        intrusion answers per topic in Hoyle et al.), ``protocol`` (default "hoyle").
    family : str
        ``reference-free`` (a pre-trained encoder), ``reference corpus`` (counts or w2v
        vectors of a reference corpus) or ``external``.

    Examples
    --------
    Metrics are usually written as text and parsed by :func:`parse_metric`:

    >>> from tealeaves.analysis import parse_metric
    >>> [metric] = parse_metric("npmi@index,window=20")
    >>> metric
    Metric(label='npmi@index,window=20', kind='coherence', measure='npmi', source='index', options={'window': 20}, family='reference corpus')
    """

    label: str
    kind: str
    measure: str
    source: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    family: str = REFERENCE_FREE


def parse_metric(text: str) -> list[Metric]:
    """Metrics from ``MEASURE[@SOURCE][,KEY=VALUE...]`` or ``csv:PATH``.

    - ``npmi@INDEX``, ``cv@INDEX,window=110``: a coherence measure (any of
      :data:`~tealeaves.coherence.MEASURES`) against a reference index;
    - ``embedding``, ``embedding_centroid@w2v:INDEX``, ``embedding@static:glove.txt,topn=5``,
      ``embedding,topn=5+10`` (the mean of the scores over the top 5 and the top 10 words): an
      embedding measure with an encoder (default ``st:all-MiniLM-L6-v2``);
    - ``embedding_intrusion[@ENCODER][,draws=26,protocol=hoyle]``: embedding word intrusion;
    - ``csv:PATH``: every numeric column of a CSV with ``model``, ``topic`` (and optionally
      ``dataset``) and one column per metric.

    Parameters
    ----------
    text : str
        The spec.

    Returns
    -------
    list of Metric
        One metric, or one per metric column of a CSV.

    Raises
    ------
    InputError
        For an unknown measure, a count measure without an index, a setting that is not
        ``KEY=VALUE`` or a setting the measure does not take.

    Examples
    --------
    >>> from tealeaves.analysis import parse_metric
    >>> [metric] = parse_metric("c_npmi@wiki-index,window=10")  # gensim's name is accepted
    >>> metric.kind, metric.measure, metric.source, metric.options, metric.family
    ('coherence', 'npmi', 'wiki-index', {'window': 10}, 'reference corpus')
    >>> parse_metric("embedding,topn=5+10")[0].options  # the mean over the top 5 and the top 10 words
    {'topn': (5, 10)}
    >>> parse_metric("npmi")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: metric 'npmi': npmi counts a reference corpus; write npmi@INDEX_FOLDER
    """
    from tealeaves.coherence.measures import ALIASES, EMBEDDING_MEASURES, MEASURES

    text = text.strip()
    if text.startswith("csv:"):
        return _csv_metrics(Path(text[4:]))
    head, *pairs = text.split(",")
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InputError(f"metric {text!r}: settings are KEY=VALUE after a comma, got {pair!r}")
        options[key.strip()] = _setting(value.strip())
    measure, _, source = head.partition("@")
    measure = ALIASES.get(measure.lower(), measure.lower())
    source_or_none = source or None
    if measure in MEASURES:
        if source_or_none is None:
            raise InputError(f"metric {text!r}: {measure} counts a reference corpus; write {measure}@INDEX_FOLDER")
        kind, allowed, family = "coherence", COUNT_OPTIONS, REFERENCE_CORPUS
    elif measure in EMBEDDING_MEASURES or measure in ("embedding_intrusion", "intrusion"):
        intrusion = measure in ("embedding_intrusion", "intrusion")
        measure = "embedding_intrusion" if intrusion else measure
        kind, allowed = ("embedding_intrusion", INTRUSION_OPTIONS) if intrusion else ("coherence", VECTOR_OPTIONS)
        family = REFERENCE_CORPUS if (source_or_none or "").startswith("w2v:") else REFERENCE_FREE
    else:
        names = [*MEASURES, *EMBEDDING_MEASURES, "embedding_intrusion"]
        raise InputError(f"unknown metric {measure!r} in {text!r}; choose one of {', '.join(names)}, or csv:PATH")
    unknown = set(options) - allowed
    if unknown:
        raise InputError(f"metric {text!r}: unknown setting(s) {sorted(unknown)}; {measure} takes {sorted(allowed)}")
    return [Metric(text, kind, measure, source_or_none, options, family)]


def _setting(value: str) -> Any:
    """An int, a tuple of ints written ``5+10`` (``topn`` averaged over cardinalities), or the text."""
    parts = value.split("+")
    try:
        numbers = tuple(int(part) for part in parts)
    except ValueError:
        return value
    return numbers[0] if len(numbers) == 1 else numbers


def _csv_metrics(path: Path) -> list[Metric]:
    from tealeaves.analysis.study_analysis import read_metrics

    frame = read_metrics(path)
    return [
        Metric(column, "table", column, str(path), family="external")
        for column in frame.columns
        if column not in ("model", "topic", "dataset")
    ]


def default_metrics() -> list[Metric]:
    """The embedding coherence (pairwise and centroid) and embedding intrusion, default encoder."""
    return [m for text in DEFAULT_METRICS for m in parse_metric(text)]


class _Sources:
    """Encoders and metric tables loaded once per run, shared by every data set."""

    def __init__(self, cache_dir: str | os.PathLike[str] | None):
        self.cache_dir = cache_dir
        self.encoders: dict[str | None, Any] = {}
        self.tables: dict[str, pd.DataFrame] = {}

    def encoder(self, spec: str | None) -> Any:
        from tealeaves.coherence.encoders import get_encoder

        if spec not in self.encoders:
            self.encoders[spec] = get_encoder(spec, cache_dir=self.cache_dir)
        return self.encoders[spec]

    def table(self, path: str) -> pd.DataFrame:
        from tealeaves.analysis.study_analysis import read_metrics

        if path not in self.tables:
            self.tables[path] = read_metrics(path)
        return self.tables[path]


def metric_values(
    metric: Metric, judgments: HumanJudgments, seed: int = 0, sources: _Sources | None = None
) -> tuple[np.ndarray, float]:
    """The metric's value for each topic of ``judgments`` (NaN where it has none), and its coverage.

    Coverage is the share of the scored topic words the metric's index or encoder represents
    (1.0 for given and CSV metrics, which come as they are).
    """
    sources = sources or _Sources(None)
    options = dict(metric.options)
    if metric.kind == "given":
        if metric.measure not in judgments.given:
            return np.full(len(judgments.topics), np.nan), 1.0
        return judgments.given[metric.measure].to_numpy(dtype=np.float64), 1.0
    if metric.kind == "table":
        return _table_values(sources.table(str(metric.source)), metric.measure, judgments.topics), 1.0
    if metric.kind == "embedding_intrusion":
        return _intrusion_values(metric, judgments, seed, sources.encoder(metric.source), options)
    from tealeaves.coherence import score

    words = judgments.words()
    topn = options.pop("topn", 10)
    on_missing = options.pop("on_missing", "skip")
    if metric.measure in ("embedding", "embedding_centroid"):
        result = score(
            words, measure=metric.measure, topn=topn, on_missing=on_missing, encoder=sources.encoder(metric.source)
        )
        return result.per_topic, float(result.encoder["coverage"] if result.encoder else 1.0)
    result = score(words, metric.source, measure=metric.measure, topn=topn, on_missing=on_missing, **options)
    scored = sum(min(len(w), max(np.atleast_1d(topn))) for w in words)
    lacking = sum(1 for _, word, _ in result.missing if word != "*")
    return result.per_topic, 1.0 - lacking / scored


def _table_values(table: pd.DataFrame, column: str, topics: pd.DataFrame) -> np.ndarray:
    keys = ["dataset", "model", "topic"] if "dataset" in table.columns else ["model", "topic"]
    left = topics[keys].astype({"model": str, **({"dataset": str} if "dataset" in keys else {})})
    right = table[[*keys, column]].astype({"model": str, **({"dataset": str} if "dataset" in keys else {})})
    merged = left.merge(right.drop_duplicates(keys), on=keys, how="left")
    return merged[column].to_numpy(dtype=np.float64)


def _intrusion_values(
    metric: Metric, judgments: HumanJudgments, seed: int, encoder: Any, options: dict[str, Any]
) -> tuple[np.ndarray, float]:
    from tealeaves.intrusion import embedding_word_intrusion

    values = np.full(len(judgments.topics), np.nan)
    words, covered, total = judgments.words(), 0.0, 0
    draws, protocol = options.get("draws", 26), options.get("protocol", "hoyle")
    for (_, model), rows in judgments.groups().items():
        topic_ids = judgments.topics["topic"].to_numpy()[rows]
        if model in judgments.sets:
            shown, ids = judgments.sets[model]
            result = embedding_word_intrusion(shown, encoder, on_missing=options.get("on_missing", "zero"))
            by_topic = dict(zip(ids.tolist(), result.per_topic))
            values[rows] = [by_topic.get(int(t), np.nan) for t in topic_ids]
        else:
            result = embedding_word_intrusion(
                [words[i] for i in rows],
                encoder,
                seed,
                draws=draws,
                protocol=protocol,
                on_missing=options.get("on_missing", "zero"),
            )
            values[rows] = result.per_topic
        n = len(result.sets["topic"])
        covered, total = covered + result.encoder["coverage"] * n, total + n
    return values, covered / max(total, 1)


# ------------------------------------------------------------------------------------- statistics
RESAMPLING = {
    "topics": "topics (stratified by dataset and model)",
    "topics+annotators": "topics and annotators (crossed)",
}
ANNOTATOR_INTERVAL = "annotators (topics fixed; Hoyle et al. 2021 Table 3)"


@renamed_parameters(n_boot="n_resamples")
def resampled_means(
    judgment: HumanJudgments, n_resamples: int, seed: int | np.random.Generator, resample: str = "topics"
) -> tuple[np.ndarray, np.ndarray]:
    """``n_resamples`` resamples of (the topics drawn, the drawn topics' mean human scores), ``B x K``.

    ``resample="topics"``: the topics are drawn with replacement within each (dataset, model)
    (:func:`tealeaves.stats.stratified_indices`), each keeping its observed mean: the topic means
    already hold their annotators' noise, so resampling the answers as well would count it twice.
    ``"topics+annotators"`` (crossed designs, needs the annotator of each answer): the topics as
    before and, independently, the annotators with replacement (as many as there are;
    :func:`tealeaves.stats.bootstrap_counts`); a drawn topic's mean weights each answer by its
    annotator's multiplicity (:func:`tealeaves.stats.weighted_group_means`), and is NaN (left out
    of that resample's correlation) when none of its annotators was drawn. Resamples come from the
    ``"paired bootstrap"`` stream family.
    """
    from tealeaves.rng import family_generator

    if resample not in RESAMPLING:
        raise InputError(f"resample must be one of {sorted(RESAMPLING)}, got {resample!r}")
    rng = family_generator(seed, "paired bootstrap")
    drawn = stratified_indices(judgment.strata(), n_resamples, rng)
    human = judgment.answers
    if resample == "topics":
        return drawn, human.means()[drawn]
    if judgment.annotators is None or judgment.means_only:
        raise InputError(
            f"{judgment.name}: crossed resampling needs the annotator of every answer (a study export, or a CSV "
            "with score and annotator columns); use resample='topics'"
        )
    ids, index = np.unique(judgment.annotators, return_inverse=True)
    weight = bootstrap_counts(len(ids), n_resamples, rng)[:, index].astype(np.float64)
    owner = np.repeat(np.arange(len(human)), human.sizes)
    means = weighted_group_means(human.values, owner, len(human), weight)
    return drawn, np.take_along_axis(means, drawn, axis=1)


def _paired(d: np.ndarray, observed: float, n_topics: int, method: str, confidence: float, resample: str) -> TestResult:
    """The normal test and interval of an observed difference of correlations with its bootstrap standard error."""
    return bootstrap_z_test(
        observed,
        d,
        confidence,
        test="paired bootstrap",
        n=n_topics,
        estimand=method,
        resampled=RESAMPLING.get(resample, resample),
    )


@renamed_parameters(n_boot="n_resamples")
def paired_bootstrap(
    human: RaggedScores,
    a: np.ndarray,
    b: np.ndarray,
    method: str = "spearman",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | np.random.Generator = 0,
    strata: np.ndarray | None = None,
) -> TestResult:
    """Do metrics ``a`` and ``b`` correlate equally well with the topics' mean human scores?

    Over the topics both metrics score, the estimate is the observed difference
    :math:`d = r(a) - r(b)` of the two correlations with the mean scores (``method``: Spearman,
    Pearson or Kendall). Each of ``n_resamples`` resamples draws the topics with replacement
    (within ``strata``, e.g. each topic's (dataset, model); one stratum when None), keeps each
    drawn topic's mean, and computes :math:`d^*` on the drawn topics; the standard error is the
    standard deviation of :math:`d^*`. The test of equal correlations is two-sided,
    :math:`p = 2\\Phi(-|d| / \\mathrm{SE})`, with the interval :math:`d \\pm z_{(1+c)/2}\\,\\mathrm{SE}`
    (:func:`tealeaves.stats.bootstrap_z_test`). The resamples come from the ``"paired bootstrap"``
    stream family under ``seed``.

    Parameters
    ----------
    human : RaggedScores
        Each topic's human answers.
    a, b : array-like
        The two metrics' values of each topic (NaN: not scored).
    method : {"spearman", "pearson", "kendall"}, optional
        The correlation.
    n_resamples : int, optional
        Resamples (``n_boot``, its old name, is deprecated).
    confidence : float, optional
        The interval's level.
    seed : int or numpy.random.Generator, optional
        Seed of the resampling.
    strata : array-like, optional
        Each topic's stratum.

    Returns
    -------
    TestResult
        ``test`` is ``"paired bootstrap"``, ``estimand`` the correlation, ``difference`` the
        observed difference, ``n`` the topics both metrics score, ``resampled`` what the
        resamples draw and ``resamples`` their differences (the fields of the deprecated
        ``PairedTest``: ``p_value`` is ``pvalue``, ``observed`` ``difference``, ``n_topics``
        ``n``, ``n_boot`` ``n_resamples``, ``replicates`` ``resamples``, ``method``
        ``estimand``, ``uncertainty`` ``resampled``).

    Raises
    ------
    InputError
        When ``a`` or ``b`` does not have one value per topic.
    EmptyResultError
        With fewer than three topics scored by both metrics.

    Examples
    --------
    On six topics, NPMI's Spearman correlation with the mean ratings (0.941) is 0.243 above
    UMass's (0.698); with six topics that is far from significant.

    >>> from tealeaves.analysis import RaggedScores, paired_bootstrap
    >>> human = RaggedScores([[3, 3, 2], [1, 2], [2, 2, 3, 3], [1, 1, 1], [3, 2], [2, 3]])  # ratings of 6 topics
    >>> npmi = [0.12, 0.02, 0.08, -0.05, 0.10, 0.07]
    >>> umass = [-1.2, -3.0, -1.5, -2.0, -2.5, -1.9]
    >>> test = paired_bootstrap(human, npmi, umass, n_resamples=200, seed=0)
    >>> round(test.difference, 4), round(test.se, 4), round(test.pvalue, 4)
    (0.2429, 0.3441, 0.4803)
    >>> test.n_resamples, test.resamples.shape
    (200, (200,))
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) != len(human) or len(b) != len(human):
        raise InputError(f"metric values for {len(a)} and {len(b)} topics, human answers for {len(human)}")
    ok = np.flatnonzero(np.isfinite(a) & np.isfinite(b))
    if len(ok) < 3:
        raise EmptyResultError("the paired test needs at least three topics that both metrics score")
    means = human.means()[ok]
    topics = pd.DataFrame({"dataset": "", "model": np.zeros(len(ok)) if strata is None else np.asarray(strata)[ok]})
    judgment = HumanJudgments("paired", "", topics.assign(topic=0, words=""), human.take(ok))
    drawn, resampled = resampled_means(judgment, n_resamples, seed)
    d = masked_correlations(resampled, a[ok][drawn], method) - masked_correlations(resampled, b[ok][drawn], method)
    observed = float(correlate_rows(means, a[ok], method)[0] - correlate_rows(means, b[ok], method)[0])  # type: ignore[arg-type]
    return _paired(d, observed, len(ok), method, confidence, "topics")


# --------------------------------------------------------------------------------------- the run
@dataclass(frozen=True)
class ValidationResult(Result):
    """Every metric against every human data set (:func:`validate`); tidy tables.

    Attributes
    ----------
    correlations : DataFrame
        One row per (human data set, metric, method): ``human``, ``task``, ``metric``,
        ``family``, ``method``, ``estimate``, ``ci_low``, ``ci_high``, ``observed`` (on the mean
        scores), ``n_topics``, ``coverage``, ``best``, ``overlaps_best`` (within the data set and
        method) and ``uncertainty``, what the interval resamples: with answers, Hoyle et al.'s
        annotator bootstrap (topics fixed; the estimate is the mean over resamples, as Table 3);
        with means only, the topics (the estimate is the observed correlation).
    comparisons : DataFrame
        One row per (human data set, ordered metric pair): ``metric``, ``versus``, ``method``,
        ``observed`` and ``difference`` (the observed difference of Spearman correlations, the
        estimate), ``se``, ``ci_low``, ``ci_high``, ``p_value`` (two-sided, of equal
        correlations), ``p_holm`` (Holm over the data set's unordered pairs), ``n_topics``,
        ``uncertainty``.
    leaderboard : DataFrame
        One row per metric, best first: ``rank``, ``metric``, ``family``, ``mean_spearman``
        (each data set weighted equally), ``pooled_spearman`` (every topic weighted equally:
        the human scores and the metric ranked within each data set, so that data sets of
        different scales are not mixed), ``min_spearman``, ``datasets``, ``wins`` (data sets
        where it has the largest Spearman), ``mean_coverage``.
    topic_values : DataFrame
        One row per (human data set, topic, metric): keys, ``words``, ``human_mean``,
        ``answers``, ``value``.
    settings : dict
        The run's settings: ``human`` (the data sets' names), ``n_resamples``, ``confidence``,
        ``seed``, the resampling.
    resamples : dict
        Per (human data set, metric, versus), the bootstrap resamples of the difference, which
        the max-T adjustment of :meth:`versus_best` uses (``replicates``, its old name, is
        deprecated).

    Examples
    --------
    Two metrics of a CSV against the mean ratings of eight topics (see :func:`validate`):

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
    >>> result
    ValidationResult(correlations=6 rows × 14 columns, comparisons=2 rows × 14 columns, leaderboard=2 rows × 9 columns, topic_values=16 rows × 10 columns)
    >>> result.spearman_table().round(3)
    human   ratings score
    metric
    npmi            0.976
    umass           0.333
    >>> folder.cleanup()
    """

    correlations: pd.DataFrame
    comparisons: pd.DataFrame
    leaderboard: pd.DataFrame
    topic_values: pd.DataFrame
    settings: dict = field(default_factory=dict)
    resamples: dict = field(default_factory=dict, repr=False)

    replicates = renamed_attribute("resamples")

    TABLES = ("leaderboard", "correlations", "comparisons", "topic_values")

    def to_frame(self) -> pd.DataFrame:
        return self.leaderboard.copy()

    def to_dict(self) -> dict:
        return {"settings": self.settings, **{t: getattr(self, t).to_dict(orient="records") for t in self.TABLES}}

    def spearman_table(self) -> pd.DataFrame:
        """Metrics (rows, leaderboard order) by human data sets (columns): Spearman estimates."""
        spearman = self.correlations[self.correlations["method"] == "spearman"]
        table = spearman.pivot(index="metric", columns="human", values="estimate")
        return table.loc[self.leaderboard["metric"], list(dict.fromkeys(spearman["human"]))]

    def _difference(self, human: str, metric: str, versus: str) -> np.ndarray:
        if (human, metric, versus) in self.resamples:
            return self.resamples[human, metric, versus]
        return -self.resamples[human, versus, metric]

    def versus_best(self, prefix: str, metrics: Sequence[str] | None = None, alpha: float = 0.05) -> pd.DataFrame:
        """Each data set's metrics against its best-correlating metric whose name starts with ``prefix``.

        ``metrics`` limits the rows to those metrics (default: every metric not starting with
        ``prefix``); the rows are the family of tests printed together. Columns: ``human``,
        ``metric``, ``spearman`` (observed), ``baseline`` (the ``prefix`` metric with the largest
        observed Spearman there), ``baseline_spearman``, ``difference`` (observed), ``ci_low``,
        ``ci_high``, ``p_value`` (two-sided), ``p_holm`` (Holm over the rows), ``p_maxt`` (the
        max-T bootstrap adjustment over the rows: each resample's largest
        :math:`|d^* - d| / \\mathrm{SE}` over the family, so that picking the best of several
        variants on these data is accounted for), ``detectable`` (the difference the test finds
        with 80% power at level ``alpha`` over the number of rows), ``verdict``. Empty when no
        metric matches.
        """
        spearman = self.correlations[self.correlations["method"] == "spearman"]
        pairs = self.comparisons.set_index(["human", "metric", "versus"])
        rows, resamples = [], []
        for human, part in spearman.groupby("human", sort=False):
            base = part[part["metric"].str.startswith(prefix)]
            if base.empty:
                continue
            best = base.loc[base["observed"].idxmax()]
            chosen = part[~part["metric"].str.startswith(prefix)]
            if metrics is not None:
                chosen = chosen[chosen["metric"].isin(list(metrics))]
            for row in chosen.itertuples():
                if (human, row.metric, best["metric"]) not in pairs.index:
                    continue
                test = pairs.loc[(human, row.metric, best["metric"])]
                resamples.append(self._difference(str(human), row.metric, best["metric"]))
                rows.append(
                    {
                        "human": human,
                        "metric": row.metric,
                        "spearman": row.observed,
                        "baseline": best["metric"],
                        "baseline_spearman": best["observed"],
                        "difference": test["difference"],
                        "se": test["se"],
                        "ci_low": test["ci_low"],
                        "ci_high": test["ci_high"],
                        "p_value": test["p_value"],
                    }
                )
        frame = pd.DataFrame(rows)
        if frame.empty:
            return frame
        frame["p_holm"] = holm(frame["p_value"].to_numpy())
        frame["p_maxt"] = max_t_pvalues(frame["difference"].to_numpy(), frame["se"].to_numpy(), resamples)
        frame["detectable"] = minimal_detectable_difference(frame["se"].to_numpy(), alpha=alpha / len(frame))
        frame["verdict"] = [
            pair_verdict(
                r.metric,
                r.baseline,
                r.difference,
                r.p_holm,
                r.detectable,
                alpha,
                better="correlates better than",
                untestable="untestable (no variation in the replicates)",
                digits=".2f",
            )
            for r in frame.itertuples()
        ]
        return frame

    def select_and_test(
        self, candidates: Sequence[str], select_on: Sequence[str], baseline: str = "NPMI", alpha: float = 0.05
    ) -> pd.DataFrame:
        """Selection-aware comparison: choose a variant on some data sets, test it on the others.

        Among ``candidates`` (metric labels), the one with the largest mean observed Spearman
        over the data sets whose names start with one of ``select_on`` is chosen; on every other
        data set it is compared with that data set's best ``baseline`` metric
        (:meth:`versus_best`, Holm over those data sets). The test data sets played no part in
        the choice, so their p-values are those of a single pre-specified comparison. One row
        per test data set, with ``chosen``, ``selected_on`` and ``selection_spearman``.
        """
        spearman = self.correlations[self.correlations["method"] == "spearman"]
        names = list(dict.fromkeys(spearman["human"]))
        selection = [h for h in names if any(h.startswith(prefix) for prefix in select_on)]
        tested = [h for h in names if h not in selection]
        if not selection or not tested:
            raise InputError(
                f"select_on {list(select_on)} must name some of the data sets {names} (by prefix) and leave others to test on"
            )
        unknown = set(candidates) - set(spearman["metric"])
        if unknown or not candidates:
            raise InputError(
                f"unknown candidate metric(s) {sorted(unknown)}; choose among {sorted(set(spearman['metric']))}"
            )
        on = spearman[spearman["human"].isin(selection) & spearman["metric"].isin(list(candidates))]
        score = on.groupby("metric")["observed"].mean()
        chosen = str(score.idxmax())
        sub = ValidationResult(
            spearman[spearman["human"].isin(tested)],
            self.comparisons[self.comparisons["human"].isin(tested)],
            self.leaderboard,
            self.topic_values,
            self.settings,
            self.resamples,
        )
        out = sub.versus_best(baseline, [chosen], alpha)
        return out.assign(chosen=chosen, selected_on=", ".join(selection), selection_spearman=float(score[chosen]))


@renamed_parameters(n_boot="n_resamples")
def validate(
    judgments: Sequence[HumanJudgments],
    metrics: Iterable[Metric | str] | None = None,
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
    judgments : sequence of HumanJudgments
        From :func:`hoyle2021_judgments`, :func:`export_judgments`, :func:`csv_judgments`; each
        is a data set of its own (never pooled topic by topic).
    metrics : Metric or str, optional
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
        What the paired tests resample (:func:`resampled_means`): ``"topics"`` (default,
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
    if not judgments:
        raise InputError("no human judgments given: pass --hoyle2021 DIR, a study export or a CSV")
    if n_resamples < 2 or not 0 < confidence < 1:
        raise InputError("n_resamples must be at least 2 and confidence lie in (0, 1)")
    if resample not in RESAMPLING:
        raise InputError(f"resample must be one of {sorted(RESAMPLING)}, got {resample!r}")
    if intervals not in ("hoyle", *RESAMPLING):
        raise InputError(f"intervals must be 'hoyle', 'topics' or 'topics+annotators', got {intervals!r}")
    names = [j.name for j in judgments]
    if len(set(names)) < len(names):
        raise InputError(f"two human data sets share a name ({names}); give each file its own dataset column or name")
    chosen = [m for spec in (default_metrics() if metrics is None else metrics) for m in _as_metrics(spec)]
    given = [
        Metric(c, "given", c, family=REFERENCE_CORPUS) for c in dict.fromkeys(c for j in judgments for c in j.given)
    ]
    all_metrics = _distinct([*given, *chosen])
    sources = _Sources(cache_dir)
    corr_rows, comp_rows, value_frames, dropped, resamples = [], [], [], [], {}
    steps = len(judgments) * (len(all_metrics) + 1)
    for j_index, judgment in enumerate(judgments):
        values: dict[str, np.ndarray] = {}
        coverage: dict[str, float] = {}
        for m_index, metric in enumerate(all_metrics):
            values[metric.label], coverage[metric.label] = metric_values(metric, judgment, seed, sources)
            notify(progress, "validate", j_index * (len(all_metrics) + 1) + m_index + 1, steps, metric=metric.label)
        table = pd.DataFrame(values)
        usable = [c for c in table.columns if np.isfinite(table[c]).sum() >= 3]
        dropped += [{"human": judgment.name, "metric": c} for c in table.columns if c not in usable]
        for method in METHODS:
            frame = _correlations(judgment, table[usable], method, n_resamples, confidence, seed, intervals)
            corr_rows.append(frame.assign(coverage=frame["metric"].map(coverage)))
        frame, reps = _comparisons(judgment, table[usable], n_resamples, confidence, seed, resample)
        comp_rows.append(frame)
        resamples.update(reps)
        value_frames.append(_topic_values(judgment, table))
        notify(progress, "validate", (j_index + 1) * (len(all_metrics) + 1), steps)
    family = {m.label: m.family for m in all_metrics}
    correlations = pd.concat(corr_rows, ignore_index=True)
    correlations = correlations.assign(family=correlations["metric"].map(family))[
        [
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
        ]
    ]
    topic_values = pd.concat(value_frames, ignore_index=True)
    return ValidationResult(
        correlations=correlations,
        comparisons=pd.concat(comp_rows, ignore_index=True),
        leaderboard=_leaderboard(correlations, topic_values),
        topic_values=topic_values,
        settings={
            "n_resamples": n_resamples,
            "confidence": confidence,
            "seed": seed,
            "resample": RESAMPLING[resample],
            "intervals": intervals,
            "human": names,
            "means_only": [j.name for j in judgments if j.means_only],
            "pooled_summary": "mean_spearman weights each data set equally; pooled_spearman weights each topic "
            "equally, human scores and metric values ranked within their data set",
            "metrics": [
                {"label": m.label, "kind": m.kind, "measure": m.measure, "source": m.source, "options": m.options}
                for m in all_metrics
            ],
            "encoders": {str(spec): enc.identity() for spec, enc in sources.encoders.items()},
            "dropped_fewer_than_three_topics": dropped,
        },
        resamples=resamples,
    )


def _as_metrics(spec: Metric | str) -> list[Metric]:
    return [spec] if isinstance(spec, Metric) else parse_metric(spec)


def _distinct(metrics: list[Metric]) -> list[Metric]:
    seen: dict[str, Metric] = {}
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


def _comparisons(
    judgment: HumanJudgments, table: pd.DataFrame, n_resamples: int, confidence: float, seed: int, resample: str
) -> tuple[pd.DataFrame, dict]:
    """Paired tests of every pair of metrics on one set of resamples; Holm over the data set's pairs."""
    drawn, resampled = resampled_means(judgment, n_resamples, seed, resample)
    observed = judgment.answers.means()
    columns = list(table.columns)
    values = {c: table[c].to_numpy(np.float64) for c in columns}
    boots = {c: masked_correlations(resampled, values[c][drawn], "spearman") for c in columns}
    rows, resamples = [], {}
    for i, a in enumerate(columns):
        for b in columns[i + 1 :]:
            ok = np.isfinite(values[a]) & np.isfinite(values[b])
            if ok.all():
                d = boots[a] - boots[b]
            else:  # correlations over the topics both metrics score, as the observed difference
                mask = np.where(ok, 1.0, np.nan)[drawn]
                d = masked_correlations(resampled, values[a][drawn] * mask, "spearman") - masked_correlations(
                    resampled, values[b][drawn] * mask, "spearman"
                )
            r_a, r_b = (correlate_rows(observed[ok], values[c][ok], "spearman")[0] for c in (a, b))
            test = _paired(d, float(r_a - r_b), int(ok.sum()), "spearman", confidence, resample)
            resamples[judgment.name, a, b] = d
            for metric, versus, sign in ((a, b, 1.0), (b, a, -1.0)):
                low, high = (test.ci_low, test.ci_high) if sign > 0 else (-test.ci_high, -test.ci_low)
                rows.append(
                    {
                        "human": judgment.name,
                        "task": judgment.task,
                        "metric": metric,
                        "versus": versus,
                        "method": test.estimand,
                        "observed": sign * test.difference,
                        "difference": sign * test.difference,
                        "se": test.se,
                        "ci_low": low,
                        "ci_high": high,
                        "p_value": test.pvalue,
                        "n_topics": test.n,
                        "uncertainty": test.resampled,
                    }
                )
    frame = pd.DataFrame(rows)
    if not frame.empty:
        unordered = frame.iloc[::2]["p_value"].to_numpy()
        frame["p_holm"] = np.repeat(holm(unordered), 2)
    return frame, resamples


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


# ------------------------------------------------------------------------------------------ output
def write_validation(
    result: ValidationResult, out: str | os.PathLike[str], force: bool = False, parquet: bool = True
) -> Path:
    """Write the tables (CSV, and Parquet when ``parquet`` and pyarrow is installed: ``tealeaves[parquet]``),
    ``validation.json``, the figure and a manifest.

    Parameters
    ----------
    result : ValidationResult
        What :func:`validate` returned.
    out : str or path-like
        The folder to write (written whole or not at all).
    force : bool, optional
        Replace an existing folder.
    parquet : bool, optional
        Also write each table as Parquet, when pyarrow is installed.

    Returns
    -------
    pathlib.Path
        ``out``.

    Examples
    --------
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
    >>> from tealeaves.analysis import write_validation
    >>> out = write_validation(result, Path(folder.name) / "validation", parquet=False)
    >>> sorted(path.relative_to(out).as_posix() for path in out.rglob("*"))  # doctest: +NORMALIZE_WHITESPACE
    ['comparisons.csv', 'correlations.csv', 'figures', 'figures/leaderboard.png', 'figures/leaderboard.svg',
     'leaderboard.csv', 'manifest.json', 'topic_values.csv', 'validation.json']
    >>> folder.cleanup()
    """
    from tealeaves.analysis import figures
    from tealeaves.artifacts import atomic_folder, new_manifest, write_json

    with atomic_folder(out, force=force) as tmp:
        tables = []
        for name in result.TABLES:
            table: pd.DataFrame = getattr(result, name)
            table.to_csv(tmp / f"{name}.csv", index=False)
            tables.append(f"{name}.csv")
            if parquet and installed("pyarrow"):
                table.to_parquet(tmp / f"{name}.parquet", index=False)
                tables.append(f"{name}.parquet")
        write_json(tmp / "validation.json", result.to_dict())
        figs = tmp / "figures"
        figs.mkdir()
        spearman = result.correlations[result.correlations["method"] == "spearman"].rename(
            columns={"estimate": "spearman"}
        )
        rank = {m: i for i, m in enumerate(result.leaderboard["metric"])}
        first = {h: i for i, h in enumerate(result.settings["human"])}
        spearman = spearman.assign(_h=spearman["human"].map(first), _m=spearman["metric"].map(rank))
        spearman = spearman.sort_values(["_h", "_m"])
        figure = figures.leaderboard_bars(
            spearman,
            "human",
            "metric",
            f"Spearman rho with people, {int(result.settings['confidence'] * 100)}% bootstrap CIs "
            "(the correlations table's uncertainty column says over what)",
        )
        written = [p.name for p in figures.save(figure, figs, "leaderboard")]
        write_json(
            tmp / "manifest.json",
            new_manifest("validation", settings=result.settings, tables=tables, figures=written),
        )
    return Path(out)
