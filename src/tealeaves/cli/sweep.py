"""The ``sweep`` command: Hoyle et al.'s random hyperparameter search on Dask (:func:`tealeaves.sweep`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tealeaves.cli.common import JsonOption, app, reports_errors, show
from tealeaves.console import progress_bar
from tealeaves.extras import require

if TYPE_CHECKING:
    from rich.table import Table

    from tealeaves.model_selection import SweepResult


@app.command("sweep")
@reports_errors
def sweep_command(
    config: Annotated[
        Path, typer.Argument(help="The sweep's TOML file (corpus, reference, models, settings, k, seed).")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The sweep folder; an existing one is resumed.")],
    scheduler: Annotated[
        str, typer.Option(help="Dask: 'local' (a LocalCluster) or a scheduler address tcp://HOST:PORT.")
    ] = "local",
    workers: Annotated[
        int | None, typer.Option(help="Processes of the LocalCluster (default: one per CPU core).", min=1)
    ] = None,
    force: Annotated[bool, typer.Option(help="Delete the sweep folder and start over.")] = False,
    retry_failed: Annotated[
        bool, typer.Option(help="Train again the trials whose records say they failed (resuming keeps them).")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Train and score random settings of each model (Hoyle et al. 2021, §4.2); select the best by NPMI after the filters."""
    require("sweep", "torch", "gensim", "pandas", "pyarrow", what="tealeaves sweep")
    from tealeaves.model_selection import sweep as run_sweep

    with progress_bar() as progress:
        result = run_sweep(
            config, out, scheduler=scheduler, workers=workers, force=force, progress=progress, retry_failed=retry_failed
        )
    show(as_json, lambda: _summary(result), _table(result))


def _summary(result: SweepResult) -> dict[str, Any]:
    frame = result.to_frame()
    return {
        "out": str(result.out),
        "trained": result.trained,
        "resumed": result.resumed,
        "seconds": result.seconds,
        "selected": result.selected,
        "trials": frame.drop(columns=["seed"]).to_dict(orient="records"),
    }


def _table(result: SweepResult) -> Table:
    from rich.table import Table

    frame = result.to_frame()
    title = f"sweep -> {result.out}: {result.trained} trials trained, {result.resumed} resumed, {result.seconds:.1f} s"
    table = Table(title=title, title_justify="left")
    columns = ("model", "trials", "failed", "filter (a)", "filter (b)", "pass", "selected", "NPMI", "C_V", "TU top 5")
    for column in columns:
        table.add_column(column, justify="left" if column in ("model", "selected") else "right")
    for model, rows in frame.groupby("model", sort=False):
        chosen = result.selected[str(model)]
        best = rows[rows["trial"] == chosen].iloc[0] if chosen else None
        scores = ["-"] * 3 if best is None else [f"{best[c]:.4f}" for c in ("npmi", "cv", "filter_uniqueness")]
        failed = int((rows["status"] == "failed").sum())
        passing = [int(rows[c].fillna(False).astype(bool).sum()) for c in ("filter_a", "filter_b", "passes")]
        applies = bool(rows["uniqueness_filter"].fillna(False).astype(bool).any())
        counts = [str(passing[0]), str(passing[1]) if applies else f"({passing[1]})", str(passing[2])]
        table.add_row(str(model), str(len(rows)), str(failed), *counts, chosen or "none", *scores)
    table.caption = "filter (b) in parentheses: counted, not applied to that model (Hoyle et al.: ETM only)"
    return table
