"""Coherence commands: ``index`` a reference corpus, score ``coherence`` and topic ``diversity``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tealeaves.cli.common import (
    EncodingOption,
    JsonOption,
    app,
    check_result_path,
    load_topics,
    print_json,
    reports_errors,
    show,
)
from tealeaves.console import console, err_console, mapping_table, progress_bar

if TYPE_CHECKING:
    from tealeaves.coherence.result import CoherenceResult


@app.command()
@reports_errors
def index(
    corpus: Annotated[Path, typer.Argument(help="A reference corpus, prepared with --vocab-from the training one.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output index folder.")],
    workers: Annotated[int, typer.Option(help="Processes indexing shards in parallel (0: one per core).")] = 1,
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler: 'local' or tcp://host:port.")] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Index a reference corpus for coherence: word positions, built in one pass."""
    from tealeaves.coherence import RefIndex

    with progress_bar(transient=True) as progress:
        built = RefIndex.build(corpus, out=out, workers=workers, scheduler=scheduler, force=force, progress=progress)
    size = built.manifest["size"]
    rows = {**built.manifest["stats"], "index / token array": size["ratio_to_token_array"]}
    rows["seconds"] = built.manifest["build"]["seconds"]
    show(as_json, lambda: {"index": out, **rows}, mapping_table(f"reference index -> {out}", rows))


@app.command("coherence")
@reports_errors
def coherence_command(
    topics: Annotated[Path, typer.Argument(help="A model folder, or a text file with one topic per line.")],
    index: Annotated[
        Path | None,
        typer.Option("--index", "-i", help="A reference index folder (tealeaves index); not for embedding."),
    ] = None,
    measure: Annotated[
        str,
        typer.Option(
            "--measure", "-m", help="uci, npmi, umass, lcp, cp1, cp2, cv, cp, ca, ds, embedding or embedding_centroid."
        ),
    ] = "npmi",
    window: Annotated[
        str | None, typer.Option(help="Window size, 'document' or 'context:5' [the measure's default].")
    ] = None,
    topn: Annotated[
        list[int] | None, typer.Option("--topn", "-n", help="Top words per topic; repeat to average (-n 5 -n 10).")
    ] = None,
    compat: Annotated[str | None, typer.Option(help="Reproduce another tool: gensim or lau.")] = None,
    on_missing: Annotated[
        str, typer.Option(help="Topic words missing from the index or encoder: error, skip or zero.")
    ] = "error",
    log_base: Annotated[float | None, typer.Option(help="Base of the logarithms [e].")] = None,
    epsilon: Annotated[float | None, typer.Option(help="Added to joint probabilities.")] = None,
    smoothing: Annotated[float | None, typer.Option(help="Added to joint counts.")] = None,
    zero_pair: Annotated[float | None, typer.Option(help="Value of a pair that never co-occurs.")] = None,
    encoder: Annotated[
        str | None,
        typer.Option(help="Embedding measures: st:NAME_OR_PATH, w2v:INDEX or static:PATH [st:all-MiniLM-L6-v2]."),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the result to a .json or .csv file.")] = None,
    encoding: EncodingOption = "utf-8",
    as_json: JsonOption = False,
) -> None:
    """Score each topic's coherence against a reference index (per pair, per topic, per model)."""
    from tealeaves.coherence import score
    from tealeaves.coherence.tables import topics_scores_table, topn_label
    from tealeaves.results import write_result

    check_result_path(out)
    given = {"log_base": log_base, "epsilon": epsilon, "smoothing": smoothing, "zero_pair": zero_pair}
    result = score(
        load_topics(topics, encoding),
        index,
        measure=measure,
        window=int(window) if window is not None and window.isdigit() else window,
        topn=topn or None,
        compat=compat,
        on_missing=on_missing,  # type: ignore[arg-type]
        conventions={name: value for name, value in given.items() if value is not None} or None,
        encoder=encoder,
    )
    if out is not None:
        write_result(result, out)
    _report_missing(result)
    if as_json:
        print_json(result.to_dict())
        return
    title = f"{result.measure}, {result.window}, {topn_label(result)}: {topics}"
    console.print(topics_scores_table(title, {result.measure: result}))
    if out is not None:
        console.print(f"-> {out}")


def _report_missing(result: CoherenceResult) -> None:
    """On stderr: the missing topic words and the topics left unscored, each counted and listed."""
    from tealeaves.coherence.measures import EMBEDDING_MEASURES
    from tealeaves.coherence.result import WHOLE_TOPIC

    words = [(k, word, why) for k, word, why in result.missing if word != WHOLE_TOPIC]
    holder = "the encoder" if result.measure in EMBEDDING_MEASURES else "the index"
    if words:
        err_console.print(f"{len(words)} topic word(s) missing from {holder} (on_missing={result.on_missing}):")
    for k, word, why in words:
        err_console.print(f"missing: topic {k} {word!r} ({why})", highlight=False)
    unscored = result.unscored
    if len(unscored):
        err_console.print(
            f"{len(unscored)} of {len(result.per_topic)} topic(s) not scored (NaN), left out of the model mean: "
            f"{', '.join(map(str, unscored))}",
            highlight=False,
        )
    for k, word, why in result.missing:
        if word == WHOLE_TOPIC:
            err_console.print(f"not scored: topic {k} ({why})", highlight=False)


@app.command()
@reports_errors
def diversity(
    topics: Annotated[Path, typer.Argument(help="A model folder, or a text file with one topic per line.")],
    diversity_topn: Annotated[
        int | None, typer.Option(help="Top words for topic diversity (Dieng et al.) [25, or a shorter topic's].")
    ] = None,
    uniqueness_topn: Annotated[
        int | None, typer.Option(help="Top words for topic uniqueness and inverted RBO [10, or a shorter topic's].")
    ] = None,
    filter_topn: Annotated[
        int | None,
        typer.Option(help="Top words of Hoyle et al.'s filters: no duplicate sets, uniqueness above 0.7 [5]."),
    ] = None,
    overlap_topn: Annotated[
        int | None, typer.Option(help="Top words for the diagnostic of topic pairs sharing a word (not a filter) [5].")
    ] = None,
    uniqueness_filter_all: Annotated[
        bool,
        typer.Option(help="Apply filter (b), uniqueness of the top 5 above 0.7, to any model (default: ETM only)."),
    ] = False,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the result to a .json or .csv file.")] = None,
    encoding: EncodingOption = "utf-8",
    as_json: JsonOption = False,
) -> None:
    """Topic diversity, topic uniqueness, inverted RBO and Hoyle et al.'s redundancy filters."""
    from tealeaves.coherence import diversity as run_diversity
    from tealeaves.coherence.tables import diversity_table
    from tealeaves.results import write_result

    check_result_path(out)
    result = run_diversity(
        load_topics(topics, encoding),
        diversity_topn=diversity_topn,
        uniqueness_topn=uniqueness_topn,
        filter_topn=filter_topn,
        overlap_topn=overlap_topn,
        uniqueness_filter=True if uniqueness_filter_all else None,
    )
    if out is not None:
        write_result(result, out)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(diversity_table(f"diversity: {topics}", result))
    for a, b in result.duplicate_topics[:10]:
        console.print(f"topic {b} duplicates topic {a} (the same top-{result.filter_topn} words)", highlight=False)
    if len(result.duplicate_topics) > 10:
        console.print(f"... and {len(result.duplicate_topics) - 10} more pairs (--out lists them all)")
    if out is not None:
        console.print(f"-> {out}")
