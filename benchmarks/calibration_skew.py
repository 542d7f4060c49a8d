"""Coverage of 95% intervals of a mean over K per-topic values under skew, and how skewed real per-topic metrics are.

    python benchmarks/calibration_skew.py [--replicates 10000] [--evaluation RUN] [--hoyle2021 DIR] [--shapes]

The evaluation's topic-level interval (NPMI, C_V, WI-Auto per topic) is the studentised
bootstrap's (bootstrap-t, ``tealeaves.stats.bootstrap_t_interval``: 2,000 resamples from one
fixed stream, the interval :math:`[\\bar x - t^*_{(0.975)} s/\\sqrt K, \\bar x - t^*_{(0.025)} s/\\sqrt K]`
with :math:`t^*` the resampled :math:`(\\bar x^* - \\bar x) / (s^* / \\sqrt K)`; Efron and Tibshirani
1993, ch. 12). Its coverage is simulated here, R replicates per row (MC SE
:math:`\\sqrt{0.95 \\cdot 0.05 / R}`), for values that are symmetric (normal), moderately skewed
(Gamma(6), skewness 0.82), skewed (Gamma(2), 1.41) and very skewed (Gamma(1), 2), at K = 20 and
50, next to the t interval it replaced, :math:`\\bar x \\pm t_{0.975, K-1} s / \\sqrt K`
(``tealeaves.stats.t_interval``), and BCa (``scipy.stats.bootstrap``, 999 resamples, on R/10
replicates: it is slow). ``--evaluation`` (a ``tealeaves evaluate`` or demo folder) and
``--hoyle2021`` (Hoyle et al.'s released judgments) print the sample skewness over topics of
each model's per-topic metrics. ``--shapes`` prints, beside them, the sample skewness that K values
of each shape the calibration simulates (``tealeaves.evaluation.calibration.bounded_values``) show
(10%, 50% and 90% quantiles over 20,000 draws): real metrics look like the shapes whose rows hold
(Gamma(1, 1), LogNormal(0, 0.5)), not like LogNormal(0, 1), whose rows do not (docs/guide/evaluate.md,
"Which shapes the guarantees cover").
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from tealeaves.stats import bootstrap_t_interval

CASES = {"normal (skewness 0)": None, "Gamma(6) (0.82)": 6.0, "Gamma(2) (1.41)": 2.0, "Gamma(1) (2)": 1.0}
RESAMPLES = 999  # BCa's


def coverage(shape: float | None, k: int, replicates: int, rng: np.random.Generator) -> dict[str, float]:
    truth = 0.0 if shape is None else shape
    quantile = stats.t.ppf(0.975, k - 1)
    hits = {"t": 0, "bootstrap-t": 0, "BCa": 0}
    for r in range(replicates):
        x = rng.normal(0.0, 1.0, k) if shape is None else rng.gamma(shape, 1.0, k)
        mean, se = x.mean(), x.std(ddof=1) / np.sqrt(k)
        hits["t"] += abs(mean - truth) <= quantile * se
        low, high = bootstrap_t_interval(x)  # the evaluation's interval, as it computes it
        hits["bootstrap-t"] += low <= truth <= high
        if r % 10 == 0:
            bca = stats.bootstrap((x,), np.mean, n_resamples=RESAMPLES, method="BCa", random_state=rng)
            hits["BCa"] += bca.confidence_interval.low <= truth <= bca.confidence_interval.high
    return {
        "t": hits["t"] / replicates,
        "bootstrap-t": hits["bootstrap-t"] / replicates,
        "BCa": hits["BCa"] / len(range(0, replicates, 10)),
    }


def shape_skewness(draws: int = 20000, seed: int = 0) -> pd.DataFrame:
    """Quantiles (10%, 50%, 90%) of the sample skewness of K values of each calibration shape, K = 10, 20, 50."""
    from tealeaves.evaluation.calibration import BOUNDED_CASES, bounded_values

    rng = np.random.default_rng(seed)
    rows = {}
    for case in BOUNDED_CASES:
        cells = []
        for k in (10, 20, 50):
            samples = np.array([bounded_values(rng, k, case)[0] for _ in range(draws)])
            with warnings.catch_warnings():  # K equal shares (a ceiling) have no skewness: left out
                warnings.simplefilter("ignore", RuntimeWarning)
                quantiles = np.nanquantile(stats.skew(samples, axis=1, bias=False), [0.1, 0.5, 0.9])
            cells.append(" / ".join(f"{q:.2f}" for q in quantiles))
        rows[case] = cells
    return pd.DataFrame.from_dict(rows, orient="index", columns=[f"K = {k}" for k in (10, 20, 50)])


def skewness(frame: pd.DataFrame, by: list[str]) -> pd.Series:
    return frame.groupby(by)["value"].agg(lambda v: stats.skew(v.dropna(), bias=False)).round(2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--evaluation", type=Path, help="an evaluation or demo folder: skewness of its per-topic metrics"
    )
    parser.add_argument("--hoyle2021", type=Path, help="Hoyle et al.'s judgments: skewness of their per-topic metrics")
    parser.add_argument(
        "--shapes", action="store_true", help="the sample skewness of the calibration's shapes, to place real metrics"
    )
    args = parser.parse_args()
    if args.shapes:
        print("sample skewness over K topics, 10% / 50% / 90% quantiles:")
        print(shape_skewness(seed=args.seed).to_string(), "\n")
    if args.evaluation:
        folder = args.evaluation / "evaluation" if (args.evaluation / "evaluation").is_dir() else args.evaluation
        print(skewness(pd.read_csv(folder / "per_topic.csv"), ["metric", "model"]).unstack().to_string(), "\n")
    if args.hoyle2021:
        from tealeaves.analysis import load_hoyle2021

        metrics = load_hoyle2021(args.hoyle2021, missing="nan").metrics
        long = metrics.melt(id_vars=["dataset", "model", "topic"], var_name="metric")
        table = skewness(long, ["metric", "dataset", "model"])
        print(table.unstack(["dataset", "model"]).to_string())
        print(f"|skewness| >= 1.4 in {(table.abs() >= 1.4).sum()} of {len(table)} (metric, dataset, model) cells\n")
    rng = np.random.default_rng(args.seed)
    mc_se = np.sqrt(0.95 * 0.05 / args.replicates)
    print(
        f"| values | K | t (replaced) | bootstrap-t (evaluate's) | BCa (R/10) |  (R = {args.replicates}, MC SE {mc_se:.4f}; BCa {mc_se * np.sqrt(10):.4f})"
    )
    print("|---|---:|---:|---:|---:|")
    started = time.perf_counter()
    for name, shape in CASES.items():
        for k in (20, 50):
            c = coverage(shape, k, args.replicates, rng)
            print(f"| {name} | {k} | {c['t']:.4f} | {c['bootstrap-t']:.4f} | {c['BCa']:.4f} |", flush=True)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
