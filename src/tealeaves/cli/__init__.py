"""The ``tealeaves`` command line: one module per command group, each a thin layer over the API.

The root app lives in :mod:`tealeaves.cli.common`; importing a group's module registers its
commands. The console script (:func:`main`) imports only the group of the command it runs
(:func:`tealeaves.cli.common.load_groups`); ``tealeaves.cli.app`` is the app with every group
registered. Every module imports the library inside its commands, so ``tealeaves --help`` loads
no more than typer and rich.
"""

from __future__ import annotations

import sys
from typing import Any

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


def __getattr__(name: str) -> Any:
    """``app``, with every command registered, or a group's module, imported when first asked for."""
    from tealeaves.cli.common import load_groups

    if name == "app":
        return load_groups()
    if name in __all__:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:  # pragma: no cover - console script entry point
    from tealeaves.cli.common import load_groups

    load_groups(sys.argv[1] if len(sys.argv) > 1 else None)()
