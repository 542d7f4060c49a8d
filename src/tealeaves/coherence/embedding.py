"""Embedding coherence: how close a topic's top words lie in a word-vector space.

No reference corpus is counted: each word gets a vector from an encoder
(:mod:`tealeaves.coherence.encoders`: a sentence-transformers model, skip-gram vectors trained on
a reference corpus, or a word-vector file), and a topic's coherence is the mean cosine
similarity of its words. Two measures, registered in :data:`EMBEDDING_MEASURES` and computed by
:func:`embedding_coherence` (also through :func:`tealeaves.coherence.score` with
``measure="embedding"``):

- ``embedding``: the mean pairwise cosine, over the ordered pairs ``i != j`` of the top-N words
  (S_one^one, the segmentation of NPMI; the mean equals that over unordered pairs);
- ``embedding_centroid``: for every word (S_one^set, the segmentation of C_V) the cosine with
  the topic's centroid, the mean of its words' unit vectors; the topic's score is their mean.

With unit vectors ``u_i`` and ``c = mean_i u_i`` the centroid variant equals ``|c|`` and the
pairwise one ``(N |c|^2 - 1) / (N - 1)`` (``N`` words), an increasing function of ``|c|``: when
every word is represented the two rank topics identically (the same Spearman correlation with
anything), and differ in scale, and when words are missing.

They share :func:`~tealeaves.coherence.score`'s result object, ``topn`` averaging and
``on_missing`` policy: a word the encoder does not represent is refused (``"error"``), dropped
from its topic (``"skip"``) or kept with value 0 in every segment it is in (``"zero"``); the
share of topic words the encoder covers is in ``result.encoder["coverage"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tealeaves.coherence.encoders import Encoder, WordVectors, get_encoder
from tealeaves.coherence.scoring import (
    ON_MISSING,
    CoherenceResult,
    OnMissing,
    Segments,
    _topns,
    aggregate_segments,
    refuse_missing,
)
from tealeaves.coherence.segmentation import one_one, one_set
from tealeaves.errors import InputError
from tealeaves.models import TopicModel, Topics, as_model, as_topics
from tealeaves.progress import ProgressCallback, notify

NOT_ENCODED = "not represented by the encoder"


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row divided by its Euclidean norm; a zero row stays zero (its cosines are 0)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=np.float64), where=norms > 0)


def pairwise_cosine(vectors: np.ndarray, prime: np.ndarray, star: np.ndarray) -> np.ndarray:
    """Embedding coherence's confirmation: ``cos(v_i, v_j)`` for each segment (i = prime, j = star).

    ``cos(u, v) = u . v / (|u| |v|)``; 0 when either vector is zero. The topic's ``embedding``
    coherence is the mean over the ordered pairs ``i != j`` of its top-N words (the average
    pairwise cosine similarity of word vectors, Fang et al. 2016, "Using word embedding to
    evaluate the coherence of topics from Twitter data", SIGIR; Aletras & Stevenson 2013 use
    distributional vectors the same way). Range [-1, 1]; no window, no smoothing, no logarithm.
    """
    unit = unit_rows(vectors)
    return np.einsum("ij,ij->i", unit[prime], unit[star])


def centroid_cosine(vectors: np.ndarray, prime: np.ndarray, star: np.ndarray) -> np.ndarray:
    """The centroid variant's confirmation: ``cos(v_i, c)`` with ``c = mean_j v_j / |v_j|``.

    S_one^set (Röder et al. 2015's segmentation of C_V, with word vectors in place of NPMI
    context vectors): each word against the whole topic, the centroid of the unit vectors of
    the words represented (a zero vector, a word the encoder lacks, is left out of the centroid
    and scores 0). The topic's ``embedding_centroid`` coherence is the mean over its words.
    Range [-1, 1]; no window, no smoothing, no logarithm.
    """
    unit = unit_rows(vectors)
    kept = np.linalg.norm(unit, axis=1) > 0
    centroid = unit[kept].mean(axis=0) if kept.any() else np.zeros(unit.shape[1])
    return unit_rows(unit[prime]) @ unit_rows(centroid[None, :])[0]


@dataclass(frozen=True)
class EmbeddingMeasure:
    """A registered embedding measure: its confirmation over vectors and its segmentation.

    Attributes
    ----------
    name : str
        The key in :data:`EMBEDDING_MEASURES`.
    function : callable
        ``function(vectors, prime, star)``: the confirmation of each segment from the words'
        vectors (:func:`pairwise_cosine`, :func:`centroid_cosine`); its docstring states the
        formula and its source.
    segment : callable
        The segmentation: the ``(W', W*)`` index pairs of a topic of N words.
    bounds : tuple of float
        The range of a segment's value, a cosine's: [-1, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.coherence import EMBEDDING_MEASURES
    >>> measure = EMBEDDING_MEASURES["embedding"]
    >>> prime, star = measure.segment(3)  # every ordered pair of three words
    >>> prime.tolist(), star.tolist()
    ([0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1])
    >>> measure.function(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]), prime, star).round(4).tolist()
    [0.7071, 0.0, 0.7071, 0.7071, 0.0, 0.7071]
    """

    name: str
    function: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    segment: Callable[[int], tuple[np.ndarray, np.ndarray]]
    bounds: tuple[float, float] = (-1.0, 1.0)

    @property
    def summary(self) -> str:
        """The first line of the confirmation's docstring."""
        return (self.function.__doc__ or self.name).strip().splitlines()[0]


