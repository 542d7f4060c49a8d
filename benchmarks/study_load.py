"""Concurrent simulated participants against a running study server on loopback: nothing lost or duplicated.

Usage: python benchmarks/study_load.py [--participants 200] [--db sqlite|postgresql|URL] [--workers 1]
                                       [--sqlite-synchronous full|normal]

Creates a word-intrusion study over three synthetic 20-topic models (60 items, 10 per
participant, the target per item chosen so that the participants exactly fill the study),
starts ``tealeaves study serve`` in its own process on 127.0.0.1, and sends all participants
through it at once over HTTP (consent, instructions, every question page and answer, the
completion page). ``--db sqlite`` (default) uses a fresh SQLite file; ``--db postgresql``
starts a throwaway PostgreSQL server on loopback (Debian's ``postgresql``); any other value is
a database URL. ``--sqlite-synchronous`` is the server's ``synchronous`` pragma (FULL, the
default, survives a power cut; NORMAL only a crash): run both to see what FULL costs. Then it
reads the response store back and checks every answer a participant sent against what was
stored; items must reach their target with unflagged answers (answers of participants who
began before the study filled are kept, flagged late, see :mod:`tealeaves.study.store`).

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
from tealeaves.study.testing import ParticipantRun, TemporaryPostgres, free_port, simulate

MODELS, TOPICS, VOCAB, PER_PARTICIPANT = 3, 20, 2000, 10
TOKEN = "benchmark-admin-token"


def synthetic_model(seed: int, vocab: Vocabulary) -> TopicModel:
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(len(vocab), 0.02), size=TOPICS) + 1e-12
    return TopicModel(vocab, phi / phi.sum(axis=1, keepdims=True), alpha=np.full(TOPICS, 0.1), kind="synthetic")


def make_study(folder: Path, participants: int, **options: object) -> Study:
    vocab = Vocabulary([f"word{i:04d}" for i in range(VOCAB)])
    models = {f"model{m + 1}": synthetic_model(m, vocab) for m in range(MODELS)}
    n_items = MODELS * TOPICS
    annotators = max(1, participants * PER_PARTICIPANT // n_items)
    return create_study(
        models,
        "word-intrusion",
        folder,
        seed=0,
        annotators=annotators,
        items_per_participant=PER_PARTICIPANT,
        **options,  # type: ignore[arg-type]
    )


class StudyServer:
    """``tealeaves study serve`` in its own process on 127.0.0.1 (no bound on starts or live
    participants per address, since every simulated participant comes from 127.0.0.1, unless
    ``limits`` gives serve's options instead)."""

    def __init__(
        self, study_folder: Path, url: str, workers: int = 1, synchronous: str = "full", limits: list[str] | None = None
    ):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.command = [
            sys.executable, "-m", "tealeaves.cli", "study", "serve", str(study_folder), "--port", str(self.port),
            "--db", url, "--admin-token", TOKEN, "--workers", str(workers), "--sqlite-synchronous", synchronous,
            *(["--starts-per-address", "0", "--live-per-address", "0"] if limits is None else limits),
        ]  # fmt: skip
        self.process: subprocess.Popen | None = None
        self.log = study_folder.parent / "server.log"

    def start(self, seconds: float = 120) -> None:
        with self.log.open("a") as log:  # a file, not a pipe nobody reads while the server runs
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + seconds
        while True:
            try:
                if httpx.get(f"{self.base}/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the study server did not start:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flushing, open transactions cut off."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


def tally(study: Study, runs: list[ParticipantRun], stored: list[dict]) -> dict:
    """Answers the participants had acknowledged against those stored: lost, duplicated, items at target."""
    sent = Counter((run.token, position, answer) for run in runs for position, answer, _ in run.answered)
    kept = Counter((r["token"], r["position"], r["answer"]) for r in stored)
    pairs = Counter((r["token"], r["item_id"]) for r in stored)
    counted = Counter(r["item_id"] for r in stored if not r["late"])
    target = int(study.settings["annotators"])
    latencies = sorted(ms for run in runs for ms in run.latencies_ms)
    return {
        "acked": sum(sent.values()),
        "lost": sum((sent - kept).values()),
        "duplicated": sum(n - 1 for n in pairs.values()) + sum((kept - sent).values()),
        "at_target": sum(counted[item.item_id] == target for item in study.items),
        "target": target,
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p95": latencies[int(0.95 * (len(latencies) - 1))] if latencies else float("nan"),
        "outcomes": Counter(run.outcome for run in runs),
        "errors": [run.error for run in runs if run.error],
    }


def store_url(args_db: str, folder: Path, stack: ExitStack) -> str:
    """sqlite: a fresh file; postgresql: a throwaway durable server on loopback; else the URL given."""
    if args_db == "sqlite":
        return f"sqlite:///{folder / 'responses.sqlite'}"
    if args_db == "postgresql":
        return stack.enter_context(TemporaryPostgres(durable=True, max_connections=300)).url
    return args_db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=200)
    parser.add_argument(
        "--db", default="sqlite", help="sqlite (a fresh file), postgresql (a throwaway server) or a URL"
    )
    parser.add_argument("--workers", type=int, default=1, help="server processes")
    parser.add_argument("--sqlite-synchronous", choices=("full", "normal"), default="full")
    args = parser.parse_args()
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tealeaves-load-")))
        url = store_url(args.db, folder, stack)
        study = make_study(folder / "study", args.participants)
        server = StudyServer(folder / "study", url, args.workers, args.sqlite_synchronous)
        stack.callback(server.stop)
        server.start()

        started = time.perf_counter()
        runs = simulate(server.base, args.participants, seed=1, concurrency=args.participants, timeout_s=300)
        seconds = time.perf_counter() - started

        store = Store(url)
        stack.callback(store.close)
        stored = store.responses(study.study_id)
        result = tally(study, runs, stored)

    db_kind = url.split(":", 1)[0] + (f" synchronous={args.sqlite_synchronous}" if url.startswith("sqlite") else "")
    target, outcomes, errors = result["target"], result["outcomes"], result["errors"]
    print(f"# study_load: {os.cpu_count()} CPUs, Python {platform.python_version()}, server workers {args.workers}")
    print(f"# study: {len(study.items)} items x {target} answers, {PER_PARTICIPANT} per participant; store: {db_kind}")
    print(f"{'store':<10} {'participants':>12} {'completed':>9} {'full':>5} {'errors':>6} {'responses':>9} "
          f"{'late':>5} {'items at target':>15} {'seconds':>8} {'p50 ms':>7} {'p95 ms':>7} {'responses/s':>11}")  # fmt: skip
    late = sum(bool(r["late"]) for r in stored)
    print(
        f"{db_kind.split()[0]:<10} {args.participants:>12} {outcomes['completed']:>9} {outcomes['full']:>5} "
        f"{len(errors):>6} {len(stored):>9} {late:>5} {result['at_target']:>9} of {len(study.items):<3} "
        f"{seconds:>8.1f} {result['p50']:>7.1f} {result['p95']:>7.1f} {len(stored) / seconds:>11.1f}"
    )
    for error in errors[:5]:
        print(f"# error: {error}")
    print(
        f"participants={args.participants} responses={len(stored)} lost={result['lost']} "
        f"duplicated={result['duplicated']} p50_ms={result['p50']:.1f} p95_ms={result['p95']:.1f} "
        f"responses_per_s={len(stored) / seconds:.1f}"
    )
    if result["lost"] or result["duplicated"] or result["at_target"] < len(study.items) or errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
