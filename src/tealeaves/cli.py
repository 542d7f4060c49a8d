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


def check_result_path(out: Path | None) -> None:
    """Refuse an --out that is neither .json nor .csv before any work is done."""
    if out is not None and out.suffix.lower() not in {".json", ".csv"}:
        raise InputError(f"--out must end in .json or .csv, got {out}")


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


# --------------------------------------------------------------------------- import
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
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
) -> None:
    """Import a topic model trained by another library, aligned to a corpus vocabulary."""
    from tealeaves.models import Topics, import_model

    given = {"vocabulary": vocabulary, "vectorizer": vectorizer, "doc_topics": doc_topics, "alpha": alpha, "beta": beta}
    options: dict[str, Any] = {name: str(v) if isinstance(v, Path) else v for name, v in given.items() if v is not None}
    if outliers:
        options["outliers"] = True
    result = import_model(format, path, vocab_from=vocab_from, out=out, force=force, floor=floor, **options)
    if isinstance(result, Topics):
        console.print(topics_table(f"{len(result)} topics from {path} -> {out}", [list(t) for t in result.words]))
        alignment = result.meta["import"].get("vocabulary_alignment", {})
    else:
        console.print(topics_table(f"{result.kind} from {format}, K={result.k} -> {out}", result.top_words(10)))
        alignment = result.manifest["import"]["vocabulary_alignment"]
    shown = {k: v for k, v in alignment.items() if isinstance(v, (int, float)) and k != "policy"}
    if shown:
        console.print(mapping_table("vocabulary alignment", shown))


# --------------------------------------------------------------------------- likelihood
@app.command()
@reports_errors
def likelihood(
    model: Annotated[Path, typer.Argument(help="A model folder (with a Dirichlet prior alpha).")],
    corpus: Annotated[
        Path, typer.Argument(help="Held-out corpus folder, prepared with --vocab-from the training corpus.")
    ],
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
    skip_oov: Annotated[
        bool, typer.Option(help="Drop (and count) words outside the model's vocabulary instead of refusing.")
    ] = False,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Per-document results: .json or .csv.")] = None,
) -> None:
    """Estimate the held-out log probability of each document (Wallach et al. 2009)."""
    from tealeaves.corpus import Corpus
    from tealeaves.likelihood import complete as run_complete
    from tealeaves.likelihood import estimate
    from tealeaves.models import TopicModel
    from tealeaves.results import write_result

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
    console.print(mapping_table(f"{model} on {corpus}" + (f" -> {out}" if out else ""), result.summary()))
    if out is not None:
        write_result(result, out)


