"""Automated word intrusion from word vectors, without a reference corpus.

Chang et al.'s (2009, §3.1) word-intrusion task with the machine as the annotator, as WI-Auto
(Lau et al. 2014; :mod:`tealeaves.intrusion.automated`), but the machine's pick needs no
counts and no training: it is the word *farthest from the others*, the word of the set whose
mean cosine similarity with the other words is lowest,

    pick(S) = argmin_{w in S} 1 / (|S| - 1) sum_{v in S, v != w} cos(e(w), e(v)),

with ``e`` a word encoder (:mod:`tealeaves.coherence.encoders`; default the offline
``st:all-MiniLM-L6-v2``). A topic's score is the share of its sets whose true intruder is
picked (model precision with the machine as the only annotator); ties at the lowest value
share the hit, ``1 / t`` for ``t`` tied words (:func:`~tealeaves.intrusion.first_place_share`),
so a set whose words cannot be told apart scores chance, 1/6. The model's score is the mean
over topics.

The sets are those of the human task and of WI-Auto: :func:`~tealeaves.intrusion.intruder_sets`
with the same ``draws``, ``protocol``, ``low_rank``, ``high_rank`` and ``seed`` (so
``auto_word_intrusion`` with that seed scores exactly these sets), or ready-made
:class:`~tealeaves.intrusion.IntruderSets` (those a study showed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.coherence.embedding import NOT_ENCODED
from tealeaves.coherence.encoders import Encoder, get_encoder
from tealeaves.coherence.measures import unit_rows
from tealeaves.errors import InputError
from tealeaves.intrusion.automated import CHANG_ANNOTATORS, TopicsLike, _per_topic, _shown_words, first_place_share
from tealeaves.intrusion.intruders import IntruderSets, Protocol, intruder_sets
from tealeaves.missing import ZERO, OnMissingZero, check_on_missing
from tealeaves.models import as_model
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Columns, dataframe
from tealeaves.rng import as_seed
from tealeaves.topic_means import PerTopicResult

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class EmbeddingIntrusionResult(PerTopicResult):
    """Word intrusion by word vectors (:func:`embedding_word_intrusion`).

    Attributes
    ----------
    per_topic : float64[K]
        Each topic's share of sets whose intruder the machine picks.
    model_mean : float
        Mean of ``per_topic``.
    topics : tuple of tuple of str
        Each topic's shown words (its top words, most probable first, when known).
    similarity : float64[S, n]
        Every word's mean cosine with the other words of its set, in display order.
    sets : dict of column arrays
        One row per set (see :meth:`to_frame`).
    encoder : dict
        ``spec``, ``identity``, ``coverage`` (the share of the sets' words it represents),
        ``encoded`` (words computed rather than read from the cache).
    missing : tuple of (topic, word, reason)
        Words the encoder does not represent, scored with a zero vector (``on_missing="zero"``).
    settings : dict
        draws, protocol, low_rank, high_rank, seed, on_missing.

    Examples
    --------
    Two-dimensional vectors, one direction per topic:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import StaticEncoder
    >>> from tealeaves.intrusion import embedding_word_intrusion
    >>> topics = [["tax", "budget", "deficit", "spending", "revenue"], ["war", "peace", "army", "soldier", "battle"]]
    >>> lines = [f"{w} 1 0.1" for w in topics[0]] + [f"{w} 0.1 1" for w in topics[1]]  # GloVe text format
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "vectors.txt").write_text("\\n".join(lines) + "\\n")
    ...     encoder = StaticEncoder(str(Path(tmp) / "vectors.txt"), cache_dir=tmp)
    ...     result = embedding_word_intrusion(topics, encoder, seed=0, draws=2)
    >>> result.similarity[0].round(3)  # the intruder "soldier" (position 4) is farthest from the others
    array([0.84 , 0.84 , 0.84 , 0.84 , 0.198, 0.84 ])
    >>> result.sets["words"][0], result.encoder["coverage"]
    ('deficit spending budget tax soldier revenue', 1.0)
    """

    per_topic: np.ndarray
    model_mean: float
    topics: tuple[tuple[str, ...], ...]
    similarity: np.ndarray
    sets: dict[str, np.ndarray]
    encoder: dict[str, Any]
    missing: tuple[tuple[int, str, str], ...]
    settings: dict[str, Any]

    def columns(self) -> Columns:
        """One row per set: topic, draw, words in display order, the intruder, the pick and the hit."""
        return dict(self.sets)

    def topics_frame(self) -> pd.DataFrame:
        """One row per topic: its score, its number of sets and its words."""
        return dataframe(self.topic_columns())

    def topic_columns(self) -> Columns:
        """:meth:`topics_frame` as columns (what a notebook shows the first rows of)."""
        return {
            "topic": np.arange(len(self.topics)),
            "value": self.per_topic,
            "sets": np.bincount(self.sets["topic"], minlength=len(self.topics)),
            "words": [" ".join(w) for w in self.topics],
        }


def embedding_word_intrusion(
    topics: TopicsLike,
    encoder: Encoder | str | None = None,
    seed: int | np.random.Generator = 0,
    *,
    draws: int = CHANG_ANNOTATORS,
    protocol: Protocol = "chang",
    low_rank: int = 50,
    high_rank: int = 10,
    on_missing: OnMissingZero = "error",
    progress: ProgressCallback | None = None,
) -> EmbeddingIntrusionResult:
    """Word intrusion of every topic of one model, the machine picking the word farthest from the others.

    Parameters
    ----------
    topics : TopicModel, Topics, list of word lists, IntruderSets, or another library's model
        Topics with words in rank order (at least two: intruders come from other topics; a
        gensim or OCTIS model, ...: :func:`~tealeaves.models.as_model`), or ready-made sets
        covering topics ``0 .. K-1``.
    encoder : Encoder or str, optional
        ``st:NAME_OR_PATH``, ``w2v:INDEX`` or ``static:PATH``; default ``st:all-MiniLM-L6-v2``.
    seed : int or Generator
        Seeds the sets: ``intruder_sets(topics, draws, protocol, low_rank, high_rank, seed)``
        are exactly the sets scored, the ones :func:`~tealeaves.intrusion.auto_word_intrusion`
        scores with this seed.
    draws, protocol, low_rank, high_rank
        How sets are drawn (:func:`~tealeaves.intrusion.intruder_sets`); with ready-made sets
        these are theirs.
    on_missing : "error" or "zero"
        A word the encoder does not represent is refused, or given a zero vector (cosine 0
        with every word, so it looks like an intruder).
    progress : callable, optional
        Receives an update after drawing the sets and after encoding.

    Returns
    -------
    EmbeddingIntrusionResult

    Examples
    --------
    Two-dimensional word vectors, one direction per topic: every intruder points the other way.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import StaticEncoder
    >>> from tealeaves.intrusion import embedding_word_intrusion
    >>> topics = [["tax", "budget", "deficit", "spending", "revenue"], ["war", "peace", "army", "soldier", "battle"]]
    >>> lines = [f"{w} 1 0.1" for w in topics[0]] + [f"{w} 0.1 1" for w in topics[1]]  # GloVe text format
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "vectors.txt").write_text("\\n".join(lines) + "\\n")
    ...     encoder = StaticEncoder(str(Path(tmp) / "vectors.txt"), cache_dir=tmp)
    ...     result = embedding_word_intrusion(topics, encoder, seed=0, draws=2)
    >>> result.per_topic, result.model_mean
    (array([1., 1.]), 1.0)
    >>> result.sets["intruder"][:2]
    array(['soldier', 'soldier'], dtype=object)
    """
    if isinstance(topics, Mapping):
        raise InputError("embedding_word_intrusion scores one model; call it once per model")
    check_on_missing(on_missing, ZERO)
    model = get_encoder(encoder)
    if isinstance(topics, IntruderSets):
        sets, shown = topics, _shown_words(topics)
    else:
        seed = as_seed(seed)
        topics = as_model(topics)  # another library's model: its own ranking
        sets = intruder_sets(topics, draws, protocol, low_rank, high_rank, seed)
        shown = _shown_words(sets, topics)
    notify(progress, "embedding word intrusion", 1, 2)
    words = [s.words for s in sets]
    before = model.encoded
    table = model.vectors(w for row in words for w in row)
    notify(progress, "embedding word intrusion", 2, 2)
    found = dict(zip(table.words, table.found.tolist()))
    missing = sorted({(s.topic, w, NOT_ENCODED) for s in sets for w in s.words if not found[w]})
    if missing and on_missing == "error":
        shown_missing = "; ".join(f"{w!r} (topic {k})" for k, w, _ in missing[:10])
        raise InputError(
            f"{len(missing)} word(s) of the sets are not represented by the encoder {model.spec}: {shown_missing}. "
            'Use an encoder that covers them, or pass on_missing="zero"'
        )
    similarity = np.stack([mean_similarity_to_others(table.vectors[table.rows(row)]) for row in words])
    target = np.array([s.intruder_position for s in sets], dtype=np.int64)
    topic = np.array([s.topic for s in sets], dtype=np.int64)
    hits, picks = first_place_share(-similarity, target)
    per_topic = _per_topic(hits, topic, len(shown))
    covered = np.concatenate([table.found[table.rows(row)] for row in words])
    return EmbeddingIntrusionResult(
        per_topic=per_topic,
        model_mean=float(per_topic.mean()),
        topics=shown,
        similarity=similarity,
        sets={
            "topic": topic,
            "draw": np.array([s.draw for s in sets], dtype=np.int64),
            "words": np.array([" ".join(row) for row in words], dtype=object),
            "intruder": np.array([s.intruder for s in sets], dtype=object),
            "intruder_position": target,
            "predicted": np.array([row[p] for row, p in zip(words, picks)], dtype=object),
            "hit": hits,
        },
        encoder={
            "spec": model.spec,
            "identity": model.identity(),
            "coverage": float(covered.mean()),
            "encoded": model.encoded - before,
        },
        missing=tuple(missing),
        settings={
            "draws": int(max(s.draw for s in sets) + 1),
            "protocol": sets.protocol,
            "low_rank": sets.low_rank,
            "high_rank": sets.high_rank,
            "seed": sets.seed,
            "on_missing": on_missing,
        },
    )


def mean_similarity_to_others(vectors: np.ndarray) -> np.ndarray:
    """For each row, its mean cosine with the other rows (a zero row has cosine 0 with every row)."""
    unit = unit_rows(vectors)
    gram = unit @ unit.T
    n = len(vectors)
    return (gram.sum(axis=1) - np.diag(gram)) / (n - 1)
