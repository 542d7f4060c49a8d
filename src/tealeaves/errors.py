"""One exception family for everything tealeaves refuses to do.

Every message says what was wrong and how to fix it, in one line; the CLI prints that
line and exits with status 2.
"""

from __future__ import annotations


class TealeavesError(Exception):
    """Base class of every error tealeaves raises on purpose."""


class InputError(TealeavesError, ValueError):
    """An input (file, field, argument) is missing, unreadable or malformed."""


class EmptyResultError(TealeavesError):
    """Nothing is left to work on (no documents after filtering, no topics, ...)."""


class ArtifactError(TealeavesError):
    """An artifact folder is missing, incomplete, inconsistent or already exists."""


class MissingDependencyError(TealeavesError, ImportError):
    """An optional package or model that this feature needs is not installed."""
