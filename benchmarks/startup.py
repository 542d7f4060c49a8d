"""Start-up of the command line: ``tealeaves --help`` and ``tealeaves coherence`` as whole processes.

Usage: python benchmarks/startup.py [--data DIR] [--work DIR] [--runs 7]

``--data`` is the folder of the shared data sets (default ``../shared/data``; 20 Newsgroups
is read from ``20news/20news-bydate.jsonl.gz``). Before timing, 20 Newsgroups is prepared
(Hoyle et al. 2021 preprocessing), indexed, and a 50-topic lda-gibbs model is trained on it,
once, under ``--work`` (default ``benchmarks/results/startup``, ignored by git). Then each
command runs ``--runs`` times as a fresh process, as a user types it, and the table gives the
median and the fastest wall time against the targets of issue 17 (0.3 s and 0.8 s), followed by
the five slowest top-level imports of each command by ``python -X importtime``. Two rows give
the floor that no command using numba can go below on the machine as it is at that moment:
a bare interpreter, and one importing numpy and numba and calling one cached kernel (numba
initialises its compiler's registries, importing ``scipy.linalg`` among others, on the first
call of any kernel, even one loaded from its cache).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from shared_data import ROOT, add_data_option, data_path

TARGETS = {"help": 0.3, "coherence": 0.8}


def tealeaves_command() -> list[str]:
    """The installed console script beside this interpreter (what a user runs)."""
    script = Path(sys.executable).with_name("tealeaves")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tealeaves.cli"]


def prepare_inputs(data: Path, work: Path) -> tuple[Path, Path]:
    """The 20 Newsgroups corpus, its index and a 50-topic model (made once, kept in ``work``)."""
    from tealeaves import RefIndex, prepare, train

    corpus, index, model = work / "corpus", work / "index", work / "model"
    if not (model / "manifest.json").exists():
        source = data_path(data, "20news")
        prepare([str(source)], out=corpus, force=True)
        RefIndex.build(corpus, out=index, force=True)
        train(corpus, model="lda-gibbs", k=50, seed=0, out=model, force=True, iterations=200)
    return index, model


FLOOR_KERNEL = """
import numpy as np
from numba import njit


@njit(cache=True)
def total(x):
    return x.sum()


total(np.arange(3))
"""


def wall_times(argv: list[str], runs: int) -> list[float]:
    """Seconds of each of ``runs`` fresh processes running ``argv`` (output discarded)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return times


def slowest_imports(args: list[str], top: int = 5) -> list[tuple[str, float]]:
    """The ``top`` slowest top-level imports (cumulative seconds) of ``tealeaves ARGS``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tealeaves.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        if not name.startswith("  "):  # top level: the name follows a single space
            rows.append((name.strip(), int(cumulative) / 1e6))
    return sorted(rows, key=lambda row: -row[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "startup")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    index, model = prepare_inputs(args.data, args.work)
    commands = {
        "help": ["--help"],
        "coherence": ["coherence", str(model), "--index", str(index), "--measure", "npmi"],
    }
    base = tealeaves_command()
    floor = args.work / "floor_kernel.py"
    floor.write_text(FLOOR_KERNEL)
    floors = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "numpy + numba, one cached kernel": [sys.executable, str(floor)],
    }
    for argv in (base + commands["coherence"], floors["numpy + numba, one cached kernel"]):
        wall_times(argv, 1)  # numba's caches of compiled kernels are warm from here on
    print(f"{'command':<56} {'median s':>9} {'fastest s':>9} {'target s':>9}  ok")
    for name, argv in floors.items():
        times = wall_times(argv, args.runs)
        print(f"{'floor: ' + name:<56} {statistics.median(times):>9.3f} {min(times):>9.3f}")
    for name, argv in commands.items():
        times = wall_times(base + argv, args.runs)
        median = statistics.median(times)
        shown = "tealeaves " + " ".join(a if "/" not in a else Path(a).name for a in argv)
        print(f"{shown:<56} {median:>9.3f} {min(times):>9.3f} {TARGETS[name]:>9.1f}  {median <= TARGETS[name]}")
    for argv in commands.values():
        print(f"\nslowest top-level imports of `tealeaves {argv[0]}` (python -X importtime, cumulative):")
        for module, seconds in slowest_imports(argv):
            print(f"  {module:<40} {seconds:>7.3f} s")


if __name__ == "__main__":
    main()
