"""Word-intrusion sets: a topic's top words plus one intruder (Chang et al. 2009, §3.1).

One generator serves both the human word-intrusion task and automated word intrusion
(Lau, Newman & Baldwin 2014), so both see sets built the same way.

For topic k, the shown words are

- ``protocol="chang"``: its 5 most probable words (Chang et al. 2009);
- ``protocol="hoyle"``: 5 words drawn at random from its 10 most probable (Hoyle et al. 2021);

and the intruder is drawn uniformly from the words that have *low* probability in topic k
(not among its ``low_rank=50`` most probable words, "to reduce the possibility that the
intruder comes from the same semantic group") but *high* probability in some other topic
(among that topic's ``high_rank=10`` most probable words, "to ensure that the intruder is not
rejected outright due solely to rarity"). The six words are shuffled. With ``draws > 1`` each
topic gets several independent sets (Chang's annotators each saw a slightly different set).

When the topics are plain word lists (no probabilities), a word's rank in a topic is its
position in the list, and a word absent from the list counts as outside the top ``low_rank``.
If no word qualifies for a topic (tiny models), ``high_rank`` is doubled until one does, and
the value used is recorded with the set.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from tealeaves.errors import InputError, check_each, is_count
from tealeaves.models import TopicModel, Topics, as_model, as_topics
from tealeaves.results import Columns, Result

Protocol = Literal["chang", "hoyle"]
PROTOCOLS: dict[str, tuple[int, int]] = {"chang": (5, 5), "hoyle": (5, 10)}  # (shown, drawn from top)
"""The set protocols by name: (words shown, drawn from the top how many). ``chang``: the top 5
words (Chang et al. 2009); ``hoyle``: 5 drawn at random from the top 10 (Hoyle et al. 2021)."""


@dataclass(frozen=True)
class IntruderSet:
    """One word-intrusion question: ``words`` in display order, one of them the intruder.

    Attributes
    ----------
    topic : int
        The topic whose words are shown.
    draw : int
        Which of the topic's independent sets this is (0 .. draws - 1).
    words : tuple of str
        The shown words, shuffled: the topic's words and the intruder.
    intruder_position : int
        Index of the intruder in ``words``.
    intruder_topic : int
        The other topic among whose top words the intruder was drawn.
    high_rank_used : int
        The ``high_rank`` the draw needed (doubled from the requested one in tiny models).

    Examples
    --------
    >>> from tealeaves.intrusion import intruder_sets
    >>> topics = [["tax", "budget", "deficit", "spending", "revenue"], ["war", "peace", "army", "soldier", "battle"]]
    >>> first = intruder_sets(topics, seed=0).sets[0]
    >>> first.topic, first.words
    (0, ('deficit', 'spending', 'budget', 'tax', 'soldier', 'revenue'))
    >>> first.intruder, first.intruder_position, first.intruder_topic
    ('soldier', 4, 1)
    >>> first.topic_words
    ('deficit', 'spending', 'budget', 'tax', 'revenue')
    """

    topic: int
    draw: int
    words: tuple[str, ...]
    intruder_position: int
    intruder_topic: int
    high_rank_used: int

    @property
    def intruder(self) -> str:
        """The intruding word."""
        return self.words[self.intruder_position]

    @property
    def topic_words(self) -> tuple[str, ...]:
        """The shown words of the topic itself, in display order."""
        return tuple(w for i, w in enumerate(self.words) if i != self.intruder_position)


@dataclass(frozen=True)
class IntruderSets(Result):
    """All sets of a run, with the settings that made them.

    Attributes
    ----------
    sets : tuple of IntruderSet
        Every set, topic by topic and draw by draw.
    protocol : str
        ``chang`` or ``hoyle`` (:data:`PROTOCOLS`).
    low_rank, high_rank : int
        The intruder is outside the topic's top ``low_rank`` words and inside another topic's
        top ``high_rank``.
    seed : int
        The seed the sets were drawn with (-1 when a Generator was passed).

    Examples
    --------
    >>> from tealeaves.intrusion import intruder_sets
    >>> topics = [["tax", "budget", "deficit", "spending", "revenue"], ["war", "peace", "army", "soldier", "battle"]]
    >>> sets = intruder_sets(topics, draws=2, seed=0)
    >>> sets
    IntruderSets(protocol=chang, low_rank=50, high_rank=10, seed=0)
    >>> len(sets), [s.intruder for s in sets]
    (4, ['soldier', 'soldier', 'spending', 'budget'])
    >>> sets.columns()["words"][0]
    'deficit spending budget tax soldier revenue'
    """

    sets: tuple[IntruderSet, ...]
    protocol: str
    low_rank: int
    high_rank: int
    seed: int

    def __len__(self) -> int:
        return len(self.sets)

    def __iter__(self) -> Iterator[IntruderSet]:
        return iter(self.sets)

    def columns(self) -> Columns:
        """One row per set: topic, draw, shown words, intruder and its position and source topic."""
        return {
            "topic": [s.topic for s in self.sets],
            "draw": [s.draw for s in self.sets],
            "words": [" ".join(s.words) for s in self.sets],
            "intruder": [s.intruder for s in self.sets],
            "intruder_position": [s.intruder_position for s in self.sets],
            "intruder_topic": [s.intruder_topic for s in self.sets],
            "high_rank_used": [s.high_rank_used for s in self.sets],
        }


def intruder_sets(
    topics: TopicModel | Topics | Sequence[Sequence[str]],
    draws: int = 1,
    protocol: Protocol = "chang",
    low_rank: int = 50,
    high_rank: int = 10,
    seed: int | np.random.Generator = 0,
) -> IntruderSets:
    """Word-intrusion sets for every topic (see the module docstring for the procedure).

    Each set shows a topic's top words (``chang``) or words drawn from them (``hoyle``) and one
    intruder: a word outside the topic's top ``low_rank`` and among another topic's top
    ``high_rank``, drawn uniformly; the words are shuffled (Chang et al. 2009, §3.1).

    Parameters
    ----------
    topics : TopicModel, Topics or list of word lists
        At least two topics, words in rank order (in a plain list, a word's rank is its
        position, and a word absent from the list is outside the top ``low_rank``).
    draws : int
        Independent sets per topic.
    protocol : "chang" or "hoyle"
        Which words are shown (:data:`PROTOCOLS`).
    low_rank : int
        The intruder is not among the topic's ``low_rank`` most probable words.
    high_rank : int
        The intruder is among another topic's ``high_rank`` most probable words (doubled until
        a word qualifies; the value used is recorded with each set).
    seed : int or Generator
        Every draw comes from the ``"intruder sets"`` stream family under ``seed``
        (:func:`tealeaves.rng.family_generator`).

    Returns
    -------
    IntruderSets
        ``draws`` sets per topic, topic by topic.

    Examples
    --------
    >>> from tealeaves.intrusion import intruder_sets
    >>> topics = [["tax", "budget", "deficit", "spending", "revenue"], ["war", "peace", "army", "soldier", "battle"]]
    >>> for s in intruder_sets(topics, draws=2, seed=0):
    ...     print(s.topic, " ".join(s.words), "| intruder:", s.intruder)
    0 deficit spending budget tax soldier revenue | intruder: soldier
    0 budget tax spending revenue deficit soldier | intruder: soldier
    1 battle soldier spending war peace army | intruder: spending
    1 war army budget battle soldier peace | intruder: budget
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    if not isinstance(protocol, str) or protocol not in PROTOCOLS:
        raise InputError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    check_each(
        "word intrusion",
        [
            (is_count(draws), "draws >= 1", draws),
            (is_count(low_rank), "low_rank >= 1", low_rank),
            (is_count(high_rank), "high_rank >= 1", high_rank),
        ],
    )
    n_shown, from_top = PROTOCOLS[protocol]
    ranked = _ranked_lists(topics, max(low_rank, from_top, high_rank))
    if len(ranked) < 2:
        raise InputError("word intrusion needs at least two topics: the intruder comes from another topic")
    short = [k for k, words in enumerate(ranked) if len(words) < from_top]
    if short:
        raise InputError(f"topic {short[0]} has fewer than {from_top} words; the {protocol} protocol needs {from_top}")
    rng = family_generator(seed, "intruder sets")
    out = []
    for k, words in enumerate(ranked):
        excluded = set(words[:low_rank])
        for draw in range(draws):
            shown = list(words[:from_top])
            if from_top > n_shown:
                shown = [shown[i] for i in sorted(rng.choice(from_top, size=n_shown, replace=False))]
            intruder, source, used = _draw_intruder(ranked, k, excluded, high_rank, low_rank, rng)
            order = rng.permutation(n_shown + 1)
            six = [*shown, intruder]
            display = [six[i] for i in order]
            out.append(
                IntruderSet(
                    topic=k,
                    draw=draw,
                    words=tuple(display),
                    intruder_position=int(np.flatnonzero(order == n_shown)[0]),
                    intruder_topic=source,
                    high_rank_used=used,
                )
            )
    return IntruderSets(tuple(out), protocol, low_rank, high_rank, seed if isinstance(seed, int) else -1)


