"""Calibration of the human-score tests by simulation: null rejection rates and power, with MC SE.

Run: ``python benchmarks/calibration_human.py [--sims N]``. Prints one table: for each test, the
rejection rate at level 0.05 under the null (two equally good models, or two equally good
metrics) and under a stated alternative, each with its Monte Carlo standard error
``sqrt(r (1 - r) / N)``. A calibrated test's null rate lies within 4 MC SE of 0.05.

Designs (the issue 22 settings):

- models, word intrusion: 20 topics per model, 30 answers a topic, topic precision
  N(0.5, 0.25) clipped to [0, 1]; alternative: model A's topics 0.15 more precise. Tests:
  Hoyle et al.'s pooled two-proportion z over the 600 answers (two-sided), Welch's t over
  topics (:func:`tealeaves.analysis.compare_models`), the two-way cluster bootstrap
  (:func:`tealeaves.analysis.cluster_bootstrap_comparison`, 60 annotators with effects of
  sd 0.1, 200 replicates).
- metrics (validate's paired test, :func:`tealeaves.analysis.paired_bootstrap`): 60 topics with
  true quality N(0, 1), 12 answers each with noise sd 2; metrics quality + N(0, 1) each;
  alternative: metric A's noise sd 0.3. 200 replicates.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy import stats

from tealeaves.analysis import RaggedScores, cluster_bootstrap_comparison, paired_bootstrap
from tealeaves.stats import proportion_test, welch_test


def intrusion_counts(rng, n: int, shift: float) -> np.ndarray:
    p = np.clip(0.5 + 0.25 * rng.normal(size=(n, 2, 20)), 0, 1)
    p[:, 0] = np.clip(p[:, 0] + shift, 0, 1)
    return rng.binomial(30, p)


def answers_rates(sims: int, shift: float, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    hits = intrusion_counts(rng, sims, shift)
    count = hits.sum(axis=2)
    z = np.asarray(proportion_test(count[:, 0], 600, count[:, 1], 600).statistic)
    welch = np.asarray(welch_test(hits[:, 0] / 30, hits[:, 1] / 30).pvalue)
    return {
        "pooled z (answers)": float(np.mean(2 * stats.norm.sf(np.abs(z)) < 0.05)),
        "Welch t (topics)": float(np.mean(welch < 0.05)),
    }


def cluster_rate(sims: int, shift: float, seed: int) -> float:
    rng = np.random.default_rng(seed)
    model, topic = np.divmod(np.repeat(np.arange(40), 30), 20)
    rejections = 0
    for sim in range(sims):
        quality = np.clip(0.5 + 0.25 * rng.normal(size=(2, 20)), 0, 1)
        quality[0] = np.clip(quality[0] + shift, 0, 1)
        bias = 0.1 * rng.normal(size=60)
        annotator = rng.integers(60, size=len(model))
        value = rng.random(len(model)) < np.clip(quality[model, topic] + bias[annotator], 0, 1)
        frame = pd.DataFrame({"model": model, "topic": topic, "annotator": annotator, "value": value.astype(float)})
        rejections += cluster_bootstrap_comparison(frame, n_resamples=200, seed=sim)["pvalue"].iloc[0] < 0.05
    return rejections / sims


def paired_rate(sims: int, noise_a: float, seed: int) -> float:
    rejections = 0
    for sim in range(sims):
        rng = np.random.default_rng(seed + sim)
        truth = rng.normal(size=60)
        human = RaggedScores([t + rng.normal(0, 2, 12) for t in truth])
        a, b = truth + rng.normal(0, noise_a, 60), truth + rng.normal(0, 1, 60)
        rejections += paired_bootstrap(human, a, b, n_resamples=200, seed=sim).pvalue < 0.05
    return rejections / sims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=2000, help="simulated studies per cell (Welch/pooled: 10x)")
    args = parser.parse_args()
    rows = []
    tick = time.perf_counter()
    for label, shift in (("null", 0.0), ("A +0.15", 0.15)):
        for test, rate in answers_rates(10 * args.sims, shift, 1).items():
            rows.append((test, label, rate, 10 * args.sims))
        rows.append(
            ("cluster bootstrap (topics x annotators)", label, cluster_rate(args.sims // 4, shift, 2), args.sims // 4)
        )
    for label, noise in (("null", 1.0), ("A noise sd 0.3", 0.3)):
        rows.append(("validate paired (topics)", label, paired_rate(args.sims, noise, 3), args.sims))
    table = pd.DataFrame(rows, columns=["test", "truth", "rejection rate", "sims"])
    table["MC SE"] = np.sqrt(table["rejection rate"] * (1 - table["rejection rate"]) / table["sims"])
    table["null within 4 MC SE of 0.05"] = np.where(
        table["truth"] == "null", (table["rejection rate"] - 0.05).abs() < 4 * np.sqrt(0.05 * 0.95 / table["sims"]), ""
    )
    print(table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    print(f"{time.perf_counter() - tick:.1f} s")


if __name__ == "__main__":
    main()
