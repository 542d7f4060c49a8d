"""Model commands: ``train`` a topic model, print its ``topics``, ``import`` one trained elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tealeaves.cli.common import JsonOption, app, parse_param, reports_errors, show
from tealeaves.console import mapping_table, progress_bar, topics_table
from tealeaves.errors import InputError


@app.command()
@reports_errors
def train(
    corpus: Annotated[Path, typer.Argument(help="A corpus folder (e.g. out/train of prepare --heldout).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output model folder.")],
    model: Annotated[
        str, typer.Option("--model", "-m", help="Trainer name (see `tealeaves train --help`).")
    ] = "lda-gibbs",
    k: Annotated[int, typer.Option("-k", "--k", help="Number of topics.")] = 20,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    iterations: Annotated[
        int | None, typer.Option(help="Sweeps / passes / EM iterations (trainer default if omitted).")
    ] = None,
    epochs: Annotated[
        int | None, typer.Option(help="Training epochs of dvae and etm (trainer default if omitted).")
    ] = None,
    device: Annotated[
        str | None, typer.Option(help="dvae, etm: auto (CUDA when present), cpu or cuda (trainer default: auto).")
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="Trainer hyperparameter NAME=VALUE (repeatable).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Train a topic model on a corpus.

    Models: lda-gibbs, lda-vb, plsi, ctm, and the neural dvae and etm (Hoyle et al. 2021's
    parameter names, e.g. -p beta_reg=0.1 -p gamma_bn=200; pip install 'tealeaves[neural]').
    """
    from tealeaves.models import train as run_train

    params = parse_param(param or [])
    for name, value in (("iterations", iterations), ("epochs", epochs), ("device", device)):
        if value is not None:
            params[name] = value
    with progress_bar() as progress:
        fitted = run_train(corpus, model=model, k=k, seed=seed, out=out, force=force, progress=progress, **params)
    seconds = fitted.manifest["training"]["seconds"]
    show(
        as_json,
        lambda: {"model": str(out), "kind": model, "k": k, "seconds": seconds, "topics": fitted.top_words(10)},
        topics_table(f"{model}, K={k}, {seconds:.1f} s -> {out}", fitted.top_words(10)),
    )


@app.command()
@reports_errors
def topics(
    model: Annotated[Path, typer.Argument(help="A model folder.")],
    n: Annotated[int, typer.Option("-n", help="Words per topic.")] = 10,
    as_json: JsonOption = False,
) -> None:
    """Print a model's topics: the top words of each, most probable first."""
    from tealeaves.models import TopicModel

    if n < 1:
        raise InputError(f"-n must be at least 1, got {n}")
    loaded = TopicModel.load(model)
    show(
        as_json,
        lambda: {"kind": loaded.kind, "k": loaded.k, "alpha": loaded.alpha, "topics": loaded.top_words(n)},
        topics_table(f"{loaded.kind}, K={loaded.k}: {model}", loaded.top_words(n), weights=loaded.alpha),
    )


@app.command("import")
@reports_errors
def import_(
    format: Annotated[
        str,
        typer.Argument(help="gensim, sklearn, tomotopy, mallet-state, mallet, octis, bertopic or topics."),
    ],
    path: Annotated[Path, typer.Argument(help="The file (or BERTopic folder) the library saved.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output model folder.")],
    vocab_from: Annotated[
        Path | None, typer.Option(help="Align the topics to this corpus' vocabulary (recommended).")
    ] = None,
    vocabulary: Annotated[
        Path | None,
        typer.Option(help="Words of the matrix columns (octis, bertopic matrix, sklearn without vectorizer)."),
    ] = None,
    vectorizer: Annotated[Path | None, typer.Option(help="sklearn: the fitted vectorizer (joblib/pickle).")] = None,
    doc_topics: Annotated[Path | None, typer.Option(help="mallet: the --output-doc-topics file.")] = None,
    alpha: Annotated[
        str | None, typer.Option(help="mallet, octis: per-topic Dirichlet alpha (one value or K comma-separated).")
    ] = None,
    beta: Annotated[float | None, typer.Option(help="mallet: the beta it reports (recorded).")] = None,
    outliers: Annotated[bool, typer.Option(help="bertopic: keep the outlier topic -1.")] = False,
    floor: Annotated[
        float, typer.Option(help="Probability given to zero and missing entries before renormalising.")
    ] = 1e-12,
    encoding: Annotated[
        str | None,
        typer.Option(help="Text files (topics, mallet, vocabularies): latin-1, cp1252, ...; utf-8:replace [utf-8]."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Import a topic model trained by another library, aligned to a corpus vocabulary."""
    from tealeaves.models import Topics, import_model

    given = {"vocabulary": vocabulary, "vectorizer": vectorizer, "doc_topics": doc_topics, "alpha": alpha, "beta": beta}
    given["encoding"] = encoding
    options: dict[str, Any] = {name: str(v) if isinstance(v, Path) else v for name, v in given.items() if v is not None}
    if outliers:
        options["outliers"] = True
    result = import_model(format, path, vocab_from=vocab_from, out=out, force=force, floor=floor, **options)
    if isinstance(result, Topics):
        words = [list(t) for t in result.words]
        title = f"{len(result)} topics from {path} -> {out}"
        alignment = result.meta["import"].get("vocabulary_alignment", {})
    else:
        words = result.top_words(10)
        title = f"{result.kind} from {format}, K={result.k} -> {out}"
        alignment = result.manifest["import"]["vocabulary_alignment"]
    counts = {k: v for k, v in alignment.items() if isinstance(v, (int, float)) and k != "policy"}
    show(
        as_json,
        lambda: {"model": str(out), "topics": words, "vocabulary_alignment": alignment},
        topics_table(title, words),
        *([mapping_table("vocabulary alignment", counts)] if counts else []),
    )
