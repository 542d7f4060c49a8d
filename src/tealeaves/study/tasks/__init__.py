"""Human task types: each task in one module, registered by name.

A task is a :class:`~tealeaves.study.tasks.base.HumanTask` (its items, its page, its answers and
their key, its export columns, its scores for the admin page and the analysis, the task its power
analysis follows); the registry (:mod:`~tealeaves.study.tasks.registry`) finds one by the name that
items, settings and exports record. The built-in tasks, one module each:

- ``word-intrusion`` (:mod:`~tealeaves.study.tasks.word_intrusion`): find the intruder word;
- ``topic-intrusion`` (:mod:`~tealeaves.study.tasks.topic_intrusion`): find the topic that does
  not fit a document;
- ``rating`` (:mod:`~tealeaves.study.tasks.rating`): rate how related a topic's words are.

Another task is a subclass of :class:`HumanTask` (or of :class:`TopicTask`, for one item per
topic) in a module of its own, registered with :func:`register_task` (or, for one tealeaves
ships, named in :data:`~tealeaves.study.tasks.registry.BUILTIN_TASKS`).
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.study.tasks.base import HumanTask, ItemRequest, TopicTask
    from tealeaves.study.tasks.registry import BUILTIN_TASKS, register_task, task_named, task_names, unregister_task

__getattr__, __dir__ = attach(__name__, __file__, extra="study")

__all__ = [
    "BUILTIN_TASKS",
    "HumanTask",
    "ItemRequest",
    "TopicTask",
    "register_task",
    "task_named",
    "task_names",
    "unregister_task",
]
