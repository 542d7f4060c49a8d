"""``tealeaves.evaluate(config, out)``: every metric of every model, cached per step, to tidy tables.

The steps:

1. read the configuration, load the corpora and the models (folders, topic lists, imports);
2. index the reference corpus (cached by its fingerprint);
3. run every metric of :data:`~tealeaves.metrics.METRICS` on every model, the models
   spread over processes (or Dask) by :func:`tealeaves.parallel.parallel_map`. Each (model,
   metric) step is cached under ``out/cache/steps`` by a key hashing the model's fingerprint,
   the fingerprints of the corpora it reads, the metric's options, the seed and the tealeaves
   version: a rerun computes only the steps whose inputs changed (a new model, a new metric).
   A pooled metric (WI-Auto: one ranking SVM for all models) is one step over every model it
   applies to, keyed by all their fingerprints; the manifest's ``pooled`` names those models;
4. with a study export, the human scores per topic and their correlations with each
   automated metric (:func:`tealeaves.analysis.analyze_export`), cached the same way;
5. the tables: ``per_topic``, ``per_model`` (value, standard error and 95% interval by each
   metric's plan), ``comparisons`` (every pair, two-sided tests by the plan, Westfall-Young over the report and Holm per metric,
   the minimal detectable difference, equivalence where a margin exists; see
   :mod:`tealeaves.evaluation.stats`), ``topics`` (words and flags for the report),
   ``correlations`` (with human data), each as Parquet and CSV, and the manifest
   (configuration, versions, fingerprints, every step with its time and cache hit).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.artifacts import (
    LOCK,
    MANIFEST,
    arrays_sha256,
    atomic_file,
    folder_lock,
    json_safe,
    new_manifest,
    read_manifest,
    tealeaves_version,
    write_json,
)
from tealeaves.errors import ArtifactError, InputError, TealeavesError
from tealeaves.evaluation.config import EvaluateConfig, ModelSpec, read_config
from tealeaves.evaluation.metrics import outputs
from tealeaves.evaluation.stats import Measurements, comparisons_table, per_model_table, runs_tables
from tealeaves.metrics import METRICS, Inputs, Items, Measured
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Result

if TYPE_CHECKING:
    import pandas as pd

    from tealeaves.corpus import Corpus
    from tealeaves.models import TopicModel, Topics

KIND = "evaluation"
TABLES = ("per_topic", "per_document", "per_model", "comparisons", "topics", "correlations")


@dataclass(frozen=True)
class Evaluation(Result):
    """The tables of an evaluation run (see :mod:`tealeaves.evaluation.run`) and its manifest.

    Attributes
    ----------
    path : Path
        The run folder.
    per_topic : DataFrame
        One row per model, topic and per-topic output (``model``, ``topic``, ``metric``, ``value``).
    per_document : DataFrame
        One row per model, held-out document and per-document output.
    per_model : DataFrame
        One row per model and output: value, standard error and 95% interval by the output's plan.
    comparisons : DataFrame
        One row per pair of models and output: difference, test, report-wide (Westfall-Young) and
        per-metric (Holm) adjusted p-values, the simultaneous interval, the
        better model, the minimal detectable difference, equivalence.
    topics : DataFrame
        Each topic's words and flags (for the report's cards).
    correlations : DataFrame
        Correlations of the automated metrics with human scores (empty without a study).
    manifest : dict
        Configuration, versions, fingerprints, and every step with its time and cache hit.

    Examples
    --------
    Two topic lists scored by NPMI on a reference corpus of eight documents, each holding the
    three words of one of the first model's topics; the second model mixes them.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.evaluation import evaluate
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> words = "tax budget deficit war peace army school teacher student farm crop harvest".split()
    >>> docs = [[3 * k + (i + s) % 3 for i in range(3)] for k in range(4) for s in range(2)]  # 2 per topic
    >>> _ = Corpus.from_documents(docs, Vocabulary(words)).save(folder / "reference")
    >>> _ = (folder / "clean.txt").write_text("tax budget deficit\\nwar peace army\\nschool teacher student\\nfarm crop harvest\\n")
    >>> _ = (folder / "mixed.txt").write_text("tax war school\\nbudget peace farm\\ndeficit army crop\\nteacher student harvest\\n")
    >>> config = {
    ...     "corpora": {"reference": str(folder / "reference")},
    ...     "models": [
    ...         {"name": "clean", "path": str(folder / "clean.txt")},
    ...         {"name": "mixed", "path": str(folder / "mixed.txt")},
    ...     ],
    ...     "metrics": {"npmi": {"topn": 3, "window": "document"}, "cv": False, "wi-auto": False, "diversity": False},
    ... }
    >>> evaluation = evaluate(config, folder / "run")
    >>> from tealeaves.evaluation import Evaluation
    >>> loaded = Evaluation.load(folder / "run")  # the tables, read back from the run folder
    >>> loaded.topics[["model", "words"]].values.tolist()[3:5]
    [['clean', 'farm crop harvest'], ['mixed', 'tax war school']]
    >>> loaded.to_frame()[["model", "metric", "n"]].values.tolist()
    [['clean', 'npmi', 4], ['mixed', 'npmi', 4]]
    >>> print(loaded.to_dict()["verdicts"]["npmi"])
    NPMI (higher is better; ...): clean (this run) better than mixed (this run) by 1.83 [1.3, 2.36] (p = 0.04) (Westfall-Young ...): ...
    >>> tmp.cleanup()

    In a notebook the evaluation displays the report's summary table, verdicts and figures.
    """

    path: Path
    per_topic: pd.DataFrame
    per_document: pd.DataFrame
    per_model: pd.DataFrame
    comparisons: pd.DataFrame
    topics: pd.DataFrame
    correlations: pd.DataFrame
    manifest: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """``per_model``: one row per model and metric."""
        return self.per_model.copy()

    def to_dict(self) -> dict[str, Any]:
        """The path, the per-model and comparison tables as records, the verdicts, what they are about
        (``scope``), and the step counts."""
        from tealeaves.evaluation.stats import verdicts
        from tealeaves.wording import scope

        steps = self.manifest.get("steps", [])
        return json_safe(
            {
                "path": self.path,
                "per_model": self.per_model.to_dict(orient="records"),
                "comparisons": self.comparisons.to_dict(orient="records"),
                "verdicts": verdicts(self.comparisons, self.alpha),
                "scope": scope(self.manifest.get("runs")),
                "steps": {"computed": sum(not s["cached"] for s in steps), "cached": sum(s["cached"] for s in steps)},
            }
        )

    @property
    def alpha(self) -> float:
        """The significance level the comparisons were tested at (the manifest's ``alpha``; ``level``
        in runs written before it was renamed)."""
        return float(self.manifest.get("alpha", self.manifest.get("level", 0.05)))

    def _repr_html_(self) -> str:
        """The notebook display: the report's summary table, verdicts and figures (inline SVG, no
        script; :func:`tealeaves.evaluation.overview.inline`)."""
        from tealeaves.evaluation.overview import inline

        return inline(self)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Evaluation:
        """Read a run folder written by :func:`evaluate`."""
        import pandas as pd

        path = Path(path)
        manifest = read_manifest(path, kind=KIND)
        tables = {}
        for name in TABLES:
            file = path / f"{name}.parquet"
            if not file.is_file():
                raise ArtifactError(f"{path} lacks {file.name}; rerun tealeaves evaluate into it")
            tables[name] = pd.read_parquet(file)
        return cls(path=path, manifest=manifest, **tables)


def evaluate(
    config: str | os.PathLike[str] | dict[str, Any] | EvaluateConfig,
    out: str | os.PathLike[str],
    *,
    workers: int | None = 1,
    scheduler: str | None = None,
    progress: ProgressCallback | None = None,
) -> Evaluation:
    """Evaluate the models of ``config`` with every configured metric; write the tables to ``out``.

    Parameters
    ----------
    config : path to a TOML file, dict or EvaluateConfig
        See :mod:`tealeaves.evaluation.config` and the guide's configuration reference.
    out : path
        The run folder. An earlier run there is replaced, and its step cache (``out/cache``)
        reused: only steps whose inputs changed are computed. Any other existing folder is refused.
    workers : int or None
        Processes the models are spread over (None or 0: one per core).
    scheduler : str, optional
        ``"local"`` or a Dask address (``tcp://host:8786``): run the models on Dask instead.
    progress : callable, optional
        Receives the steps and models as they finish.

    Returns
    -------
    Evaluation

    Examples
    --------
    Two topic lists scored by NPMI on a reference corpus of eight documents, each holding the
    three words of one of the first model's topics; the second model mixes them.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.evaluation import evaluate
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> words = "tax budget deficit war peace army school teacher student farm crop harvest".split()
    >>> docs = [[3 * k + (i + s) % 3 for i in range(3)] for k in range(4) for s in range(2)]  # 2 per topic
    >>> _ = Corpus.from_documents(docs, Vocabulary(words)).save(folder / "reference")
    >>> _ = (folder / "clean.txt").write_text("tax budget deficit\\nwar peace army\\nschool teacher student\\nfarm crop harvest\\n")
    >>> _ = (folder / "mixed.txt").write_text("tax war school\\nbudget peace farm\\ndeficit army crop\\nteacher student harvest\\n")
    >>> config = {
    ...     "corpora": {"reference": str(folder / "reference")},
    ...     "models": [
    ...         {"name": "clean", "path": str(folder / "clean.txt")},
    ...         {"name": "mixed", "path": str(folder / "mixed.txt")},
    ...     ],
    ...     "metrics": {"npmi": {"topn": 3, "window": "document"}, "cv": False, "wi-auto": False, "diversity": False},
    ... }
    >>> evaluation = evaluate(config, folder / "run")
    >>> evaluation.per_topic["value"].round(4).tolist()  # NPMI -1 for pairs never seen together
    [1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -0.3333]
    >>> evaluation.per_model[["model", "mean", "n"]].round(4).values.tolist()
    [['clean', 1.0, 4], ['mixed', -0.8333, 4]]
    >>> row = evaluation.comparisons.iloc[0]
    >>> row["better"], round(float(row["difference"]), 4), round(float(row["p_holm"]), 4), round(float(row["p_report"]), 4)
    ('clean', 1.8333, 0.0286, 0.04)
    >>> sorted(path.name for path in folder.joinpath("run").glob("*.csv"))
    ['comparisons.csv', 'correlations.csv', 'per_document.csv', 'per_model.csv', 'per_topic.csv', 'topics.csv']
    >>> evaluate(config, folder / "run").to_dict()["steps"]  # a rerun reads every step from the cache
    {'computed': 0, 'cached': 2}
    >>> tmp.cleanup()
    """
    started = time.perf_counter()
    cfg = read_config(config)
    out = _claim(Path(out))
    timings: dict[str, float] = {}

    tick = time.perf_counter()
    corpora = {name: _load_corpus(given, name) for name, given in cfg.corpora.items()}
    fingerprints = {name: corpus.fingerprint() for name, corpus in corpora.items()}
    models = {spec.name: _load_model(spec, corpora.get("train")) for spec in cfg.models}
    model_fps = {name: model_fingerprint(model) for name, model in models.items()}
    _distinct_runs(cfg, models, model_fps)
    _heldout_unseen(cfg, models, corpora)
    _one_vocabulary(cfg, models, corpora)
    timings["load"] = time.perf_counter() - tick
    notify(progress, "load corpora and models", 1, 1)
    with folder_lock(out, "evaluate"):  # created once the inputs are known to be readable; one at a time writes it
        cache = out / "cache"
        (cache / "steps").mkdir(parents=True, exist_ok=True)
        heldout_path = _corpus_folder(
            cfg.corpora.get("heldout"), corpora.get("heldout"), fingerprints.get("heldout"), cache
        )

        tick = time.perf_counter()
        index_path = _reference_index(corpora, fingerprints, cfg, cache, progress) if _needs(cfg, "index") else None
        timings["index"] = time.perf_counter() - tick

        plan, skipped = _plan(cfg, models, model_fps, fingerprints, corpora)
        tick = time.perf_counter()
        jobs = [
            _Job({name: models[name] for name in names}, steps, heldout_path, index_path, cfg.seed)
            for names, steps in plan
        ]
        computed = _compute_steps(jobs, cache, workers, scheduler, progress)
        timings["models"] = time.perf_counter() - tick
        step_log, measured, pooled = _read_steps(plan, cache, computed)
        measurements, flags = _collect(measured)
        correlations = None
        if cfg.study is not None:
            tick = time.perf_counter()
            correlations, entry = _study_step(cfg, measurements.items, cache, progress)
            step_log.append(entry)
            timings["study"] = time.perf_counter() - tick

        tick = time.perf_counter()
        per_model, comparisons = _model_tables(cfg, measurements)
        items = measurements.items
        tables = {
            "per_topic": _per_topic_table(items),
            "per_document": _per_document_table(items),
            "per_model": per_model,
            "comparisons": comparisons,
            "topics": _topics_table(models, flags),
            "correlations": correlations if correlations is not None else _empty_correlations(),
        }
        timings["tables"] = time.perf_counter() - tick
        timings["total"] = time.perf_counter() - started
        manifest = new_manifest(
            KIND,
            config={**cfg.source, "metrics": cfg.metrics},
            corpora={name: {"path": _given(cfg.corpora[name]), "fingerprint": fp} for name, fp in fingerprints.items()},
            models={spec.name: _model_entry(spec, models[spec.name], model_fps[spec.name]) for spec in cfg.models},
            seed=cfg.seed,
            n_resamples=cfg.n_resamples,
            alpha=cfg.alpha,
            primary=list(cfg.primary),
            versions=_versions(),
            steps=step_log,
            skipped=skipped,
            pooled=pooled,
            runs=cfg.runs,
            timings={k: round(v, 3) for k, v in timings.items()},
            tables=[f"{name}.{suffix}" for name in TABLES for suffix in ("parquet", "csv")],
        )
        _write_tables(out, tables, manifest)
        notify(progress, "write tables", 1, 1)
        return Evaluation(path=out, manifest=json.loads(json.dumps(manifest)), **tables)


def _compute_steps(
    jobs: list[_Job], cache: Path, workers: int | None, scheduler: str | None, progress: ProgressCallback | None
) -> set[str]:
    """Run the steps no earlier run cached, the models spread over processes or Dask, and cache each
    under ``cache/steps``; returns the keys of the steps computed."""
    from tealeaves.parallel import parallel_map

    todo = [
        replace(job, steps=[s for s in job.steps if not (cache / "steps" / f"{s[2]}.json").is_file()]) for job in jobs
    ]
    todo = [job for job in todo if job.steps]
    for finished in parallel_map(_run_job, todo, workers, scheduler, progress, task="models"):
        for key, payload in finished:
            _write_atomic(cache / "steps" / f"{key}.json", payload)
    return {s[2] for job in todo for s in job.steps}


def _read_steps(
    plan: list[tuple[list[str], list[tuple[str, dict[str, Any], str]]]], cache: Path, computed: set[str]
) -> tuple[list[dict[str, Any]], dict[tuple[str, str], Measured], dict[str, list[str]]]:
    """Every step's measurements from the cache, the manifest's log of the steps, and the models of each
    pooled metric's one step."""
    step_log, measured, pooled = [], {}, {}
    for names, steps in plan:
        for metric, _, key in steps:
            payload = json.loads((cache / "steps" / f"{key}.json").read_text(encoding="utf-8"))
            results = payload["models"]  # one model's step may be cached under another name (the same run twice)
            for name in names:
                measured[name, metric] = _measured(results[name] if len(names) > 1 else next(iter(results.values())))
            entry: dict[str, Any] = {"model": names[0] if len(names) == 1 else "*", "metric": metric, "key": key}
            if len(names) > 1:
                entry["models"] = names
                pooled[metric] = names
            step_log.append({**entry, "cached": key not in computed, "seconds": payload["seconds"]})
    return step_log, measured, pooled


def _model_tables(cfg: EvaluateConfig, measurements: Measurements) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``per_model`` and ``comparisons`` by each output's plan; with runs, the models' rows and tests over
    their runs replace the runs' own tests."""
    per_model, boots = per_model_table(measurements, cfg.n_resamples, cfg.seed)
    names = [spec.name for spec in cfg.models]
    if not cfg.runs:
        return per_model, comparisons_table(measurements, boots, names, cfg.alpha, cfg.seed, list(cfg.primary))
    import pandas as pd

    model_rows, comparisons = runs_tables(measurements, per_model, cfg.runs, cfg.alpha, list(cfg.primary), cfg.seed)
    return pd.concat([per_model, model_rows], ignore_index=True), comparisons


@dataclass(frozen=True)
class _Job:
    """Steps to compute for a worker process: one model's, or a pooled metric's over several models."""

    models: dict[str, Any]
    steps: list[tuple[str, dict[str, Any], str]]
    heldout: Path | None
    index: Path | None
    seed: int


def _run_job(job: _Job) -> list[tuple[str, dict[str, Any]]]:
    """Compute a job's steps; returns (cache key, JSON payload) pairs, the payload per model."""
    from tealeaves.coherence import RefIndex
    from tealeaves.corpus import Corpus

    inputs = Inputs(
        heldout=Corpus.load(job.heldout) if job.heldout is not None else None,
        index=RefIndex.load(job.index) if job.index is not None else None,
    )
    done = []
    for metric, options, key in job.steps:
        tick = time.perf_counter()
        metric_entry = METRICS[metric]
        try:
            results: dict[str, Measured]
            if metric_entry.pooled:
                results = metric_entry.compute(job.models, inputs, job.seed, **options)
            else:
                [(name, model)] = job.models.items()
                results = {name: metric_entry.compute(model, inputs, job.seed, **options)}
        except TealeavesError as exc:  # say which step failed, keeping the error's class
            which = ", ".join(repr(name) for name in job.models)
            raise type(exc)(f"model {which}, metric {metric!r}: {_as_metric_option(str(exc), metric)}") from exc
        seconds = round(time.perf_counter() - tick, 4)
        done.append((key, {"models": {n: _payload(r) for n, r in results.items()}, "seconds": seconds}))
    return done


def _as_metric_option(message: str, metric: str) -> str:
    """A metric's hint ``on_missing="skip"`` as the configuration spells it: an option in the metric's table."""
    return re.sub(
        r'\bon_missing=("?)(\w+)\1',
        lambda found: (
            f'on_missing = "{found[2]}" in its options ([metrics] {metric} = {{ on_missing = "{found[2]}" }})'
        ),
        message,
    )


def model_fingerprint(model: TopicModel | Topics) -> str:
    """SHA-256 of what the metrics read of a model: Φ, the prior, θ, the extra arrays, kind, params
    and vocabulary of a TopicModel, or the words of a topic list.

    It keys the cached steps of :func:`evaluate`: a model whose fingerprint is unchanged is not
    scored again.

    Parameters
    ----------
    model : TopicModel or Topics
        The model, or its topic list.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> from tealeaves.evaluation import model_fingerprint
    >>> from tealeaves.models import as_topics
    >>> fingerprint = model_fingerprint(as_topics([["tax", "budget"], ["war", "peace"]]))
    >>> len(fingerprint), fingerprint == model_fingerprint(as_topics([["tax", "budget"], ["war", "peace"]]))
    (64, True)
    >>> fingerprint == model_fingerprint(as_topics([["budget", "tax"], ["war", "peace"]]))  # the words' order counts
    False
    """
    from tealeaves.models import TopicModel

    if not isinstance(model, TopicModel):
        return arrays_sha256(texts=("topics", *(" ".join(words) for words in model.words)))
    alpha = model.alpha if model.alpha is not None else np.empty(0)
    theta = model.theta if model.theta is not None else np.empty(0)
    extra = [model.extra[name] for name in sorted(model.extra)]
    params = json.dumps(json_safe(model.params), sort_keys=True)
    texts = (model.kind, params, *sorted(model.extra), *model.vocab.words)
    return arrays_sha256(model.phi, alpha, theta, *extra, texts=texts)


def _distinct_runs(cfg: EvaluateConfig, models: dict[str, Any], model_fps: dict[str, str]) -> None:
    """Refuse a model whose runs hold one trained model twice: the runs are the units of its interval and
    tests, and a run given twice shows no run-to-run variation where there is some, so its interval would
    be too narrow and its tests too bold. A trained model is known by its fingerprint (Φ, parameters and
    seed: the same folder, a copy of it, the same object, two trainings with one seed); a topic list by its
    file or object, since two runs may well give the same top words."""
    from tealeaves.models import TopicModel

    specs = {spec.name: spec for spec in cfg.models}

    def identity(name: str) -> tuple[str, str]:
        spec = specs[name]
        if isinstance(models[name], TopicModel):
            return "the same topics, parameters and seed", model_fps[name]
        if spec.path is not None:
            return "the same file", str(spec.path.resolve())
        return "the same object", str(id(spec.model))

    for model, names in cfg.runs.items():
        first: dict[tuple[str, str], str] = {}
        for name in names:
            seen = first.setdefault(identity(name), name)
            if seen != name:
                given = [_given(specs[n].path if specs[n].path is not None else specs[n].model) for n in (seen, name)]
                raise InputError(
                    f"model {model!r}: runs {seen} ({given[0]}) and {name} ({given[1]}) are the same trained model "
                    f"({identity(name)[0]}); runs are the units of its tests, so give each run a model trained on "
                    "its own (another seed), or list it once"
                )


def _heldout_unseen(cfg: EvaluateConfig, models: dict[str, Any], corpora: dict[str, Any]) -> None:
    """Refuse a held-out corpus that holds documents a model was trained on, at least
    :data:`~tealeaves.models.topic_model.SEEN_LIMIT` of them (the training corpus itself, or the held-out
    split of another ``prepare`` run): its held-out and predictive likelihood would measure the fit to
    documents it has seen, higher than on documents it has not, and every verdict on them would favour the
    model that fits its own training documents best."""
    from tealeaves.models.topic_model import training_share

    heldout = corpora.get("heldout")
    for name, model in models.items():
        seen = training_share(model, heldout)
        if seen is not None:
            raise InputError(
                f"{seen} documents of the held-out corpus {_given(cfg.corpora['heldout'])} are documents model "
                f"{name!r} was trained on: its held-out likelihood would measure the fit to documents it has seen; "
                "give the held-out split written beside its training split (tealeaves prepare --heldout 0.2 writes "
                "both; the held-out split of another prepare run, with another seed or share, holds training "
                "documents)"
            )


WORD_PROBABILITY_METRICS = ("likelihood", "predictive")
"""The metrics of the probabilities models give the held-out words, comparable over one vocabulary only."""


def _one_vocabulary(cfg: EvaluateConfig, models: dict[str, Any], corpora: dict[str, Any]) -> None:
    """Refuse the held-out likelihood and the predictive metrics of models over different vocabularies: a
    model spreads each token's probability over its own words (fewer words, higher probabilities; the
    predictive rank counts them), and a held-out word one model lacks is dropped for it alone, so neither the
    values nor the verdicts would compare like with like (Wallach et al. 2009 and Chang et al. 2009 score
    models of one vocabulary)."""
    from tealeaves.models import TopicModel

    metrics = [m for m in WORD_PROBABILITY_METRICS if m in cfg.metrics]
    vocabularies = {name: m.vocab for name, m in models.items() if isinstance(m, TopicModel)}
    if not metrics or "heldout" not in corpora or len(set(vocabularies.values())) < 2:
        return
    (first, words), *others = vocabularies.items()
    other, differ = next((name, vocab) for name, vocab in others if vocab != words)
    apart = len(set(words.words) ^ set(differ.words))
    raise InputError(
        f"{' and '.join(metrics)} compare{'' if len(metrics) > 1 else 's'} the probabilities models give the "
        f"held-out words, but models {first!r} "
        f"and {other!r} have different vocabularies ({len(words):,} and {len(differ):,} words, {apart:,} in one "
        "only); train every model on one prepared corpus, set corpora.train to align imported models to its "
        f"words, or turn {'them' if len(metrics) > 1 else 'it'} off ({', '.join(f'{m} = false' for m in metrics)} "
        "in [metrics])"
    )


def _step_key(**parts: Any) -> str:
    text = json.dumps(json_safe({**parts, "tealeaves_version": _code_version()}), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@functools.cache
def _code_version() -> str:
    """The tealeaves version, and for a development version (``.dev``, ``+local``) the SHA-256 of
    the package's Python sources as well: a checkout whose code changed gets new step keys."""
    version = tealeaves_version()
    if ".dev" not in version and "+" not in version:
        return version
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for source in sorted(package.rglob("*.py")):
        digest.update(source.relative_to(package).as_posix().encode() + b"\0" + source.read_bytes())
    return f"{version} {digest.hexdigest()[:16]}"


def _plan(
    cfg: EvaluateConfig,
    models: dict[str, Any],
    model_fps: dict[str, str],
    fingerprints: dict[str, str],
    corpora: dict[str, Corpus],
) -> tuple[list[tuple[list[str], list[tuple[str, dict[str, Any], str]]]], list[dict[str, str]]]:
    """The steps as (models, [(metric, options, cache key)]): each model's own, then one step per
    pooled metric over every model it applies to; and the (model, metric, reason) skipped."""
    corpus_of = {"heldout": "heldout", "index": "reference"}
    plan: list[tuple[list[str], list[tuple[str, dict[str, Any], str]]]] = []
    skipped: list[dict[str, str]] = []
    pooled: dict[str, tuple[dict[str, Any], dict[str, str], list[str]]] = {}
    for spec in cfg.models:
        steps = []
        for metric, options in cfg.metrics.items():
            entry = METRICS[metric]
            absent = [need for need in entry.needs if corpus_of[need] not in corpora]
            reason = entry.applies(models[spec.name]) or (
                f"no {', '.join(corpus_of[n] for n in absent)} corpus in [corpora]" if absent else None
            )
            if reason:
                skipped.append({"model": spec.name, "metric": metric, "reason": reason})
                continue
            used = {corpus_of[n]: fingerprints[corpus_of[n]] for n in entry.needs}
            if entry.pooled:
                pooled.setdefault(metric, (options, used, []))[2].append(spec.name)
                continue
            key = _step_key(metric=metric, options=options, model=model_fps[spec.name], corpora=used, seed=cfg.seed)
            steps.append((metric, options, key))
        plan.append(([spec.name], steps))
    for metric, (options, used, names) in pooled.items():
        fps = [[name, model_fps[name]] for name in names]  # names and order: the pooled folds depend on both
        key = _step_key(metric=metric, options=options, models=fps, corpora=used, seed=cfg.seed)
        plan.append((names, [(metric, options, key)]))
    return plan, skipped


def _needs(cfg: EvaluateConfig, need: str) -> bool:
    return any(need in METRICS[m].needs for m in cfg.metrics)


def _reference_index(
    corpora: dict[str, Corpus], fingerprints: dict[str, str], cfg: EvaluateConfig, cache: Path, progress: Any
) -> Path | None:
    """The reference corpus' index, built once per corpus fingerprint under ``cache``."""
    from tealeaves.coherence import RefIndex

    if "reference" not in corpora:
        return None
    path = cache / f"index-{fingerprints['reference'][:16]}"
    if not (path / MANIFEST).is_file():
        RefIndex.build(corpora["reference"], out=path, force=True, progress=progress)
    notify(progress, "reference index", 1, 1)
    return path


def _study_step(
    cfg: EvaluateConfig, items: dict[tuple[str, str], Items], cache: Path, progress: Any
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Human scores per topic (per document for topic log odds) into ``items``, where they are
    tested like any topic metric, and their correlations (cached by the export's hash and the metrics)."""
    import pandas as pd

    from tealeaves.analysis import analyze_export, read_export
    from tealeaves.artifacts import file_sha256
    from tealeaves.study.tasks import task_named

    assert cfg.study is not None
    export = Path(cfg.study["export"])
    if not export.is_file():
        raise InputError(f"the study export {export} does not exist; export it with `tealeaves study export`")
    rows: dict[tuple[str, int], dict[str, float]] = {}
    for (model, metric), values in items.items():
        if outputs()[metric].unit == "topic":
            for topic, value in zip(values.ids, values.values / values.weights):
                rows.setdefault((model, int(topic)), {})[metric] = value
    wide = pd.DataFrame([{"model": m, "topic": t, **v} for (m, t), v in rows.items()])
    settings = {"familiar_only": cfg.study["familiar_only"], "n_resamples": cfg.n_resamples, "seed": cfg.seed}
    key = _step_key(step="study", export=file_sha256(export), metrics=wide.to_csv(index=False), **settings)
    file = cache / "steps" / f"{key}.json"
    cached = file.is_file()
    tick = time.perf_counter()
    if not cached:
        responses = read_export(export)
        studied = set(responses.loc[~responses["is_check"].astype(bool), "model"].astype(str))
        unknown = sorted(studied - {spec.name for spec in cfg.models})
        if unknown:
            raise InputError(
                f"the study export names model(s) {', '.join(unknown)} that [[models]] lacks; "
                "name the models as the study labelled them"
            )
        analysis = analyze_export(
            responses, wide, familiar_only=cfg.study["familiar_only"], n_resamples=cfg.n_resamples, seed=cfg.seed
        )
        payload = {
            "scores": analysis.scores.to_dict(orient="records"),
            "correlations": analysis.correlations.to_dict(orient="records"),
            "seconds": time.perf_counter() - tick,
        }
        _write_atomic(file, payload)
    payload = json.loads(file.read_text(encoding="utf-8"))
    scores = pd.DataFrame(payload["scores"])
    for (task, model), part in scores.groupby(["task", "model"]):
        spec = task_named(task)  # its measure, in snake case, names the output (HUMAN_OUTPUTS)
        ids = part["item"].to_numpy() if spec.unit == "topic" else np.arange(len(part))
        values = part["score"].to_numpy(dtype=np.float64)
        name = spec.measure.replace(" ", "_")
        items[str(model), name] = Items(values, np.ones(len(values)), np.asarray(ids, dtype=np.int64))
    correlations = pd.DataFrame(payload["correlations"])
    notify(progress, "human scores", 1, 1)
    entry = {"model": "*", "metric": "study", "key": key, "cached": cached, "seconds": payload["seconds"]}
    return correlations, entry


def _collect(measured: dict[tuple[str, str], Measured]) -> tuple[Measurements, dict[tuple[str, int], list[str]]]:
    measurements = Measurements({}, {}, {})
    flags: dict[tuple[str, int], list[str]] = {}
    for (model, _), result in measured.items():
        for name, values in result.items.items():
            measurements.items[model, name] = values
        for name, value in result.scalars.items():
            measurements.scalars[model, name] = value
        for name, loo in result.jackknife.items():
            measurements.jackknife[model, name] = loo
        if result.topics:
            measurements.topics[model] = result.topics
        for topic, notes in result.flags.items():
            flags.setdefault((model, topic), []).extend(notes)
    return measurements, flags


def _per_topic_table(items: dict[tuple[str, str], Items]) -> pd.DataFrame:
    import pandas as pd

    frames = [
        pd.DataFrame({"model": model, "topic": values.ids.astype(np.int64), "metric": metric, "value": values.values})
        for (model, metric), values in items.items()
        if outputs()[metric].unit == "topic"
    ]
    return (
        pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["model", "topic", "metric", "value"])
    )


def _per_document_table(items: dict[tuple[str, str], Items]) -> pd.DataFrame:
    """Outputs per document: the value over the weight (log likelihood per token) and the weight."""
    import pandas as pd

    columns = ["model", "document", "metric", "value", "weight"]
    frames = [
        pd.DataFrame(
            {
                "model": model,
                "document": values.ids.astype(np.int64),
                "metric": metric,
                "value": values.values / np.where(values.weights > 0, values.weights, 1.0),
                "weight": values.weights,
            }
        )
        for (model, metric), values in items.items()
        if outputs()[metric].unit == "document"
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def _topics_table(models: dict[str, Any], flags: dict[tuple[str, int], list[str]]) -> pd.DataFrame:
    """Each topic's top ten words (all of a shorter topic list's) and its flags."""
    import pandas as pd

    from tealeaves.models import TopicModel

    rows = []
    for name, model in models.items():
        topics = model.top_words(10) if isinstance(model, TopicModel) else model.words
        for k, words in enumerate(topics):
            rows.append(
                {"model": name, "topic": k, "words": " ".join(words[:10]), "flags": "; ".join(flags.get((name, k), []))}
            )
    return pd.DataFrame(rows)


def _empty_correlations() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(columns=["task", "metric", "spearman", "ci_low", "ci_high", "n_topics"])


def _payload(result: Measured) -> dict[str, Any]:
    return {
        "items": {
            name: {"values": v.values.tolist(), "weights": v.weights.tolist(), "ids": v.ids.tolist()}
            for name, v in result.items.items()
        },
        "scalars": result.scalars,
        "jackknife": {name: loo.tolist() for name, loo in result.jackknife.items()},
        "topics": result.topics,
        "flags": {str(k): notes for k, notes in result.flags.items()},
    }


def _measured(payload: dict[str, Any]) -> Measured:
    items = {
        name: Items(
            np.asarray(v["values"], dtype=np.float64),
            np.asarray(v["weights"], dtype=np.float64),
            np.asarray(v["ids"], dtype=np.int64),
        )
        for name, v in payload["items"].items()
    }
    jackknife = {name: np.asarray(loo, dtype=np.float64) for name, loo in payload["jackknife"].items()}
    flags = {int(k): list(v) for k, v in payload["flags"].items()}
    return Measured(items, dict(payload["scalars"]), flags, jackknife, dict(payload["topics"]))


def _write_atomic(path: Path, payload: dict[str, Any]) -> None:
    with atomic_file(path) as tmp:
        write_json(tmp, payload)


def _write_tables(out: Path, tables: dict[str, pd.DataFrame], manifest: dict[str, Any]) -> None:
    """Write every table to a temporary folder, then move them into ``out``, the manifest last.

    The old manifest goes first, so an interruption leaves a folder that reads as incomplete
    (no manifest) rather than old tables mixed with new ones under an old manifest.
    """
    tmp = Path(tempfile.mkdtemp(prefix=".tables-", dir=out))
    try:
        for name, frame in tables.items():
            frame.to_parquet(tmp / f"{name}.parquet", index=False)
            frame.to_csv(tmp / f"{name}.csv", index=False)
        write_json(tmp / MANIFEST, manifest)
        (out / MANIFEST).unlink(missing_ok=True)
        for file in sorted(tmp.iterdir(), key=lambda p: p.name == MANIFEST):
            os.replace(file, out / file.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _claim(out: Path) -> Path:
    """Check that ``out`` may be a run folder: new, empty, an earlier run, or one interrupted (only its cache)."""
    if out.exists():
        if not out.is_dir():
            raise ArtifactError(f"{out} exists and is not a folder; choose another out=<folder>")
        if (out / MANIFEST).is_file():
            try:
                read_manifest(out, kind=KIND)
            except TealeavesError:
                raise ArtifactError(f"{out} holds another tealeaves artifact; choose another out=<folder>") from None
        elif any(p.name not in ("cache", LOCK) and not p.name.startswith(".tables-") for p in out.iterdir()):
            raise ArtifactError(f"{out} exists and is not a tealeaves evaluation run; choose another out=<folder>")
    return out


def _load_corpus(given: Any, role: str) -> Corpus:
    """A corpus folder, or a corpus or texts a dict configuration gave (:func:`tealeaves.corpus.as_corpus`)."""
    from tealeaves.corpus import as_corpus

    try:
        return as_corpus(given)
    except TealeavesError as exc:
        raise type(exc)(f"corpora.{role}: {exc}") from exc


def _corpus_folder(given: Any, corpus: Corpus | None, fingerprint: str | None, cache: Path) -> Path | None:
    """The folder the worker processes load a corpus from: its own, or for a corpus given as an object, a copy in
    the run's cache (by fingerprint)."""
    if corpus is None or isinstance(given, (str, os.PathLike)):
        return given
    folder = cache / f"corpus-{fingerprint[:16] if fingerprint else 'unknown'}"
    if not (folder / MANIFEST).is_file():
        corpus.save(folder, force=True)
    return folder


def _given(value: Any) -> Any:
    """A corpus or model as the manifest records it: its path, or what object it was."""
    return value if isinstance(value, (str, os.PathLike)) or value is None else f"<{type(value).__name__} object>"


def _load_model(spec: ModelSpec, train: Corpus | None) -> TopicModel | Topics:
    from tealeaves.models import TopicModel, Topics, as_model, import_model

    try:
        if spec.path is None:  # the model itself, given in a dict configuration
            if spec.format is not None:
                return import_model(spec.format, spec.model, vocab_from=train, **spec.options)
            return as_model(spec.model, vocab_from=train, **spec.options)
        if not spec.path.exists():
            raise InputError(f"{spec.path} does not exist")
        if spec.format is not None:
            return import_model(spec.format, spec.path, vocab_from=train, **spec.options)
        return TopicModel.load(spec.path) if spec.path.is_dir() else Topics.load(spec.path)
    except TealeavesError as exc:
        raise type(exc)(f"model {spec.name!r}: {exc}") from exc


def _model_entry(spec: ModelSpec, model: Any, fingerprint: str) -> dict[str, Any]:
    from tealeaves.models import TopicModel

    kind = model.kind if isinstance(model, TopicModel) else "topics"
    return {
        "path": _given(spec.path if spec.path is not None else spec.model),
        "format": spec.format,
        "kind": kind,
        "topics": len(model.phi if isinstance(model, TopicModel) else model.words),
        "fingerprint": fingerprint,
        "run_of": spec.run_of,
    }


def _versions() -> dict[str, str]:
    import platform
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for package in ("tealeaves", "numpy", "scipy", "numba", "pandas", "pyarrow", "statsmodels"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:  # pragma: no cover - a source checkout without metadata
            found[package] = "unknown"
    return found
