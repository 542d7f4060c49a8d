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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from tealeaves.coherence.confirmation import Conventions
from tealeaves.coherence.index import RefIndex
from tealeaves.coherence.measures import Measure, TopicCounts, get_measure
from tealeaves.coherence.segmentation import SET
from tealeaves.coherence.windows import Window, check_compat
from tealeaves.errors import EmptyResultError, InputError
from tealeaves.models import TopicModel, Topics, as_model, as_topics
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Columns, Result, dataframe, words_by_topic

if TYPE_CHECKING:
    import pandas as pd

    from tealeaves.coherence.encoders import Encoder

OnMissing = Literal["error", "skip", "zero"]
ON_MISSING: tuple[str, ...] = ("error", "skip", "zero")
NOT_IN_VOCABULARY = "not in the index vocabulary"
NEVER_OCCURS = "never occurs in the reference corpus"
WHOLE_TOPIC = "*"  # the word of a ``missing`` entry about a whole topic left unscored
SEGMENT_COLUMNS = ("topic", "topn", "w_prime", "w_star", "value", "count_prime", "count_star", "count_joint")


@dataclass(frozen=True)
class CoherenceResult(Result):
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
        """The default summary (:meth:`Result.summary`), with the topic words the policy left out or scored 0
        (``skipped words``, ``words scored 0``) and the topics left unscored, each listed."""
        values = super().summary()
        if self.missing:
            name = {"skip": "skipped words", "zero": "words scored 0"}.get(self.on_missing, "missing words")
            values[name] = words_by_topic(self.missing)
        if len(self.unscored):
            values["topics not scored"] = " ".join(map(str, self.unscored))
        return values

    def value_bounds(self) -> tuple[float, float] | None:
        """The measure's range (:attr:`Measure.bounds`: NPMI and the cosines [-1, 1]; None for UCI, UMass, LCP)."""
        from tealeaves.coherence.embedding import EMBEDDING_MEASURES
        from tealeaves.coherence.measures import MEASURES

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
    spec = get_measure(measure)  # an unknown name is refused as such, before what it would need
    if index is None:
        raise InputError(f"{measure} counts words in a reference corpus: pass its index (tealeaves index)")
    check_compat(compat)
    default_window, defaults = spec.settings(compat)
    conv = defaults.merged(conventions)
    window = _window_for(spec, default_window if window is None else window)
    if on_missing not in ON_MISSING:
        raise InputError(f"on_missing must be one of {', '.join(ON_MISSING)}, got {on_missing!r}")
    index = as_reference_index(index)
    topns = _topns(topn, topics)
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
    columns: dict[str, list[Any]] = {name: [] for name in SEGMENT_COLUMNS}
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
            names = [scored.words[k][i] for i in keep]
            _append_segments(columns, k, len(keep), names, seg)

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
        "segments": {name: np.asarray(values) for name, values in columns.items()},
    }


def _window_for(spec: Measure, window: Window | int | str) -> Window:
    if spec.context and isinstance(window, (int, np.integer)) and not isinstance(window, bool):
        window = Window("context", int(window))
    parsed = Window.parse(window)
    if spec.context != (parsed.kind == "context"):
        need = "±c context windows (an int c or 'context:c')" if spec.context else "sliding or document windows"
        raise InputError(f"{spec.name} is computed on {need}, not on {parsed}")
    return parsed


def _topns(topn: int | Sequence[int] | None, topics: Any) -> list[int | None]:
    if topn is None:
        return [10] if isinstance(topics, TopicModel) else [None]
    values = [topn] if isinstance(topn, (int, np.integer)) else list(topn)
    if not values or any(not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 2 for n in values):
        raise InputError(f"topn must be an integer of at least 2, or a list of them; got {topn!r}")
    return [int(n) for n in values]


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


def refuse_missing(missing: list[tuple[int, str, str]], holder: str, remedy: str, reasons: bool = True) -> None:
    """The error of ``on_missing="error"``: how many topic words ``holder`` (e.g. "are missing from
    the reference index"), the first ten with their topic (and why, with ``reasons``), and the ``remedy``."""
    shown = "; ".join(f"{w!r} (topic {k}, {why})" if reasons else f"{w!r} (topic {k})" for k, w, why in missing[:10])
    more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
    raise InputError(f"{len(missing)} topic word(s) {holder}: {shown}{more}. {remedy}")


def _topic_counts(
    ids: list[np.ndarray], present: list[np.ndarray], index: RefIndex, window: Window, compat: str | None, context: bool
) -> list[TopicCounts]:
    """Window counts of every topic's words and word pairs, from one pass of the kernels."""
    unique = np.unique(np.concatenate([row[ok] for row, ok in zip(ids, present)] + [np.zeros(0, np.int64)]))
    slot = {int(w): i for i, w in enumerate(unique)}
    pairs: set[tuple[int, int]] = set()
    for row, ok in zip(ids, present):
        usable = sorted({slot[int(w)] for w in row[ok]})
        pairs.update((a, b) for i, a in enumerate(usable) for b in usable[i + (0 if context else 1) :])
    ordered = sorted(pairs)
    left = np.array([a for a, _ in ordered], dtype=np.int64)
    right = np.array([b for _, b in ordered], dtype=np.int64)
    if len(unique):
        marginal, joint_pairs, n_windows = index.pair_counts(unique, left, right, window, compat)
    else:
        marginal, joint_pairs, n_windows = np.zeros(0, np.int64), np.zeros(0, np.int64), index.n_windows(window, compat)
    pair_count = {pair: int(c) for pair, c in zip(ordered, joint_pairs)}
    out = []
    for row, ok in zip(ids, present):
        m = len(row)
        slots = [slot[int(w)] if good else -1 for w, good in zip(row, ok)]
        marg = np.array([marginal[s] if s >= 0 else 0 for s in slots], dtype=np.float64)
        joint = np.zeros((m, m))
        for i in range(m):
            for j in range(i, m):
                a, b = sorted((slots[i], slots[j]))
                if a < 0:
                    continue
                value = marg[i] if (i == j and not context) else pair_count[(a, b)]
                joint[i, j] = joint[j, i] = value
        out.append(TopicCounts(joint, marg, n_windows, ok.copy()))
    return out


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


def _check_finite(values: np.ndarray, spec: Measure, conv: Conventions, k: int) -> None:
    if not np.all(np.isfinite(values)):
        raise InputError(
            f"{spec.name} of topic {k} is not finite under conventions {conv.as_dict()} (a pair that never "
            "co-occurs has log 0): set conventions={'epsilon': 1e-12}, conventions={'smoothing': 1} or "
            "conventions={'zero_pair': 0}"
        )


def _append_segments(columns: dict[str, list[Any]], k: int, n_words: int, names: list[str], seg: Segments) -> None:
    whole = seg.star == SET
    s = np.maximum(seg.star, 0)
    columns["topic"].extend([k] * len(seg.values))
    columns["topn"].extend([n_words] * len(seg.values))
    columns["w_prime"].extend(names[i] for i in seg.prime)
    columns["w_star"].extend("*" if w else names[j] for w, j in zip(whole, s))
    columns["value"].extend(seg.values.tolist())
    columns["count_prime"].extend(seg.count_prime.tolist())
    columns["count_star"].extend(seg.count_star.tolist())
    columns["count_joint"].extend(seg.count_joint.tolist())