EMBEDDING_MEASURES: dict[str, EmbeddingMeasure] = {
    "embedding": EmbeddingMeasure("embedding", pairwise_cosine, one_one),
    "embedding_centroid": EmbeddingMeasure("embedding_centroid", centroid_cosine, one_set),
}
"""Measure name -> :class:`EmbeddingMeasure`, the measures :func:`~tealeaves.coherence.score`
computes from word vectors rather than a reference index."""


def embedding_coherence(
    topics: TopicModel | Topics | Sequence[Sequence[str]],
    measure: str = "embedding",
    encoder: Encoder | str | None = None,
    topn: int | Sequence[int] | None = None,
    on_missing: OnMissing = "error",
    progress: ProgressCallback | None = None,
) -> CoherenceResult:
    """Embedding coherence of every topic (see the module docstring for the two measures).

    Parameters
    ----------
    topics : TopicModel, Topics or list of word lists
        Words in rank order, most probable first.
    measure : "embedding" or "embedding_centroid"
    encoder : Encoder or str, optional
        ``st:NAME_OR_PATH``, ``w2v:INDEX`` or ``static:PATH`` (:func:`~tealeaves.coherence.encoders.get_encoder`),
        or an encoder object (to choose its cache folder, batch size or settings). Default
        ``st:all-MiniLM-L6-v2``, offline. Every distinct topic word is encoded once, in
        batches, and cached on disk.
    topn : int or sequence of int, optional
        As for :func:`~tealeaves.coherence.score`: default 10 for a model, every word for word
        lists; several values average the per-N scores.
    on_missing : "error", "skip" or "zero"
        A word the encoder does not represent is refused, dropped from its topic, or kept with
        value 0 in its segments; either way it is listed in ``result.missing``.

    Returns
    -------
    CoherenceResult
        ``window`` is the encoder's spec; ``encoder`` holds its identity and coverage.

    Examples
    --------
    With the unit vectors ``tax = (1, 0)``, ``war = (0, 1)`` and ``budget`` between them, the
    pairwise cosines are 0.7071, 0 and 0.7071 (mean 0.4714), and the centroid's norm is
    ``|c| = 0.8047`` (so ``(3 |c|^2 - 1) / 2 = 0.4714``, see the module docstring):

    >>> import tempfile
    >>> from pathlib import Path
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = Path(tmp.name) / "vectors.txt"
    >>> with open(path, "w") as handle:  # word2vec text: "COUNT DIM", then a word and its values per line
    ...     for line in ["3 2", "tax 1 0", "budget 1 1", "war 0 1"]:
    ...         print(line, file=handle)
    >>> from tealeaves.coherence import StaticEncoder, embedding_coherence
    >>> encoder = StaticEncoder(str(path), cache_dir=tmp.name)
    >>> topics = [["tax", "budget", "war"]]
    >>> round(float(embedding_coherence(topics, "embedding", encoder).per_topic[0]), 4)
    0.4714
    >>> round(float(embedding_coherence(topics, "embedding_centroid", encoder).per_topic[0]), 4)
    0.8047

    A word the file lacks is refused, or dropped with ``on_missing="skip"``:

    >>> result = embedding_coherence([["tax", "budget", "peace"]], encoder=encoder, on_missing="skip")
    >>> result.per_topic.round(4).tolist(), result.missing, round(result.encoder["coverage"], 4)
    ([0.7071], ((0, 'peace', 'not represented by the encoder'),), 0.6667)
    >>> tmp.cleanup()
    """
    key = measure.lower() if isinstance(measure, str) else measure
    if key not in EMBEDDING_MEASURES:
        raise InputError(f"unknown embedding measure {measure!r}; choose one of {', '.join(EMBEDDING_MEASURES)}")
    spec = EMBEDDING_MEASURES[key]
    if on_missing not in ON_MISSING:
        raise InputError(f"on_missing must be one of {', '.join(ON_MISSING)}, got {on_missing!r}")
    model = get_encoder(encoder)
    topics = as_model(topics)
    topns = _topns(topn, topics)
    scored = as_topics(topics, max(topns) if topns[0] is not None else None)  # type: ignore[type-var]
    notify(progress, "embedding coherence", 0, 2)
    encoded_before = model.encoded
    table = model.vectors(w for words in scored.words for w in words)
    notify(progress, "embedding coherence", 1, 2)
    rows = [table.rows(words) for words in scored.words]
    present = [table.found[r] for r in rows]
    missing = [(k, scored.words[k][i], NOT_ENCODED) for k, ok in enumerate(present) for i in np.flatnonzero(~ok)]
    if missing and on_missing == "error":
        refuse_missing(
            missing,
            f"are not represented by the encoder {model.spec}",
            'Use an encoder that covers them, or pass on_missing="skip" or on_missing="zero"',
            reasons=False,
        )

    def evaluate(k: int, keep: np.ndarray) -> Segments:
        vectors = table.vectors[rows[k][keep]]
        prime, star = spec.segment(len(keep))
        values = spec.function(vectors, prime, star)
        none = np.full(len(values), -1, dtype=np.int64)
        return Segments(values, prime, star, none, none, none)

    aggregated = aggregate_segments(scored, present, topns, on_missing, missing, evaluate)
    notify(progress, "embedding coherence", 2, 2)
    return CoherenceResult(
        measure=spec.name,
        window=model.spec,
        compat=None,
        conventions={},
        topn=tuple(topns),
        topics=scored.words,
        n_windows=0,
        missing=tuple(missing),
        on_missing=on_missing,
        index={},
        encoder=_encoder_summary(model, table, present, model.encoded - encoded_before),
        **aggregated,
    )


def _encoder_summary(model: Encoder, table: WordVectors, present: list[np.ndarray], encoded: int) -> dict[str, Any]:
    slots = np.concatenate(present) if present else np.zeros(0, dtype=bool)
    return {
        "spec": model.spec,
        "identity": model.identity(),
        "coverage": float(slots.mean()) if len(slots) else 1.0,
        "words": len(table.words),
        "words_found": int(table.found.sum()),
        "encoded": encoded,
        "dimensions": int(table.vectors.shape[1]),
    }
