"""Analysis command: ``analyze`` human judgments (a study export, or Hoyle et al. 2021's released files)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tealeaves.cli.common import JsonOption, app, renamed_option, reports_errors, show
from tealeaves.console import mapping_table, progress_bar
from tealeaves.errors import InputError, check_each
from tealeaves.extras import require


@app.command()
@reports_errors
def analyze(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder for tables and figures.")],
    export: Annotated[
        Path | None, typer.Argument(help="A study export (.csv, .csv.gz or .parquet, one row per response).")
    ] = None,
    hoyle2021: Annotated[
        Path | None, typer.Option("--hoyle2021", help="Replicate Hoyle et al. 2021 from their released files.")
    ] = None,
    metrics: Annotated[
        Path | None, typer.Option(help="CSV of automated metrics per topic: model, topic, one column per metric.")
    ] = None,
    familiar_only: Annotated[
        bool, typer.Option(help="Keep only answers of annotators familiar with the terms (Hoyle A.7).")
    ] = False,
    keep_failed_checks: Annotated[
        bool, typer.Option(help="Keep annotators who failed attention checks (they are excluded by default).")
    ] = False,
    n_resamples: Annotated[
        int | None, typer.Option(help="Bootstrap resamples of annotators for correlation CIs. [default: 1000]")
    ] = None,
    bootstrap: Annotated[int | None, typer.Option(hidden=True, help="Deprecated name of --n-resamples.")] = None,
    fdr_iterations: Annotated[
        int, typer.Option(help="Resampling iterations for false discovery rates (the paper: 1,000).")
    ] = 10000,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    comparison: Annotated[
        str,
        typer.Option(
            help="How models are compared, the topic being the unit: 'topic' (Welch t on per-topic scores) or "
            "'cluster-bootstrap' (two-way topic x annotator bootstrap)."
        ),
    ] = "topic",
    pooled_tests: Annotated[
        bool,
        typer.Option(help="Also write Hoyle et al.'s pooled one-tailed tests over answers (for replication only)."),
    ] = False,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Analyse human judgments: scores, agreement, model tests, correlations, regressions, FDR, power."""
    require("report", what="tealeaves analyze")
    from tealeaves.analysis import (
        analyze_export,
        replicate_hoyle2021,
        write_replication,
        write_study_analysis,
    )
    from tealeaves.artifacts import check_writable

    if (export is None) == (hoyle2021 is None):
        raise InputError("give either a study export or --hoyle2021 DIR (one of the two)")
    check_writable(out, force, inputs=[export, hoyle2021, metrics])  # before the analysis, not after it
    resamples: int = renamed_option(bootstrap, n_resamples, "--bootstrap", "--n-resamples", 1000)
    check_each(
        "analyze",
        [
            (resamples >= 1, "--n-resamples >= 1", resamples),
            (fdr_iterations >= 1, "--fdr-iterations >= 1", fdr_iterations),
        ],
    )
    with progress_bar(transient=True) as progress:
        if hoyle2021 is not None:
            result = replicate_hoyle2021(
                hoyle2021,
                n_resamples=resamples,
                n_iter=fdr_iterations,
                seed=seed,
                familiar_only=familiar_only,
                progress=progress,
            )
            write_replication(result, out, force=force)
            rows = {
                f"{r.task} {r.dataset} {r.metric}/{r.reference}": f"{r.spearman:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]"
                for r in result.correlations.itertuples()
                if r.best
            }
            show(as_json, result.to_dict, mapping_table(f"best Spearman rho per row (Table 3) -> {out}", rows))
        else:
            study = analyze_export(
                export,
                metrics=metrics,
                familiar_only=familiar_only,
                exclude_failed_checks=not keep_failed_checks,
                n_resamples=resamples,
                seed=seed,
                progress=progress,
                comparison=comparison,
                pooled_tests=pooled_tests,
            )
            write_study_analysis(study, out, force=force)
            rows = {f"{r.task} {r.model}": f"{r.mean:.3f} ({r.items} items)" for r in study.models.itertuples()}
            show(
                as_json,
                study.to_dict,
                mapping_table(f"human scores per model -> {out}", rows),
                _comparison_table(study.comparisons),
            )


def _comparison_table(comparisons):
    """Each task's model pairs: the topic-averaged difference, its interval and the verdict."""
    from rich.table import Table

    table = Table(title="model comparisons (unit: topic; two-sided, Holm over each task's pairs)", title_justify="left")
    for name in ("task", "A - B", "difference [95% CI]", "test", "verdict"):
        table.add_column(name, justify="right" if name.startswith("difference") else "left")
    for r in comparisons.itertuples():
        table.add_row(
            r.task,
            f"{r.model_a} - {r.model_b}",
            f"{r.difference:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]",
            r.test,
            r.verdict,
        )
    return table
