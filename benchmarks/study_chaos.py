"""The study server killed with SIGKILL at random moments while participants answer: nothing lost, nobody locked out.

Usage: python benchmarks/study_chaos.py [--participants 200] [--kills 5] [--db sqlite|postgresql|URL] [--seed 0]

The study and the simulated participants of ``study_load.py`` (a 60-item word-intrusion study
whose targets the participants fill, each participant with a ``PROLIFIC_PID``), except that each
participant behaves as a browser does when the server is gone or a reply is lost: it sends the
same request again, with the same cookie and participant id, until the server answers (a lost
reply to the consent form included: the start is sent again and must resume the participant).
Meanwhile the server (``tealeaves study serve``, one process) is killed with SIGKILL ``--kills``
times, at moments drawn at random over the run, and each time restarted on the same database
and port. ``--db postgresql`` starts a throwaway durable PostgreSQL server on loopback.

Afterwards the store is opened by this script, not through the server, and every answer a
participant had acknowledged (the server's redirect, or on a resubmission the refusal
"answered already", which says an earlier try was stored) is looked up: ``lost`` counts
acknowledged answers missing, ``duplicated`` second answers of a participant to an item and
stored answers nobody acknowledged, ``locked_out`` participants who neither finished nor were
told the study is full, ``items_at_target`` items with exactly their target of unflagged
answers. ``p95_ms`` is the 95th percentile of the time to get an answer acknowledged, retries
included. The last line is
``participants=N acked=A stored=S lost=L duplicated=D locked_out=O items_at_target=X/Y p95_ms=...``;
the exit status is 1 unless lost, duplicated and locked_out are 0, every item is at its target
and every kill happened while participants were answering.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_load import PER_PARTICIPANT, StudyServer, make_study, store_url, tally
from tealeaves.study import Store
from tealeaves.study.testing import simulate


def killer(server: StudyServer, kills: int, rng: random.Random, running: threading.Event, log: list[str]) -> None:
    """Kill the server ``kills`` times at random moments (0.5-6 s of uptime each) and restart it at once."""
    for n in range(kills):
        uptime = rng.uniform(0.5, 6.0)
        if _sleep_while(running, uptime):
            return
        started = time.perf_counter()
        server.kill()
        server.start()
        log.append(f"# kill {n + 1}: after {uptime:.1f} s up, back in {time.perf_counter() - started:.1f} s")


def _sleep_while(running: threading.Event, seconds: float) -> bool:
    """Sleep ``seconds`` unless the run ends first; True when it ended."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not running.is_set():
            return True
        time.sleep(0.05)
    return not running.is_set()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=200)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument(
        "--db", default="sqlite", help="sqlite (a fresh file), postgresql (a throwaway server) or a URL"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    log: list[str] = []
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tealeaves-chaos-")))
        url = store_url(args.db, folder, stack)
        study = make_study(folder / "study", args.participants)
        server = StudyServer(folder / "study", url)
        stack.callback(server.stop)
        server.start()

        running = threading.Event()
        running.set()
        chaos = threading.Thread(
            target=killer, args=(server, args.kills, random.Random(args.seed), running, log), daemon=True
        )
        started = time.perf_counter()
        chaos.start()
        runs = simulate(
            server.base, args.participants, seed=args.seed + 1, concurrency=args.participants, timeout_s=60, retry_s=300
        )
        seconds = time.perf_counter() - started
        running.clear()
        chaos.join()
        server.stop()

        store = Store(url)  # read independently of the server, which is stopped
        stack.callback(store.close)
        stored = store.responses(study.study_id)
        result = tally(study, runs, stored)

    outcomes = result["outcomes"]
    locked_out = sum(run.outcome not in ("completed", "full") for run in runs)
    kills = len(log)
    print(f"# study_chaos: {os.cpu_count()} CPUs, Python {platform.python_version()}, store {url.split(':', 1)[0]}")
    print(f"# study: {len(study.items)} items x {result['target']} answers, {PER_PARTICIPANT} per participant")
    print(*log, sep="\n")
    print(
        f"# {kills} kills in {seconds:.1f} s; {outcomes['completed']} completed, {outcomes['full']} full; "
        f"{sum(run.retries for run in runs)} requests sent again; "
        f"{sum(bool(r['late']) for r in stored)} answers flagged late"
    )
    for error in result["errors"][:5]:
        print(f"# error: {error}")
    print(
        f"participants={args.participants} acked={result['acked']} stored={len(stored)} lost={result['lost']} "
        f"duplicated={result['duplicated']} locked_out={locked_out} "
        f"items_at_target={result['at_target']}/{len(study.items)} p95_ms={result['p95']:.1f}"
    )
    if result["lost"] or result["duplicated"] or locked_out or result["at_target"] < len(study.items):
        raise SystemExit(1)
    if kills < args.kills:
        raise SystemExit(f"only {kills} of {args.kills} kills happened before the participants finished")


if __name__ == "__main__":
    main()
