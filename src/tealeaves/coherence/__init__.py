"""Automated coherence against a reference corpus, and the diversity of a model's topics.

- :class:`RefIndex`: a positional, memory-mapped index of a prepared reference corpus, built
  once; exact counts for sliding windows of any size, whole documents and ±c context windows
  (:meth:`RefIndex.window_counts`), or gensim's and Lau et al.'s counts under ``compat``;
- :func:`score`: UCI, NPMI, UMass, LCP, CP1, CP2, C_V, C_P, C_A and DS per topic, per segment
  and per model (:data:`MEASURES`), and embedding coherence from word vectors without a
  reference corpus (:data:`EMBEDDING_MEASURES`, encoders named ``st:``, ``w2v:``, ``static:``);
- :func:`diversity`: topic diversity, topic uniqueness, inverted RBO, Hoyle et al.'s filters.
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.coherence.embedding import embedding_coherence
    from tealeaves.coherence.encoders import (
        DEFAULT_ENCODER,
        ENCODERS,
        Encoder,
        SentenceTransformerEncoder,
        StaticEncoder,
        Word2VecEncoder,
        WordVectors,
        get_encoder,
        read_vectors,
    )
    from tealeaves.coherence.index import RefIndex, WindowCounts
    from tealeaves.coherence.measures import EMBEDDING_MEASURES, MEASURES, EmbeddingMeasure, Measure, get_measure
    from tealeaves.coherence.redundancy import (
        UNIQUENESS_FILTER_MODELS,
        DiversityResult,
        TopNCappedWarning,
        diversity,
        duplicate_topics,
        inverted_rbo,
        rank_biased_overlap,
        shared_top_words,
        topic_diversity,
        topic_uniqueness,
    )
    from tealeaves.coherence.reference import as_reference_index
    from tealeaves.coherence.result import CoherenceResult
    from tealeaves.coherence.scoring import score
    from tealeaves.coherence.windows import Window
    from tealeaves.confirmation import Conventions

__getattr__, __dir__ = attach(__name__, __file__)

__all__ = [
    "DEFAULT_ENCODER",
    "EMBEDDING_MEASURES",
    "ENCODERS",
    "MEASURES",
    "UNIQUENESS_FILTER_MODELS",
    "CoherenceResult",
    "Conventions",
    "DiversityResult",
    "EmbeddingMeasure",
    "Encoder",
    "Measure",
    "RefIndex",
    "SentenceTransformerEncoder",
    "StaticEncoder",
    "TopNCappedWarning",
    "Window",
    "WindowCounts",
    "Word2VecEncoder",
    "WordVectors",
    "as_reference_index",
    "diversity",
    "duplicate_topics",
    "embedding_coherence",
    "get_encoder",
    "get_measure",
    "inverted_rbo",
    "rank_biased_overlap",
    "read_vectors",
    "score",
    "shared_top_words",
    "topic_diversity",
    "topic_uniqueness",
]
