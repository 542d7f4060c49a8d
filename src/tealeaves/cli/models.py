"""Model commands: ``train`` a topic model, print its ``topics``, ``import`` one trained elsewhere, score its
topics' ``significance`` and ``classify`` documents by their θ."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tealeaves.cli.common import JsonOption, app, check_result_path, parse_param, reports_errors, show
from tealeaves.console import mapping_table, progress_bar, topics_table
from tealeaves.errors import InputError

if TYPE_CHECKING:
    from rich.table import Table

    from tealeaves.models import SignificanceResult
    from tealeaves.models.hyperparameters import Rule


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
    from tealeaves.models import trainer_params

    texts = [name for name, default in trainer_params(model).items() if isinstance(default, str)]
    params = parse_param(param or [], texts)
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
def trainers(
    model: Annotated[
        str | None, typer.Argument(help="A trainer, to list its hyperparameters (all trainers if omitted).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List the trainers, or one trainer's hyperparameters: each one's default and the values it accepts.

    These are the NAME=VALUE that `tealeaves train -p` and a sweep's [space.MODEL] take.
    """
    from rich.table import Table

    from tealeaves.models import TRAINERS, trainer_params, trainer_rules

    if model is None:
        listing = {name: {"description": spec.description, "extra": spec.extra} for name, spec in TRAINERS.items()}
        table = Table(title="trainers (tealeaves trainers NAME lists one's hyperparameters)", title_justify="left")
        for column in ("trainer", "extra", "description"):
            table.add_column(column)
        for name, row in listing.items():
            table.add_row(name, row["extra"] or "", row["description"])
        show(as_json, lambda: listing, table)
        return
    defaults, rules = trainer_params(model), trainer_rules(model)  # an unknown trainer: refused by name
    accepts = {name: _accepts(name, default, rules.get(name)) for name, default in defaults.items()}
    topics = f"--k: {rules['k'].describe('k')}" if "k" in rules else None  # ctm and the neural trainers need 2
    table = Table(title=f"{model}: {TRAINERS[model].description}", title_justify="left", caption=topics)
    for column in ("parameter", "default", "accepts"):
        table.add_column(column)
    for name, default in defaults.items():
        table.add_row(name, repr(default), accepts[name])
    show(
        as_json,
        lambda: {name: {"default": default, "accepts": accepts[name]} for name, default in defaults.items()},
        table,
    )


def _accepts(name: str, default: Any, rule: Rule | None) -> str:
    """The values a hyperparameter accepts, in words: its rule, else what its default's type allows."""
    if rule is not None:
        return rule.describe(name)
    if isinstance(default, bool):
        return "true or false"
    return "see the trainer's guide"


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


OutOption = Annotated[Path | None, typer.Option("--out", "-o", help="Write the result to a .json or .csv file.")]


@app.command()
@reports_errors
def significance(
    model: Annotated[Path, typer.Argument(help="A model folder.")],
    corpus: Annotated[
        Path | None,
        typer.Option(help="Infer θ for this corpus' documents [the model's θ of its training documents]."),
    ] = None,
    epsilon: Annotated[
        float | None, typer.Option(help="Added to every probability before the divergence [OCTIS's 1e-5]; 0: exact.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the inference of θ (with --corpus).")] = 0,
    out: OutOption = None,
    as_json: JsonOption = False,
) -> None:
    """Topic significance (AlSumait et al. 2009, as OCTIS): each topic's KL divergence, in nats, from the
    uniform distribution over words, the vacuous one (the corpus' word distribution) and the uniform one
    over documents (the background). Larger is more significant."""
    from tealeaves.corpus import Corpus
    from tealeaves.display import number
    from tealeaves.models import TopicModel, topic_significance
    from tealeaves.results import write_result

    check_result_path(out)
    loaded = TopicModel.load(model)
    theta = loaded.infer(Corpus.load(corpus), seed=seed) if corpus is not None else None
    result = topic_significance(loaded, theta, **({"epsilon": epsilon} if epsilon is not None else {}))
    if out is not None:
        write_result(result, out)
    documents = f"θ of {corpus}" if corpus is not None else "θ of its training documents"
    title = f"topic significance: KL divergence (nats) from each junk distribution, ε = {number(result.epsilon)}, "
    show(
        as_json,
        result.to_dict,
        _significance_table(f"{title}{documents}: {model}", result),
        *([f"-> {out}"] if out is not None else []),
    )


def _significance_table(title: str, result: SignificanceResult) -> Table:
    """One row per topic: its three divergences and its words; then their means over topics."""
    from rich.table import Table

    from tealeaves.display import number
    from tealeaves.models.significance import JUNK

    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    for name in ("W-Uniform", "W-Vacuous", "D-BGround"):
        table.add_column(name, justify="right")
    table.add_column("top words")
    for k, words in enumerate(result.topics):
        table.add_row(str(k), *(number(getattr(result, name)[k]) for name in JUNK), " ".join(words))
    table.add_section()
    table.add_row("mean", *(number(result.model_mean[name]) for name in JUNK), "")
    return table


@app.command()
@reports_errors
def classify(
    model: Annotated[Path, typer.Argument(help="A model folder.")],
    corpus: Annotated[
        Path,
        typer.Argument(help="The documents the SVM learns from: the model's training corpus (any one with --infer)."),
    ],
    label: Annotated[str, typer.Option("--label", "-l", help="The metadata field to predict (e.g. group).")],
    heldout: Annotated[
        Path | None,
        typer.Option(help="Score these documents, their θ inferred (OCTIS's protocol) [cross-validation over CORPUS]."),
    ] = None,
    infer: Annotated[bool, typer.Option(help="Infer θ for CORPUS instead of using the model's own.")] = False,
    folds: Annotated[int, typer.Option(help="Stratified cross-validation folds (without --heldout).")] = 5,
    average: Annotated[str, typer.Option(help="F1, precision, recall: macro, micro (OCTIS's) or weighted.")] = "macro",
    scale: Annotated[bool, typer.Option(help="Standardise θ (the training documents' mean and sd), as OCTIS.")] = True,
    seed: Annotated[int, typer.Option(help="Seed of the folds and the inference of θ.")] = 0,
    out: OutOption = None,
    as_json: JsonOption = False,
) -> None:
    """Document classification on θ (as OCTIS): a linear SVM predicts each document's label from its topic
    proportions; accuracy, F1, precision and recall over the documents, each predicted by an SVM that
    never saw it. Needs pip install 'tealeaves[classification]'."""
    from tealeaves.extras import require

    require("classification", what="document classification on θ")
    check_result_path(out)
    from tealeaves.corpus import Corpus
    from tealeaves.models import TopicModel
    from tealeaves.models import classify as run_classify
    from tealeaves.results import write_result

    result = run_classify(
        TopicModel.load(model),
        Corpus.load(corpus),
        label,
        heldout=Corpus.load(heldout) if heldout is not None else None,
        infer=infer,
        folds=folds,
        average=average,
        scale=scale,
        seed=seed,
    )
    if out is not None:
        write_result(result, out)
    how = (
        f"{folds}-fold cross-validation over {corpus}"
        if heldout is None
        else f"trained on {corpus}, scored on {heldout}"
    )
    show(
        as_json,
        result.to_dict,
        mapping_table(f"{label} predicted from θ by a linear SVM, {how}: {model}", result.summary()),
        *([f"-> {out}"] if out is not None else []),
    )
