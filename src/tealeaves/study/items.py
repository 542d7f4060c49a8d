"""Study items: the questions of the three human tasks and the synthetic attention checks.

- Word intrusion (Chang et al. 2009 §3.1): a topic's words plus one intruder, shuffled, made
  by :func:`tealeaves.intrusion.intruder_sets` (Chang's top 5 or Hoyle et al. 2021's 5 of the
  top 10; the one generator shared with automated word intrusion).
- Topic intrusion (Chang et al. 2009 §3.2): a document's title and snippet with four topics of
  their 8 most probable words: the document's three most probable topics under θ̂_d and one
  intruder drawn uniformly from its low-probability topics, shuffled.
- Ratings (Newman et al. 2010; Hoyle et al. 2021 §5, Fig. 4): a topic's 10 most probable words
  in rank order, rated on a 3- or 5-point scale.
- Attention checks (Hoyle et al. 2021 footnote 14): synthetic poor-quality topics made of
  high-probability words of other topics that are improbable in the topics under study (see
  :func:`synthetic_topics`). A careful reader rates them lowest.

An :class:`Item` holds everything about a question, including its answer key; only
:meth:`Item.public` is ever sent to a browser.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import InputError
from tealeaves.intrusion import intruder_sets
from tealeaves.models import TopicModel, Topics, as_topics

TOPIC_INTRUSION_WORDS = 8
"""Words shown per topic in topic intrusion (Chang et al. 2009 §3.2)."""
RATING_WORDS = 10
"""Words shown per topic in the ratings task (Hoyle et al. 2021 §5)."""
TOPIC_INTRUSION_OPTIONS = 4
"""Three most probable topics plus one intruder (Chang et al. 2009 §3.2)."""
CHECK_LABEL = "check"
"""The ``model`` of attention-check items (a label no model may take)."""


@dataclass(frozen=True)
class Item:
    """One question of a study.

    Attributes
    ----------
    item_id : str
        Opaque id within the study (never shown to participants).
    task : str
        ``word-intrusion``, ``topic-intrusion`` or ``rating``.
    model : str
        Label of the model the item comes from; ``"check"`` for attention checks.
    topic : int or None
        Topic index in its model (word intrusion, rating); the intruder topic (topic intrusion).
    words : tuple of str
        Shown words in display order (word intrusion, rating).
    options : tuple of tuple of str
        Topic intrusion: the four options' words, in display order.
    option_topics, option_theta : tuples
        Topic intrusion: each option's topic index and θ̂_{d,k}.
    doc_id, doc_title, doc_snippet : str
        Topic intrusion: the document shown.
    intruder : str
        The intruder word, or the intruder topic index as text; empty for ratings.
    intruder_position : int or None
        0-based display position of the intruder; None for ratings.
    scale : int or None
        Rating scale (3 or 5).
    familiarity : bool
        Whether the familiarity question (Hoyle et al. Fig. 1) is asked.
    is_check : bool
        A synthetic attention check (see :meth:`fails_check`).
    source : dict
        How the item was made (draw, ranks used), for the record.

    Examples
    --------
    Items are made by :func:`~tealeaves.study.create_study`; one word-intrusion question:

    >>> from tealeaves.study import Item
    >>> item = Item("q0001", "word-intrusion", "lda", 0, words=("tax", "budget", "apple", "debt"),
    ...             intruder="apple", intruder_position=2)
    >>> item.answers(), item.is_correct(2), item.is_correct(0)
    ([0, 1, 2, 3], True, False)
    >>> item.public()  # what the participant's browser gets: no model, topic or key
    {'task': 'word-intrusion', 'familiarity': True, 'words': ['tax', 'budget', 'apple', 'debt']}
    >>> Item.from_dict(item.to_dict()) == item
    True
    """

    item_id: str
    task: str
    model: str
    topic: int | None
    words: tuple[str, ...] = ()
    options: tuple[tuple[str, ...], ...] = ()
    option_topics: tuple[int, ...] = ()
    option_theta: tuple[float, ...] = ()
    doc_id: str = ""
    doc_title: str = ""
    doc_snippet: str = ""
    intruder: str = ""
    intruder_position: int | None = None
    scale: int | None = None
    familiarity: bool = True
    is_check: bool = False
    source: tuple[tuple[str, Any], ...] = ()

    @property
    def n_options(self) -> int:
        """Number of answers: words (word intrusion), word groups (topic intrusion), scale points."""
        if self.task == "rating":
            return int(self.scale or 0)
        return len(self.options) if self.task == "topic-intrusion" else len(self.words)

    def answers(self) -> list[int]:
        """The valid values of ``answer``: 0-based positions, or ratings 1..scale."""
        return list(range(1, self.n_options + 1)) if self.task == "rating" else list(range(self.n_options))

    def fails_check(self, answer: int) -> bool:
        """Whether ``answer`` fails this attention check: a synthetic poor-quality topic (Hoyle et al.
        2021, footnote 14) rated in the top category of its scale ("very related"). The analysis
        applies the same rule (:func:`tealeaves.analysis.responses.failed_checks`)."""
        return self.is_check and self.scale is not None and answer >= self.scale

    def is_correct(self, answer: int) -> bool | None:
        """Whether ``answer`` picked the intruder (intrusion tasks); None for ratings."""
        return None if self.intruder_position is None else answer == self.intruder_position

    def public(self) -> dict[str, Any]:
        """What a participant's browser may see before answering: no model, topic, key or check flag."""
        view: dict[str, Any] = {"task": self.task, "familiarity": self.familiarity}
        if self.task == "topic-intrusion":
            view.update(doc_title=self.doc_title, doc_snippet=self.doc_snippet, options=[list(o) for o in self.options])
        else:
            view["words"] = list(self.words)
        if self.scale is not None:
            view["scale"] = self.scale
        return view

    def to_dict(self) -> dict[str, Any]:
        """All fields as JSON types (for ``items.jsonl``)."""
        data = asdict(self)
        data["source"] = dict(self.source)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Item:
        """The inverse of :meth:`to_dict`."""
        fields = dict(data)
        fields["words"] = tuple(fields.get("words", ()))
        fields["options"] = tuple(tuple(o) for o in fields.get("options", ()))
        fields["option_topics"] = tuple(int(t) for t in fields.get("option_topics", ()))
        fields["option_theta"] = tuple(float(t) for t in fields.get("option_theta", ()))
        fields["source"] = tuple(sorted(dict(fields.get("source", {})).items()))
        return cls(**fields)


