"""Human judgments to validate metrics against: one :class:`HumanJudgments` per data set.

Hoyle et al.'s released files (:func:`hoyle2021_judgments`: NYT and WIKI, ratings and word
intrusion, the resampled answers behind Table 3), a tealeaves study export
(:func:`export_judgments`) or a generic CSV (:func:`csv_judgments`: answers, mean + std + count,
or mean only). Each is a data set of its own: :func:`tealeaves.analysis.validate` never pools
topics of two data sets in one correlation.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tealeaves.analysis.correlation import RaggedScores
from tealeaves.analysis.hoyle2021 import Hoyle2021, load_hoyle2021
from tealeaves.analysis.responses import read_csv_table, read_export, select
from tealeaves.errors import EmptyResultError, InputError, describe

TOPIC_KEYS = ["dataset", "model", "topic"]


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
        Each topic's answers (per annotator), in the order of ``topics``; a list of each topic's answers
        is made one.
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
        if not isinstance(self.topics, pd.DataFrame) or not {*TOPIC_KEYS, "words"} <= set(self.topics.columns):
            raise InputError(
                f"{self.name}: topics must be a DataFrame with the columns {', '.join([*TOPIC_KEYS, 'words'])}, "
                f"got {describe(self.topics)}"
            )
        if not isinstance(self.answers, RaggedScores):  # each topic's answers as lists, as the example writes them
            object.__setattr__(self, "answers", RaggedScores(self.answers))
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
    frame = read_csv_table(path, "human judgments file")
    if frame.empty:
        raise InputError(f"{path} has no rows of judgments under its header")
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
