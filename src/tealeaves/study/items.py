"""Study items: one question of a study, and the synthetic attention checks.

An :class:`Item` holds everything about a question, including its answer key; only
:meth:`Item.public` is ever sent to a browser. What an item shows and which answers it takes
depend on its task (:mod:`tealeaves.study.tasks`: word intrusion, topic intrusion, ratings, or a
registered one), which makes the items of a study (:meth:`HumanTask.items
<tealeaves.study.tasks.base.HumanTask.items>`); the item's methods ask its task.

Attention checks (Hoyle et al. 2021 footnote 14) are synthetic poor-quality topics made of
high-probability words of other topics that are improbable in the topics under study (see
:func:`synthetic_topics`). A careful reader rates them lowest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from tealeaves.errors import InputError
from tealeaves.models import TopicModel, Topics, as_topics
from tealeaves.study.tasks.registry import task_named

RATING_WORDS = 10
"""Words shown per topic in the ratings task and in an attention check (Hoyle et al. 2021 §5)."""
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
        The name of its task (:mod:`tealeaves.study.tasks`): ``word-intrusion``,
        ``topic-intrusion``, ``rating`` or a registered one.
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
        return task_named(self.task).n_options(self)

    def answers(self) -> list[int]:
        """The valid values of ``answer``: 0-based positions, or ratings 1..scale."""
        return task_named(self.task).answers(self)

    def fails_check(self, answer: int) -> bool:
        """Whether ``answer`` fails this attention check: a synthetic poor-quality topic (Hoyle et al.
        2021, footnote 14) rated in the top category of its scale ("very related"). The analysis
        applies the same rule (:func:`tealeaves.analysis.responses.failed_checks`)."""
        return self.is_check and self.scale is not None and answer >= self.scale

    def is_correct(self, answer: int) -> bool | None:
        """Whether ``answer`` picked the intruder (intrusion tasks); None for ratings."""
        return task_named(self.task).is_correct(self, answer)

    def public(self) -> dict[str, Any]:
        """What a participant's browser may see before answering: no model, topic, key or check flag."""
        return task_named(self.task).public(self)

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
    *,
    task: str,
) -> list[Item]:
    """Attention checks: synthetic poor topics asked as items of ``task`` on a ``scale``, failed
    when rated "very related" (the top of the scale)."""
    return [
        Item(
            item_id="",
            task=task,
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
