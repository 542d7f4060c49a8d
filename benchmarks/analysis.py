"""Timing of the analysis: the Hoyle et al. 2021 replication and the power analysis.

Run from the repository root with the data in ../shared/data:

    python benchmarks/analysis.py

Prints one table: seconds for each part of `tealeaves analyze --hoyle2021` (1,000 bootstrap
resamples, 10,000 FDR iterations) and for `annotators_needed`, next to the same power simulation
done the straightforward way (one scipy / statsmodels test per simulated study, as in the
authors' notebook), in the same process.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest

from shared_data import add_data_option, data_path
from tealeaves.analysis import annotators_needed, load_hoyle2021, simulate_power
from tealeaves.analysis import replication as rep


def timed(func, *args, **kwargs):
    start = time.perf_counter()
    out = func(*args, **kwargs)
    return time.perf_counter() - start, out


def loop_power(task: str, m: int, n_sim: int, seed: int = 0, k: int = 50, r: int = 4) -> float:
    """Power the straightforward way: simulate each study answer by answer, one library test each."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(n_sim):
        if task == "intrusion":
            z_a = rng.integers(0, 2, k)
            z_b = np.zeros(k, dtype=int)
            z_b[: max(z_a.sum() - r, 0)] = 1
            p = np.array([1 / 6, 0.85])
            a, b = rng.random((k, m)) < p[z_a][:, None], rng.random((k, m)) < p[z_b][:, None]
            hits += proportions_ztest([a.sum(), b.sum()], [a.size, b.size], alternative="larger")[1] < 0.05
        else:
            z_a = rng.integers(0, 3, k)
            good, okay = (z_a == 2).sum(), (z_a == 1).sum()
            z_b = np.zeros(k, dtype=int)
            z_b[: max(good - r, 0)] = 2
            z_b[max(good - r, 0) : max(good - r, 0) + okay] = 1
            probs = np.array([[0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]])
            a = np.concatenate([rng.choice(3, size=m, p=probs[z]) for z in z_a])
            b = np.concatenate([rng.choice(3, size=m, p=probs[z]) for z in z_b])
            hits += stats.mannwhitneyu(a, b, alternative="greater", method="asymptotic").pvalue < 0.05
    return hits / n_sim


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(parser)
    data = data_path(parser.parse_args().data, "hoyle2021")
    rows = []
    seconds, study = timed(load_hoyle2021, data)
    rows.append(("read the Hoyle 2021 files", seconds, ""))
    seconds, _ = timed(rep.correlation_table, study, False, 1000, 0, None)
    rows.append(("Table 3: 48 correlations x 1,000 bootstrap resamples", seconds, ""))
    seconds, _ = timed(rep.regression_table, study, False, None)
    rows.append(("Table 10: 48 logistic / ordered-probit fits", seconds, ""))
    seconds, _ = timed(rep.discovery_table, study, False, 10000, 0, None)
    rows.append(("Table 4: FDR/FOR, 10,000 iterations x 4 task-datasets", seconds, ""))
    for task in ("intrusion", "rating"):
        seconds, m = timed(annotators_needed, task)
        rows.append((f"annotators_needed({task!r}) (4,000 simulations per M)", seconds, f"M = {m}"))
        seconds, power = timed(simulate_power, task, 15, n_sim=4000)
        rows.append((f"tealeaves power, {task}, M = 15, 4,000 simulations", seconds, f"power {power:.3f}"))
        seconds, power = timed(loop_power, task, 15, 1000)
        rows.append((f"loop with scipy/statsmodels, {task}, M = 15, 1,000 simulations", seconds, f"power {power:.3f}"))
    width = max(len(r[0]) for r in rows)
    print(f"| {'step':<{width}} | seconds | result |")
    print(f"|{'-' * (width + 2)}|--------:|--------|")
    for name, seconds, result in rows:
        print(f"| {name:<{width}} | {seconds:7.3f} | {result} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
