"""Validating automated metrics against human judgments: correlations, paired tests, a leaderboard.

For every metric and every human data set, :func:`validate` correlates the metric's per-topic
values with the topics' mean human scores (Spearman's rho, Pearson's r, Kendall's tau-b) and
gives each correlation Hoyle et al.'s (2021, Table 3) 95% bootstrap interval: every replicate
resamples each topic's annotators with replacement, keeping their number
(:func:`~tealeaves.analysis.bootstrap_correlations`; the mean over replicates is the estimate,
as in Table 3). Whether one metric correlates better than another is a paired bootstrap test
(:func:`paired_bootstrap`): each replicate resamples the topics and, within each drawn topic,
its annotators, and computes both metrics' correlations on that same replicate; the one-sided
p-value is the share of replicates in which the first metric does not correlate better,
``(1 + #{d_b <= 0}) / (B + 1)``. (Resampling annotators alone, as Table 3's intervals do, holds
the topics fixed, so it cannot say whether a metric would correlate better on other topics of
the same kind; the topics are resampled for the test.)

Human data sets (:class:`HumanJudgments`): Hoyle et al.'s released files
(:func:`hoyle2021_judgments`: NYT and WIKI, ratings and word intrusion, the resampled answers
behind Table 3), a tealeaves study export (:func:`export_judgments`) or a generic CSV
(:func:`csv_judgments`). Metrics (:class:`Metric`, :func:`parse_metric`): any coherence measure
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

from tealeaves.analysis.correlation import Method, RaggedScores, bootstrap_correlations, correlate_rows
from tealeaves.analysis.hoyle2021 import Hoyle2021, load_hoyle2021
from tealeaves.analysis.responses import read_export, select
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Result

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
    """

    name: str
    task: str
    topics: pd.DataFrame
    answers: RaggedScores
    given: pd.DataFrame = field(default_factory=pd.DataFrame)
    sets: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.topics) != len(self.answers):
            raise InputError(f"{self.name}: {len(self.topics)} topics for {len(self.answers)} answer groups")

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
        grouped = {
            (str(m), int(t)): g[column].astype(float).to_numpy() for (m, t), g in part.groupby(["model", "topic"])
        }
        keys = sorted(grouped)
        topics = pd.DataFrame(
            {
                "dataset": label,
                "model": [m for m, _ in keys],
                "topic": [t for _, t in keys],
                "words": [" ".join(words.get(key, [])) for key in keys],
            }
        )
        judgments = HumanJudgments(f"{label} {task}", task, topics, RaggedScores([grouped[k] for k in keys]))
        out.append(judgments if task == "rating" else _with_sets(judgments, sets))
    if not out:
        raise EmptyResultError(f"{label}: the export holds no rating or word-intrusion answers")
    return out


def _with_sets(judgments: HumanJudgments, sets: dict[str, Any]) -> HumanJudgments:
    return HumanJudgments(judgments.name, judgments.task, judgments.topics, judgments.answers, judgments.given, sets)


