"""Concurrent simulated participants against a running study server on loopback: nothing lost or duplicated.

Usage: python benchmarks/study_load.py [--participants 200] [--db sqlite|postgresql|URL] [--workers 1]

Creates a word-intrusion study over three synthetic 20-topic models (60 items, 10 per
participant, the target per item chosen so that the participants exactly fill the study),
starts ``tealeaves study serve`` in its own process on 127.0.0.1, and sends all participants
through it at once over HTTP (consent, instructions, every question page and answer, the
completion page). ``--db sqlite`` (default) uses a fresh SQLite file; ``--db postgresql``
starts a throwaway PostgreSQL server on loopback (Debian's ``postgresql``); any other value is
a database URL. Then it reads the response store back and checks every answer a participant
sent against what was stored.

Latency is that of the answer request (POST to the stored response's redirect); responses/s
is all stored responses over the wall time of the whole run. The last line is
``participants=N responses=R lost=L duplicated=D p50_ms=... p95_ms=... responses_per_s=...``;
the exit status is 1 when anything was lost or duplicated or an item missed its target.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

import httpx
import numpy as np

from tealeaves.corpus import Vocabulary
from tealeaves.models import TopicModel
from tealeaves.study import Store, Study, create_study
from tealeaves.study.testing import TemporaryPostgres, free_port, simulate

MODELS, TOPICS, VOCAB, PER_PARTICIPANT = 3, 20, 2000, 10
TOKEN = "benchmark-admin-token"


def synthetic_model(seed: int, vocab: Vocabulary) -> TopicModel:
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(len(vocab), 0.02), size=TOPICS) + 1e-12
    return TopicModel(vocab, phi / phi.sum(axis=1, keepdims=True), alpha=np.full(TOPICS, 0.1), kind="synthetic")


def make_study(folder: Path, participants: int) -> Study:
    vocab = Vocabulary([f"word{i:04d}" for i in range(VOCAB)])
    models = {f"model{m + 1}": synthetic_model(m, vocab) for m in range(MODELS)}
    n_items = MODELS * TOPICS
    annotators = max(1, participants * PER_PARTICIPANT // n_items)
    return create_study(
        models, "word-intrusion", folder, seed=0, annotators=annotators, items_per_participant=PER_PARTICIPANT
    )


def wait_for(url: str, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"{url}/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the study server did not start:\n{process.communicate()[0]}")
        time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=200)
    parser.add_argument(
        "--db", default="sqlite", help="sqlite (a fresh file), postgresql (a throwaway server) or a URL"
    )
    parser.add_argument("--workers", type=int, default=1, help="server processes")
    args = parser.parse_args()
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tealeaves-load-")))
        if args.db == "sqlite":
            url = f"sqlite:///{folder / 'responses.sqlite'}"
        elif args.db == "postgresql":
            url = stack.enter_context(TemporaryPostgres(durable=True, max_connections=300)).url
        else:
            url = args.db
        study = make_study(folder / "study", args.participants)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        process = subprocess.Popen(
            [sys.executable, "-m", "tealeaves.cli", "study", "serve", str(folder / "study"), "--port", str(port),
             "--db", url, "--admin-token", TOKEN, "--workers", str(args.workers)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        stack.callback(process.wait, 30)
        stack.callback(process.terminate)
        wait_for(base, process)

        started = time.perf_counter()
        runs = simulate(base, args.participants, seed=1, concurrency=args.participants, timeout_s=300)
        seconds = time.perf_counter() - started

        store = Store(url)
        stack.callback(store.close)
        stored = store.responses(study.study_id)
        sent = Counter((run.token, position, answer) for run in runs for position, answer, _ in run.answered)
        kept = Counter((r["token"], r["position"], r["answer"]) for r in stored)
        lost = sum((sent - kept).values())
        pairs = Counter((r["token"], r["item_id"]) for r in stored)
        duplicated = sum(n - 1 for n in pairs.values()) + sum((kept - sent).values())
        counts = Counter(r["item_id"] for r in stored)
        target = int(study.settings["annotators"])
        below = sum(counts[item.item_id] < target for item in study.items)
        latencies = sorted(ms for run in runs for ms in run.latencies_ms)
        outcomes = Counter(run.outcome for run in runs)
        errors = [run.error for run in runs if run.error]

    db_kind = url.split(":", 1)[0]
    print(f"# study_load: {os.cpu_count()} CPUs, Python {platform.python_version()}, server workers {args.workers}")
    print(f"# study: {len(study.items)} items x {target} answers, {PER_PARTICIPANT} per participant; store: {db_kind}")
    print(f"{'store':<10} {'participants':>12} {'completed':>9} {'full':>5} {'errors':>6} {'responses':>9} "
          f"{'items at target':>15} {'seconds':>8} {'p50 ms':>7} {'p95 ms':>7} {'responses/s':>11}")  # fmt: skip
    p50 = statistics.median(latencies) if latencies else float("nan")
    p95 = latencies[int(0.95 * (len(latencies) - 1))] if latencies else float("nan")
    print(
        f"{db_kind:<10} {args.participants:>12} {outcomes['completed']:>9} {outcomes['full']:>5} {len(errors):>6} "
        f"{len(stored):>9} {len(study.items) - below:>9} of {len(study.items):<3} {seconds:>8.1f} {p50:>7.1f} "
        f"{p95:>7.1f} {len(stored) / seconds:>11.1f}"
    )
    for error in errors[:5]:
        print(f"# error: {error}")
    print(
        f"participants={args.participants} responses={len(stored)} lost={lost} duplicated={duplicated} "
        f"p50_ms={p50:.1f} p95_ms={p95:.1f} responses_per_s={len(stored) / seconds:.1f}"
    )
    if lost or duplicated or below or errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
