"""What a human task is: the hooks every task defines, with the defaults most tasks share.

A task is a subclass of :class:`HumanTask`, one instance of which is registered by name
(:mod:`tealeaves.study.tasks.registry`). Everything that differs between tasks is one of its
attributes or methods, and every part of tealeaves that handles items reads them there:

- creating a study (:func:`~tealeaves.study.create_study`): :meth:`HumanTask.items`, the
  defaults :attr:`~HumanTask.annotators`, :attr:`~HumanTask.familiarity` and
  :attr:`~HumanTask.checks`, :attr:`~HumanTask.has_key`, :attr:`~HumanTask.options` and
  :attr:`~HumanTask.instructions`;
- an item (:class:`~tealeaves.study.Item`, the response store): :meth:`~HumanTask.n_options`,
  :meth:`~HumanTask.answers`, :meth:`~HumanTask.is_correct`, :meth:`~HumanTask.shown` (its public view);
- the web app: :attr:`~HumanTask.question`, :attr:`~HumanTask.template`,
  :attr:`~HumanTask.choice_class`, :meth:`~HumanTask.answer_labels`;
- exports and Qualtrics (:mod:`tealeaves.study.exchange`): :meth:`~HumanTask.export_columns`,
  :meth:`~HumanTask.choice_id`, :meth:`~HumanTask.qualtrics_text`;
- the admin page (:mod:`tealeaves.study.monitor`): :attr:`~HumanTask.live_scores`,
  :meth:`~HumanTask.live_values`;
- the analysis (:mod:`tealeaves.analysis`): :attr:`~HumanTask.unit`, :attr:`~HumanTask.measure`,
  :meth:`~HumanTask.item_score`, :attr:`~HumanTask.answer_column`, :attr:`~HumanTask.answer_level`;
  and its power analysis: :attr:`~HumanTask.sized_as`.

The defaults describe a task whose answers are the display positions of the words it shows
and whose key, if any, is the intruder's position; a task overrides what differs.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from tealeaves.artifacts import arrays_sha256
from tealeaves.errors import InputError
from tealeaves.models import TopicModel, Topics

if TYPE_CHECKING:
    import os

    import pandas as pd

    from tealeaves.corpus import Corpus
    from tealeaves.study.tasks.item import Item

Unit = Literal["topic", "document"]
Level = Literal["nominal", "ordinal"]
UNIT_COLUMNS: dict[str, str] = {"topic": "topic", "document": "doc_id"}
"""The export column naming the item of each :attr:`HumanTask.unit`."""


@dataclass(frozen=True)
class ItemRequest:
    """What :func:`~tealeaves.study.create_study` gives a task to make its items from.

    Attributes
    ----------
    models : dict of str to TopicModel or Topics
        The models by label, in the order given.
    corpus : Corpus, path or None
        The corpus given to ``create_study`` (documents to show), if any.
    protocol, draws, scale, familiarity, topics_per_model, docs, low_share
        The options of ``create_study`` (a task reads those it uses, :attr:`HumanTask.options`).
    pick_rng : numpy.random.Generator
        Which topics or documents the study shows.
    task_rng : numpy.random.Generator
        The items' own draws (intruders, orders).
    """

    models: dict[str, TopicModel | Topics]
    corpus: Corpus | str | os.PathLike[str] | None
    protocol: str
    draws: int
    scale: int
    familiarity: bool
    topics_per_model: int | None
    docs: int
    low_share: float
    pick_rng: np.random.Generator
    task_rng: np.random.Generator


class HumanTask:
    """One kind of question people answer about topics: a new task subclasses this class (or
    :class:`TopicTask`) and registers an instance with :func:`~tealeaves.study.tasks.register_task`.

    Attributes
    ----------
    name : str
        The task's name in items, settings, exports and ``tealeaves study create --task``.
    question : str
        The question each item's page asks (and a Qualtrics survey's question text).
    instructions : str
        The instructions shown before the first item, unless the study gives its own.
    annotators : int
        Answers wanted per item when ``create_study`` is given no number.
    familiarity : bool
        Whether Hoyle et al. 2021's familiarity question is asked unless the study says.
    checks : int
        Synthetic attention checks (:func:`~tealeaves.study.items.check_items`) a study has unless
        it says; 0 for a task that takes none.
    has_key : bool
        Whether an answer can be right (the key, the intruder's position, may be shown after
        answering: ``show_answer``).
    options : tuple of str
        The options of ``create_study`` the task uses (:class:`ItemRequest`), recorded in the
        study's settings; the others are recorded as None.
    unit : {"topic", "document"}
        What an item asks about: one of a model's topics, or a document shown with several (a
        document task has ``docs`` items per model). The analysis scores and compares per unit,
        named by the export column :data:`UNIT_COLUMNS` gives.
    measure : str
        The name of the per-item human score :meth:`item_score` computes.
    live_scores : tuple of str
        The scores the admin page shows per model, each a mean over items of :meth:`live_values`.
    answer_column : str or None
        The export column holding each answer's value for the analyses over answers (agreement,
        correlations with automated metrics, regressions, pooled tests): ``correct`` or
        ``response``; None when only the items' scores are analysed.
    answer_level : {"nominal", "ordinal"}
        The measurement level of those values (Krippendorff's alpha; the pooled test and the
        regression follow it); an attention check of an ordinal task is failed at the top of its
        scale, one of a nominal task when it is answered wrong.
    sized_as : str
        The task of Hoyle et al. 2021 whose measured spread of item scores sizes a study of this
        task (:data:`tealeaves.analysis.power.HOYLE_SPREAD`): ``word-intrusion`` or ``rating``.
    template : str
        A Jinja2 fragment shown above the answers on the item's page; it reads the item's
        :meth:`public` view as ``view`` (escaped like every template of the app).
    choice_class : str
        The CSS class of each answer's label on the page (``words``: set as words).

    Examples
    --------
    Every part of tealeaves that depends on an item's task asks its task:

    >>> from tealeaves.study import Item, task_named
    >>> rating = task_named("rating")
    >>> rating.unit, rating.measure, rating.answer_column, rating.sized_as
    ('topic', 'mean rating', 'response', 'rating')
    >>> item = Item("q0001", "rating", "lda", 0, words=("tax", "budget", "debt"), scale=3)
    >>> rating.answers(item), rating.answer_labels(item)[0], rating.public(item)
    ([1, 2, 3], (3, 'Very related'), {'task': 'rating', 'familiarity': True, 'words': ['tax', 'budget', 'debt'], 'scale': 3})
    """

    name: str
    question: str
    instructions: str
    annotators: int = 26
    familiarity: bool = True
    checks: int = 0
    has_key: bool = True
    options: tuple[str, ...] = ()
    unit: Unit = "topic"
    measure: str
    live_scores: tuple[str, ...]
    answer_column: str | None = None
    answer_level: Level = "nominal"
    sized_as: str = "word-intrusion"
    template: str = ""
    choice_class: str = "words"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    # ----------------------------------------------------------------- creating a study
    def items(self, request: ItemRequest) -> tuple[list[Item], list[dict[str, Any]]]:
        """The study's items of every model, and one record per model for the manifest (label,
        kind, fingerprint, the topics or documents used: :func:`model_record`)."""
        raise NotImplementedError(f"the task {self.name!r} does not say how to make its items")

    # ----------------------------------------------------------------- the item
    def n_options(self, item: Item) -> int:
        """Number of answers: by default the words shown."""
        return len(item.words)

    def answers(self, item: Item) -> list[int]:
        """The valid values of an answer: by default the display positions, ``0`` to ``n_options - 1``."""
        return list(range(self.n_options(item)))

    def is_correct(self, item: Item, answer: int) -> bool | None:
        """Whether ``answer`` is the key (the intruder's position); None for an item without one."""
        return None if item.intruder_position is None else answer == item.intruder_position

    def shown(self, item: Item) -> dict[str, Any]:
        """What the item shows, for its :meth:`public` view: by default its words."""
        return {"words": list(item.words)}

    def public(self, item: Item) -> dict[str, Any]:
        """What a participant's browser may see before answering, never the model, topic, key or
        check flag: the task, whether familiarity is asked, what the item :meth:`shown`, its scale."""
        view: dict[str, Any] = {"task": item.task, "familiarity": item.familiarity, **self.shown(item)}
        if item.scale is not None:
            view["scale"] = item.scale
        return view

    def answer_labels(self, item: Item) -> list[tuple[int, str]]:
        """``(value, label)`` of each answer in display order: by default each word at its position."""
        return list(enumerate(item.words))

    # ----------------------------------------------------------------- exports and Qualtrics
    def export_columns(self, item: Item) -> dict[str, Any]:
        """The export columns that describe the item (:data:`~tealeaves.study.schema.EXPORT_COLUMNS`
        other than the study, the item id and the response)."""
        return {
            "task": item.task,
            "model": item.model,
            "topic": item.topic,
            "doc_id": item.doc_id,
            "words": " ".join(item.words),
            "option_topics": " ".join(map(str, item.option_topics)),
            "option_theta": " ".join(repr(float(t)) for t in item.option_theta),
            "intruder": item.intruder,
            "intruder_position": item.intruder_position,
            "scale": item.scale,
            "is_check": item.is_check,
        }

    def choice_id(self, answer: int) -> int:
        """The Qualtrics choice id of an answer value: by default the position plus one."""
        return answer + 1

    def qualtrics_text(self, item: Item) -> str:
        """The HTML of the item's Qualtrics question: by default the question."""
        return html.escape(self.question)

    # ----------------------------------------------------------------- scores
    def live_values(self, item: Item, responses: Sequence[dict[str, Any]]) -> dict[str, float | None]:
        """Each of :attr:`live_scores` for one item from its stored responses (dicts with
        ``answer``, ``correct`` and ``familiarity``, as :meth:`Store.responses` gives them)."""
        raise NotImplementedError(f"the task {self.name!r} has no live scores")

    def item_score(self, responses: pd.DataFrame) -> float:
        """The :attr:`measure` of one item (one :attr:`unit` of one model) from its rows of a
        checked export (:func:`tealeaves.analysis.check_export`)."""
        raise NotImplementedError(f"the task {self.name!r} has no score")


class TopicTask(HumanTask):
    """A task with one item (or ``draws``) per topic of each model: the topics are all of a
    model's, or ``topics_per_model`` of them drawn at random; a subclass says how a model's
    selected topics become items (:meth:`topic_items`).

    Attributes
    ----------
    unit : str
        ``"topic"``; the other attributes are those of :class:`HumanTask`.

    Examples
    --------
    A new task is a subclass registered by name; then a study of it is made, served, exported
    and analysed as any other (its scores need :meth:`~HumanTask.item_score` and
    :meth:`~HumanTask.live_values` too):

    >>> from tealeaves.models import as_topics
    >>> from tealeaves.study import Item, TopicTask, create_study, register_task
    >>> class FirstWord(TopicTask):
    ...     name = "first-word"
    ...     question = "Which word did the program rank first?"
    ...     instructions = "Each group of words comes from a program that ranked them: find its first word."
    ...     measure = "first-word precision"
    ...     live_scores = ("first-word precision",)
    ...
    ...     def topic_items(self, label, model, selected, request):
    ...         top = as_topics(model).top(3)
    ...         return [Item("", self.name, label, k, words=top[k][::-1], intruder=top[k][0], intruder_position=2)
    ...                 for k in selected]
    >>> task = register_task(FirstWord())
    >>> study = create_study({"lda": [["tax", "budget", "debt"], ["war", "army", "navy"]]}, "first-word", seed=0)
    >>> [(item.words, item.answers()) for item in study.items]
    [(('navy', 'army', 'war'), [0, 1, 2]), (('debt', 'budget', 'tax'), [0, 1, 2])]
    >>> from tealeaves.study.tasks import unregister_task
    >>> unregister_task("first-word")
    """

    unit: Unit = "topic"

    def items(self, request: ItemRequest) -> tuple[list[Item], list[dict[str, Any]]]:
        items: list[Item] = []
        records = []
        for label, model in request.models.items():
            n_topics = model.k if isinstance(model, TopicModel) else len(model)
            selected = select_topics(n_topics, request.topics_per_model, request.pick_rng, label)
            records.append(model_record(label, model, selected))
            items += self.topic_items(label, model, selected, request)
        return items, records

    def topic_items(
        self, label: str, model: TopicModel | Topics, selected: list[int], request: ItemRequest
    ) -> list[Item]:
        """The items of the ``selected`` topics of the model labelled ``label``."""
        raise NotImplementedError(f"the task {self.name!r} does not say how to make its items")


def select_topics(k: int, wanted: int | None, rng: np.random.Generator, label: str) -> list[int]:
    """All ``k`` topics, or ``wanted`` of them drawn without replacement, in increasing order."""
    if wanted is None:
        return list(range(k))
    if not 1 <= wanted <= k:
        raise InputError(f"topics_per_model must be between 1 and {k} (the topics of {label!r}), got {wanted}")
    return sorted(int(t) for t in rng.choice(k, size=wanted, replace=False))


def model_record(label: str, model: TopicModel | Topics, selected: list[int] | None) -> dict[str, Any]:
    """What a study's manifest records of a model: label, kind, size, a fingerprint of Φ (or the
    topic list's source) and the topics used (None: the task shows documents)."""
    if isinstance(model, TopicModel):
        return {
            "label": label,
            "kind": model.kind,
            "k": model.k,
            "phi_sha256": arrays_sha256(model.phi),
            "topics": selected,
        }
    return {"label": label, "kind": "topics", "k": len(model), "source": model.name, "topics": selected}


def mean(values: Sequence[float]) -> float | None:
    """The arithmetic mean, None for no values."""
    return sum(values) / len(values) if values else None


def found_share(responses: Sequence[dict[str, Any]]) -> float | None:
    """The share of stored responses that picked the key (live model precision)."""
    return mean([float(bool(r["correct"])) for r in responses])
