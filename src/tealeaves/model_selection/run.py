"""``sweep``: Hoyle et al.'s (2021, §4.2 and Appendix A.3) random hyperparameter search.

For each model type, ``settings`` settings are drawn without replacement from the grid of
Hoyle et al.'s Table 8 ranges and run seeds, less the settings that break the authors'
constraints (:mod:`tealeaves.model_selection.space`); each is trained with :func:`tealeaves.train` and
scored on its top-10 words as the authors scored it, by the metrics ``npmi``, ``cv`` and
``diversity`` of :data:`tealeaves.metrics.METRICS` (the registry ``evaluate`` and ``validate``
use):

- NPMI over 10-token sliding windows of a reference corpus, the score Hoyle et al. select by,
  and C_V (110-token windows), both by :func:`tealeaves.coherence.score` with gensim's counts
  (``compat="gensim"``) by default, as the authors computed them with gensim's
  ``CoherenceModel``;
- Hoyle et al.'s redundancy filters as their notebook applies them
  (:func:`tealeaves.coherence.diversity`): (a) no two topics with the same top-5 word set,
  (b) topic uniqueness over the top 5 words above 0.7, for ETM only by default;
  topic uniqueness over the top 10 and topic diversity are recorded beside them.

The selected model of each type is the one with the highest NPMI among the trials that pass
the filters (:func:`select_best`). Trials run on Dask (a ``LocalCluster`` by default, or a
cluster's ``tcp://`` address) through :func:`tealeaves.parallel.parallel_completed`: a trial
that raises is retried once and then recorded with its error; it never stops the sweep, which then
says what failed (:class:`FailedTrialsWarning`), or raises where every trial failed, as scikit-learn's
``GridSearchCV`` does when all its fits fail.

The sweep folder::

    OUT/manifest.json           kind "sweep": the configuration, every trial's drawn and trained
                                parameters, counts, selection
    OUT/trials/MODEL-NNNN.json  one record per finished trial, written as it finishes
    OUT/results.parquet, .csv   one row per trial (:meth:`SweepResult.to_frame`)
    OUT/models/MODEL/           the selected model of each type, a TopicModel folder

Every file is written atomically. The settings of a model are the first ``settings`` of one
random order of its grid, and a trial's training seed is derived from its replicate
(``rng.family_seed(seed, "sweep/MODEL/replicate/R")``), so the same configuration and seed give
the same trials in any order, on any cluster, and a sweep that is interrupted and started again
with the same ``OUT`` trains only the trials without a record (raising ``settings`` adds
trials; the first ones stay as they were).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import shutil
import time
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tealeaves.artifacts import (
    LOCK,
    MANIFEST,
    atomic_file,
    folder_lock,
    json_safe,
    new_manifest,
    read_manifest,
    write_json,
)
from tealeaves.errors import ArtifactError, EmptyResultError, InputError
from tealeaves.model_selection.config import SweepConfig
from tealeaves.model_selection.packing import pack_trials
from tealeaves.model_selection.space import cap_steps, draw_settings
from tealeaves.models.topic_model import TopicModel
from tealeaves.models.training import TRAINERS, TrainerSpec, train, trainer_params
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Result, write_result
from tealeaves.rng import family_seed

if TYPE_CHECKING:
    import pandas as pd

    from tealeaves.parallel import Outcome

RETRIES = 1  # a failing trial is tried once more (Hoyle et al.'s budget counts settings, not attempts)
NPMI_WINDOW = 10  # "a ten-word window over the top ten topic words" (Hoyle et al. 2021, §4.2)
TOPN = 10


@dataclass(frozen=True)
class Trial:
    """One setting of one model, as a worker trains and scores it.

    Attributes
    ----------
    trial : str
        Its name, ``MODEL-NNNN``.
    model : str
        The trainer.
    index : int
        Its number among the model's settings.
    replicate : int
        Which run seed of the grid.
    seed : int
        The training seed, derived from the sweep's seed and the replicate.
    drawn, params : dict
        The setting as drawn, and as trained (after the step cap).
    key : str
        A hash of what determines the result (model, k, seed, parameters, the corpus' and the
        index's fingerprints, the scoring options).
    k : int
        Topics.
    corpus, reference : str
        The corpus and reference index folders.
    score : dict
        The scoring options.
    uniqueness_filter : bool
        Whether filter (b) applies to this model.
    trainer : TrainerSpec
        The trainer's registry entry (it travels to the workers).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.model_selection import SweepConfig
    >>> docs = [
    ...     "tax budget debt deficit tax budget", "budget income spending tax deficit",
    ...     "debt deficit spending income budget", "war army peace troops war army",
    ...     "army navy enemy troops peace", "troops enemy navy war peace army",
    ... ]
    >>> vocab = Vocabulary(sorted({word for doc in docs for word in doc.split()}))
    >>> corpus = Corpus.from_documents([vocab.ids(doc.split()) for doc in docs], vocab)
    >>> folder = tempfile.TemporaryDirectory()
    >>> corpus_path = corpus.save(Path(folder.name) / "corpus")
    >>> index_path = RefIndex.build(corpus).save(Path(folder.name) / "index")  # the reference corpus
    >>> config = SweepConfig(
    ...     corpus_path, index_path, models=("lda-gibbs",), settings=3, replicates=1, k=2,
    ...     max_steps={"lda-gibbs": 50},  # 50 Gibbs sweeps instead of the 1,000 or 2,000 drawn
    ... )
    >>> from tealeaves.model_selection import plan
    >>> trial = plan(config)[0]
    >>> trial.trial, trial.drawn["iterations"], trial.params["iterations"]
    ('lda-gibbs-0000', 1000, 50)
    >>> folder.cleanup()
    """

    trial: str
    model: str
    index: int
    replicate: int
    seed: int
    drawn: dict[str, Any]
    params: dict[str, Any]
    key: str
    k: int
    corpus: str
    reference: str
    score: dict[str, Any]
    uniqueness_filter: bool
    trainer: TrainerSpec


def plan(config: SweepConfig) -> list[Trial]:
    """Every trial of the sweep, model by model, with its setting, training seed and key.

    The settings come from :func:`~tealeaves.model_selection.draw_settings` (the grid less the
    model's constraints, ``config.replicates`` run seeds), capped by ``config.max_steps``
    (:func:`~tealeaves.model_selection.cap_steps`). The key is a hash of what determines the
    trial's result: the model, k, seed, parameters as trained, the fingerprints of the corpus
    and the reference index, and the scoring options.

    Parameters
    ----------
    config : SweepConfig
        The sweep's configuration (its corpus and index are read for their fingerprints).

    Returns
    -------
    list of Trial

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.model_selection import SweepConfig
    >>> docs = [
    ...     "tax budget debt deficit tax budget", "budget income spending tax deficit",
    ...     "debt deficit spending income budget", "war army peace troops war army",
    ...     "army navy enemy troops peace", "troops enemy navy war peace army",
    ... ]
    >>> vocab = Vocabulary(sorted({word for doc in docs for word in doc.split()}))
    >>> corpus = Corpus.from_documents([vocab.ids(doc.split()) for doc in docs], vocab)
    >>> folder = tempfile.TemporaryDirectory()
    >>> corpus_path = corpus.save(Path(folder.name) / "corpus")
    >>> index_path = RefIndex.build(corpus).save(Path(folder.name) / "index")  # the reference corpus
    >>> config = SweepConfig(
    ...     corpus_path, index_path, models=("lda-gibbs",), settings=3, replicates=1, k=2,
    ...     max_steps={"lda-gibbs": 50},  # 50 Gibbs sweeps instead of the 1,000 or 2,000 drawn
    ... )
    >>> from tealeaves.model_selection import plan
    >>> for trial in plan(config):
    ...     print(trial.trial, trial.params)
    lda-gibbs-0000 {'topics_from': 'last', 'alpha_sum': 0.25, 'beta': 0.05, 'optimize_interval': 5, 'iterations': 50, 'optimize_burn_in': 10}
    lda-gibbs-0001 {'topics_from': 'last', 'alpha_sum': 0.01, 'beta': 0.05, 'optimize_interval': 25, 'iterations': 50, 'optimize_burn_in': 10}
    lda-gibbs-0002 {'topics_from': 'last', 'alpha_sum': 0.01, 'beta': 0.01, 'optimize_interval': 25, 'iterations': 50, 'optimize_burn_in': 10}
    >>> folder.cleanup()
    """
    from tealeaves.coherence import RefIndex
    from tealeaves.corpus import Corpus

    fingerprints = {
        "corpus": Corpus.load(config.corpus).fingerprint(),
        "reference": RefIndex.load(config.reference).corpus_fingerprint,
    }
    trials = []
    for model in config.models:
        defaults = trainer_params(model)
        steps, cap = config.steps_param(model), config.max_steps.get(model)
        filtered = model in config.uniqueness_filter
        scoring = {**config.scoring(), "uniqueness_filter": filtered}
        drawn_settings = draw_settings(
            config.space(model),
            config.settings,
            config.seed,
            model,
            constraints=config.model_constraints(model),
            replicates=config.replicates,
            defaults=defaults,
        )
        for i, (drawn, replicate) in enumerate(drawn_settings):
            params = dict(drawn) if cap is None or steps is None else cap_steps(drawn, steps, cap, defaults)
            seed = family_seed(config.seed, f"sweep/{model}/replicate/{replicate}") % 2**31  # 32-bit trainer seeds
            definition = {"model": model, "k": config.k, "seed": seed, "params": params, **fingerprints, **scoring}
            key = hashlib.sha256(json.dumps(json_safe(definition), sort_keys=True).encode()).hexdigest()[:16]
            trials.append(
                Trial(
                    trial=f"{model}-{i:04d}",
                    model=model,
                    index=i,
                    replicate=replicate,
                    seed=seed,
                    drawn=drawn,
                    params=params,
                    key=key,
                    k=config.k,
                    corpus=str(config.corpus),
                    reference=str(config.reference),
                    score=config.scoring(),
                    uniqueness_filter=filtered,
                    trainer=TRAINERS[model],
                )
            )
    return trials


def run_trial(trial: Trial) -> dict[str, Any]:
    """Train ``trial`` and score it (in a worker): its scores, top words, seconds and the model.

    The trainer's registry entry travels with the trial, so a trainer registered in the
    session that started the sweep is found on a cluster's workers too.

    Parameters
    ----------
    trial : Trial
        One trial of :func:`plan`.

    Returns
    -------
    dict
        ``scores`` (NPMI, C_V, topic uniqueness and diversity, the filters and ``passes``),
        ``train_seconds``, ``score_seconds``, ``top_words`` (the top 10 of each topic),
        ``duplicate_topics`` and ``model`` (the :class:`~tealeaves.models.TopicModel`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.model_selection import SweepConfig
    >>> docs = [
    ...     "tax budget debt deficit tax budget", "budget income spending tax deficit",
    ...     "debt deficit spending income budget", "war army peace troops war army",
    ...     "army navy enemy troops peace", "troops enemy navy war peace army",
    ... ]
    >>> vocab = Vocabulary(sorted({word for doc in docs for word in doc.split()}))
    >>> corpus = Corpus.from_documents([vocab.ids(doc.split()) for doc in docs], vocab)
    >>> folder = tempfile.TemporaryDirectory()
    >>> corpus_path = corpus.save(Path(folder.name) / "corpus")
    >>> index_path = RefIndex.build(corpus).save(Path(folder.name) / "index")  # the reference corpus
    >>> config = SweepConfig(
    ...     corpus_path, index_path, models=("lda-gibbs",), settings=3, replicates=1, k=2,
    ...     max_steps={"lda-gibbs": 50},  # 50 Gibbs sweeps instead of the 1,000 or 2,000 drawn
    ... )
    >>> from tealeaves.model_selection import plan, run_trial
    >>> outcome = run_trial(plan(config)[0])
    >>> round(outcome["scores"]["npmi"], 4), outcome["scores"]["passes"]
    (-0.2027, True)
    >>> [words[:4] for words in outcome["top_words"]]
    [['army', 'peace', 'troops', 'war'], ['budget', 'deficit', 'tax', 'debt']]
    >>> folder.cleanup()
    """
    if TRAINERS.get(trial.model) != trial.trainer:
        TRAINERS[trial.model] = trial.trainer
    model = train(trial.corpus, trial.model, k=trial.k, seed=trial.seed, **trial.params)
    return score_trial(trial, model)


def score_trial(trial: Trial, model: TopicModel) -> dict[str, Any]:
    """The scores of ``trial``'s trained ``model`` as :func:`run_trial` returns them."""
    from tealeaves.coherence import RefIndex
    from tealeaves.metrics import Inputs

    started = time.perf_counter()
    inputs = Inputs(index=RefIndex.load(trial.reference))
    opts = {"topn": TOPN, "on_missing": trial.score["on_missing"], "compat": trial.score["compat"]}
    npmi = _result_of("npmi", model, inputs, trial.seed, window=NPMI_WINDOW, **opts)
    cv = _result_of("cv", model, inputs, trial.seed, **opts)
    div = _result_of(
        "diversity",
        model,
        inputs,
        trial.seed,
        uniqueness_topn=TOPN,
        filter_topn=trial.score["filter_topn"],
        min_uniqueness=trial.score["min_uniqueness"],
        uniqueness_filter=trial.uniqueness_filter,
        overlap_topn=trial.score["filter_topn"],
    )
    scores = {  # the selection criterion (select_best) reads npmi and passes
        "npmi": npmi.model_mean,
        "cv": cv.model_mean,
        "topic_uniqueness": div.topic_uniqueness,
        "filter_uniqueness": div.filter_uniqueness,
        "topic_diversity": div.topic_diversity,
        "duplicate_topic_pairs": len(div.duplicate_topics),
        "shared_top_word_pairs": len(div.shared_top_words),
        "filter_a": div.filter_a,
        "filter_b": div.filter_b,
        "uniqueness_filter": div.uniqueness_filter,
        "passes": not div.redundant,
    }
    return {
        "scores": scores,
        "train_seconds": model.manifest["training"]["seconds"],
        "score_seconds": round(time.perf_counter() - started, 3),
        "top_words": model.top_words(TOPN),
        "duplicate_topics": div.duplicate_topics,
        "model": model,
    }


def run_pack(pack: Sequence[Trial]) -> list[dict[str, Any]]:
    """Train and score the trials of ``pack`` (in a worker), each as :func:`~tealeaves.model_selection.run_trial`
    returns it; a pack of several trials trains as one batch
    (:func:`tealeaves.models.neural.batched.fit_many`)."""
    if len(pack) == 1:
        return [run_trial(pack[0])]
    from tealeaves.corpus import Corpus
    from tealeaves.models.neural.batched import fit_many

    started = time.perf_counter()
    trials = [{"k": trial.k, "seed": trial.seed, **trial.params} for trial in pack]
    device = {trial.pop("device", "auto") for trial in trials}
    threads = {trial.pop("threads", 1) for trial in trials}
    if len(device) > 1 or len(threads) > 1:
        raise InputError("the trials of one pack must ask for the same device and threads")
    corpus = Corpus.load(pack[0].corpus)
    models = fit_many(corpus, trials, model=pack[0].model, device=device.pop(), threads=threads.pop())
    seconds = round((time.perf_counter() - started) / len(pack), 3)
    for model in models:
        model.manifest["training"]["seconds"] = seconds
        model.manifest["training"]["batched_with"] = len(pack)
    return [score_trial(trial, model) for trial, model in zip(pack, models)]


def trial_outcomes(packed: Outcome[list[dict[str, Any]]], n_trials: int) -> list[Outcome[dict[str, Any]]]:
    """The outcome of each of the ``n_trials`` trials of a pack from the pack's outcome (a failed
    pack fails every trial, with its errors)."""
    from tealeaves.parallel import Outcome

    values = packed.value if packed.value is not None else [None] * n_trials
    return [Outcome(packed.index, value, packed.errors, packed.attempts, packed.traceback) for value in values]


def _result_of(metric: str, model: TopicModel, inputs: Any, seed: int, **options: Any) -> Any:
    """The library's result of the registered ``metric`` of ``model`` (:data:`tealeaves.metrics.METRICS`)."""
    from tealeaves.metrics import METRICS

    return METRICS[metric].compute(model, inputs, seed, **options).result


def select_best(frame: pd.DataFrame) -> dict[str, str | None]:
    """The selected trial of each model type in a results table (:meth:`SweepResult.to_frame`).

    Among the type's trials that finished and pass the redundancy filters (``passes``: filter
    (a), and filter (b) where it applies), the one with the highest NPMI; ties go to the lower
    trial number. None for a type with no such trial.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per trial, with ``model``, ``trial``, ``index``, ``status``, ``passes`` and
        ``npmi``.

    Returns
    -------
    dict of str to str or None
        The selected trial of each model type.

    Examples
    --------
    The second LDA trial has the best NPMI but fails the filters; D-VAE has no trial that
    passes:

    >>> import pandas as pd
    >>> from tealeaves.model_selection import select_best
    >>> frame = pd.DataFrame({
    ...     "model": ["lda-gibbs"] * 3 + ["dvae"],
    ...     "trial": ["lda-gibbs-0000", "lda-gibbs-0001", "lda-gibbs-0002", "dvae-0000"],
    ...     "index": [0, 1, 2, 0],
    ...     "status": ["ok", "ok", "ok", "failed"],
    ...     "passes": [True, False, True, None],
    ...     "npmi": [0.08, 0.12, 0.10, None],
    ... })
    >>> select_best(frame)
    {'lda-gibbs': 'lda-gibbs-0002', 'dvae': None}
    """
    selected: dict[str, str | None] = {}
    for model, rows in frame.groupby("model", sort=False):
        eligible = rows[(rows["status"] == "ok") & rows["passes"].fillna(False).astype(bool)]
        if eligible.empty:
            selected[str(model)] = None
        else:
            best = eligible.sort_values(["npmi", "index"], ascending=[False, True], kind="stable").iloc[0]
            selected[str(model)] = str(best["trial"])
    return selected


@dataclass(frozen=True)
class SweepResult(Result):
    """A finished sweep.

    Attributes
    ----------
    out : Path
        The sweep folder.
    records : tuple of dict
        One record per trial, in plan order (model by model): ``trial``, ``model``, ``index``,
        ``replicate``, ``seed``, ``key``, ``drawn`` (the setting as drawn), ``params`` (as
        trained), ``status`` (``"ok"`` or ``"failed"``), ``twin_of`` (the earlier trial with
        the same trained parameters and seed, whose training it shares, or None), ``attempts``, ``errors``,
        ``traceback``, ``scores``, ``top_words``, ``duplicate_topics`` (the pairs of topics
        with the same top-5 words), ``train_seconds``, ``score_seconds``.
    selected : dict of str to str or None
        The selected trial of each model type (:func:`select_best`).
    trained, resumed : int
        Trials run by this call, and trials whose record an earlier call had written.
    seconds : float
        Wall time of this call.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.model_selection import SweepConfig
    >>> docs = [
    ...     "tax budget debt deficit tax budget", "budget income spending tax deficit",
    ...     "debt deficit spending income budget", "war army peace troops war army",
    ...     "army navy enemy troops peace", "troops enemy navy war peace army",
    ... ]
    >>> vocab = Vocabulary(sorted({word for doc in docs for word in doc.split()}))
    >>> corpus = Corpus.from_documents([vocab.ids(doc.split()) for doc in docs], vocab)
    >>> folder = tempfile.TemporaryDirectory()
    >>> corpus_path = corpus.save(Path(folder.name) / "corpus")
    >>> index_path = RefIndex.build(corpus).save(Path(folder.name) / "index")  # the reference corpus
    >>> config = SweepConfig(
    ...     corpus_path, index_path, models=("lda-gibbs",), settings=3, replicates=1, k=2,
    ...     max_steps={"lda-gibbs": 50},  # 50 Gibbs sweeps instead of the 1,000 or 2,000 drawn
    ... )
    >>> from tealeaves.model_selection import sweep
    >>> result = sweep(config, Path(folder.name) / "sweep", scheduler=None, workers=1)
    >>> result
    SweepResult(out=.../sweep, trained=3, resumed=0, seconds=...)
    >>> result.selected
    {'lda-gibbs': 'lda-gibbs-0000'}
    >>> folder.cleanup()
    """

    out: Path
    records: tuple[dict[str, Any], ...]
    selected: dict[str, str | None]
    trained: int
    resumed: int
    seconds: float

    def to_frame(self) -> pd.DataFrame:
        """The results table (:func:`results_frame`)."""
        return results_frame(self.records, self.selected)


def results_frame(
    records: Sequence[Mapping[str, Any]], selected: Mapping[str, str | None] | None = None
) -> pd.DataFrame:
    """One row per trial record: ``trial``, ``model``, ``index``, ``replicate``, ``seed``, ``status``, ``attempts``,
    ``error`` (the failed attempts' errors), the scores (:data:`SCORE_COLUMNS`), ``selected``,
    ``train_seconds``, then ``p.NAME`` for each parameter as trained.

    Parameters
    ----------
    records : sequence of dict
        Trial records (:attr:`SweepResult.records`, or the ``trials/*.json`` files).
    selected : mapping of str to str or None, optional
        The selected trial of each model type (:func:`select_best`), for ``selected``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.model_selection import SweepConfig
    >>> docs = [
    ...     "tax budget debt deficit tax budget", "budget income spending tax deficit",
    ...     "debt deficit spending income budget", "war army peace troops war army",
    ...     "army navy enemy troops peace", "troops enemy navy war peace army",
    ... ]
    >>> vocab = Vocabulary(sorted({word for doc in docs for word in doc.split()}))
    >>> corpus = Corpus.from_documents([vocab.ids(doc.split()) for doc in docs], vocab)
    >>> folder = tempfile.TemporaryDirectory()
    >>> corpus_path = corpus.save(Path(folder.name) / "corpus")
    >>> index_path = RefIndex.build(corpus).save(Path(folder.name) / "index")  # the reference corpus
    >>> config = SweepConfig(
    ...     corpus_path, index_path, models=("lda-gibbs",), settings=3, replicates=1, k=2,
    ...     max_steps={"lda-gibbs": 50},  # 50 Gibbs sweeps instead of the 1,000 or 2,000 drawn
    ... )
    >>> from tealeaves.model_selection import sweep
    >>> result = sweep(config, Path(folder.name) / "sweep", scheduler=None, workers=1)
    >>> from tealeaves.model_selection import results_frame
    >>> frame = results_frame(result.records, result.selected)
    >>> frame[["trial", "p.alpha_sum", "p.beta", "npmi", "passes", "selected"]].round(4)
                trial  p.alpha_sum  p.beta    npmi  passes  selected
    0  lda-gibbs-0000         0.25    0.05 -0.2027    True      True
    1  lda-gibbs-0001         0.01    0.05 -0.2027    True     False
    2  lda-gibbs-0002         0.01    0.01 -0.2027    True     False
    >>> folder.cleanup()
    """
    import pandas as pd

    chosen = set((selected or {}).values())
    rows = []
    for record in records:
        scores = record.get("scores") or {}
        row = {
            "trial": record["trial"],
            "model": record["model"],
            "index": record["index"],
            "replicate": record["replicate"],
            "seed": record["seed"],
            "status": record["status"],
            "attempts": record["attempts"],
            "error": "; ".join(record["errors"]) or None,
            **{name: scores.get(name) for name in SCORE_COLUMNS},
            "selected": record["trial"] in chosen,
            "train_seconds": record.get("train_seconds"),
        }
        row.update({f"p.{name}": value for name, value in record["params"].items()})
        rows.append(row)
    frame = pd.DataFrame(rows)
    for column in frame.columns:
        kinds = {type(v) for v in frame[column] if v is not None and not (isinstance(v, float) and math.isnan(v))}
        if len(kinds) > 1:  # e.g. a parameter that is a bool in one model and a number in another
            frame[column] = [None if v is None else str(v) for v in frame[column]]
    return frame


SCORE_COLUMNS = (
    "npmi",
    "cv",
    "topic_uniqueness",
    "filter_uniqueness",
    "topic_diversity",
    "duplicate_topic_pairs",
    "shared_top_word_pairs",
    "filter_a",
    "filter_b",
    "uniqueness_filter",
    "passes",
)


def sweep(
    config: SweepConfig | str | os.PathLike[str],
    out: str | os.PathLike[str],
    scheduler: str | None = "local",
    workers: int | None = None,
    force: bool = False,
    progress: ProgressCallback | None = None,
    retry_failed: bool = False,
) -> SweepResult:
    """Run Hoyle et al.'s (2021, §4.2) random hyperparameter search; see the module docstring.

    Parameters
    ----------
    config : SweepConfig or path
        The configuration, or its TOML file (:meth:`SweepConfig.from_toml`).
    out : path
        The sweep folder. An existing sweep folder is resumed: trials with a record are not
        trained again. A record from another configuration (another corpus, index, k, seed,
        range or scoring option) is refused unless ``force``, which starts the folder over.
    scheduler : str or None
        ``"local"`` (a Dask ``LocalCluster`` of ``workers`` processes), a Dask scheduler address
        (``tcp://host:8786``; the corpus and index paths must be readable by its workers), or
        None (no Dask: this process, or a pool of ``workers`` processes).
    workers : int, optional
        Processes of the ``LocalCluster`` or pool (default: one per CPU core).
    force : bool
        Delete ``out`` first.
    progress : callable, optional
        Receives a ``"sweep"`` update after each finished trial.
    retry_failed : bool
        Train again, once more with its retry, every trial whose record says it failed (a worker killed,
        out of memory, a node taken back): resuming otherwise keeps those records.

    Returns
    -------
    SweepResult
        Also written to ``out``: ``results.parquet``, ``results.csv``, ``trials/``, ``models/``
        and ``manifest.json``.

    Raises
    ------
    EmptyResultError
        Where every trial failed (``out`` written all the same), with their errors.

    Warns
    -----
    FailedTrialsWarning
        Where some trials failed, with their errors.

    Examples
    --------
    Three settings of G-LDA with two topics on a six-document corpus, trained for 50 Gibbs
    sweeps each, scored against the corpus itself as the reference (Hoyle et al. score
    against a much larger one), in this process:

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.model_selection import SweepConfig
    >>> docs = [
    ...     "tax budget debt deficit tax budget", "budget income spending tax deficit",
    ...     "debt deficit spending income budget", "war army peace troops war army",
    ...     "army navy enemy troops peace", "troops enemy navy war peace army",
    ... ]
    >>> vocab = Vocabulary(sorted({word for doc in docs for word in doc.split()}))
    >>> corpus = Corpus.from_documents([vocab.ids(doc.split()) for doc in docs], vocab)
    >>> folder = tempfile.TemporaryDirectory()
    >>> corpus_path = corpus.save(Path(folder.name) / "corpus")
    >>> index_path = RefIndex.build(corpus).save(Path(folder.name) / "index")  # the reference corpus
    >>> config = SweepConfig(
    ...     corpus_path, index_path, models=("lda-gibbs",), settings=3, replicates=1, k=2,
    ...     max_steps={"lda-gibbs": 50},  # 50 Gibbs sweeps instead of the 1,000 or 2,000 drawn
    ... )
    >>> from tealeaves.model_selection import sweep
    >>> result = sweep(config, Path(folder.name) / "sweep", scheduler=None, workers=1)
    >>> result.selected  # the best NPMI among the trials that pass the filters
    {'lda-gibbs': 'lda-gibbs-0000'}
    >>> sorted(path.name for path in result.out.iterdir())  # .lock: held by the sweep writing it
    ['.lock', 'manifest.json', 'models', 'results.csv', 'results.parquet', 'trials']

    Run again, the sweep resumes: every trial has its record, so nothing is trained.

    >>> again = sweep(config, Path(folder.name) / "sweep", scheduler=None, workers=1)
    >>> again.trained, again.resumed
    (0, 3)
    >>> folder.cleanup()
    """
    from tealeaves.parallel import parallel_completed

    started = time.perf_counter()
    if not isinstance(config, SweepConfig):
        config = SweepConfig.from_toml(config)
    trials = plan(config)  # reads the corpus and the index before the folder is touched
    _check_folder(Path(out), force)
    with folder_lock(out, "sweep"):  # one sweep at a time writes the folder
        folder = _open_folder(Path(out), force)
        records = _finished(folder, trials, retry_failed)
        _write_manifest(folder, config, trials, scheduler, workers, "running")
        best = {model: _best(records.values(), model) for model in config.models}
        todo = [trial for trial in trials if trial.trial not in records]
        # a step cap can make two drawn settings train alike (the same parameters and seed: the same
        # key); each key is trained once and its outcome recorded for every trial that has it
        twins: dict[str, list[Trial]] = {}
        for trial in todo:
            twins.setdefault(trial.key, []).append(trial)
        unique = [group[0] for group in twins.values()]
        packs = pack_trials(unique, config.batch_trials, config.batch_memory_gb * 1e9)
        resumed = len(records)
        notify(progress, "sweep", resumed, len(trials))
        for packed in parallel_completed(run_pack, packs, workers=workers, scheduler=scheduler, retries=RETRIES):
            for first, outcome in zip(packs[packed.index], trial_outcomes(packed, len(packs[packed.index]))):
                for trial in twins[first.key]:
                    record = _record(trial, outcome, None if trial is first else first.trial)
                    if record["status"] == "ok" and _rank(record) > _rank(best[trial.model]):
                        _save_model(folder, trial, record, outcome.value["model"])  # type: ignore[index]
                        best[trial.model] = record
                    _replace(folder / "trials" / f"{trial.trial}.json", functools.partial(write_json, data=record))
                    records[trial.trial] = record
                    npmi = record["scores"].get("npmi")
                    notify(progress, "sweep", len(records), len(trials), model=trial.model, npmi=npmi)
        ordered = tuple(records[trial.trial] for trial in trials)
        selected = select_best(results_frame(ordered))
        _check_models(folder, trials, records, selected, workers, scheduler)
        result = SweepResult(
            out=folder,
            records=ordered,
            selected=selected,
            trained=len(todo),
            resumed=resumed,
            seconds=round(time.perf_counter() - started, 3),
        )
        frame = result.to_frame()
        _replace(folder / "results.parquet", lambda tmp: frame.to_parquet(tmp, index=False))
        write_result(result, folder / "results.csv")
        _write_manifest(folder, config, trials, scheduler, workers, "complete", result)
    _report_failures(ordered, folder)
    return result


class FailedTrialsWarning(UserWarning):
    """Some trials of a sweep failed (twice: with their retry); their records hold the errors and tracebacks.

    Examples
    --------
    Two settings of G-LDA, one of them averaging its topics over no sweep, a combination the trainer
    refuses when it starts (each range alone is within the trainer's rules, which the configuration checks):

    >>> import tempfile, warnings
    >>> from pathlib import Path
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.model_selection import FailedTrialsWarning, SweepConfig, sweep
    >>> docs = [
    ...     "tax budget debt deficit tax budget", "budget income spending tax deficit",
    ...     "debt deficit spending income budget", "war army peace troops war army",
    ...     "army navy enemy troops peace", "troops enemy navy war peace army",
    ... ]
    >>> vocab = Vocabulary(sorted({word for doc in docs for word in doc.split()}))
    >>> corpus = Corpus.from_documents([vocab.ids(doc.split()) for doc in docs], vocab)
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = corpus.save(folder / "corpus"), RefIndex.build(corpus).save(folder / "index")
    >>> space = {"alpha_sum": 0.25, "beta": 0.1, "optimize_interval": 10, "iterations": 20}
    >>> space |= {"topics_from": "average", "average_last": [0, 10]}
    >>> config = SweepConfig.from_mapping(
    ...     {"corpus": "corpus", "reference": "index", "models": ["lda-gibbs"], "settings": 2, "replicates": 1,
    ...      "k": 2, "space": {"lda-gibbs": space}},
    ...     base=folder,
    ... )
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     result = sweep(config, folder / "sweep", scheduler=None, workers=1)
    >>> [str(w.message).split("; each")[0] for w in caught if w.category is FailedTrialsWarning]
    ['1 of 2 trials failed: InputError: lda-gibbs needs average_last >= 1 sweeps to average, got 0 (1 trial)']
    >>> result.selected  # the trial that trained
    {'lda-gibbs': 'lda-gibbs-0000'}
    """


def _report_failures(records: Sequence[Mapping[str, Any]], folder: Path) -> None:
    """Say why trials failed, each distinct last error once with its count: a warning where some did, an
    EmptyResultError where every one did (nothing to select from)."""
    failed = [record for record in records if record["status"] != "ok"]
    if not failed:
        return
    reasons = Counter(record["errors"][-1] if record["errors"] else "no error recorded" for record in failed)
    listed = "; ".join(
        f"{reason} ({count} trial{'s' if count > 1 else ''})" for reason, count in reasons.most_common(3)
    )
    more = f"; and {len(reasons) - 3} other errors" if len(reasons) > 3 else ""
    where = f"each record in {folder / 'trials'} holds its traceback"
    if len(failed) == len(records):
        raise EmptyResultError(
            f"every trial of the sweep failed ({len(failed)}): {listed}{more}; {where}. Run again with "
            "retry_failed=True once the cause is gone (a lost worker, memory), or change the configuration and "
            "pass force=True, which starts the folder over"
        )
    warnings.warn(
        f"{len(failed)} of {len(records)} trials failed: {listed}{more}; {where}; retry_failed=True trains them again",
        FailedTrialsWarning,
        stacklevel=3,
    )


def _check_folder(out: Path, force: bool) -> None:
    """Refuse an ``out`` that is a file, or without ``force`` a folder that holds something else than a sweep."""
    if out.exists() and not out.is_dir():
        raise ArtifactError(f"output {out} exists and is not a folder; remove it or choose another path")
    if not force and out.exists() and any(path.name != LOCK for path in out.iterdir()):
        if not (out / MANIFEST).is_file():
            raise ArtifactError(
                f"{out} exists and is not a sweep folder; choose another out=<folder> or pass force=True"
            )
        read_manifest(out, kind="sweep")


def _open_folder(out: Path, force: bool) -> Path:
    """The sweep folder, whose lock this sweep holds, emptied with ``force`` but for the lock, with ``trials/``."""
    if force:
        for path in out.iterdir():
            if path.name != LOCK:
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    (out / "trials").mkdir(parents=True, exist_ok=True)
    return out


def _finished(folder: Path, trials: Sequence[Trial], retry_failed: bool = False) -> dict[str, dict[str, Any]]:
    """The records of planned trials that an earlier run finished (those that failed left out with
    ``retry_failed``); refuses records of another configuration."""
    records = {}
    for trial in trials:
        path = folder / "trials" / f"{trial.trial}.json"
        if not path.is_file():
            continue
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ArtifactError(f"{path} is not valid JSON ({exc}); delete it to run that trial again") from exc
        if record.get("key") != trial.key:
            raise ArtifactError(
                f"{folder} holds trial {trial.trial} of another configuration (corpus, index, k, seed, ranges or "
                "scoring changed); choose another out=<folder> or pass force=True to start the sweep over"
            )
        if not (retry_failed and record.get("status") != "ok"):
            records[trial.trial] = record
    return records


def _record(trial: Trial, outcome: Outcome[dict[str, Any]], twin_of: str | None = None) -> dict[str, Any]:
    value = outcome.value or {}
    return json_safe(
        {
            "trial": trial.trial,
            "model": trial.model,
            "index": trial.index,
            "replicate": trial.replicate,
            "seed": trial.seed,
            "key": trial.key,
            "drawn": trial.drawn,
            "params": trial.params,
            "status": "ok" if outcome.ok else "failed",
            "twin_of": twin_of,
            "attempts": outcome.attempts,
            "errors": list(outcome.errors),
            "traceback": outcome.traceback,
            "scores": value.get("scores", {}),
            "top_words": value.get("top_words"),
            "duplicate_topics": value.get("duplicate_topics"),
            "train_seconds": value.get("train_seconds"),
            "score_seconds": value.get("score_seconds"),
        }
    )


def _rank(record: Mapping[str, Any] | None) -> tuple[float, int]:
    """Order of selection: passing the filters, then NPMI, then the lower trial number."""
    if record is None or record["status"] != "ok" or not record["scores"]["passes"]:
        return (-math.inf, 0)
    return (record["scores"]["npmi"], -record["index"])


def _best(records: Any, model: str) -> dict[str, Any] | None:
    candidates = [r for r in records if r["model"] == model and _rank(r)[0] > -math.inf]
    return max(candidates, key=_rank, default=None)


def _save_model(folder: Path, trial: Trial, record: Mapping[str, Any], model: TopicModel) -> None:
    model.manifest["sweep"] = {
        "trial": trial.trial,
        "key": trial.key,
        "params": trial.params,
        "scores": record["scores"],
    }
    model.save(folder / "models" / trial.model, force=True)


def _check_models(
    folder: Path,
    trials: Sequence[Trial],
    records: Mapping[str, Mapping[str, Any]],
    selected: Mapping[str, str | None],
    workers: int | None,
    scheduler: str | None,
) -> None:
    """Make ``models/MODEL`` hold each selected trial's model: train again any that is missing or
    stale (a run stopped between saving a model and recording its trial), remove a type's folder
    when nothing is selected."""
    from tealeaves.parallel import parallel_completed

    by_id = {trial.trial: trial for trial in trials}
    redo = []
    for model, trial_id in selected.items():
        path = folder / "models" / model
        if trial_id is None:
            if path.exists():
                shutil.rmtree(path)
            continue
        saved = read_manifest(path).get("sweep", {}) if (path / MANIFEST).is_file() else {}
        if saved.get("key") != by_id[trial_id].key:
            redo.append(by_id[trial_id])
    for outcome in parallel_completed(run_trial, redo, workers=workers, scheduler=scheduler, retries=RETRIES):
        trial = redo[outcome.index]
        if not outcome.ok:
            raise ArtifactError(
                f"the selected trial {trial.trial} failed when trained again to save its model ({outcome.errors[-1]})"
            )
        _save_model(folder, trial, records[trial.trial], outcome.value["model"])  # type: ignore[index]


def _write_manifest(
    folder: Path,
    config: SweepConfig,
    trials: Sequence[Trial],
    scheduler: str | None,
    workers: int | None,
    status: str,
    result: SweepResult | None = None,
) -> None:
    """The manifest: the configuration, every planned trial's drawn and trained parameters, and at the end the counts."""
    fields: dict[str, Any] = {
        "status": status,
        "config": config.to_dict(),
        "execution": {"scheduler": scheduler, "workers": workers, "retries": RETRIES},
        "trials": [
            {"trial": t.trial, "replicate": t.replicate, "seed": t.seed, "drawn": t.drawn, "params": t.params}
            for t in trials
        ],
    }
    if result is not None:
        frame = result.to_frame()
        fields["stats"] = {
            "trials": len(frame),
            "ok": int((frame["status"] == "ok").sum()),
            "failed": int((frame["status"] == "failed").sum()),
            "passing_filter_a": int(frame["filter_a"].fillna(False).astype(bool).sum()),
            "passing_filter_b": int(frame["filter_b"].fillna(False).astype(bool).sum()),
            "passing_filters": int(frame["passes"].fillna(False).astype(bool).sum()),
            "trained": result.trained,
            "resumed": result.resumed,
            "seconds": result.seconds,
        }
        fields["selected"] = result.selected
        fields["files"] = ["results.parquet", "results.csv", "trials/", "models/"]
    manifest = new_manifest("sweep", **fields)
    _replace(folder / MANIFEST, lambda tmp: write_json(tmp, manifest))


def _replace(path: Path, write: Callable[[Path], Any]) -> None:
    """Write ``path`` through a temporary file beside it, renamed into place when complete."""
    with atomic_file(path) as tmp:
        write(tmp)
