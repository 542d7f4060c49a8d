"""Corpus commands: ``prepare`` texts into a Corpus (Hoyle et al. 2021, A.2) and ``info`` on any artifact."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tealeaves.cli.common import EncodingOption, JsonOption, app, parse_number, print_json, reports_errors, show
from tealeaves.console import console, mapping_table, progress_bar


@app.command()
@reports_errors
def prepare(
    inputs: Annotated[
        list[str], typer.Argument(help="Files, folders (WikiExtractor output too), Wikipedia dumps, or builtin:sotu.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output corpus folder.")],
    heldout: Annotated[
        float | None, typer.Option(help="Share of documents to hold out (writes train/ and heldout/).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the held-out split.")] = 0,
    vocab_from: Annotated[
        Path | None, typer.Option(help="Process identically to this corpus, with its vocabulary.")
    ] = None,
    format: Annotated[
        str | None,
        typer.Option(
            help="Force the input format: txt-folder, lines, trec, jsonl, csv, parquet, wikipedia-xml, wikiextractor, "
            "or tokenized (one document a line, tokens separated by spaces, taken as they are: no spaCy)."
        ),
    ] = None,
    text_field: Annotated[str, typer.Option(help="Field holding the text (jsonl, csv, parquet).")] = "text",
    title_field: Annotated[
        str | None, typer.Option(help="Field holding the title (default: 'title' if present).")
    ] = None,
    id_field: Annotated[str | None, typer.Option(help="Field holding the id (default: 'id' if present).")] = None,
    encoding: EncodingOption = "utf-8",
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
    shard_size: Annotated[
        int | None,
        typer.Option(help="Prepare in shards of this many documents on the workers (resumable; see the scale guide)."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Turn texts into a Corpus with the standard preprocessing (Hoyle et al. 2021, A.2), or read tokenized texts."""
    from tealeaves.corpus import prepare as run_prepare

    given: dict[str, Any] = {
        "min_doc_words": min_doc_words,
        "max_doc_words": max_doc_words,
        "min_chars": min_chars,
        "stopwords": stopwords,
        "max_df": None if max_df is None else parse_number(max_df, "--max-df"),
        "min_df": None if min_df in (None, "auto") else int(parse_number(min_df, "--min-df")),
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
            encoding=encoding,
            workers=workers,
            scheduler=scheduler,
            shard_size=shard_size,
            force=force,
            progress=progress,
            **rules,
        )
    parts = {"train": result[0], "heldout": result[1]} if isinstance(result, tuple) else {"corpus": result}
    show(
        as_json,
        lambda: {name: corpus.stats() for name, corpus in parts.items()},
        *(mapping_table(f"{name}: {out / name if len(parts) > 1 else out}", c.stats()) for name, c in parts.items()),
    )


@app.command()
@reports_errors
def info(
    path: Annotated[Path, typer.Argument(help="Any tealeaves artifact folder.")],
    as_json: JsonOption = False,
) -> None:
    """Print an artifact's manifest and statistics."""
    from tealeaves.artifacts import read_manifest

    manifest = read_manifest(path)
    if as_json:
        print_json(manifest)
        return
    head: dict[str, Any] = {
        k: manifest.get(k) for k in ("kind", "model", "role", "created", "tealeaves_version") if k in manifest
    }
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
