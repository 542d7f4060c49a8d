"""The result of :func:`~tealeaves.coherence.score` and of :func:`~tealeaves.coherence.embedding_coherence`,
and what both pipelines share to make it: the top-N values asked for, the topics' segment values
averaged per top-N and topic (:func:`aggregate_segments`), and the refusal of missing words.

Both pipelines (counts from a reference index, :mod:`tealeaves.coherence.scoring`; word
vectors, :mod:`tealeaves.coherence.embedding`) segment each topic's top words, give each segment
a value and average: they differ only in where a segment's value comes from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.coherence.measures import EMBEDDING_MEASURES, MEASURES
from tealeaves.coherence.segmentation import SET
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.models import TopicModel, Topics
from tealeaves.results import Columns, dataframe, words_by_topic
from tealeaves.topic_means import PerTopicResult

if TYPE_CHECKING:
    import pandas as pd

WHOLE_TOPIC = "*"  # the word of a ``missing`` entry about a whole topic left unscored
SEGMENT_COLUMNS = ("topic", "topn", "w_prime", "w_star", "value", "count_prime", "count_star", "count_joint")


@dataclass(frozen=True)
class CoherenceResult(PerTopicResult):
    """Coherence of a set of topics under one measure.

    Attributes
    ----------
    measure, window, compat : str
        What was computed (``window`` as ``sliding:10``, ``document`` or ``context:5``; for
        the embedding measures, which have no window, the encoder's spec).
    conventions : dict
        :class:`Conventions` in force (log base, epsilon, smoothing, zero-pair value, gamma).
    topn : tuple of int or None
        The top-N word counts averaged over (None: every word of each topic).
    topics : tuple of tuple of str
        The scored words of each topic (the longest top-N).
    per_topic : float64[K]
        Each topic's score: the mean over ``topn`` of its per-N scores. NaN for a topic that
        ``on_missing="skip"`` left with fewer than two words at some top-N (listed in
        ``missing`` with the word ``"*"``); see :attr:`unscored`.
    per_topic_by_topn, std : float64[len(topn), K]
        Per top-N: the mean and the standard deviation of the topic's segment values (NaN
        where the topic is not scored).
    support : int64[len(topn), K]
        Per top-N: the number of segments averaged (0 where the topic is not scored).
    model_mean : float
        Mean of ``per_topic`` over the scored topics.
    n_windows : int
        Windows in the reference corpus (context windows: (centre, context) pairs); 0 for
        the embedding measures.
    missing : tuple of (topic, word, reason)
        Topic words the index (or the encoder) lacks, and how ``on_missing`` treated them;
        under "skip" also ``(topic, "*", reason)`` for each topic and top-N left unscored.
    on_missing : str
    index : dict
        The reference corpus: fingerprint, documents, tokens (empty for the embedding measures).
    segments : dict of column arrays
        One row per segment (see :meth:`to_frame`).
    encoder : dict or None
        The embedding measures' encoder: ``spec``, ``identity``, ``coverage`` (the share of
        the scored topic words it represents), ``words`` and ``words_found`` (distinct topic
        words), ``encoded`` (words computed rather than read from the cache). None otherwise.

    Examples
    --------
    NPMI of two topics over three documents (as in :func:`score`): each topic has two
    segments, one per ordered pair of its words.

    >>> from tealeaves.coherence import RefIndex, score
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab))
    >>> result = score([["tax", "budget"], ["war", "peace"]], index, measure="npmi", window="document")
    >>> result.measure, result.window, result.n_windows, round(result.model_mean, 4)
    ('npmi', 'document', 3, 0.6845)
    >>> segments = result.columns()
    >>> segments["w_prime"].tolist(), segments["count_joint"].tolist()  # "war" and "peace" share 1 document
    (['tax', 'budget', 'war', 'peace'], [2, 2, 1, 1])
    >>> result.topic_columns()["words"]
    ['tax budget', 'war peace']
    """

    measure: str
    window: str
    compat: str | None
    conventions: dict[str, Any]
    topn: tuple[int | None, ...]
    topics: tuple[tuple[str, ...], ...]
    per_topic: np.ndarray
    per_topic_by_topn: np.ndarray
    std: np.ndarray
    support: np.ndarray
    model_mean: float
    n_windows: int
    missing: tuple[tuple[int, str, str], ...]
    on_missing: str
    index: dict[str, Any]
    segments: dict[str, np.ndarray]
    encoder: dict[str, Any] | None = None

    def summary(self) -> dict[str, Any]:
        """The default summary, with the topic words the policy left out or scored 0 and the topics left unscored.

        The default is :meth:`PerTopicResult.summary <tealeaves.topic_means.PerTopicResult.summary>`'s (the
        model mean with its named interval); the words are listed under ``skipped words`` or ``words scored
        0``, by topic.
        """
        values = super().summary()
        if self.missing:
            name = {"skip": "skipped words", "zero": "words scored 0"}.get(self.on_missing, "missing words")
            values[name] = words_by_topic(self.missing)
        if len(self.unscored):
            values["topics not scored"] = " ".join(map(str, self.unscored))
        return values

    def value_bounds(self) -> tuple[float, float] | None:
        """The measure's range (:attr:`Measure.bounds`: NPMI and the cosines [-1, 1]; None for UCI, UMass, LCP)."""
        return (MEASURES.get(self.measure) or EMBEDDING_MEASURES[self.measure]).bounds

    @property
    def unscored(self) -> np.ndarray:
        """Indices of the topics without a score (NaN in ``per_topic``), ``missing`` says why."""
        return np.flatnonzero(np.isnan(self.per_topic))

    def columns(self) -> Columns:
        """One row per segment: topic, topn (words scored), W', W* (``*``: the whole topic),
        value, and the counts behind it (``count_star``/``count_joint`` are -1 for ``*``; all
        three are -1 for the embedding measures, which count nothing)."""
        return {name: self.segments[name] for name in SEGMENT_COLUMNS}

    def topics_frame(self) -> pd.DataFrame:
        """One row per topic: its score, its words and per top-N mean, std and support."""
        return dataframe(self.topic_columns())

    def topic_columns(self) -> Columns:
        """:meth:`topics_frame` as columns (what a notebook shows the first rows of)."""
        columns: Columns = {"topic": np.arange(len(self.topics)), "value": self.per_topic}
        for t, n in enumerate(self.topn):
            label = f"top{n}" if n is not None else "all"
            columns[label] = self.per_topic_by_topn[t]
            columns[f"{label}_std"] = self.std[t]
            columns[f"{label}_support"] = self.support[t]
        columns["words"] = [" ".join(words) for words in self.topics]
        return columns


