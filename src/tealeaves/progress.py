"""Progress reporting for long work.

API functions that take long accept ``progress=``: a callable that receives a
:class:`ProgressUpdate` after each unit of work. The CLI passes one that drives a rich
progress bar; library users may pass any callable (or ``None`` for silence).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tealeaves.errors import InputError


@dataclass(frozen=True)
class ProgressUpdate:
    """``done`` of ``total`` units of ``task`` finished; ``info`` carries e.g. the objective.

    Attributes
    ----------
    task : str
        What is being done (``"gibbs"``, ``"coherence"``, ...).
    done : int
        Units finished so far.
    total : int or None
        Units in all, None when unknown.
    info : dict
        Extra values of this step (the log likelihood of a sampler's iteration, ...).

    Examples
    --------
    A callback that keeps the updates it receives:

    >>> from tealeaves.progress import ProgressUpdate
    >>> updates = []
    >>> updates.append(ProgressUpdate("gibbs", 10, 100, {"log_likelihood": -1234.5}))
    >>> updates[0].done / updates[0].total, updates[0].info["log_likelihood"]
    (0.1, -1234.5)
    """

    task: str
    done: int
    total: int | None
    info: dict[str, Any] = field(default_factory=dict)


ProgressCallback = Callable[[ProgressUpdate], None]


def notify(progress: ProgressCallback | None, task: str, done: int, total: int | None, **info: Any) -> None:
    """Send one update to ``progress`` when a callback was given.

    Parameters
    ----------
    progress : callable or None
        The caller's callback, given one :class:`ProgressUpdate`; None for silence.
    task : str
        What is being done.
    done : int
        Units finished so far.
    total : int or None
        Units in all, None when unknown.
    **info
        Extra values of this step, passed as :attr:`ProgressUpdate.info`.

    Examples
    --------
    >>> from tealeaves.progress import notify
    >>> updates = []
    >>> notify(updates.append, "gibbs", 10, 100, log_likelihood=-1234.5)
    >>> notify(None, "gibbs", 20, 100)  # no callback: nothing happens
    >>> updates
    [ProgressUpdate(task='gibbs', done=10, total=100, info={'log_likelihood': -1234.5})]
    >>> notify(True, "gibbs", 30, 100)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: progress must be a callable given each ProgressUpdate (progress=print prints them), got True
    """
    if progress is None:
        return
    if not callable(progress):  # progress=True, as a switch, raised "'bool' object is not callable" from inside
        raise InputError(
            f"progress must be a callable given each ProgressUpdate (progress=print prints them), got {progress!r}"
        )
    progress(ProgressUpdate(task, done, total, info))
