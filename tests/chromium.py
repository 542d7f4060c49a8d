"""Debian's Chromium driven by Playwright, for the browser tests of the study app and the report.

Chromium at ``$TEALEAVES_CHROMIUM`` (default ``/usr/bin/chromium``); when it or Playwright is
missing the tests skip, or fail with ``CI=true`` (:func:`tealeaves.study.testing.unavailable`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tealeaves.study.testing import unavailable

CHROMIUM = os.environ.get("TEALEAVES_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def chromium(shots: Path, width: int, height: int = 900) -> Iterator[Any]:
    """A headless Chromium context on a fresh profile (removed afterwards); ``shots`` is created
    for the screenshots."""
    if not os.access(CHROMIUM, os.X_OK):
        unavailable(f"{CHROMIUM} is missing: run scripts/system-deps.sh (Debian's chromium)")
    try:
        from playwright import sync_api
    except ImportError:
        unavailable("the playwright package is not installed: pip install -e '.[test]'")
    profile = tempfile.mkdtemp(prefix="tealeaves-chromium-")
    shots.mkdir(parents=True, exist_ok=True)
    try:
        with sync_api.sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                headless=True,
                args=ARGS,
                viewport={"width": width, "height": height},
            )
            yield context
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
