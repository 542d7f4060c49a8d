"""Automated word intrusion command (Lau et al. 2014): ``intrusion``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tealeaves.cli.common import (
    EncodingOption,
    JsonOption,
    app,
    check_result_path,
    load_topics,
    print_json,
    reports_errors,
)
from tealeaves.console import console, err_console, progress_bar


@app.command("intrusion")
@reports_errors
def intrusion_command(
    topics: Annotated[
        list[Path], typer.Argument(help="Model folders or topic files (one topic per line); several are compared.")
    ],
    index: Annotated[Path, typer.Option("--index", "-i", help="A reference index folder (tealeaves index).")],
    association: Annotated[
        str, typer.Option(help="Variant reported per topic: pmi (WI-Auto-PMI) or npmi (WI-Auto-NPMI).")
    ] = "pmi",
    draws: Annotated[int, typer.Option(help="Intruder sets per topic (Chang et al.: 8 annotators).")] = 8,
    window: Annotated[str, typer.Option(help="Sliding window size of the counts, or 'document'.")] = "20",
    compat: Annotated[str | None, typer.Option(help="lau: count Lau et al.'s padded windows.")] = None,
    c: Annotated[float, typer.Option("-c", "--c", help="SVM-rank's C (Lau et al.: 0.01).")] = 0.01,
    folds: Annotated[int, typer.Option(help="Cross-validation folds over topics (of all models).")] = 10,
    protocol: Annotated[str, typer.Option(help="Sets: chang (top 5) or hoyle (5 of the top 10).")] = "chang",
    seed: Annotated[int, typer.Option(help="Random seed of the sets and the folds.")] = 0,
    on_missing: Annotated[
        str, typer.Option(help="Set words the reference corpus lacks: error, or zero (never occurring).")
    ] = "error",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the result to a .json or .csv file.")] = None,
    encoding: EncodingOption = "utf-8",
    as_json: JsonOption = False,
) -> None:
    """Automated word intrusion (Lau et al. 2014): WI-Auto-PMI and WI-Auto-NPMI per topic and per model.

    Several models are compared on equal footing: one ranking SVM per fold for the topics of all of them.
    """
    from tealeaves.intrusion import compare_word_intrusion
    from tealeaves.intrusion.tables import wi_auto_models_table, wi_auto_topics_table
    from tealeaves.results import write_result

    check_result_path(out)
    names = [path.name if path.is_dir() else path.stem for path in topics]
    if len(set(names)) < len(names):
        names = [str(path) for path in topics]
    with progress_bar(transient=True) as progress:
        comparison = compare_word_intrusion(
            {name: load_topics(path, encoding) for name, path in zip(names, topics)},
            index,
            seed=seed,
            association=association,  # type: ignore[arg-type]
            draws=draws,
            window=int(window) if window.isdigit() else window,
            compat=compat,
            c=c,
            folds=folds,
            protocol=protocol,  # type: ignore[arg-type]
            on_missing=on_missing,  # type: ignore[arg-type]
            progress=progress,
        )
    chosen = comparison if len(names) > 1 else comparison[names[0]]
    if out is not None:
        write_result(chosen, out)
    if as_json:
        print_json(chosen.to_dict())
        return
    for name, result in comparison.results.items():
        settings = result.settings
        title = (
            f"word intrusion: {name}, {settings['draws']} sets per topic, {settings['window']} windows, "
            f"C={settings['c']}, {settings['folds']}-fold cross-validation by topic"
        )
        console.print(wi_auto_topics_table(title, result))
        for k, word, why in result.missing:
            err_console.print(f"missing: {name} topic {k} {word!r} ({why}; never occurring)", highlight=False)
    if len(names) > 1:
        console.print(wi_auto_models_table("WI-Auto per model, one SVM per fold for all", comparison.results))
    if out is not None:
        console.print(f"-> {out}")
