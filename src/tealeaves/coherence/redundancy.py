"""Diversity and redundancy of a model's topics: do its topics say different things?

Coherence scores topics one at a time; a model can score well by repeating one coherent
topic. These measures look at the topics together, from their top words alone:

- topic diversity (Dieng et al. 2020): the share of unique words among all topics' top 25;
- topic uniqueness (Nan et al. 2019): how exclusive each topic's top words are;
- inverted rank-biased overlap (Bianchi et al. 2021, after Webber et al. 2010): one minus the
  mean rank-biased overlap of every pair of topics;
- Hoyle et al.'s (2021, §4.2) redundancy filters as their code applies them: (a) two topics
  have the same top-5 word set, (b) the topic uniqueness over the top 5 words is not above 0.7
  (for ETM only, as their notebook; for every model on request).
"""

from __future__ import annotations

import itertools
import warnings
from collections import Counter
from collections.abc import Sequence, Sized
from dataclasses import dataclass
from typing import Any

import numpy as np

from tealeaves.errors import InputError, describe, is_count, is_real
from tealeaves.models import TopicModel, Topics, as_model, as_topics
from tealeaves.results import Columns, Result

TopicsLike = TopicModel | Topics | Sequence[Sequence[str]]


def _top(topics: TopicsLike, topn: int) -> tuple[tuple[str, ...], ...]:
    if not is_count(topn):
        raise InputError(f"topn must be a whole number of at least 1, got {topn!r}")
    return as_topics(topics, topn).words


def topic_diversity(topics: TopicsLike, topn: int = 25) -> float:
    """Topic diversity (Dieng, Ruiz & Blei 2020, §5 "topic quality").

    ``TD = |unique words in the top-N of all topics| / (K N)``, N = 25: 1 when no two topics
    share a top word, ``1 / K`` when all topics have the same top words.

    Parameters
    ----------
    topics : TopicModel, Topics or list of word lists
        Words in rank order, most probable first; each topic needs ``topn`` words.
    topn : int, default 25
        Top words per topic (Dieng et al.'s N).

    Returns
    -------
    float
        TD, in ``[1 / K, 1]``.

    Raises
    ------
    InputError
        When ``topn`` is below 1 or a topic has fewer than ``topn`` words.

    Examples
    --------
    Five distinct words among the 3 x 3 top words:

    >>> from tealeaves.coherence import topic_diversity
    >>> topics = [["tax", "budget", "debt"], ["war", "army", "tax"], ["budget", "tax", "debt"]]
    >>> round(topic_diversity(topics, topn=3), 4)  # 5 / 9
    0.5556
    """
    words = _top(topics, topn)
    return len({w for topic in words for w in topic}) / (len(words) * topn)


def topic_uniqueness(topics: TopicsLike, topn: int = 10) -> np.ndarray:
    """Topic uniqueness per topic (Nan et al. 2019, §4.2).

    ``TU(k) = (1 / N) sum_{i=1..N} 1 / cnt(w_i^k)``, where ``cnt(w)`` is the number of topics
    whose top-N words contain ``w`` (N = 10). A model's TU is the mean over topics; it lies in
    ``[1 / K, 1]``, 1 when no top word is shared.

    Parameters
    ----------
    topics : TopicModel, Topics or list of word lists
        Words in rank order, most probable first; each topic needs ``topn`` words.
    topn : int, default 10
        Top words per topic (Nan et al.'s N).

    Returns
    -------
    ndarray of shape (K,)
        ``TU(k)`` of each topic.

    Examples
    --------
    "tax" is in three topics, "budget" and "debt" in two, "war" and "army" in one, so topic 0
    has ``(1/3 + 1/2 + 1/2) / 3`` and topic 1 ``(1 + 1 + 1/3) / 3``:

    >>> from tealeaves.coherence import topic_uniqueness
    >>> topics = [["tax", "budget", "debt"], ["war", "army", "tax"], ["budget", "tax", "debt"]]
    >>> uniqueness = topic_uniqueness(topics, topn=3)
    >>> uniqueness.round(4).tolist(), round(float(uniqueness.mean()), 4)
    ([0.4444, 0.7778, 0.4444], 0.5556)
    """
    words = _top(topics, topn)
    counts = Counter(w for topic in words for w in set(topic))
    return np.array([np.mean([1.0 / counts[w] for w in topic]) for topic in words])