def csv_judgments(path: str | os.PathLike[str], name: str | None = None) -> list:
    """Human judgments from a generic CSV: one :class:`HumanJudgments` per (``dataset``, ``task``).

    Columns: ``topic`` and ``words`` (the topic's words, space-separated, in rank order);
    optional ``model``, ``dataset``, ``task``. Then either per-annotator rows, a ``score``
    column (several rows per topic, one per answer), or one row per topic with ``mean`` and
    ``annotators`` (the number of answers) and optionally ``std`` (their standard deviation,
    ``ddof=0``). From a mean and a count alone the answers are rebuilt exactly when they are
    0/1 (``mean x annotators`` a whole number: word intrusion); with ``std`` they are rebuilt
    as ``mean - s`` and ``mean + s`` in equal numbers (plus one answer at the mean when the
    count is odd, ``s`` chosen so that their standard deviation is ``std``): the same mean and
    standard deviation, so their bootstrap means have the variance ``std^2 / annotators`` that
    resampling the real answers gives. Otherwise the CSV is refused: give per-annotator rows
    or ``std``.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"human judgments file {path} does not exist")
    frame = pd.read_csv(path)
    lacking = {"topic", "words"} - set(frame.columns)
    if lacking:
        raise InputError(f"{path} lacks the column(s) {sorted(lacking)}; it needs topic, words and scores")
    per_answer = "score" in frame.columns
    if not per_answer and not {"mean", "annotators"} <= set(frame.columns):
        raise InputError(f"{path} needs a score column (one row per answer) or mean and annotators columns")
    frame = frame.assign(
        model=frame["model"].astype(str) if "model" in frame else "model",
        dataset=frame["dataset"].astype(str) if "dataset" in frame else (name or path.stem),
        task=frame["task"].astype(str) if "task" in frame else "score",
    )
    out = []
    for (dataset, task), part in frame.groupby(["dataset", "task"], sort=False):
        topics, answers = [], []
        for (model, topic), rows in part.groupby(["model", "topic"], sort=False):
            topics.append({"dataset": dataset, "model": model, "topic": topic, "words": str(rows["words"].iloc[0])})
            answers.append(rows["score"].to_numpy(float) if per_answer else _rebuilt_answers(rows.iloc[0], path))
        out.append(HumanJudgments(f"{dataset} {task}", str(task), pd.DataFrame(topics), RaggedScores(answers)))
    return out


def _rebuilt_answers(row: pd.Series, path: Path) -> np.ndarray:
    mean, n = float(row["mean"]), row["annotators"]
    if not float(n).is_integer() or n < 1:
        raise InputError(f"{path}: annotators must be a positive whole number, got {n!r} for topic {row['topic']}")
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
    raise InputError(
        f"{path}: topic {row['topic']}'s answers cannot be rebuilt from mean {mean} and {n} annotators; "
        "add a std column or give one row per answer (score)"
    )


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
    """
    from tealeaves.coherence.embedding import EMBEDDING_MEASURES
    from tealeaves.coherence.measures import ALIASES, MEASURES

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
@dataclass(frozen=True)
class PairedTest(Result):
    """The paired bootstrap test of ``a`` correlating better with people than ``b`` (:func:`paired_bootstrap`)."""

    method: str
    observed: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n_topics: int
    n_boot: int
    replicates: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"replicate": np.arange(len(self.replicates)), "difference": self.replicates})


