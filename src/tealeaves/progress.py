"""Progress reporting for long work.

API functions that take long accept ``progress=``: a callable that receives a
:class:`ProgressUpdate` after each unit of work. The CLI passes one that drives a rich
progress bar; library users may pass any callable (or ``None`` for silence).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ProgressUpdate:
    """``done`` of ``total`` units of ``task`` finished; ``info`` carries e.g. the objective."""

    task: str
    done: int
    total: int | None
    info: dict[str, Any] = field(default_factory=dict)


ProgressCallback = Callable[[ProgressUpdate], None]


def notify(progress: ProgressCallback | None, task: str, done: int, total: int | None, **info: Any) -> None:
    """Send one update to ``progress`` when a callback was given."""
    if progress is not None:
        progress(ProgressUpdate(task, done, total, info))
