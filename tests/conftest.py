"""Shared fixtures: the read-only data sets beside the project, and small crafted corpora."""

from __future__ import annotations

from pathlib import Path

import pytest

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help=f"folder of the public data sets (20news/, ap/, human/hoyle2021/); default {DEFAULT_DATA}",
    )


@pytest.fixture(scope="session")
def shared_data(request: pytest.FixtureRequest) -> Path:
    """The ``--data`` folder (``../shared/data``); tests that need it skip with the reason when it is absent."""
    data = Path(request.config.getoption("--data"))
    if not data.is_dir():
        pytest.skip(f"data folder {data} is absent (pass --data DIR; the docs' data page says where to get the sets)")
    return data


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory):
    """Every test (and every command it runs) caches in one folder of this session's
    (``$TEALEAVES_CACHE``): word vectors and ETM's skip-gram embeddings never reach the user's
    ``~/.cache/tealeaves``, and no test reads what an earlier run left there."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TEALEAVES_CACHE", str(tmp_path_factory.mktemp("tealeaves-cache")))
        yield


@pytest.fixture
def statsmodels_holm(monkeypatch: pytest.MonkeyPatch):
    """statsmodels' ``multipletests``, the reference of the Holm and Benjamini-Hochberg tests, without the
    ``gc.collect()`` its Holm branch runs on every call (0.3-0.5 s a call late in a full run, 15-23 s a
    test), which changes no value: the collector is a no-op while the test runs."""
    import gc

    from statsmodels.stats.multitest import multipletests

    monkeypatch.setattr(gc, "collect", lambda generation=2: 0)
    return multipletests