# --------------------------------------------------------------------------- word intrusion
def word_intrusion_items(
    label: str,
    topics: TopicModel | Topics | Sequence[Sequence[str]],
    selected: Sequence[int],
    protocol: str,
    draws: int,
    familiarity: bool,
    seed: int,
) -> list[Item]:
    """Word-intrusion items for the ``selected`` topics of one model (Chang et al. 2009 §3.1).

    The sets come from :func:`tealeaves.intrusion.intruder_sets` with ``protocol`` ("chang":
    the top 5 words; "hoyle": 5 of the top 10) and ``draws`` independent sets per topic; the
    intruder has low probability in the topic (outside its top 50) and high probability in
    another topic of the same model (within that topic's top 10).
    """
    sets = intruder_sets(topics, draws=draws, protocol=protocol, seed=seed)  # type: ignore[arg-type]
    keep = set(selected)
    return [
        Item(
            item_id="",
            task="word-intrusion",
            model=label,
            topic=s.topic,
            words=s.words,
            intruder=s.intruder,
            intruder_position=s.intruder_position,
            familiarity=familiarity,
            source=(
                ("draw", s.draw),
                ("high_rank_used", s.high_rank_used),
                ("intruder_topic", s.intruder_topic),
                ("protocol", protocol),
            ),
        )
        for s in sets
        if s.topic in keep
    ]


