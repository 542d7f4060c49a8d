"""One question of a study: :class:`Item`, whose methods ask its task.

An :class:`Item` holds everything about a question, including its answer key; only
:meth:`Item.public` is ever sent to a browser. What an item shows and which answers it takes
depend on its task (word intrusion, topic intrusion, ratings, or a registered one: the modules of
:mod:`tealeaves.study.tasks`), which makes the items of a study (:meth:`HumanTask.items
<tealeaves.study.tasks.base.HumanTask.items>`); the item's methods find its task in the registry
(:func:`~tealeaves.study.tasks.registry.task_named`), which imports a task's module only when it
is asked for.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

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
