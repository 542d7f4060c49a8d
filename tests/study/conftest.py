"""Fixtures for the study tests: small models and a corpus, response stores on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import MissingDependencyError, TealeavesError
from tealeaves.models import TopicModel
from tealeaves.study.store import Store

BLOCKS, BLOCK_WORDS = 10, 30


def block_model(seed: int, kind: str = "lda-gibbs", leak: float = 0.02) -> TopicModel:
    """K = 10 topics over 300 words; topic k puts 1 - leak of its mass on its own block of 30 words."""
    rng = np.random.default_rng(seed)
    v = BLOCKS * BLOCK_WORDS
    phi = np.full((BLOCKS, v), leak / v)
    for k in range(BLOCKS):
        own = rng.dirichlet(np.full(BLOCK_WORDS, 1.0))
        phi[k, k * BLOCK_WORDS : (k + 1) * BLOCK_WORDS] += (1 - leak) * own
    phi /= phi.sum(axis=1, keepdims=True)
    vocab = Vocabulary([f"{chr(97 + k)}{j:02d}" for k in range(BLOCKS) for j in range(BLOCK_WORDS)])
    return TopicModel(vocab, phi, alpha=np.full(BLOCKS, 0.1), kind=kind)


@pytest.fixture(scope="session")
def models() -> dict[str, TopicModel]:
    return {"MODEL_ALPHA": block_model(1), "MODEL_BETA": block_model(2)}


@pytest.fixture(scope="session")
def corpus(models) -> Corpus:
    """60 documents, each mixing three topics' blocks in proportions 0.55 / 0.3 / 0.15."""
    rng = np.random.default_rng(7)
    vocab = next(iter(models.values())).vocab
    docs, mixes = [], []
    for _ in range(60):
        topics = rng.choice(BLOCKS, size=3, replace=False)
        counts = (np.array([0.55, 0.3, 0.15]) * 60).astype(int)
        doc = np.concatenate([t * BLOCK_WORDS + rng.integers(0, BLOCK_WORDS, size=c) for t, c in zip(topics, counts)])
        docs.append(rng.permutation(doc))
        mixes.append([int(t) for t in topics])
    titles = [f"Document number {i}" for i in range(60)]
    snippets = [f"This is the opening of document {i}, about several things at once." for i in range(60)]
    return Corpus.from_documents(docs, vocab, titles=titles, snippets=snippets, metadata=[{"mix": m} for m in mixes])


@pytest.fixture(scope="session")
def postgres_url():
    """A throwaway PostgreSQL server on loopback for the whole session (missing: skip, or fail with CI=true)."""
    from tealeaves.study.testing import TemporaryPostgres, unavailable

    try:
        server = TemporaryPostgres(durable=False)
    except MissingDependencyError as exc:
        unavailable(str(exc))
    try:
        server.start()
    except TealeavesError as exc:
        server.stop()
        pytest.fail(f"PostgreSQL is installed but did not start: {exc}")
    yield server.url
    server.stop()


_databases = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """A fresh, empty response store: a SQLite file, or a new database on the PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'responses.sqlite'}"
    import psycopg

    server = request.getfixturevalue("postgres_url")
    name = f"t{next(_databases)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + "/" + name


class FakeClock:
    """Epoch milliseconds that tests move forward by hand."""

    def __init__(self, start_ms: int = 1_700_000_000_000):
        self.now = start_ms

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store_factory(db_url, clock):
    """Open stores on the test database (closed at the end)."""
    import random

    opened = []

    def make(seed: int = 0) -> Store:
        store = Store(db_url, clock=clock, rng=random.Random(seed))
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def make(request, models, tmp_path, clock):
    """A study, its store (SQLite, fake clock) and app under the requesting module's ``TOKEN``:
    ``make(app_options, task=..., source=..., store_options=..., **create_study options)``."""
    from tealeaves.study import create_study
    from tealeaves.study.web.app import create_app

    opened = []

    def build(app_options=None, task="word-intrusion", source=None, store_options=None, **kwargs):
        kwargs.setdefault("seed", 1)
        kwargs.setdefault("annotators", 2)
        kwargs.setdefault("items_per_participant", 3)
        study = create_study(source or models, task, **kwargs)
        path = f"sqlite:///{tmp_path / f'r{len(opened)}.sqlite'}"
        store = Store(path, clock=clock, rng=random.Random(0), **(store_options or {}))
        store.ensure_study(study)
        opened.append(store)
        return study, store, create_app(study, store, request.module.TOKEN, **(app_options or {}))

    yield build
    for store in opened:
        store.close()