# --------------------------------------------------------------------------- topic intrusion
def topic_intrusion_items(
    label: str,
    model: TopicModel,
    docs: Sequence[int],
    theta: np.ndarray,
    corpus: Corpus,
    low_share: float,
    familiarity: bool,
    rng: np.random.Generator,
) -> list[Item]:
    """Topic-intrusion items for documents ``docs`` of ``corpus`` (Chang et al. 2009 §3.2).

    For document d with point estimate θ̂_d (row of ``theta``), the options are the three
    topics with the largest θ̂_{d,k} and one intruder drawn uniformly from the
    ``ceil(low_share * K)`` least probable topics (never one of the three); each option shows
    its topic's 8 most probable words, and the four options are shuffled.
    """
    k = model.k
    if k < TOPIC_INTRUSION_OPTIONS:
        raise InputError(f"topic intrusion needs models with at least 4 topics; {label!r} has {k}")
    if not 0 < low_share <= 1:
        raise InputError(f"the intruder's low-probability share must be in (0, 1], got {low_share}")
    top = model.top_words(TOPIC_INTRUSION_WORDS)
    n_low = max(1, math.ceil(low_share * k))
    items = []
    for row, d in enumerate(docs):
        order = np.argsort(-theta[row], kind="stable")
        likely = [int(t) for t in order[:3]]
        pool = [int(t) for t in order[max(3, k - n_low) :]]
        intruder = pool[int(rng.integers(len(pool)))]
        shown = [*likely, intruder]
        perm = rng.permutation(TOPIC_INTRUSION_OPTIONS)
        option_topics = tuple(shown[i] for i in perm)
        items.append(
            Item(
                item_id="",
                task="topic-intrusion",
                model=label,
                topic=intruder,
                options=tuple(tuple(top[t]) for t in option_topics),
                option_topics=option_topics,
                option_theta=tuple(float(theta[row, t]) for t in option_topics),
                doc_id=corpus.ids[d],
                doc_title=corpus.titles[d],
                doc_snippet=corpus.snippets[d],
                intruder=str(intruder),
                intruder_position=int(np.flatnonzero(perm == 3)[0]),
                familiarity=familiarity,
                source=(("doc_index", int(d)), ("intruder_pool", len(pool))),
            )
        )
    return items


# --------------------------------------------------------------------------- ratings
def rating_items(label: str, topics: Topics, selected: Sequence[int], scale: int, familiarity: bool) -> list[Item]:
    """Rating items: each selected topic's 10 most probable words in rank order (Hoyle et al. Fig. 4)."""
    top = topics.top(RATING_WORDS)
    return [
        Item(item_id="", task="rating", model=label, topic=k, words=top[k], scale=scale, familiarity=familiarity)
        for k in selected
    ]


