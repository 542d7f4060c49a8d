"""Validation command: ``validate`` automated metrics against human judgments (a leaderboard)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tealeaves.cli.common import JsonOption, app, print_json, renamed_option, reports_errors
from tealeaves.console import console, progress_bar
from tealeaves.errors import InputError
from tealeaves.extras import require


@app.command("validate")
@reports_errors
def validate_command(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output folder: leaderboard and tables (CSV, Parquet), figure.")
    ],
    hoyle2021: Annotated[
        Path | None, typer.Option("--hoyle2021", help="Hoyle et al. 2021's released judgments (NYT, WIKI x 2 tasks).")
    ] = None,
    datasets: Annotated[
        list[str] | None,
        typer.Option(
            "--datasets",
            help="Public human data sets by name (hoyle2021, palmetto) or 'all': every one present under "
            "--datasets-dir; repeatable.",
        ),
    ] = None,
    datasets_dir: Annotated[
        Path | None,
        typer.Option(help="The folder holding one folder per public data set [$TEALEAVES_CACHE/human]."),
    ] = None,
    export: Annotated[
        list[Path] | None, typer.Option("--export", help="A tealeaves study export (.csv or .parquet); repeatable.")
    ] = None,
    human: Annotated[
        list[Path] | None,
        typer.Option(
            "--human",
            help="A CSV of judgments: topic, words, and score rows, or mean [+ annotators + std] per topic; "
            "repeatable, each file (or dataset / scale value) a separate data set.",
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            help="MEASURE[@INDEX_OR_ENCODER][,KEY=VALUE]: npmi@INDEX, embedding@st:all-MiniLM-L6-v2, "
            "embedding@w2v:INDEX, embedding_intrusion, wi-auto@INDEX[,association=npmi], csv:SCORES.csv; repeatable "
            "[embedding, embedding_centroid, embedding_intrusion].",
        ),
    ] = None,
    familiar_only: Annotated[
        bool, typer.Option(help="Keep only answers of annotators familiar with the terms (Hoyle A.7).")
    ] = False,
    n_resamples: Annotated[
        int | None, typer.Option(help="Bootstrap resamples (intervals and paired tests). [default: 1000]")
    ] = None,
    bootstrap: Annotated[int | None, typer.Option(hidden=True, help="Deprecated name of --n-resamples.")] = None,
    resample: Annotated[
        str,
        typer.Option(
            help="What the paired tests resample: 'topics' (stratified by dataset and model) or 'topics+annotators' "
            "(crossed; needs annotator ids)."
        ),
    ] = "topics",
    intervals: Annotated[
        str,
        typer.Option(
            help="What the correlations' intervals resample: 'hoyle' (answers within topics, topics fixed; Table 3), "
            "'topics' or 'topics+annotators'. Means-only data always get 'topics'."
        ),
    ] = "hoyle",
    select_on: Annotated[
        list[str] | None,
        typer.Option(
            "--select-on",
            help="Selection-aware mode: choose the best of the -m metrics (but NPMI) on the data sets whose names "
            "start with this (e.g. NYT; repeatable), test it against the best NPMI on the others.",
        ),
    ] = None,
    leave_one_out: Annotated[
        bool,
        typer.Option(
            help="Choose the best of the -m metrics (but NPMI) on the data sets of other topics, test it against "
            "the best NPMI on the one left out; every data set in turn."
        ),
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the bootstraps and of drawn intruder sets.")] = 0,
    cache_dir: Annotated[Path | None, typer.Option(help="Word-vector cache [~/.cache/tealeaves/vectors].")] = None,
    parquet: Annotated[
        bool, typer.Option(help="Also write the tables as Parquet (when pyarrow is installed: tealeaves[parquet]).")
    ] = True,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Correlate automated metrics with human judgments (Spearman, Pearson, Kendall; bootstrap CIs) and rank them."""
    require("report", what="tealeaves validate")
    from tealeaves.analysis.judgments import csv_judgments, export_judgments, hoyle2021_judgments
    from tealeaves.analysis.metric_specs import default_metrics, parse_metric
    from tealeaves.analysis.output import write_validation
    from tealeaves.analysis.validation import validate as run_validate
    from tealeaves.artifacts import check_writable
    from tealeaves.console import err_console

    check_writable(out, force, inputs=[hoyle2021, datasets_dir, *(export or []), *(human or [])])
    resamples: int = renamed_option(bootstrap, n_resamples, "--bootstrap", "--n-resamples", 1000)
    if resamples < 2:
        raise InputError("--n-resamples must be at least 2")
    judgments = hoyle2021_judgments(hoyle2021, familiar_only) if hoyle2021 is not None else []
    if datasets:
        judgments += _public_datasets(datasets, datasets_dir, familiar_only)
    for path in export or []:
        judgments += export_judgments(path, familiar_only=familiar_only)
    for path in human or []:
        judgments += csv_judgments(path)
    if not judgments:
        raise InputError("give human judgments: --datasets all, --hoyle2021 DIR, --export EXPORT or --human CSV")
    metrics = [m for spec in metric for m in parse_metric(spec)] if metric else None
    with progress_bar(transient=True) as progress:
        result = run_validate(
            judgments,
            metrics,
            n_resamples=resamples,
            seed=seed,
            cache_dir=cache_dir,
            progress=progress,
            resample=resample,
            intervals=intervals,
        )
    labels = [m.label for m in metrics] if metrics else [m.label for m in default_metrics()]
    candidates = [label for label in labels if not label.startswith(("NPMI", "npmi"))]
    selection = result.select_and_test(candidates, select_on) if select_on else None
    held_out = result.leave_one_out(candidates) if leave_one_out else None
    write_validation(result, out, force=force, parquet=parquet)
    if as_json:
        payload = result.to_dict()
        if selection is not None:
            payload["selection"] = selection.to_dict(orient="records")
        if held_out is not None:
            payload["leave_one_out"] = held_out.to_dict(orient="records")
        print_json(payload)
        return
    console.print(_leaderboard_table(result, f"Spearman rho with mean human scores -> {out}"))
    versus = result.versus_best("NPMI", _reference_free(result))
    if not versus.empty:
        console.print(
            _versus_table(versus, "reference-free metrics vs the best NPMI of each data set (paired bootstrap)")
        )
    if selection is not None and not selection.empty:
        title = (
            f"selection-aware: {selection['chosen'].iloc[0]} chosen on {selection['selected_on'].iloc[0]} "
            "(largest mean observed rho), tested on the other data sets"
        )
        console.print(_versus_table(selection, title))
    if held_out is not None and not held_out.empty:
        title = "leave one data set out: the metric chosen on the other topics' data sets, tested on the one left out"
        console.print(_versus_table(held_out.assign(metric=held_out["chosen"], p_maxt=float("nan")), title))
    for entry in result.settings["dropped_fewer_than_three_topics"]:
        err_console.print(f"not correlated: {entry['metric']} on {entry['human']} (fewer than three topics scored)")