def _ranked_lists(topics: TopicModel | Topics | Sequence[Sequence[str]], depth: int) -> list[list[str]]:
    """Each topic's words by decreasing probability, at least ``depth`` deep when known."""
    topics = as_model(topics)
    if isinstance(topics, TopicModel):
        return topics.top_words(max(depth, 1) * 4)  # deep enough to double high_rank twice
    return [list(t) for t in as_topics(topics).words]


def _draw_intruder(
    ranked: list[list[str]], k: int, excluded: set[str], high_rank: int, low_rank: int, rng: np.random.Generator
) -> tuple[str, int, int]:
    longest = max(len(words) for words in ranked)
    used = high_rank
    while True:
        candidates: dict[str, int] = {}
        for j, words in enumerate(ranked):
            if j == k:
                continue
            for word in words[:used]:
                if word not in excluded:
                    candidates.setdefault(word, j)
        if candidates:
            pool = sorted(candidates)
            word = pool[int(rng.integers(len(pool)))]
            return word, candidates[word], used
        if used >= longest:
            raise InputError(
                f"no intruder can be found for topic {k}: every word of the other topics is among its top "
                f"{low_rank} words, where an intruder may not be (low_rank={low_rank}); lower low_rank, or use more "
                "topics or longer topic lists"
            )
        used *= 2
