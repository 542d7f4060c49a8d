"""``score``: the coherence of every topic against a reference index.

The pipeline of Röder et al. (2015): segment each topic's top words, count the words and
pairs in the windows of the reference corpus (from a :class:`RefIndex`, never rescanning it),
confirm each segment and average. Every segment value is kept (``to_frame()``); per topic
its mean, standard deviation and support; the model's mean over topics. With several top-N
(Lau & Baldwin 2016 average N = 5, 10, 15, 20) a topic's score is the mean of its per-N
scores.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.coherence.index import RefIndex
from tealeaves.coherence.measures import Measure, TopicCounts, get_measure
from tealeaves.coherence.result import CoherenceResult, Segments, aggregate_segments, refuse_missing, topn_values
from tealeaves.coherence.segmentation import SET
from tealeaves.coherence.windows import Window, check_compat
from tealeaves.confirmation import Conventions
from tealeaves.deprecation import moved_names
from tealeaves.errors import InputError
from tealeaves.missing import OnMissing, check_on_missing
from tealeaves.models import TopicModel, Topics, as_model, as_topics
from tealeaves.progress import ProgressCallback, notify

if TYPE_CHECKING:
    from tealeaves.coherence.encoders import Encoder

__getattr__ = moved_names(
    __name__,
    {
        "ON_MISSING": "tealeaves.missing.ON_MISSING",
        "WHOLE_TOPIC": "tealeaves.coherence.result.WHOLE_TOPIC",
        "SEGMENT_COLUMNS": "tealeaves.coherence.result.SEGMENT_COLUMNS",
    },
)
NOT_IN_VOCABULARY = "not in the index vocabulary"
NEVER_OCCURS = "never occurs in the reference corpus"


def score(
    topics: TopicModel | Topics | Sequence[Sequence[str]] | Any,
    index: RefIndex | str | os.PathLike[str] | Any = None,
    measure: str = "npmi",
    window: Window | int | str | None = None,
    topn: int | Sequence[int] | None = None,
    compat: str | None = None,
    on_missing: OnMissing = "error",
    conventions: Conventions | dict[str, Any] | None = None,
    progress: ProgressCallback | None = None,
    encoder: Encoder | str | None = None,
) -> CoherenceResult:
    """Coherence of every topic against a reference index, or from word vectors.

    Parameters
    ----------
    topics : TopicModel, Topics, list of word lists, or another library's model
        Words in rank order, most probable first; or a gensim ``LdaModel``, a scikit-learn
        model with its vectorizer, a tomotopy or BERTopic model, OCTIS's model output
        (:func:`~tealeaves.models.as_model`), whose top words are scored.
    index : RefIndex, path, Corpus or texts
        The reference corpus' index (:meth:`RefIndex.build`, or its folder); or the reference
        corpus itself (a corpus folder, a Corpus, gensim's token lists or a Dictionary with
        its bag-of-words corpus), indexed for this call
        (:func:`~tealeaves.coherence.reference.as_reference_index`: build the index once to
        score many times). Not used by the embedding measures.
    measure : str
        One of :data:`~tealeaves.coherence.measures.MEASURES`: ``uci``, ``npmi``, ``umass``,
        ``lcp``, ``cp1``, ``cp2``, ``cv``, ``cp``, ``ca``, ``ds`` (gensim's ``c_npmi``,
        ``c_uci``, ``u_mass``, ``c_v`` are accepted), or one of
        :data:`~tealeaves.coherence.embedding.EMBEDDING_MEASURES`: ``embedding`` (mean pairwise
        cosine of the words' vectors), ``embedding_centroid`` (mean cosine with the topic's
        centroid), computed by :func:`~tealeaves.coherence.embedding.embedding_coherence`
        without a reference corpus. Each one's docstring states its formula.
    window : int, str or Window, optional
        The measure's default when omitted (10 for NPMI, 110 for C_V, ...). An int is a
        sliding window size, or the half-width of C_A's and DS's context windows;
        ``"document"`` uses whole documents.
    topn : int or sequence of int, optional
        Top words per topic (default 10 for a model, every word for word lists); several
        values average the per-N scores (Lau & Baldwin 2016: 5, 10, 15, 20).
    compat : None, "gensim" or "lau"
        Count exactly with the measure's published definition (None), or reproduce gensim 4.x
        (its sliding-window undercount and its epsilon) or Lau et al.'s toolkit (padded
        windows, log base 10, its zero-count values).
    on_missing : "error", "skip" or "zero"
        A topic word that is not in the index vocabulary or never occurs in the reference
        corpus is refused, dropped from its topic, or kept with value 0 in every segment.
        Either way it is listed in ``result.missing``. A topic that "skip" leaves with fewer
        than two words gets NaN, is listed in ``missing`` too (word ``"*"``), and the model
        mean is over the other topics; EmptyResultError when no topic is left.
    conventions : Conventions or dict, optional
        Overrides of the measure's conventions (``{"log_base": 2}``, ``{"epsilon": 1e-12}``):
        only the fields given override, the others keep the measure's values (UMass keeps
        its +1 smoothing under ``Conventions(log_base=2)``).
    encoder : Encoder or str, optional
        The embedding measures' word encoder (:func:`~tealeaves.coherence.encoders.get_encoder`:
        ``st:NAME_OR_PATH``, ``w2v:INDEX``, ``static:PATH``; default ``st:all-MiniLM-L6-v2``).

    Returns
    -------
    CoherenceResult

    Examples
    --------
    NPMI over whole documents of three short documents: "tax" and "budget" always occur
    together (NPMI 1); "war" occurs once, with "peace", which occurs twice.

    >>> from tealeaves.coherence import RefIndex, score
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab))
    >>> result = score([["tax", "budget"], ["war", "peace"]], index, measure="npmi", window="document")
    >>> [round(float(v), 4) for v in result.per_topic]  # log(3/2) / -log(2/3) and / -log(1/3)
    [1.0, 0.3691]
    >>> result.summary()["model mean (95% CI, t over 2 topics)"]  # the t interval of two topics, within NPMI's [-1, 1]
    '0.6845 [-1, 1]'
    """
    from tealeaves.coherence.embedding import EMBEDDING_MEASURES, embedding_coherence
    from tealeaves.coherence.reference import as_reference_index

    topics = as_model(topics)
    if isinstance(measure, str) and measure.lower() in EMBEDDING_MEASURES:
        given = {"window": window, "compat": compat, "conventions": conventions}
        if any(value is not None for value in given.values()):
            names = ", ".join(name for name, value in given.items() if value is not None)
            raise InputError(f"{measure} compares word vectors: it has no {names}; leave them out")
        return embedding_coherence(
            topics, measure.lower(), encoder, topn=topn, on_missing=on_missing, progress=progress
        )
    if encoder is not None:
        raise InputError(f"encoder is for the embedding measures ({', '.join(EMBEDDING_MEASURES)}), not {measure}")
    spec = get_measure(measure, others=EMBEDDING_MEASURES)  # an unknown name is refused before what it needs
    if index is None:
        raise InputError(f"{measure} counts words in a reference corpus: pass its index (tealeaves index)")
    check_compat(compat)
    default_window, defaults = spec.settings(compat)
    conv = defaults.merged(conventions)
    window = _window_for(spec, default_window if window is None else window)
    check_on_missing(on_missing)
    index = as_reference_index(index)
    topns = topn_values(topn, topics)
    largest = max(topns) if topns[0] is not None else None  # type: ignore[type-var]
    scored = as_topics(topics, largest)
    scored.top(largest)  # a model over fewer words than topn is refused as a short topic list is
    ids, present, missing = _lookup(scored, index, on_missing)

    notify(progress, "coherence", 0, 2)
    counts = _topic_counts(ids, present, index, window, compat, spec.context)
    notify(progress, "coherence", 1, 2)

    def evaluate(k: int, keep: np.ndarray) -> Segments:
        c = counts[k]
        sub = TopicCounts(c.joint[np.ix_(keep, keep)], c.marginal[keep], c.n_windows, c.present[keep])
        values, prime, star = spec.evaluate(sub, conv, compat)
        _check_finite(values, spec, conv, k)
        whole, s = star == SET, np.maximum(star, 0)
        count_star = np.where(whole, -1, sub.marginal[s]).astype(np.int64)
        count_joint = np.where(whole, -1, sub.joint[prime, s]).astype(np.int64)
        return Segments(values, prime, star, sub.marginal[prime].astype(np.int64), count_star, count_joint)

    aggregated = aggregate_segments(scored, present, topns, on_missing, missing, evaluate)
    notify(progress, "coherence", 2, 2)
    return CoherenceResult(
        measure=spec.name,
        window=str(window),
        compat=compat,
        conventions=conv.as_dict(),
        topn=tuple(topns),
        topics=scored.words,
        n_windows=counts[0].n_windows,
        missing=tuple(missing),
        on_missing=on_missing,
        index={"corpus_fingerprint": index.corpus_fingerprint, "n_docs": index.n_docs, "n_tokens": index.n_tokens},
        **aggregated,
    )


def _window_for(spec: Measure, window: Window | int | str) -> Window:
    if spec.context and isinstance(window, (int, np.integer)) and not isinstance(window, bool):
        window = Window("context", int(window))
    parsed = Window.parse(window)
    if spec.context != (parsed.kind == "context"):
        need = "±c context windows (an int c or 'context:c')" if spec.context else "sliding or document windows"
        raise InputError(f"{spec.name} is computed on {need}, not on {parsed}")
    return parsed


def _lookup(topics: Topics, index: RefIndex, on_missing: str) -> tuple[list[np.ndarray], list[np.ndarray], list]:
    """Index ids of every topic word (-1 when absent), which are usable, and the missing list."""
    ids, present, missing = [], [], []
    for k, words in enumerate(topics.words):
        row = np.array([index.vocab.get(w) for w in words], dtype=np.int64)
        frequency = index.frequency(np.maximum(row, 0))
        ok = (row >= 0) & (frequency > 0)
        for word, wid in zip(np.asarray(words)[~ok], row[~ok]):
            missing.append((k, str(word), NOT_IN_VOCABULARY if wid < 0 else NEVER_OCCURS))
        ids.append(row)
        present.append(ok)
    if missing and on_missing == "error":
        refuse_missing(
            missing,
            "are missing from the reference index",
            'Prepare the reference corpus with vocab_from=<the training corpus>, or pass on_missing="skip" or '
            'on_missing="zero"',
        )
    return ids, present, missing


def _topic_counts(
    ids: list[np.ndarray], present: list[np.ndarray], index: RefIndex, window: Window, compat: str | None, context: bool
) -> list[TopicCounts]:
    """Window counts of every topic's words and word pairs, from one pass of the kernels.

    The distinct words of all topics get slots ``0 .. n - 1``; a pair of slots ``a <= b`` is the key
    ``a n + b``, so the sorted keys of every topic's pairs (itself with itself too for context windows)
    are the pairs counted, in order, and each topic's matrix looks its pairs up among them.
    """
    unique = np.unique(np.concatenate([row[ok] for row, ok in zip(ids, present)] + [np.zeros(0, np.int64)]))
    n = len(unique)
    slots = [np.where(ok, np.searchsorted(unique, row), -1) for row, ok in zip(ids, present)]
    topic_keys = [np.zeros(0, np.int64)]
    for row in slots:
        usable = np.unique(row[row >= 0])
        i, j = np.triu_indices(len(usable), 0 if context else 1)
        topic_keys.append(usable[i] * n + usable[j])
    keys = np.unique(np.concatenate(topic_keys))
    if n:
        marginal, joint_pairs, n_windows = index.pair_counts(unique, keys // n, keys % n, window, compat)
    else:
        marginal, joint_pairs, n_windows = np.zeros(0, np.int64), np.zeros(0, np.int64), index.n_windows(window, compat)
    out = []
    for row, ok in zip(slots, present):
        low, high = np.minimum.outer(row, row), np.maximum.outer(row, row)
        found = low >= 0
        same = found & (low == high)  # a word with itself: for context windows a pair counted, else its windows
        counted = found if context else found & ~same
        joint = np.zeros(low.shape)
        joint[counted] = joint_pairs[np.searchsorted(keys, low[counted] * n + high[counted])]
        if not context:
            joint[same] = marginal[low[same]]
        marg = np.where(row >= 0, marginal[np.maximum(row, 0)] if n else 0, 0).astype(np.float64)
        out.append(TopicCounts(joint, marg, n_windows, ok.copy()))
    return out


def _check_finite(values: np.ndarray, spec: Measure, conv: Conventions, k: int) -> None:
    if not np.all(np.isfinite(values)):
        raise InputError(
            f"{spec.name} of topic {k} is not finite under conventions {conv.as_dict()} (a pair that never "
            "co-occurs has log 0): set conventions={'epsilon': 1e-12}, conventions={'smoothing': 1} or "
            "conventions={'zero_pair': 0}"
        )