@app.command()
@reports_errors
def predictive(
    model: Annotated[Path, typer.Argument(help="A model folder (any kind with an inference of θ).")],
    corpus: Annotated[
        Path, typer.Argument(help="Held-out corpus folder, prepared with --vocab-from the training corpus.")
    ],
    split: Annotated[
        str | None,
        typer.Option(help="Infer θ from one part and score the other (first-half|alternate|random) [whole document]."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Per-document results: .json or .csv.")] = None,
) -> None:
    """Predictive log likelihood per word and predictive rank with a plug-in θ̂ (Chang et al. 2009, §4.2)."""
    from tealeaves.corpus import Corpus
    from tealeaves.likelihood import predictive as run_predictive
    from tealeaves.models import TopicModel
    from tealeaves.results import write_result

    check_result_path(out)
    with progress_bar(transient=True) as progress:
        result = run_predictive(TopicModel.load(model), Corpus.load(corpus), seed=seed, split=split, progress=progress)
    console.print(mapping_table(f"{model} on {corpus}" + (f" -> {out}" if out else ""), result.summary()))
    if out is not None:
        write_result(result, out)


# --------------------------------------------------------------------------- analyze
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
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples of annotators for correlation CIs.")] = 1000,
    fdr_iterations: Annotated[
        int, typer.Option(help="Resampling iterations for false discovery rates (the paper: 1,000).")
    ] = 10000,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
) -> None:
    """Analyse human judgments: scores, agreement, model tests, correlations, regressions, FDR, power."""
    from tealeaves.analysis import (
        analyze_export,
        replicate_hoyle2021,
        write_replication,
        write_study_analysis,
    )

    if (export is None) == (hoyle2021 is None):
        raise InputError("give either a study export or --hoyle2021 DIR (one of the two)")
    if bootstrap < 1 or fdr_iterations < 1:
        raise InputError("--bootstrap and --fdr-iterations must be at least 1")
    with progress_bar(transient=True) as progress:
        if hoyle2021 is not None:
            result = replicate_hoyle2021(
                hoyle2021,
                n_boot=bootstrap,
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
            console.print(mapping_table(f"best Spearman rho per row (Table 3) -> {out}", rows))
        else:
            study = analyze_export(
                export,
                metrics=metrics,
                familiar_only=familiar_only,
                exclude_failed_checks=not keep_failed_checks,
                n_boot=bootstrap,
                seed=seed,
                progress=progress,
            )
            write_study_analysis(study, out, force=force)
            rows = {f"{r.task} {r.model}": f"{r.mean:.3f} ({r.items} items)" for r in study.models.itertuples()}
            console.print(mapping_table(f"human scores per model -> {out}", rows))


# --------------------------------------------------------------------------- study
study_app = typer.Typer(
    help="Human evaluation studies: create the items, serve them to annotators, export the responses.",
    no_args_is_help=True,
)
app.add_typer(study_app, name="study")


def _share_or_count(text: str | None, name: str) -> float | int | None:
    """``0.25`` (a share, has a dot) or ``12`` (a count)."""
    return None if text is None else _number(text, name)


@study_app.command("create")
@reports_errors
def study_create(
    models: Annotated[
        list[Path], typer.Argument(help="Model folders (or topic-list files for word intrusion, rating).")
    ],
    task: Annotated[str, typer.Option(help="word-intrusion, topic-intrusion or rating.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output study folder.")],
    label: Annotated[
        list[str] | None, typer.Option(help="Label of each model, in order (default: folder names); never shown.")
    ] = None,
    corpus: Annotated[Path | None, typer.Option(help="Corpus whose documents topic intrusion shows.")] = None,
    seed: Annotated[int, typer.Option(help="Random seed: the same seed gives the same study.")] = 0,
    protocol: Annotated[str, typer.Option(help="Word intrusion: hoyle (5 of top 10) or chang (top 5).")] = "hoyle",
    scale: Annotated[int, typer.Option(help="Rating scale: 3 or 5 points.")] = 3,
    familiarity: Annotated[
        bool | None,
        typer.Option("--familiarity/--no-familiarity", help="Ask the familiarity question [intrusion, rating: yes]."),
    ] = None,
    topics_per_model: Annotated[int | None, typer.Option(help="Sample this many topics per model [all].")] = None,
    docs: Annotated[int, typer.Option(help="Topic intrusion: documents to show.")] = 40,
    annotators: Annotated[
        int | None,
        typer.Option(help="Answers wanted per item [the power analysis of Hoyle et al. A.5 for this design]."),
    ] = None,
    power: Annotated[float, typer.Option(help="Power analysis: the power wanted.")] = 0.9,
    alpha: Annotated[float, typer.Option(help="Power analysis: the one-tailed test's level.")] = 0.05,
    effect: Annotated[
        str,
        typer.Option(
            help="Power analysis: fewer coherent items to detect, a share (0.08: Hoyle's 4 of 50) or a count."
        ),
    ] = "0.08",
    items_per_participant: Annotated[
        str | None, typer.Option(help="Questions per participant: a share (0.25) or a count [0.25].")
    ] = None,
    checks: Annotated[int | None, typer.Option(help="Ratings: synthetic attention-check topics [8].")] = None,
    checks_per_participant: Annotated[int | None, typer.Option(help="Attention checks per participant [2].")] = None,
    show_answer: Annotated[bool, typer.Option(help="Show the model's answer after each intrusion answer.")] = False,
    title: Annotated[str, typer.Option(help="Title shown to participants.")] = "Reading lists of words",
    consent: Annotated[Path | None, typer.Option(help="Text file with the consent text.")] = None,
    instructions: Annotated[Path | None, typer.Option(help="Text file with the instructions.")] = None,
    corpus_description: Annotated[
        str | None, typer.Option(help="What the texts are (shown with instructions).")
    ] = None,
    completion_code: Annotated[str | None, typer.Option(help="Completion code [derived from the seed].")] = None,
    redirect_url: Annotated[
        str | None, typer.Option(help="Send finishers to URL?cc=CODE (Prolific: its completion URL).")
    ] = None,
    timeout_minutes: Annotated[float, typer.Option(help="Release an inactive participant's items after this.")] = 60.0,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
) -> None:
    """Create a human evaluation study (word intrusion, topic intrusion or ratings) from models.

    Without --annotators, the answers wanted per item come from the power analysis of Hoyle et
    al. 2021 (A.5) run for this design: the fewest annotators per item with which a one-tailed
    test finds, with the given power at level alpha, a model with `effect` fewer coherent items
    among as many items per model as this study has (Hoyle et al.'s 4 of 50 topics give 12 for
    ratings and 23 for intrusion, power 0.97 and 0.94 at the 15 and 26 they used).
    """
    from tealeaves.models import TopicModel
    from tealeaves.study import create_study
    from tealeaves.study.design import load_model_like

    if annotators is None:
        from tealeaves.analysis import annotators_needed

        if task == "topic-intrusion":
            per_model = docs
        else:
            loaded = [load_model_like(str(path)) for path in models]
            sizes = [m.k if isinstance(m, TopicModel) else len(m) for m in loaded]
            per_model = min(sizes) if topics_per_model is None else min(topics_per_model, *sizes)
        share_or_count = _number(effect, "--effect")
        fewer = share_or_count if isinstance(share_or_count, int) else round(share_or_count * per_model)
        fewer = min(max(fewer, 1), per_model)
        kind = "rating" if task == "rating" else "intrusion"
        annotators = annotators_needed(kind, power=power, alpha=alpha, effect=fewer, k=per_model)
        console.print(
            f"{annotators} answers per item: power analysis (Hoyle et al. 2021, A.5) for {per_model} items per "
            f"model, {fewer} fewer coherent, power {power}, alpha {alpha}"
        )

    def read(path: Path | None) -> str | None:
        if path is None:
            return None
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read {path}: {exc}") from exc

    study = create_study(
        [str(m) for m in models],
        task,
        out,
        labels=label or None,
        corpus=corpus,
        seed=seed,
        protocol=protocol,
        scale=scale,
        familiarity=familiarity,
        topics_per_model=topics_per_model,
        docs=docs,
        annotators=annotators,
        items_per_participant=_share_or_count(items_per_participant, "--items-per-participant"),
        checks=checks,
        checks_per_participant=checks_per_participant,
        show_answer=show_answer,
        title=title,
        consent=read(consent),
        instructions=read(instructions),
        corpus_description=corpus_description,
        completion_code=completion_code,
        redirect_url=redirect_url,
        timeout_minutes=timeout_minutes,
        force=force,
    )
    console.print(mapping_table(f"study {study.study_id} -> {out}", {**study.manifest["stats"], "task": study.task}))
    console.print(f"serve it with: tealeaves study serve {out} --host 127.0.0.1 --port 8000")


@study_app.command("serve")
@reports_errors
def study_serve(
    study: Annotated[Path, typer.Argument(help="A study folder.")],
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[
        str | None, typer.Option(help="Response store: sqlite:///FILE or postgresql://... [STUDY/responses.sqlite].")
    ] = None,
    admin_token: Annotated[
        str | None, typer.Option(envvar="TEALEAVES_ADMIN_TOKEN", help="Token for /admin [random, printed].")
    ] = None,
    workers: Annotated[int, typer.Option(help="Server processes.")] = 1,
) -> None:
    """Serve a study to annotators (consent, instructions, one question per page) and its admin pages."""
    from tealeaves.study.app import serve

    serve(study, host=host, port=port, db=db, admin_token=admin_token, workers=workers, announce=console.print)


@study_app.command("export")
@reports_errors
def study_export(
    study: Annotated[Path, typer.Argument(help="A study folder.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="responses.csv, responses.parquet or survey.qsf.")],
    db: Annotated[str | None, typer.Option(help="Response store URL [STUDY/responses.sqlite].")] = None,
) -> None:
    """Export the responses (long-format CSV or Parquet) or the study as a Qualtrics survey (.qsf)."""
    from tealeaves.study import Store, Study, export_responses, write_qualtrics_survey, write_responses
    from tealeaves.study.app import default_db

    loaded = Study.load(study)
    if out.suffix.lower() == ".qsf":
        write_qualtrics_survey(loaded, out)
        console.print(f"Qualtrics survey with {len(loaded.items)} questions -> {out}")
        return
    store = Store(db or default_db(study))
    try:
        frame = export_responses(loaded, store)
    finally:
        store.close()
    write_responses(frame, out)
    console.print(f"{len(frame)} responses from {frame['annotator'].nunique()} annotators -> {out}")


@study_app.command("import-qualtrics")
@reports_errors
def study_import_qualtrics(
    study: Annotated[Path, typer.Argument(help="The study folder the survey was exported from.")],
    csv_file: Annotated[Path, typer.Argument(help="Qualtrics CSV export (numeric values or choice text).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="responses.csv or responses.parquet.")],
    timezone: Annotated[str, typer.Option(help="Time zone of the export's times.")] = "UTC",
) -> None:
    """Read a Qualtrics CSV export back into the long format of `study export`."""
    from tealeaves.study import Study, import_qualtrics, write_responses

    frame = import_qualtrics(Study.load(study), csv_file, timezone=timezone)
    write_responses(frame, out)
    console.print(f"{len(frame)} responses from {frame['annotator'].nunique()} annotators -> {out}")


# --------------------------------------------------------------------------- coherence
def _load_topics(path: Path) -> Any:
    """A model folder, or a plain topic list (one topic per line)."""
    from tealeaves.models import TopicModel, Topics

    return TopicModel.load(path) if path.is_dir() else Topics.load(path)


@app.command()
@reports_errors
def index(
    corpus: Annotated[Path, typer.Argument(help="A reference corpus, prepared with --vocab-from the training one.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output index folder.")],
    workers: Annotated[int, typer.Option(help="Processes indexing shards in parallel (0: one per core).")] = 1,
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler: 'local' or tcp://host:port.")] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output folder.")] = False,
) -> None:
    """Index a reference corpus for coherence: word positions, built in one pass."""
    from tealeaves.coherence import RefIndex

    with progress_bar(transient=True) as progress:
        built = RefIndex.build(corpus, out=out, workers=workers, scheduler=scheduler, force=force, progress=progress)
    size = built.manifest["size"]
    rows = {**built.manifest["stats"], "index / token array": size["ratio_to_token_array"]}
    console.print(mapping_table(f"reference index -> {out}", {**rows, "seconds": built.manifest["build"]["seconds"]}))


@app.command()
@reports_errors
def coherence(
    topics: Annotated[Path, typer.Argument(help="A model folder, or a text file with one topic per line.")],
    index: Annotated[Path, typer.Option("--index", "-i", help="A reference index folder (tealeaves index).")],
    measure: Annotated[
        str, typer.Option("--measure", "-m", help="uci, npmi, umass, lcp, cp1, cp2, cv, cp, ca or ds.")
    ] = "npmi",
    window: Annotated[
        str | None, typer.Option(help="Window size, 'document' or 'context:5' [the measure's default].")
    ] = None,
    topn: Annotated[
        list[int] | None, typer.Option("--topn", "-n", help="Top words per topic; repeat to average (-n 5 -n 10).")
    ] = None,
    compat: Annotated[str | None, typer.Option(help="Reproduce another tool: gensim or lau.")] = None,
    on_missing: Annotated[str, typer.Option(help="Topic words missing from the index: error, skip or zero.")] = "error",
    log_base: Annotated[float | None, typer.Option(help="Base of the logarithms [e].")] = None,
    epsilon: Annotated[float | None, typer.Option(help="Added to joint probabilities.")] = None,
    smoothing: Annotated[float | None, typer.Option(help="Added to joint counts.")] = None,
    zero_pair: Annotated[float | None, typer.Option(help="Value of a pair that never co-occurs.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the result to a .json or .csv file.")] = None,
) -> None:
    """Score each topic's coherence against a reference index (per pair, per topic, per model)."""
    from tealeaves.coherence import score
    from tealeaves.coherence.tables import topics_scores_table
    from tealeaves.results import write_result

    check_result_path(out)
    given = {"log_base": log_base, "epsilon": epsilon, "smoothing": smoothing, "zero_pair": zero_pair}
    result = score(
        _load_topics(topics),
        index,
        measure=measure,
        window=int(window) if window is not None and window.isdigit() else window,
        topn=topn or None,
        compat=compat,
        on_missing=on_missing,  # type: ignore[arg-type]
        conventions={name: value for name, value in given.items() if value is not None},
    )
    title = f"{result.measure}, {result.window}, top {'/'.join(map(str, result.topn))}: {topics}"
    console.print(topics_scores_table(title, {result.measure: result}))
    for k, word, why in result.missing:
        err_console.print(f"missing: topic {k} {word!r} ({why}; {result.on_missing})", highlight=False)
    if out is not None:
        write_result(result, out)
        console.print(f"-> {out}")


@app.command()
@reports_errors
def diversity(
    topics: Annotated[Path, typer.Argument(help="A model folder, or a text file with one topic per line.")],
    diversity_topn: Annotated[int, typer.Option(help="Top words for topic diversity (Dieng et al.).")] = 25,
    uniqueness_topn: Annotated[int, typer.Option(help="Top words for topic uniqueness and inverted RBO.")] = 10,
    overlap_topn: Annotated[int, typer.Option(help="Top words two topics may not share (Hoyle et al.).")] = 5,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the result to a .json or .csv file.")] = None,
) -> None:
    """Topic diversity, topic uniqueness, inverted RBO and Hoyle et al.'s redundancy filter."""
    from tealeaves.coherence import diversity as run_diversity
    from tealeaves.coherence.tables import diversity_table
    from tealeaves.results import write_result

    check_result_path(out)
    result = run_diversity(
        _load_topics(topics), diversity_topn=diversity_topn, uniqueness_topn=uniqueness_topn, overlap_topn=overlap_topn
    )
    console.print(diversity_table(f"diversity: {topics}", result))
    for a, b, words in result.shared_top_words[:10]:
        console.print(f"topics {a} and {b} share {' '.join(words)}", highlight=False)
    if len(result.shared_top_words) > 10:
        console.print(f"... and {len(result.shared_top_words) - 10} more pairs (--out lists them all)")
    if out is not None:
        write_result(result, out)
        console.print(f"-> {out}")


# --------------------------------------------------------------------------- intrusion
@app.command()
@reports_errors
def intrusion(
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
) -> None:
    """Automated word intrusion (Lau et al. 2014): WI-Auto-PMI and WI-Auto-NPMI per topic and per model.

    Several models are compared on equal footing: one ranking SVM per fold for the topics of all of them.
    """
    from tealeaves.intrusion import compare_word_intrusion
    from tealeaves.intrusion.tables import models_table as intrusion_models_table
    from tealeaves.intrusion.tables import topics_table as intrusion_topics_table
    from tealeaves.results import write_result

    check_result_path(out)
    names = [path.name if path.is_dir() else path.stem for path in topics]
    if len(set(names)) < len(names):
        names = [str(path) for path in topics]
    with progress_bar(transient=True) as progress:
        comparison = compare_word_intrusion(
            {name: _load_topics(path) for name, path in zip(names, topics)},
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
    for name, result in comparison.results.items():
        settings = result.settings
        title = (
            f"word intrusion: {name}, {settings['draws']} sets per topic, {settings['window']} windows, "
            f"C={settings['c']}, {settings['folds']}-fold cross-validation by topic"
        )
        console.print(intrusion_topics_table(title, result))
        for k, word, why in result.missing:
            err_console.print(f"missing: {name} topic {k} {word!r} ({why}; never occurring)", highlight=False)
    if len(names) > 1:
        console.print(intrusion_models_table("WI-Auto per model, one SVM per fold for all", comparison.results))
    if out is not None:
        write_result(comparison if len(names) > 1 else comparison[names[0]], out)
        console.print(f"-> {out}")


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