def rank_biased_overlap(first: Sequence[str], second: Sequence[str], p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of two equally long rankings (Webber et al. 2010, Eq. 32).

    ``RBO_ext = (X_k / k) p^k + ((1 - p) / p) sum_{d=1..k} (X_d / d) p^d``, where ``X_d`` is the
    number of items the two top-d prefixes share and ``k`` the list length: 1 for identical
    lists, 0 for disjoint ones; ``p`` weighs the top ranks (smaller ``p``: more top-heavy).

    Parameters
    ----------
    first, second : sequence of str
        Two rankings of the same non-zero length, best first.
    p : float, default 0.9
        The persistence, strictly between 0 and 1.

    Returns
    -------
    float
        ``RBO_ext``, in ``[0, 1]``.

    Raises
    ------
    InputError
        For rankings of different or zero length, or ``p`` outside (0, 1).

    Examples
    --------
    Swapping the first two items: ``X_1 = 0``, ``X_2 = 2``, ``X_3 = 3``, so
    ``RBO_ext = 0.9^3 + (0.1 / 0.9) (0.9^2 + 0.9^3) = 0.9``:

    >>> from tealeaves.coherence import rank_biased_overlap
    >>> round(rank_biased_overlap(["tax", "budget", "debt"], ["budget", "tax", "debt"]), 4)
    0.9
    >>> rank_biased_overlap(["tax", "budget"], ["tax", "budget"]), rank_biased_overlap(["tax"], ["war"])
    (1.0, 0.0)
    """
    if (
        isinstance(first, str)
        or isinstance(second, str)
        or not (isinstance(first, Sized) and isinstance(second, Sized))
    ):
        raise InputError(
            f"rank-biased overlap compares two rankings, lists of words; got {describe(first)} and {describe(second)}"
        )
    if len(first) != len(second) or not len(first):
        raise InputError("rank-biased overlap here compares two non-empty rankings of the same length")
    if not (is_real(p) and 0 < p < 1):
        raise InputError(f"the RBO persistence p must lie strictly between 0 and 1, got {p}")
    k = len(first)
    seen_first: set[str] = set()
    seen_second: set[str] = set()
    shared = 0
    total = 0.0
    for d in range(1, k + 1):
        a, b = first[d - 1], second[d - 1]
        if a == b:
            shared += 1
        else:
            shared += (a in seen_second) + (b in seen_first)
        seen_first.add(a)
        seen_second.add(b)
        total += shared / d * p**d
    return shared / k * p**k + (1 - p) / p * total


def inverted_rbo(topics: TopicsLike, topn: int = 10, p: float = 0.9) -> float:
    """Inverted rank-biased overlap (Bianchi et al. 2021; OCTIS defaults ``topn=10, p=0.9``).

    ``IRBO = 1 - mean_{i < j} RBO_ext(top-N of topic i, top-N of topic j)``: 1 when the
    topics share no top word, 0 when they are all the same ranking.

    Parameters
    ----------
    topics : TopicModel, Topics or list of word lists
        At least two topics, words in rank order; each topic needs ``topn`` words.
    topn : int, default 10
        Top words per topic.
    p : float, default 0.9
        The persistence of :func:`rank_biased_overlap`.

    Returns
    -------
    float
        IRBO, in ``[0, 1]``.

    Raises
    ------
    InputError
        For fewer than two topics.

    Examples
    --------
    Topics 0 and 2 have RBO 0.9 (:func:`rank_biased_overlap`); each shares only its last-ranked
    "tax" with topic 1 (RBO ``0.9^3 / 3 + (0.1 / 0.9) 0.9^3 / 3 = 0.27``), so
    ``IRBO = 1 - (0.9 + 0.27 + 0.27) / 3``:

    >>> from tealeaves.coherence import inverted_rbo
    >>> topics = [["tax", "budget", "debt"], ["war", "army", "tax"], ["budget", "tax", "debt"]]
    >>> round(inverted_rbo(topics, topn=3), 4)
    0.52
    """
    words = _top(topics, topn)
    if len(words) < 2:
        raise InputError("inverted RBO compares topics pairwise: give at least two topics")
    return 1.0 - float(np.mean([rank_biased_overlap(a, b, p) for a, b in itertools.combinations(words, 2)]))


@dataclass(frozen=True)
class DiversityResult(Result):
    """Diversity, uniqueness, inverted RBO and Hoyle et al.'s redundancy filters of one model.

    Attributes
    ----------
    topic_diversity : float
        Dieng et al. 2020 over the top ``diversity_topn`` words.
    topic_uniqueness : float
        Mean of ``per_topic`` (Nan et al. 2019).
    per_topic : float64[K]
        Each topic's uniqueness over its top ``uniqueness_topn`` words.
    inverted_rbo : float
        Over the top ``uniqueness_topn`` words with persistence ``rbo_p``.
    duplicate_topics : tuple of (topic_a, topic_b)
        Topic pairs whose top ``filter_topn`` words are the same set (:func:`duplicate_topics`).
    filter_uniqueness : float
        Topic uniqueness over the top ``filter_topn`` words, the value filter (b) compares.
    filter_a : bool
        Hoyle et al.'s filter (a): no two topics have the same top-``filter_topn`` set.
    filter_b : bool
        Filter (b): ``filter_uniqueness`` is above ``min_uniqueness``.
    uniqueness_filter : bool
        Whether filter (b) counts towards ``redundant`` for this model.
    redundant : bool
        The model fails filter (a), or filter (b) where it applies.
    shared_top_words : tuple of (topic_a, topic_b, words)
        A diagnostic, not a filter: topic pairs sharing any of their top ``overlap_topn`` words.
    diversity_topn, uniqueness_topn, filter_topn, overlap_topn : int
        The numbers of top words used (:func:`diversity`'s arguments).
    min_uniqueness : float
        Filter (b)'s threshold.
    rbo_p : float
        The persistence of the inverted RBO.

    Examples
    --------
    >>> from tealeaves.coherence import diversity
    >>> topics = [["tax", "budget", "debt"], ["war", "army", "tax"], ["budget", "tax", "debt"]]
    >>> result = diversity(topics, diversity_topn=3, uniqueness_topn=3, filter_topn=3, overlap_topn=3)
    >>> result
    DiversityResult(topics=3, topic diversity (top 3)=0.5556, topic uniqueness (top 3)=0.5556, ...)
    >>> result.measures()["inverted RBO (top 3, p=0.9)"]
    0.52
    >>> result.filter_a, result.redundant  # topics 0 and 2 are duplicates
    (False, True)
    >>> result.columns()["duplicate_of"]  # one row per topic
    ['2', '', '0']
    """

    topic_diversity: float
    topic_uniqueness: float
    per_topic: np.ndarray
    inverted_rbo: float
    duplicate_topics: tuple[tuple[int, int], ...]
    filter_uniqueness: float
    filter_a: bool
    filter_b: bool
    uniqueness_filter: bool
    redundant: bool
    shared_top_words: tuple[tuple[int, int, tuple[str, ...]], ...]
    diversity_topn: int
    uniqueness_topn: int
    filter_topn: int
    min_uniqueness: float
    overlap_topn: int
    rbo_p: float

    def measures(self) -> dict[str, Any]:
        """The measures by the names ``tealeaves diversity`` prints them under (and the display shows), in its order."""
        applied = "" if self.uniqueness_filter else ", not applied"
        return {
            f"topic diversity (top {self.diversity_topn})": self.topic_diversity,
            f"topic uniqueness (top {self.uniqueness_topn})": self.topic_uniqueness,
            f"inverted RBO (top {self.uniqueness_topn}, p={self.rbo_p})": self.inverted_rbo,
            f"duplicate topic pairs (same top-{self.filter_topn} words)": len(self.duplicate_topics),
            f"topic uniqueness (top {self.filter_topn}{applied})": self.filter_uniqueness,
            "redundant (Hoyle et al. 2021)": "yes" if self.redundant else "no",
            f"topic pairs sharing a top-{self.overlap_topn} word": len(self.shared_top_words),
        }

    def summary(self) -> dict[str, Any]:
        """The number of topics and :meth:`measures`: what the display shows first."""
        return {"topics": len(self.per_topic), **self.measures()}

    def columns(self) -> Columns:
        """One row per topic: its uniqueness, the topics it duplicates, the topics it shares top words with."""

        def partners(pairs: Sequence[tuple[int, int]]) -> list[str]:
            found: dict[int, list[int]] = {k: [] for k in range(len(self.per_topic))}
            for a, b in pairs:
                found[a].append(b)
                found[b].append(a)
            return [" ".join(map(str, found[k])) for k in found]

        return {
            "topic": np.arange(len(self.per_topic)),
            "uniqueness": self.per_topic,
            "duplicate_of": partners(self.duplicate_topics),
            "shares_top_words_with": partners([(a, b) for a, b, _ in self.shared_top_words]),
        }


def duplicate_topics(topics: TopicsLike, topn: int = 5) -> tuple[tuple[int, int], ...]:
    """Every pair of topics ``a < b`` whose top-N words are the same set (in any order).

    Hoyle et al.'s filter (a): their code (``compute_to`` in ahoho/dvae ``utils.py``, with
    ``diversity_top_n = 5`` and ``overlapping_word_threshold = 5`` in ``runs/collect-runs.ipynb``)
    keeps a model when no pair of topics overlaps in 5 of their top 5 words.

    Parameters
    ----------
    topics : TopicModel, Topics or list of word lists
        Words in rank order; each topic needs ``topn`` words.
    topn : int, default 5
        Top words per topic compared.

    Returns
    -------
    tuple of (int, int)
        The pairs ``(a, b)``, ``a < b``, in order; empty when filter (a) keeps the model.

    Examples
    --------
    >>> from tealeaves.coherence import duplicate_topics
    >>> topics = [["tax", "budget", "debt"], ["war", "army", "tax"], ["budget", "tax", "debt"]]
    >>> duplicate_topics(topics, topn=3)  # the same three words in another order
    ((0, 2),)
    >>> duplicate_topics(topics, topn=1)  # top words tax, war, budget
    ()
    """
    words = _top(topics, topn)
    first: dict[frozenset[str], int] = {}
    groups: dict[int, list[int]] = {}
    for k, topic in enumerate(words):
        first.setdefault(frozenset(topic), k)
        groups.setdefault(first[frozenset(topic)], []).append(k)
    return tuple(sorted(pair for group in groups.values() for pair in itertools.combinations(group, 2)))


def shared_top_words(topics: TopicsLike, topn: int = 5) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """Every pair of topics whose top-N words overlap, with the shared words.

    A diagnostic of how much topics overlap, not Hoyle et al.'s filter (:func:`duplicate_topics`).

    Parameters
    ----------
    topics : TopicModel, Topics or list of word lists
        Words in rank order; each topic needs ``topn`` words.
    topn : int, default 5
        Top words per topic compared.

    Returns
    -------
    tuple of (int, int, tuple of str)
        ``(a, b, words)`` for each pair ``a < b`` that shares top words, the shared words in
        topic ``a``'s order.

    Examples
    --------
    >>> from tealeaves.coherence import shared_top_words
    >>> topics = [["tax", "budget", "debt"], ["war", "army", "tax"], ["budget", "tax", "debt"]]
    >>> for a, b, words in shared_top_words(topics, topn=3):
    ...     print(a, b, words)
    0 1 ('tax',)
    0 2 ('tax', 'budget', 'debt')
    1 2 ('tax',)
    """
    words = _top(topics, topn)
    out = []
    for a, b in itertools.combinations(range(len(words)), 2):
        common = tuple(w for w in words[a] if w in set(words[b]))
        if common:
            out.append((a, b, common))
    return tuple(out)


UNIQUENESS_FILTER_MODELS = ("etm",)
"""The model kinds Hoyle et al.'s notebook applies filter (b) to (``runs/collect-runs.ipynb``: ETM only)."""


TOPN_DEFAULTS = {"diversity_topn": 25, "uniqueness_topn": 10, "filter_topn": 5, "overlap_topn": 5}
"""The papers' numbers of top words, :func:`diversity`'s defaults (capped at what the topics hold)."""
LABELS = {
    "diversity": "topic diversity",
    "uniqueness": "topic uniqueness and inverted RBO",
    "filter": "Hoyle et al.'s filters",
    "overlap": "the shared-word diagnostic",
}


class TopNCappedWarning(UserWarning):
    """A default number of top words was more than the topics hold, so fewer were used (named in the message)."""


def diversity(
    topics: TopicsLike,
    diversity_topn: int | None = None,
    uniqueness_topn: int | None = None,
    filter_topn: int | None = None,
    min_uniqueness: float = 0.7,
    uniqueness_filter: bool | None = None,
    overlap_topn: int | None = None,
    rbo_p: float = 0.9,
) -> DiversityResult:
    """All diversity measures of a model, and Hoyle et al.'s (2021, §4.2) redundancy filters.

    As the authors' code applies them (``runs/collect-runs.ipynb`` in ahoho/topics):

    - (a) a model is redundant when two of its topics have the same set of top
      ``filter_topn`` = 5 words (:func:`duplicate_topics`). The paper's sentence ("models in
      which any of the top five words of one topic overlap with another") also reads as *any*
      shared word; the code removes only identical top-5 sets, and the models it published
      share top-5 words between many topic pairs;
    - (b) a model is redundant when its topic uniqueness over the top ``filter_topn`` = 5 words
      is not above ``min_uniqueness`` = 0.7. The notebook applies (b) to ETM only:
      ``uniqueness_filter=None`` does the same for a model whose kind is in
      :data:`UNIQUENESS_FILTER_MODELS` (a TopicModel's ``kind``, a Topics' ``meta["model"]``),
      ``True`` applies it to every model, ``False`` to none. Plain word lists have no kind, so
      None applies only (a) to them.

    ``shared_top_words`` (pairs sharing any top-``overlap_topn`` word) is reported beside them
    as a diagnostic; it does not make a model redundant.

    Parameters
    ----------
    topics : TopicModel, Topics, list of word lists, or another library's model
        Words in rank order (:func:`~tealeaves.models.as_model` reads gensim's, OCTIS's, ...
        models); each topic needs as many words as the largest ``*_topn`` given.
    diversity_topn : int, optional
        Top words of :func:`topic_diversity` (default 25, Dieng et al.'s, or every word of
        the shortest topic when that is fewer: a :class:`TopNCappedWarning` says so; the
        result records the number used).
    uniqueness_topn : int, optional
        Top words of :func:`topic_uniqueness` and :func:`inverted_rbo` (default 10, capped alike).
    filter_topn : int, optional
        Top words of filters (a) and (b) (default 5, capped alike).
    min_uniqueness : float, default 0.7
        Filter (b)'s threshold.
    uniqueness_filter : bool, optional
        Whether filter (b) counts; None applies it to the kinds in
        :data:`UNIQUENESS_FILTER_MODELS`.
    overlap_topn : int, optional
        Top words of :func:`shared_top_words` (default 5, capped alike).
    rbo_p : float, default 0.9
        The persistence of :func:`inverted_rbo`.

    Returns
    -------
    DiversityResult

    Examples
    --------
    Topics 0 and 2 have the same five words: 10 distinct words of 15 (diversity 2/3), each
    word of topics 0 and 2 is in two topics (uniqueness 1/2), and filter (a) finds the pair.

    >>> from tealeaves.coherence import diversity
    >>> topics = [
    ...     ["tax", "budget", "debt", "revenue", "deficit"],
    ...     ["war", "army", "navy", "peace", "treaty"],
    ...     ["tax", "debt", "budget", "deficit", "revenue"],
    ... ]
    >>> result = diversity(topics, diversity_topn=5, uniqueness_topn=5)
    >>> round(result.topic_diversity, 4), result.per_topic.tolist()
    (0.6667, [0.5, 1.0, 0.5])
    >>> result.duplicate_topics, result.redundant
    (((0, 2),), True)

    Topics of ten words (a topic list a tool wrote) have topic diversity over their ten words,
    not the default 25, with a warning that says so:

    >>> import warnings
    >>> ten = [[f"{name}{i}" for i in range(10)] for name in ("tax", "war")]
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     result = diversity(ten)
    >>> result.diversity_topn, result.topic_diversity
    (10, 1.0)
    >>> print(caught[0].message)
    the shortest topic has 10 words, so fewer top words are used: topic diversity over the top 10 (not 25); pass diversity_topn=<N> to choose
    """
    if not (is_real(min_uniqueness) and 0 <= min_uniqueness <= 1):
        raise InputError(f"min_uniqueness must be a topic uniqueness in [0, 1], got {min_uniqueness!r}")
    topics = as_model(topics)
    diversity_topn, uniqueness_topn, filter_topn, overlap_topn = _topns_within(
        topics, diversity_topn=diversity_topn, uniqueness_topn=uniqueness_topn, filter_topn=filter_topn,
        overlap_topn=overlap_topn,
    )  # fmt: skip
    uniqueness = topic_uniqueness(topics, uniqueness_topn)
    duplicates = duplicate_topics(topics, filter_topn)
    filter_tu = float(topic_uniqueness(topics, filter_topn).mean())
    if uniqueness_filter is None:
        kind = topics.kind if isinstance(topics, TopicModel) else None
        if isinstance(topics, Topics):
            kind = topics.meta.get("model")
        uniqueness_filter = kind in UNIQUENESS_FILTER_MODELS
    filter_a, filter_b = not duplicates, filter_tu > min_uniqueness
    return DiversityResult(
        topic_diversity=topic_diversity(topics, diversity_topn),
        topic_uniqueness=float(uniqueness.mean()),
        per_topic=uniqueness,
        inverted_rbo=inverted_rbo(topics, uniqueness_topn, rbo_p),
        duplicate_topics=duplicates,
        filter_uniqueness=filter_tu,
        filter_a=filter_a,
        filter_b=filter_b,
        uniqueness_filter=bool(uniqueness_filter),
        redundant=not filter_a or (bool(uniqueness_filter) and not filter_b),
        shared_top_words=shared_top_words(topics, overlap_topn),
        diversity_topn=diversity_topn,
        uniqueness_topn=uniqueness_topn,
        filter_topn=filter_topn,
        min_uniqueness=min_uniqueness,
        overlap_topn=overlap_topn,
        rbo_p=rbo_p,
    )


def _topns_within(topics: TopicModel | Topics, **given: int | None) -> list[int]:
    """Each number of top words given, or its default of :data:`TOPN_DEFAULTS` capped at the shortest topic (warned)."""
    shortest = len(topics.vocab) if isinstance(topics, TopicModel) else min(len(words) for words in topics.words)
    used, capped = [], []
    for name, value in given.items():
        if value is None:
            value = min(TOPN_DEFAULTS[name], shortest)
            if value < TOPN_DEFAULTS[name]:
                capped.append(name)
        used.append(value)
    if capped:
        warnings.warn(
            f"the shortest topic has {shortest} words, so fewer top words are used: "
            + ", ".join(
                f"{LABELS[name.removesuffix('_topn')]} over the top {shortest} (not {TOPN_DEFAULTS[name]})"
                for name in capped
            )
            + f"; pass {capped[0]}=<N> to choose",
            TopNCappedWarning,
            stacklevel=3,
        )
    return used