def _public_datasets(names: list[str], folder: Path | None, familiar_only: bool) -> list:
    from tealeaves.analysis.human_datasets import dataset_judgments
    from tealeaves.artifacts import cache_root
    from tealeaves.console import err_console

    root = folder if folder is not None else cache_root() / "human"
    judgments, absent = dataset_judgments(names, root, familiar_only)
    for name in absent:
        err_console.print(f"not present: {name} (no folder {root / name}; see docs/guide/validate.md)")
    return judgments


def _reference_free(result) -> list[str]:
    board = result.leaderboard
    return board.loc[board["family"] == "reference-free", "metric"].tolist()


def _leaderboard_table(result, title: str):
    from rich.table import Table

    correlations = result.correlations
    spearman = correlations[correlations["method"] == "spearman"].set_index(["metric", "human"])
    humans = result.settings["human"]
    table = Table(title=title, title_justify="left")
    for name in ("#", "metric", "family", *humans, "mean", "coverage"):
        table.add_column(name, justify="left" if name in ("metric", "family") else "right")
    for row in result.leaderboard.itertuples():
        cells = []
        for h in humans:
            if (row.metric, h) not in spearman.index:
                cells.append("-")
                continue
            c = spearman.loc[(row.metric, h)]
            mark = "*" if c["best"] else ("~" if c["overlaps_best"] else "")
            cells.append(f"{c['estimate']:.2f} [{c['ci_low']:.2f}, {c['ci_high']:.2f}]{mark}")
        table.add_row(
            str(row.rank), row.metric, row.family, *cells, f"{row.mean_spearman:.3f}", f"{row.mean_coverage:.2f}"
        )
    intervals = "; ".join(
        f"{h}: {u}" for h, u in correlations.drop_duplicates("human")[["human", "uncertainty"]].itertuples(index=False)
    )
    table.caption = (
        "* largest in its column; ~ its interval overlaps the largest's (Hoyle et al. 2021, Table 3); "
        f"mean: each data set weighted equally. Intervals resample {intervals}"
    )
    return table


def _versus_table(versus, title: str):
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.caption = (
        "difference: observed; 95% CI and p from a bootstrap over topics; p two-sided, Holm and max-T over the rows"
    )
    columns = ("data set", "metric", "rho", "best NPMI", "rho", "difference [95% CI]", "p", "Holm", "max-T", "verdict")
    for name in columns:
        table.add_column(name, justify="left" if name in ("data set", "metric", "best NPMI", "verdict") else "right")
    for r in versus.itertuples():
        table.add_row(
            r.human,
            r.metric,
            f"{r.spearman:.3f}",
            r.baseline,
            f"{r.baseline_spearman:.3f}",
            f"{r.difference:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]",
            f"{r.p_value:.3f}",
            f"{r.p_holm:.3f}",
            f"{r.p_maxt:.3f}",
            r.verdict,
        )
    return table
