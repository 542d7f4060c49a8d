"""Hoyle et al.'s Table 4 false omission rates: Monte Carlo error and the metric margin.

Run from the repository root with the data in ../shared/data:

    python benchmarks/table4_omissions.py [--runs 100] [--iterations 10000]

Part 1 runs the Table 4 procedure (``tealeaves.analysis.replication.discovery_table``, the
paper's margins NPMI 0.05 and C_v 0.06) ``--runs`` times with 1,000 iterations each, as the
paper did once, and prints each FOR cell's standard deviation over the runs (the Monte Carlo
error of one such run), how far a run's printed (rounded) values lie from the pooled estimate
of all runs (mean absolute deviation over the 36 cells: median, 95th percentile, largest), and
how far the paper's lie. Part 2 computes the FOR of every cell at metric margins from 0.040 to
0.070 in steps of 0.001 (``--iterations``, seed 0, the same draws for every margin), fits one
margin per dataset and metric by least squares to the paper's six cells, and prints the slope
of the FOR (points per 0.001 of margin), the fitted margins and the deviations with them.
About 10 minutes on the 2-core development machine with the defaults.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from shared_data import add_data_option, data_path
from tealeaves.analysis import load_hoyle2021
from tealeaves.analysis import replication as rep
from tealeaves.analysis.discovery import METRIC_MARGINS, false_discovery_rates

GRID = range(40, 71)  # metric margins in thousandths


def monte_carlo(study, runs: int, paper: pd.DataFrame) -> None:
    tables = [rep.discovery_table(study, False, 1000, seed, None).assign(run=seed) for seed in range(1, runs + 1)]
    every = paper.merge(pd.concat(tables), on=rep.KEYS)
    pooled = every.groupby(rep.KEYS)[["false_omissions", "human_differences"]].sum()
    estimate = (100 * pooled["false_omissions"] / pooled["human_differences"]).rename("estimate")
    every = every.join(estimate, on=rep.KEYS)
    sd = every.groupby(rep.KEYS)["for"].std() * 100
    runs_dev = (np.round(100 * every["for"]) - every["estimate"]).abs().groupby(every["run"]).mean()
    cells = paper.join(estimate, on=rep.KEYS)
    paper_dev = (cells["paper_for"] - cells["estimate"]).abs()
    print(f"Part 1: {runs} runs of 1,000 iterations (the paper's margins), pooled: {runs * 1000:,} iterations")
    print(
        f"  FOR standard deviation of one run, per cell: {sd.min():.1f} to {sd.max():.1f} points (mean {sd.mean():.2f})"
    )
    print(
        f"  a run's mean |deviation| from the pooled estimate: median {runs_dev.median():.2f}, "
        f"95% {runs_dev.quantile(0.95):.2f}, largest {runs_dev.max():.2f} points"
    )
    print(
        f"  the paper's: {paper_dev.mean():.2f} (largest cell {paper_dev.max():.1f}); runs as far: {(runs_dev >= paper_dev.mean()).sum()}"
    )
    print(
        cells.assign(sd=sd.reindex(pd.MultiIndex.from_frame(cells[rep.KEYS])).to_numpy())
        .round(2)
        .to_string(index=False)
    )


def margins(study, iterations: int, paper: pd.DataFrame) -> None:
    frames = []
    for task, label in rep.TASK_LABELS.items():
        for dataset, members in rep.DATASET_GROUPS.items():
            human, metrics, _ = rep._pool(study, task, members, False)
            metrics = metrics[[c for c in metrics.columns if not c.endswith("/Val")]]
            wide = pd.concat({f"{c}@{e}": metrics[c] for c in metrics.columns for e in GRID}, axis=1)
            margin = {name: int(name.split("@")[1]) / 1000 for name in wide.columns}
            table = false_discovery_rates(task, human, wide, margin, n_iter=iterations, seed=0).table
            parts = table["metric_column"].str.extract(r"(?P<metric>[^/]+)/(?P<reference>[^@]+)@(?P<margin>.+)")
            frames.append(pd.concat([table, parts], axis=1).assign(task=label, dataset=dataset))
    scan = paper.merge(pd.concat(frames).astype({"margin": int}), on=rep.KEYS)
    scan["deviation"] = 100 * scan["for"] - scan["paper_for"]
    print(f"\nPart 2: FOR against the metric margin ({iterations:,} iterations, seed 0)")
    fitted = []
    for (dataset, metric), group in scan.groupby(["dataset", "metric"], sort=False):
        loss = group.groupby("margin")["deviation"].apply(lambda d: (d**2).mean())
        best = int(loss.idxmin())
        at = group.set_index("margin")
        low, high = max(best - 5, GRID.start), min(best + 5, GRID.stop - 1)
        slope = (at.loc[high, "for"].to_numpy() - at.loc[low, "for"].to_numpy()).mean() * 100 / (high - low)
        printed = METRIC_MARGINS[metric]
        rows = at.loc[best].assign(printed=100 * at.loc[round(printed * 1000), "for"].to_numpy())
        fitted.append(rows.assign(fitted_margin=best / 1000).reset_index(drop=True))
        print(
            f"  {dataset:<12} {metric:<4}: margin {best / 1000:.3f} (printed {printed}), {slope:.1f} points of FOR per 0.001"
        )
    fit = pd.concat(fitted)
    for name, values in (("printed margins", fit["printed"]), ("fitted margins", 100 * fit["for"])):
        d = (values - fit["paper_for"]).abs()
        print(
            f"  {name}: mean |deviation| {d.mean():.2f}, largest {d.max():.1f}, within 2 points: {(d <= 2).sum()} of 36"
        )
    columns = [*rep.KEYS, "paper_for", "printed", "fitted_margin"]
    print(
        fit[columns]
        .assign(fitted=100 * fit["for"].to_numpy())
        .round({"printed": 1, "fitted": 1})
        .to_string(index=False)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(parser)
    parser.add_argument("--runs", type=int, default=100, help="runs of 1,000 iterations for part 1")
    parser.add_argument("--iterations", type=int, default=10000, help="iterations for part 2")
    args = parser.parse_args()
    study = load_hoyle2021(data_path(args.data, "hoyle2021"))
    paper = rep.paper_table_4()
    started = time.perf_counter()
    monte_carlo(study, args.runs, paper)
    margins(study, args.iterations, paper)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
