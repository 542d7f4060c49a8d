"""The registry of human tasks: every task by its name.

The built-in tasks (:data:`BUILTIN_TASKS`) are named by ``"module:attribute"`` strings and imported
the first time one is asked for, as the trainers of :mod:`tealeaves.models.training` are;
:func:`register_task` adds any other :class:`~tealeaves.study.tasks.base.HumanTask` (a plug-in, or
a test's own task). Every part of tealeaves that depends on the task of an item, a study or an
export row asks :func:`task_named` instead of comparing names.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from tealeaves.errors import InputError

if TYPE_CHECKING:
    from tealeaves.study.tasks.base import HumanTask

BUILTIN_TASKS: dict[str, str] = {
    "word-intrusion": "tealeaves.study.tasks.word_intrusion:TASK",
    "topic-intrusion": "tealeaves.study.tasks.topic_intrusion:TASK",
    "rating": "tealeaves.study.tasks.rating:TASK",
}
"""The tasks tealeaves ships, in the order they are listed: word intrusion and topic intrusion
(Chang et al. 2009 §3) and topic ratings (Newman et al. 2010; Hoyle et al. 2021 §5)."""

_tasks: dict[str, HumanTask] = {}


def register_task(task: HumanTask) -> HumanTask:
    """Register ``task`` under its :attr:`~tealeaves.study.tasks.base.HumanTask.name` (replacing a
    task registered before under that name; a built-in name is refused).

    Parameters
    ----------
    task : HumanTask
        An instance of a :class:`~tealeaves.study.tasks.base.HumanTask` subclass.

    Returns
    -------
    HumanTask
        ``task``, so that a module can write ``TASK = register_task(MyTask())``.

    Raises
    ------
    InputError
        For a built-in name, or a name that is not lower-case letters, digits and ``-``.

    Examples
    --------
    A task is one class (:class:`~tealeaves.study.tasks.base.TopicTask` shows a whole one):

    >>> from tealeaves.study.tasks import register_task, task_named, task_names, unregister_task
    >>> from tealeaves.study.tasks.rating import Rating
    >>> class Closeness(Rating):
    ...     name = "closeness"
    ...     question = "How closely are these words related?"
    >>> task = register_task(Closeness())
    >>> task_named("closeness") is task, task_names()
    (True, ['word-intrusion', 'topic-intrusion', 'rating', 'closeness'])
    >>> unregister_task("closeness")
    >>> register_task(Rating())
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: 'rating' is a built-in task; give the new task a name of its own
    """
    name = task.name
    if name in BUILTIN_TASKS:
        raise InputError(f"{name!r} is a built-in task; give the new task a name of its own")
    if not name or not all(c.islower() or c.isdigit() or c == "-" for c in name) or not name.isascii():
        raise InputError(f"a task's name is lower-case letters, digits and '-', got {name!r}")
    _tasks[name] = task
    return task


def unregister_task(name: str) -> None:
    """Forget the task :func:`register_task` registered under ``name`` (nothing for another name).

    Parameters
    ----------
    name : str
        The task's name.

    Examples
    --------
    >>> from tealeaves.study.tasks import task_names, unregister_task
    >>> unregister_task("rating")  # built-in tasks stay
    >>> "rating" in task_names()
    True
    """
    if name not in BUILTIN_TASKS:
        _tasks.pop(name, None)


def task_names() -> list[str]:
    """The names of every task: the built-in ones, then those registered, in registration order.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from tealeaves.study.tasks import task_names
    >>> task_names()
    ['word-intrusion', 'topic-intrusion', 'rating']
    """
    return [*BUILTIN_TASKS, *(name for name in _tasks if name not in BUILTIN_TASKS)]


def task_named(name: str) -> HumanTask:
    """The task registered (or built in) under ``name``.

    Parameters
    ----------
    name : str
        A task's name, as items, settings and exports record it.

    Returns
    -------
    HumanTask

    Raises
    ------
    InputError
        For a name no task has.

    Examples
    --------
    >>> from tealeaves.study.tasks import task_named
    >>> task = task_named("word-intrusion")
    >>> task.question, task.measure
    ('Which word does not belong with the others?', 'model precision')
    """
    task = _tasks.get(name) if isinstance(name, str) else None
    if task is not None:
        return task
    if not isinstance(name, str) or name not in BUILTIN_TASKS:
        raise InputError(f"task must be one of {', '.join(task_names())}, got {name!r}")
    module, _, attribute = BUILTIN_TASKS[name].partition(":")
    task = getattr(importlib.import_module(module), attribute)
    _tasks[name] = task
    return task
