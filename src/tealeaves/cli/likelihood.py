"""Held-out likelihood commands: Wallach et al. 2009's estimators and Chang et al. 2009's predictive metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tealeaves.cli.common import JsonOption, app, check_result_path, cli_alias, parse_param, reports_errors, show
from tealeaves.console import mapping_table, progress_bar

HeldoutCorpus = Annotated[
    Path, typer.Argument(help="Held-out corpus folder, prepared with --vocab-from the training corpus.")
]
PerDocumentOut = Annotated[Path | None, typer.Option("--out", "-o", help="Per-document results: .json or .csv.")]


def report(result: Any, model: Path, corpus: Path, out: Path | None, as_json: bool) -> None:
    """Write the per-document results to ``out`` when given, and print the summary."""
    from tealeaves.results import write_result

    if out is not None:
        write_result(result, out)
    title = f"{model} on {corpus}" + (f" -> {out}" if out else "")
    show(as_json, result.summary, mapping_table(title, result.summary()))


SkipOov = Annotated[
    bool, typer.Option(help="Drop (and count) words outside the model's vocabulary instead of refusing.")
]


@app.command("likelihood")
@reports_errors
@cli_alias('on_missing="skip"', "--skip-oov")
def likelihood_command(
    model: Annotated[Path, typer.Argument(help="A model folder (with a Dirichlet prior alpha).")],
    corpus: HeldoutCorpus,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            "-m",
            help="is-prior-theta, is-pzw, is-iterated-pseudocounts, harmonic-mean (biased), ais, chib, "
            "left-to-right; with --complete: estimated-theta, left-to-right, ais.",
        ),
    ] = "left-to-right",
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="Method parameter NAME=VALUE (repeatable): particles, samples, temperatures, burn_in, iterations, "
            "variant (sis|wallach|mallet), schedule (linear|geometric|sigmoid).",
        ),
    ] = None,
    complete: Annotated[
        str | None,
        typer.Option(help="Document completion: score the second part given the first (first-half|alternate|random)."),
    ] = None,
    runs: Annotated[int, typer.Option(help="Independent runs per document (bootstrap sd of the total when > 1).")] = 1,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    skip_oov: SkipOov = False,
    out: PerDocumentOut = None,
    as_json: JsonOption = False,
) -> None:
    """Estimate the held-out log probability of each document (Wallach et al. 2009)."""
    from tealeaves.corpus import Corpus
    from tealeaves.likelihood import complete as run_complete
    from tealeaves.likelihood import estimate
    from tealeaves.models import TopicModel

    check_result_path(out)
    loaded, docs = TopicModel.load(model), Corpus.load(corpus)
    options: dict[str, Any] = {"runs": runs, "on_missing": "skip" if skip_oov else "error", **parse_param(param or [])}
    with progress_bar(transient=True) as progress:
        if complete is None:
            result = estimate(loaded, None, docs, method=method, seed=seed, progress=progress, **options)
        else:
            result = run_complete(
                loaded, None, docs, method=method, split=complete, seed=seed, progress=progress, **options
            )
    report(result, model, corpus, out, as_json)


@app.command()
@reports_errors
@cli_alias('on_missing="skip"', "--skip-oov")
def predictive(
    model: Annotated[Path, typer.Argument(help="A model folder (any kind with an inference of θ).")],
    corpus: HeldoutCorpus,
    split: Annotated[
        str | None,
        typer.Option(help="Infer θ from one part and score the other (first-half|alternate|random) [whole document]."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    skip_oov: SkipOov = False,
    out: PerDocumentOut = None,
    as_json: JsonOption = False,
) -> None:
    """Predictive log likelihood per word and predictive rank with a plug-in θ̂ (Chang et al. 2009, §4.2)."""
    from tealeaves.corpus import Corpus
    from tealeaves.likelihood import predictive as run_predictive
    from tealeaves.models import TopicModel

    check_result_path(out)
    with progress_bar(transient=True) as progress:
        result = run_predictive(
            TopicModel.load(model),
            Corpus.load(corpus),
            seed=seed,
            split=split,
            progress=progress,
            on_missing="skip" if skip_oov else "error",
        )
    report(result, model, corpus, out, as_json)
