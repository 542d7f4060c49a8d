"""Study servers killed with SIGKILL at random moments while participants answer and squatters hold
questions: nothing lost, nobody locked out.

Usage: python benchmarks/study_chaos.py [--participants 200] [--kills 5] [--squatters 18] [--followers 10]
                                        [--servers 2] [--db sqlite|postgresql|URL] [--seed 0]

The study and the simulated participants of ``study_load.py`` (a 60-item word-intrusion study
whose targets the participants fill, each participant with a ``PROLIFIC_PID``), except that each
participant behaves as a browser does when the server is gone or a reply is lost: it sends the
same request again, with the same cookie and participant id, until the server answers (a lost
reply to the consent form included: the start is sent again and must resume the participant).
The participants are shared among ``--servers`` servers (``tealeaves study serve``, one process
each, on one database, as behind a balancer that keeps each browser on one server); the servers
are killed with SIGKILL ``--kills`` times in all, one drawn at random each time, at moments drawn
at random over the run, and each time restarted on the same database and port. ``--db
postgresql`` starts a throwaway durable PostgreSQL server on loopback, on which each server
claims its connection budget.

Each participant connects from an address of its own (127.0.3.x) and the server runs with its
default per-address and per-id-class limits, a 15 s lease (the study's ``timeout_minutes`` and
serve's ``--answer-minutes`` 0.25) and ``--idle-minutes 1``. A squatter keeps ``--squatters``
sessions, each from an address of its own (127.0.4.x, as from many addresses behind a proxy),
with ``PROLIFIC_PID`` s made up by counting (``SQUAT00001``, ...), starting again whenever refused
or expired, and reloads each question it gets every second without ever answering: the bound on
live sessions per id class (``--live-per-pid-pattern``, 3) holds it, not the per-address bounds.
A ``/next``-following squatter keeps ``--followers`` sessions with ids of Prolific's shape (no id
class holds them), 5 from each address (127.0.5.x: the per-address bound), each of which asks
``/next`` every second and opens the question it points to, starting again when refused or
expired: the hold budget (15 s in all per session, ``--answer-minutes``) holds it.

Afterwards the store is opened by this script, not through the server, and every answer a
participant had acknowledged (the server's redirect, which a resubmission of an answer an earlier
try stored gets too) is looked up: ``lost`` counts
acknowledged answers missing, ``duplicated`` second answers of a participant to an item and
stored answers nobody acknowledged, ``locked_out`` participants who neither finished nor were
told the study is full, ``items_at_target`` items with exactly their target of unflagged
answers, and the most a follower session held questions it never answered (``held_ms`` of the
store, at most the hold budget). ``p95_ms`` is the 95th percentile of the time to get an answer
acknowledged, retries included. The last line is
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx

from study_load import PER_PARTICIPANT, StudyServer, make_study, store_url, tally
from tealeaves.study import Store
from tealeaves.study.testing import ParticipantRun, platform_id, simulate

SQUATTER = "127.0.4.{}"
FOLLOWER = "127.0.5.{}"
LEASE_MINUTES = 0.25


def killer(
    servers: list[StudyServer], kills: int, rng: random.Random, running: threading.Event, log: list[str]
) -> None:
    """Kill one of the servers ``kills`` times at random moments (0.5-6 s apart) and restart it at once."""
    for n in range(kills):
        uptime = rng.uniform(0.5, 6.0)
        if _sleep_while(running, uptime):
            return
        number = rng.randrange(len(servers))
        started = time.perf_counter()
        servers[number].kill()
        servers[number].start()
        log.append(
            f"# kill {n + 1}: server {number + 1} after {uptime:.1f} s, back in {time.perf_counter() - started:.1f} s"
        )


def squatter(base: str, sessions: int, running: threading.Event, seen: dict[str, int]) -> None:
    """Keep ``sessions`` made-up participants on questions they never answer, each from an address of
    its own: each one starts (again, when refused or expired) and reloads its question every second."""
    clients = [
        httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=SQUATTER.format(n + 1)), timeout=10)
        for n in range(sessions)
    ]
    tokens: list[str | None] = [None] * sessions
    made = 0
    while running.is_set():
        held = 0
        for n, client in enumerate(clients):
            try:
                if tokens[n] is None:
                    made += 1
                    pid = {"PROLIFIC_PID": f"SQUAT{made:05d}"}
                    r = client.post("/start", data={"consent": "yes", **pid})
                    seen["refused"] += r.status_code == 429
                    if r.status_code != 303:
                        continue
                    seen["started"] += 1
                    tokens[n] = r.headers["location"].split("/")[2]
                r = client.get(f"/s/{tokens[n]}/next")
                if r.status_code == 303 and "/q/" in r.headers["location"]:
                    held += client.get(r.headers["location"]).status_code == 200
                elif "expired" in r.text or r.status_code >= 400:
                    tokens[n] = None
                    client.cookies.clear()
            except httpx.TransportError:  # the server is being killed
                continue
        seen["most_held"] = max(seen["most_held"], held)
        _sleep_while(running, 1.0)
    for client in clients:
        client.close()


def follower(bases: list[str], sessions: int, running: threading.Event, seen: dict[str, Any]) -> None:
    """Keep ``sessions`` sessions with ids of Prolific's shape, 5 per address (the per-address bound),
    each asking ``/next`` every second and opening the question it points to, never answering; a
    refused or expired one starts again with a new id."""
    clients = [
        httpx.Client(
            base_url=bases[n % len(bases)],
            transport=httpx.HTTPTransport(local_address=FOLLOWER.format(n // 5 + 1)),
            timeout=10,
        )
        for n in range(sessions)
    ]
    tokens: list[str | None] = [None] * sessions
    while running.is_set():
        for n, client in enumerate(clients):
            try:
                if tokens[n] is None:
                    pid = platform_id("follower", len(seen["pids"]))
                    r = client.post("/start", data={"consent": "yes", "PROLIFIC_PID": pid})
                    if r.status_code != 303:
                        continue
                    seen["pids"].add(pid)
                    tokens[n] = r.headers["location"].split("/")[2]
                r = client.get(f"/s/{tokens[n]}/next")
                if r.status_code == 303 and "/q/" in r.headers["location"]:
                    seen["opened"] += client.get(r.headers["location"]).status_code == 200
                elif "expired" in r.text or r.status_code >= 400:
                    tokens[n] = None
                    client.cookies.clear()
            except httpx.TransportError:  # a server is being killed
                continue
        _sleep_while(running, 1.0)
    for client in clients:
        client.close()


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
    parser.add_argument("--squatters", type=int, default=18, help="sessions the squatter tries to keep")
    parser.add_argument("--followers", type=int, default=10, help="sessions the /next-following squatter keeps")
    parser.add_argument("--servers", type=int, default=2, help="servers on the one database")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    log: list[str] = []
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tealeaves-chaos-")))
        url = store_url(args.db, folder, stack)
        study = make_study(folder / "study", args.participants, timeout_minutes=LEASE_MINUTES)
        limits = ["--answer-minutes", str(LEASE_MINUTES), "--idle-minutes", "1"]  # and the default per-address limits
        servers = [StudyServer(folder / "study", url, limits=limits) for _ in range(args.servers)]
        for server in servers:
            stack.callback(server.stop)
            server.start()
        bases = [server.base for server in servers]

        running = threading.Event()
        running.set()
        chaos = threading.Thread(
            target=killer, args=(servers, args.kills, random.Random(args.seed), running, log), daemon=True
        )
        seen: dict[str, Any] = {"started": 0, "refused": 0, "most_held": 0, "pids": set(), "opened": 0}
        squats = [
            threading.Thread(target=squatter, args=(bases[0], args.squatters, running, seen), daemon=True),
            threading.Thread(target=follower, args=(bases, args.followers, running, seen), daemon=True),
        ]
        started = time.perf_counter()
        for thread in squats:
            thread.start()
        chaos.start()
        runs = participants(bases, args.participants, args.seed)
        seconds = time.perf_counter() - started
        running.clear()
        chaos.join()
        for thread in squats:
            thread.join()
        for server in servers:
            server.stop()

        store = Store(url, answer_minutes=LEASE_MINUTES)  # read independently of the servers, which are stopped
        stack.callback(store.close)
        everything = store.responses(study.study_id)
        stored = [
            r
            for r in everything
            if not str(r["external_id"]).startswith("SQUAT") and r["external_id"] not in seen["pids"]
        ]
        squatted = len(everything) - len(stored)
        held = [p["held_ms"] for p in store.participants(study.study_id) if p["external_id"] in seen["pids"]]
        budget_ms = store.hold_budget_ms(study)
        result = tally(study, runs, stored)

    outcomes = result["outcomes"]
    locked_out = sum(run.outcome not in ("completed", "full") for run in runs)
    kills = len(log)
    print(f"# study_chaos: {os.cpu_count()} CPUs, Python {platform.python_version()}, store {url.split(':', 1)[0]}")
    print(f"# study: {len(study.items)} items x {result['target']} answers, {PER_PARTICIPANT} per participant")
    print(*log, sep="\n")
    print(
        f"# squatter at {SQUATTER.format('x')}: {seen['started']} sessions started, {seen['refused']} starts refused (429), "
        f"at most {seen['most_held']} on a question in one pass over its sessions, {squatted} answers"
    )
    print(
        f"# /next follower at {FOLLOWER.format('x')}: {len(held)} sessions, {seen['opened']} questions opened, "
        f"at most {max(held, default=0) / 1000:.1f} s held by one session (hold budget {budget_ms / 1000:.0f} s)"
    )
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
    if max(held, default=0) > budget_ms:
        raise SystemExit(f"a /next follower held questions for {max(held) / 1000:.1f} s, past the hold budget")
    if kills < args.kills:
        raise SystemExit(f"only {kills} of {args.kills} kills happened before the participants finished")


def participants(bases: list[str], n: int, seed: int) -> list[ParticipantRun]:
    """``n`` simulated participants that send a request again when a server is gone, each from an address
    of its own, shared in turn among the servers at ``bases`` (each server's share at once, in threads)."""
    shares: list[list[ParticipantRun]] = [[] for _ in bases]

    def share(k: int) -> None:
        count = len(range(k, n, len(bases)))
        addresses = [f"127.0.3.{m % 250 + 1}" for m in range(k, n, len(bases))]
        shares[k] = simulate(
            bases[k], count, seed=seed + 1 + k, concurrency=count, timeout_s=60, retry_s=300, addresses=addresses,
            pid_prefix=f"SIM{k}",
        )  # fmt: skip

    threads = [threading.Thread(target=share, args=(k,)) for k in range(len(bases))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [run for runs in shares for run in runs]


if __name__ == "__main__":
    main()