# --------------------------------------------------------------------------- attention checks
def synthetic_topics(
    study_topics: Sequence[Sequence[str]],
    n: int,
    rng: np.random.Generator,
    sources: Sequence[Sequence[str]] | None = None,
    n_words: int = RATING_WORDS,
    high_rank: int = 10,
    low_rank: int = 50,
) -> list[tuple[tuple[str, ...], int]]:
    """Synthetic poor-quality topics for attention checks (Hoyle et al. 2021, footnote 14).

    Hoyle et al. use "random high-probability words appearing in topics from other
    hyperparameter settings, but that have low probability among selected topics". Here each
    synthetic topic is built from words drawn at random from the top ``high_rank`` words of
    the ``sources`` topics (by default the topics under study themselves), accepting a word
    only if

    - its source topic has given no other word to this synthetic topic, and
    - no topic under study has it among its ``low_rank`` most probable words together with a
      word already chosen,

    so that no topic under study makes any two of its words probable together: the list has no
    theme a reader could name. When too few words qualify, ``low_rank`` is halved (down to
    ``high_rank``); the value used is returned with each topic.

    Parameters
    ----------
    study_topics : sequence of sequence of str
        The topics under study, each its words in rank order.
    n : int
        Synthetic topics to build.
    rng : numpy.random.Generator
        The draws.
    sources : sequence of sequence of str, optional
        Topics to draw the words from (default: ``study_topics``; Hoyle et al. used other
        runs).
    n_words : int, optional
        Words per synthetic topic.
    high_rank : int, optional
        Words are drawn from each source topic's top ``high_rank``.
    low_rank : int, optional
        No two chosen words may both be among a study topic's top ``low_rank``.

    Returns
    -------
    list of (words, low_rank_used)

    Raises
    ------
    InputError
        For a negative ``n``, or when too few words qualify even at ``low_rank = high_rank``.

    Examples
    --------
    Each word comes from a different topic, so the list has no theme:

    >>> import numpy as np
    >>> from tealeaves.study import synthetic_topics
    >>> topics = [
    ...     ["tax", "budget", "deficit"], ["war", "army", "troops"], ["school", "children", "teachers"],
    ...     ["oil", "energy", "gas"], ["court", "law", "justice"], ["farm", "crops", "farmers"],
    ... ]
    >>> synthetic_topics(topics, 2, np.random.default_rng(0), n_words=4)
    [(('children', 'justice', 'oil', 'army'), 50), (('crops', 'troops', 'deficit', 'children'), 50)]
    """
    sources = study_topics if sources is None else sources
    if n < 0:
        raise InputError(f"the number of attention checks must be >= 0, got {n}")
    pool = sorted({(w, j) for j, words in enumerate(sources) for w in list(words)[:high_rank]})
    out = []
    for _ in range(n):
        used = low_rank
        while True:
            members: dict[str, frozenset[int]] = {}
            for t, words in enumerate(study_topics):
                for w in list(words)[:used]:
                    members[w] = members.get(w, frozenset()) | {t}
            chosen: list[str] = []
            blocked: set[int] = set()
            sources_used: set[int] = set()
            for i in rng.permutation(len(pool)):
                word, source = pool[int(i)]
                topics_of_word = members.get(word, frozenset())
                if word in chosen or source in sources_used or topics_of_word & blocked:
                    continue
                chosen.append(word)
                sources_used.add(source)
                blocked |= topics_of_word
                if len(chosen) == n_words:
                    break
            if len(chosen) == n_words:
                out.append((tuple(chosen), used))
                break
            if used <= high_rank:
                raise InputError(
                    f"cannot build a synthetic attention-check topic of {n_words} words: the topics offer too few "
                    f"words that no topic under study makes probable together (it needs at least {n_words} source "
                    "topics); pass more models or check topics from other runs, or set checks to 0"
                )
            used = max(high_rank, used // 2)
    return out


def check_items(
    study_topics: Sequence[Sequence[str]],
    n: int,
    scale: int,
    familiarity: bool,
    rng: np.random.Generator,
    sources: Sequence[Sequence[str]] | None = None,
) -> list[Item]:
    """Rating attention checks: synthetic poor topics, failed when rated "very related"."""
    return [
        Item(
            item_id="",
            task="rating",
            model=CHECK_LABEL,
            topic=None,
            words=words,
            scale=scale,
            familiarity=familiarity,
            is_check=True,
            source=(("low_rank_used", used), ("synthetic", True)),
        )
        for words, used in synthetic_topics(study_topics, n, rng, sources=sources)
    ]


def ranked_words(topics: TopicModel | Topics | Sequence[Sequence[str]], depth: int = 50) -> list[list[str]]:
    """Each topic's words by decreasing probability, ``depth`` deep where the model knows more."""
    if isinstance(topics, TopicModel):
        return topics.top_words(depth)
    return [list(t) for t in as_topics(topics).words]