@dataclass(frozen=True)
class Segments:
    """One topic's segment values at one top-N, with the counts behind them (-1: not a count)."""

    values: np.ndarray
    prime: np.ndarray
    star: np.ndarray
    count_prime: np.ndarray
    count_star: np.ndarray
    count_joint: np.ndarray


def aggregate_segments(
    scored: Topics,
    present: list[np.ndarray],
    topns: list[int | None],
    on_missing: str,
    missing: list[tuple[int, str, str]],
    evaluate: Callable[[int, np.ndarray], Segments],
) -> dict[str, Any]:
    """Per top-N and topic, the mean, std and support of the segments ``evaluate(k, slots)`` gives.

    ``slots`` are the positions of topic ``k``'s words scored at that top-N (:func:`_top_slots`);
    a topic that "skip" leaves with fewer than two words gets NaN and a ``(k, "*", why)`` entry
    appended to ``missing``. Returns the :class:`CoherenceResult` fields ``per_topic``,
    ``per_topic_by_topn``, ``std``, ``support``, ``model_mean`` and ``segments``; raises
    EmptyResultError when no topic is scored.
    """
    columns: dict[str, list[np.ndarray]] = {name: [] for name in SEGMENT_COLUMNS}
    by_topn = np.zeros((len(topns), len(scored)))
    std = np.zeros_like(by_topn)
    support = np.zeros((len(topns), len(scored)), dtype=np.int64)
    for t, n in enumerate(topns):
        for k in range(len(scored)):
            keep = _top_slots(scored.words[k], present[k], n, on_missing, k)
            if len(keep) < 2:  # only under "skip": the topic is not scored at this top-N
                by_topn[t, k] = std[t, k] = np.nan
                missing.append((k, WHOLE_TOPIC, _too_few(len(keep), n)))
                continue
            seg = evaluate(k, keep)
            by_topn[t, k], std[t, k], support[t, k] = seg.values.mean(), seg.values.std(), len(seg.values)
            _append_segments(columns, k, len(keep), np.asarray(scored.words[k], dtype=object)[keep], seg)

    per_topic = by_topn.mean(axis=0)
    if np.isnan(per_topic).all():
        k, _, why = next(entry for entry in missing if entry[1] == WHOLE_TOPIC)
        raise EmptyResultError(
            f'no topic can be scored with on_missing="skip" (topic {k} {why}); use a reference corpus or an '
            'encoder with these words, a larger topn or on_missing="zero"'
        )
    return {
        "per_topic": per_topic,
        "per_topic_by_topn": by_topn,
        "std": std,
        "support": support,
        "model_mean": float(np.nanmean(per_topic)),
        "segments": {name: np.concatenate(parts) if parts else np.asarray([]) for name, parts in columns.items()},
    }


