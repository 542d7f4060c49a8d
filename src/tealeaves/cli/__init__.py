"""The ``tealeaves`` command line: one module per command group, each a thin layer over the API.

The root app lives in :mod:`tealeaves.cli.common`; importing a group's module registers its
commands. Every module imports the library inside its commands, so ``tealeaves --help`` loads
no more than typer and rich.
"""

from __future__ import annotations

from tealeaves.cli import (
    analysis,
    coherence,
    corpus,
    demo,
    evaluate,
    intrusion,
    likelihood,
    models,
    study,
    sweep,
    validate,
)
from tealeaves.cli.common import app

__all__ = [
    "analysis",
    "app",
    "coherence",
    "corpus",
    "demo",
    "evaluate",
    "intrusion",
    "likelihood",
    "main",
    "models",
    "study",
    "sweep",
    "validate",
]


def main() -> None:  # pragma: no cover - console script entry point
    app()