def two_level_replicates(
    human: RaggedScores, n_boot: int, seed: int | np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``n_boot`` replicates of (topics drawn with replacement, each drawn topic's resampled mean
    answer), from the ``"paired bootstrap"`` stream family of ``seed``."""
    from tealeaves.rng import family_generator

    rng = family_generator(seed, "paired bootstrap")
    k = len(human)
    drawn = rng.integers(k, size=(n_boot, k))
    means = human.take(drawn.ravel()).resampled_means(1, rng)[0].reshape(n_boot, k)
    return drawn, means


def masked_correlations(human: np.ndarray, metric: np.ndarray, method: str) -> np.ndarray:
    """Correlation of each row of ``human`` with the same row of ``metric`` [B, K], over the entries where both are finite."""
    from scipy import stats

    if method not in ("spearman", "pearson"):
        raise InputError(f"the paired test compares spearman or pearson correlations, not {method!r}")
    if np.isfinite(human).all() and np.isfinite(metric).all():
        if method == "spearman":
            human, metric = stats.rankdata(human, axis=1), stats.rankdata(metric, axis=1)
        hc = human - human.mean(axis=1, keepdims=True)
        mc = metric - metric.mean(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (hc * mc).sum(axis=1) / np.sqrt((hc**2).sum(axis=1) * (mc**2).sum(axis=1))
    out = np.empty(len(human))
    for b in range(len(human)):
        ok = np.isfinite(human[b]) & np.isfinite(metric[b])
        out[b] = correlate_rows(human[b, ok], metric[b, ok], method)[0]  # type: ignore[arg-type]
    return out


def paired_bootstrap(
    human: RaggedScores,
    a: np.ndarray,
    b: np.ndarray,
    method: str = "spearman",
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int | np.random.Generator = 0,
) -> PairedTest:
    """Does metric ``a`` correlate better with the mean human scores than metric ``b``?

    Over the topics both metrics score, each of ``n_boot`` replicates draws the topics with
    replacement and, within each drawn topic, its answers with replacement (keeping their
    number), and computes ``d = r(a) - r(b)`` on that replicate (``method``: Spearman or
    Pearson). Returns the observed difference (on the data), the mean of ``d`` with its
    percentile interval, and the one-sided p-value of "a correlates better",
    ``(1 + #{d <= 0}) / (n_boot + 1)``. The replicates come from the ``"paired bootstrap"``
    stream family under ``seed``.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if len(a) != len(human) or len(b) != len(human):
        raise InputError(f"metric values for {len(a)} and {len(b)} topics, human answers for {len(human)}")
    ok = np.flatnonzero(np.isfinite(a) & np.isfinite(b))
    if len(ok) < 3:
        raise EmptyResultError("the paired test needs at least three topics that both metrics score")
    kept = human.take(ok)
    drawn, means = two_level_replicates(kept, n_boot, seed)
    return _paired_from(kept, a[ok], b[ok], drawn, means, method, confidence)


def _paired_from(
    human: RaggedScores,
    a: np.ndarray,
    b: np.ndarray,
    drawn: np.ndarray,
    means: np.ndarray,
    method: str,
    confidence: float,
) -> PairedTest:
    d = masked_correlations(means, a[drawn], method) - masked_correlations(means, b[drawn], method)
    observed = human.means()[None, :]
    diff = masked_correlations(observed, a[None, :], method)[0] - masked_correlations(observed, b[None, :], method)[0]
    return _paired_test(d, float(diff), len(a), method, confidence)


def _paired_test(d: np.ndarray, observed: float, n_topics: int, method: str, confidence: float) -> PairedTest:
    tail = (1 - confidence) / 2
    return PairedTest(
        method=method,
        observed=observed,
        difference=float(np.nanmean(d)),
        ci_low=float(np.nanquantile(d, tail)),
        ci_high=float(np.nanquantile(d, 1 - tail)),
        p_value=float((1 + np.sum(~(d > 0))) / (len(d) + 1)),
        n_topics=n_topics,
        n_boot=len(d),
        replicates=d,
    )


# --------------------------------------------------------------------------------------- the run
@dataclass(frozen=True)
class ValidationResult(Result):
    """Every metric against every human data set (:func:`validate`); tidy tables.

    Attributes
    ----------
    correlations : DataFrame
        One row per (human data set, metric, method): ``human``, ``task``, ``metric``,
        ``family``, ``method``, ``estimate`` (mean over the annotator bootstrap, as Table 3),
        ``ci_low``, ``ci_high``, ``observed`` (on the mean scores), ``n_topics``, ``coverage``,
        ``best`` and ``overlaps_best`` (within the data set and method).
    comparisons : DataFrame
        One row per (human data set, ordered metric pair): ``metric``, ``versus``, ``method``,
        ``observed``, ``difference``, ``ci_low``, ``ci_high``, ``p_value`` (one-sided: metric
        correlates better than versus), ``n_topics``.
    leaderboard : DataFrame
        One row per metric, best first: ``rank``, ``metric``, ``family``, ``mean_spearman``
        over the human data sets, ``min_spearman``, ``datasets``, ``wins`` (data sets where
        it has the largest Spearman), ``mean_coverage``.
    topic_values : DataFrame
        One row per (human data set, topic, metric): keys, ``words``, ``human_mean``,
        ``answers``, ``value``.
    settings : dict
    """

    correlations: pd.DataFrame
    comparisons: pd.DataFrame
    leaderboard: pd.DataFrame
    topic_values: pd.DataFrame
    settings: dict = field(default_factory=dict)

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

    def versus_best(self, prefix: str) -> pd.DataFrame:
        """For each data set and metric, the best-correlating metric whose name starts with ``prefix``.

        Columns: ``human``, ``metric``, ``spearman``, ``baseline`` (the best ``prefix`` metric
        there), ``baseline_spearman``, ``beats`` (larger estimate), ``difference``,
        ``ci_low``, ``ci_high``, ``p_value`` (the paired test). Empty when no metric matches.
        """
        spearman = self.correlations[self.correlations["method"] == "spearman"]
        rows = []
        for human, part in spearman.groupby("human", sort=False):
            base = part[part["metric"].str.startswith(prefix)]
            if base.empty:
                continue
            best = base.loc[base["estimate"].idxmax()]
            for row in part[~part["metric"].str.startswith(prefix)].itertuples():
                test = self.comparisons[
                    (self.comparisons["human"] == human)
                    & (self.comparisons["metric"] == row.metric)
                    & (self.comparisons["versus"] == best["metric"])
                ]
                rows.append(
                    {
                        "human": human,
                        "metric": row.metric,
                        "spearman": row.estimate,
                        "baseline": best["metric"],
                        "baseline_spearman": best["estimate"],
                        "beats": bool(row.estimate > best["estimate"]),
                        **(test[["difference", "ci_low", "ci_high", "p_value"]].iloc[0].to_dict() if len(test) else {}),
                    }
                )
        return pd.DataFrame(rows)


def validate(
    judgments: Sequence[HumanJudgments],
    metrics: Iterable[Metric | str] | None = None,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: ProgressCallback | None = None,
) -> ValidationResult:
    """Correlate every metric with every human data set; test every pair of metrics; rank them.

    Parameters
    ----------
    judgments : sequence of HumanJudgments
        From :func:`hoyle2021_judgments`, :func:`export_judgments`, :func:`csv_judgments`.
    metrics : Metric or str, optional
        Specs for :func:`parse_metric`. Default: :func:`default_metrics` (embedding coherence,
        its centroid variant, embedding word intrusion). The metrics that come with the human
        data (``given``: Hoyle's NPMI and C_v) are always added.
    n_boot : int
        Bootstrap replicates, for the intervals and for the paired tests (Hoyle et al.: 1,000).
    confidence : float
        Of the intervals.
    seed : int
        Seeds the bootstraps and the intruder sets embedding word intrusion draws.
    cache_dir : path, optional
        The encoders' vector cache (default: :func:`~tealeaves.coherence.encoders.default_cache_dir`).

    Returns
    -------
    ValidationResult
    """
    if not judgments:
        raise InputError("no human judgments given: pass --hoyle2021 DIR, a study export or a CSV")
    if n_boot < 1 or not 0 < confidence < 1:
        raise InputError("n_boot must be at least 1 and confidence lie in (0, 1)")
    chosen = [m for spec in (default_metrics() if metrics is None else metrics) for m in _as_metrics(spec)]
    given = [
        Metric(c, "given", c, family=REFERENCE_CORPUS) for c in dict.fromkeys(c for j in judgments for c in j.given)
    ]
    all_metrics = _distinct([*given, *chosen])
    sources = _Sources(cache_dir)
    corr_rows, comp_rows, value_frames, dropped = [], [], [], []
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
            result = bootstrap_correlations(judgment.answers, table[usable], method, n_boot, confidence, seed)
            frame = result.table.rename(columns={"metric_column": "metric", "mean": "estimate"})
            frame = frame.assign(human=judgment.name, task=judgment.task, method=method)
            frame["family"] = frame["metric"].map({m.label: m.family for m in all_metrics})
            frame["coverage"] = frame["metric"].map(coverage)
            corr_rows.append(frame)
        comp_rows.append(_comparisons(judgment, table[usable], n_boot, confidence, seed))
        value_frames.append(_topic_values(judgment, table))
        notify(progress, "validate", (j_index + 1) * (len(all_metrics) + 1), steps)
    correlations = pd.concat(corr_rows, ignore_index=True)[
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
        ]
    ]
    return ValidationResult(
        correlations=correlations,
        comparisons=pd.concat(comp_rows, ignore_index=True),
        leaderboard=_leaderboard(correlations),
        topic_values=pd.concat(value_frames, ignore_index=True),
        settings={
            "n_boot": n_boot,
            "confidence": confidence,
            "seed": seed,
            "human": [j.name for j in judgments],
            "metrics": [
                {"label": m.label, "kind": m.kind, "measure": m.measure, "source": m.source, "options": m.options}
                for m in all_metrics
            ],
            "encoders": {str(spec): enc.identity() for spec, enc in sources.encoders.items()},
            "dropped_fewer_than_three_topics": dropped,
        },
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


def _comparisons(
    judgment: HumanJudgments, table: pd.DataFrame, n_boot: int, confidence: float, seed: int
) -> pd.DataFrame:
    """Paired tests of every ordered pair of metrics, on one set of two-level replicates per pair's topics."""
    rows = []
    columns = list(table.columns)
    drawn, means = two_level_replicates(judgment.answers, n_boot, seed)
    observed = judgment.answers.means()[None, :]
    full = {  # metrics scoring every topic: their replicate correlations, computed once
        c: (masked_correlations(means, x[drawn], "spearman"), masked_correlations(observed, x[None, :], "spearman")[0])
        for c in columns
        if np.isfinite(x := table[c].to_numpy(np.float64)).all()
    }
    for i, a in enumerate(columns):
        for b in columns[i + 1 :]:
            if a in full and b in full:
                test = _paired_test(
                    full[a][0] - full[b][0], float(full[a][1] - full[b][1]), len(table), "spearman", confidence
                )
            else:
                x, y = table[a].to_numpy(np.float64), table[b].to_numpy(np.float64)
                test = paired_bootstrap(judgment.answers, x, y, "spearman", n_boot, confidence, seed)
            for metric, versus, sign in ((a, b, 1.0), (b, a, -1.0)):
                low, high = (test.ci_low, test.ci_high) if sign > 0 else (-test.ci_high, -test.ci_low)
                p = test.p_value if sign > 0 else float((1 + np.sum(~(test.replicates < 0))) / (test.n_boot + 1))
                rows.append(
                    {
                        "human": judgment.name,
                        "task": judgment.task,
                        "metric": metric,
                        "versus": versus,
                        "method": test.method,
                        "observed": sign * test.observed,
                        "difference": sign * test.difference,
                        "ci_low": low,
                        "ci_high": high,
                        "p_value": p,
                        "n_topics": test.n_topics,
                    }
                )
    return pd.DataFrame(rows)


def _topic_values(judgment: HumanJudgments, table: pd.DataFrame) -> pd.DataFrame:
    base = judgment.topics[[*TOPIC_KEYS, "words"]].assign(
        human=judgment.name, task=judgment.task, human_mean=judgment.answers.means(), answers=judgment.answers.sizes
    )
    long = table.assign(_row=np.arange(len(table))).melt(id_vars="_row", var_name="metric", value_name="value")
    merged = base.assign(_row=np.arange(len(base))).merge(long, on="_row").drop(columns="_row")
    return merged[["human", "task", *TOPIC_KEYS, "words", "human_mean", "answers", "metric", "value"]]


def _leaderboard(correlations: pd.DataFrame) -> pd.DataFrame:
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
    board = board.sort_values(["mean_spearman", "metric"], ascending=[False, True], ignore_index=True)
    board.insert(0, "rank", np.arange(1, len(board) + 1))
    return board[["rank", "metric", "family", "mean_spearman", "min_spearman", "datasets", "wins", "mean_coverage"]]


# ------------------------------------------------------------------------------------------ output
def write_validation(
    result: ValidationResult, out: str | os.PathLike[str], force: bool = False, parquet: bool = True
) -> Path:
    """Write the tables (CSV, and Parquet when ``parquet``), ``validation.json``, the figure and a manifest."""
    from tealeaves.analysis import figures
    from tealeaves.artifacts import atomic_folder, new_manifest, write_json

    with atomic_folder(out, force=force) as tmp:
        tables = []
        for name in result.TABLES:
            table: pd.DataFrame = getattr(result, name)
            table.to_csv(tmp / f"{name}.csv", index=False)
            tables.append(f"{name}.csv")
            if parquet:
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
            f"Spearman rho with people, {int(result.settings['confidence'] * 100)}% bootstrap CIs over annotators",
        )
        written = [p.name for p in figures.save(figure, figs, "leaderboard")]
        write_json(
            tmp / "manifest.json",
            new_manifest("validation", settings=result.settings, tables=tables, figures=written),
        )
    return Path(out)