def topn_values(topn: int | Sequence[int] | None, topics: Any) -> list[int | None]:
    """The top-N values a score averages over: ``topn`` checked, or its default (10 for a model,
    every word (None) for word lists)."""
    if topn is None:
        return [10] if isinstance(topics, TopicModel) else [None]
    values: list[Any] = list(topn) if isinstance(topn, (list, tuple, np.ndarray)) else [topn]
    if not values or any(not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 2 for n in values):
        raise InputError(f"topn must be an integer of at least 2, or a list of them; got {topn!r}")
    return [int(n) for n in values]


def refuse_missing(missing: list[tuple[int, str, str]], holder: str, remedy: str, reasons: bool = True) -> None:
    """The error of ``on_missing="error"``: how many topic words ``holder`` (e.g. "are missing from
    the reference index"), the first ten with their topic (and why, with ``reasons``), and the ``remedy``."""
    shown = "; ".join(f"{w!r} (topic {k}, {why})" if reasons else f"{w!r} (topic {k})" for k, w, why in missing[:10])
    more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
    raise InputError(f"{len(missing)} topic word(s) {holder}: {shown}{more}. {remedy}")


def _too_few(kept: int, n: int | None) -> str:
    among = f"among its top {n}" if n is not None else "among all its words"
    found = f"{kept} word" + ("" if kept == 1 else "s")
    return f"has only {found} found in the reference corpus {among}; coherence needs two (not scored)"


def _top_slots(words: Sequence[str], present: np.ndarray, n: int | None, on_missing: str, k: int) -> np.ndarray:
    """Positions of the words scored at top-N: the first N, less missing ones under "skip".

    Fewer than two positions are returned only under "skip" (the caller leaves the topic
    unscored); otherwise they are refused.
    """
    slots = np.arange(len(words) if n is None else n)
    if on_missing == "skip":
        return slots[present[slots]]
    if len(slots) < 2:
        raise InputError(f"topic {k} {_too_few(len(slots), n)}; give every topic at least two words")
    return slots


def _append_segments(
    columns: dict[str, list[np.ndarray]], k: int, n_words: int, names: np.ndarray, seg: Segments
) -> None:
    """One topic's segments as the next rows of the ``columns`` of :func:`aggregate_segments` (``names``: its
    scored words, in the order the segments' positions refer to)."""
    rows = len(seg.values)
    columns["topic"].append(np.full(rows, k, dtype=np.int64))
    columns["topn"].append(np.full(rows, n_words, dtype=np.int64))
    columns["w_prime"].append(names[seg.prime])
    columns["w_star"].append(np.where(seg.star == SET, "*", names[np.maximum(seg.star, 0)]))
    columns["value"].append(np.asarray(seg.values, dtype=np.float64))
    for name in ("count_prime", "count_star", "count_joint"):
        columns[name].append(np.asarray(getattr(seg, name), dtype=np.int64))
