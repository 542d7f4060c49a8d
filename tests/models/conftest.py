"""Fixtures shared by the model tests."""

from __future__ import annotations

import pytest

from tealeaves.corpus import prepare


@pytest.fixture(scope="session")
def sotu():
    """The builtin State of the Union paragraphs, prepared once (about 20,000 documents)."""
    return prepare("builtin:sotu")
