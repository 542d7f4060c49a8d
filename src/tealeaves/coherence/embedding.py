"""Embedding coherence: how close a topic's top words lie in a word-vector space.

No reference corpus is counted: each word gets a vector from an encoder
(:mod:`tealeaves.coherence.encoders`: a sentence-transformers model, skip-gram vectors trained on
a reference corpus, or a word-vector file), and a topic's coherence is the mean cosine
similarity of its words. Two measures, registered in
:data:`~tealeaves.coherence.measures.EMBEDDING_MEASURES` and computed by
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

from collections.abc import Sequence
from typing import Any

import numpy as np

from tealeaves.coherence.encoders import Encoder, WordVectors, get_encoder
from tealeaves.coherence.measures import EMBEDDING_MEASURES
from tealeaves.coherence.result import CoherenceResult, Segments, aggregate_segments, refuse_missing, topn_values
from tealeaves.deprecation import moved_names
from tealeaves.errors import unknown_name
from tealeaves.missing import OnMissing, check_on_missing
from tealeaves.models import TopicModel, Topics, as_model, as_topics
from tealeaves.progress import ProgressCallback, notify

NOT_ENCODED = "not represented by the encoder"
__getattr__ = moved_names(
    __name__,
    {
        name: f"tealeaves.coherence.measures.{name}"
        for name in ("EmbeddingMeasure", "unit_rows", "pairwise_cosine", "centroid_cosine")
    },
)


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
        raise unknown_name("embedding measure", measure, EMBEDDING_MEASURES)
    spec = EMBEDDING_MEASURES[key]
    check_on_missing(on_missing)
    model = get_encoder(encoder)
    topics = as_model(topics)
    topns = topn_values(topn, topics)
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
