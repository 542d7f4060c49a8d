"""``sweep``: Hoyle et al.'s (2021, §4.2 and Appendix A.3) random hyperparameter search.

For each model type, ``settings`` random settings are drawn from the ranges of Hoyle et al.'s
Table 8 (:data:`SPACES`; the paper draws 164 per model), each is trained with
:func:`tealeaves.train` and scored on its top-10 words:

- NPMI over 10-token sliding windows of a reference corpus (Lau et al. 2014, as Hoyle et al.
  select models), and C_V (110-token windows), both by :func:`tealeaves.coherence.score`;
- topic uniqueness (Nan et al. 2019) and Hoyle et al.'s redundancy filters: (a) no two topics
  share one of their top 5 words, (b) the topic uniqueness is above 0.7
  (:func:`tealeaves.coherence.diversity`).

The selected model of each type is the one with the highest NPMI among the trials that pass
both filters (:func:`select_best`). Trials run on Dask (a ``LocalCluster`` by default, or a
cluster's ``tcp://`` address) through :func:`tealeaves.parallel.parallel_completed`: a trial
that raises is retried once and then recorded with its error; it never stops the sweep.

The sweep folder::

    OUT/manifest.json           kind "sweep": the configuration, inputs, counts, selection
    OUT/trials/MODEL-NNNN.json  one record per finished trial, written as it finishes
    OUT/results.parquet, .csv   one row per trial (:meth:`SweepResult.to_frame`)
    OUT/models/MODEL/           the selected model of each type, a TopicModel folder

Every file is written atomically. Trial ``i`` of a model draws its setting and its training
seed from its own stream family (``rng.family_seed(seed, "sweep/MODEL/i")``), so the same
configuration and seed give the same trials in any order, on any cluster, and a sweep that is
interrupted and started again with the same ``OUT`` trains only the trials without a record
(raising ``settings`` adds trials; the first ones stay as they were).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.artifacts import MANIFEST, atomic_file, json_safe, new_manifest, read_manifest, write_json
from tealeaves.errors import ArtifactError, InputError
from tealeaves.models.topic_model import TopicModel
from tealeaves.models.train import TRAINERS, TrainerSpec, train, trainer_params
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Result, write_result
from tealeaves.rng import family_generator, family_seed

if TYPE_CHECKING:
    import pandas as pd

    from tealeaves.parallel import Outcome

STEPS = ("iterations", "epochs")  # the parameter counting a trainer's passes, capped by ``max_steps``
RETRIES = 1  # a failing trial is tried once more (Hoyle et al.'s budget counts settings, not attempts)
NPMI_WINDOW = 10  # "a ten-word window over the top ten topic words" (Hoyle et al. 2021, §4.2)
TOPN = 10


@dataclass(frozen=True)
class Choice:
    """One of ``values``, each with probability ``1 / len(values)``."""

    values: tuple[Any, ...]

    def draw(self, rng: np.random.Generator) -> Any:
        return self.values[int(rng.integers(len(self.values)))]

    def to_dict(self) -> dict[str, Any]:
        return {"choice": list(self.values)}


@dataclass(frozen=True)
class Uniform:
    """A float uniform on ``[low, high)``."""

    low: float
    high: float

    def draw(self, rng: np.random.Generator) -> float:
        return float(rng.uniform(self.low, self.high))

    def to_dict(self) -> dict[str, Any]:
        return {"uniform": [self.low, self.high]}


@dataclass(frozen=True)
class LogUniform:
    """A float whose logarithm is uniform on ``[log low, log high)`` (``0 < low < high``)."""

    low: float
    high: float

    def draw(self, rng: np.random.Generator) -> float:
        return float(math.exp(rng.uniform(math.log(self.low), math.log(self.high))))

    def to_dict(self) -> dict[str, Any]:
        return {"log_uniform": [self.low, self.high]}


Distribution = Choice | Uniform | LogUniform
Space = Mapping[str, Distribution]

SPACES: dict[str, Space] = {
    # Table 8a, G-LDA (MALLET): alpha is MALLET's --alpha, the sum of the asymmetric prior
    "lda-gibbs": {
        "alpha_sum": Choice((0.01, 0.05, 0.1, 0.25, 1.0, 5.0)),
        "beta": Choice((0.01, 0.05, 0.1)),
        "optimize_interval": Choice((0, 10, 100, 500)),
        "iterations": Choice((1000, 2000)),
    },
    # Table 8b, D-VAE: Dirichlet prior, learning rate, L1 on the topic-word weights, epochs of
    # batch-norm and of KL annealing, epochs
    "dvae": {
        "alpha": Choice((0.001, 0.01, 0.1)),
        "learning_rate": Choice((0.001, 0.01)),
        "beta_reg": Choice((0.0, 0.01, 0.1, 1.0)),
        "gamma_bn": Choice((0, 1, 100, 200)),
        "gamma_kl": Choice((100, 200)),
        "epochs": Choice((200, 500)),
    },
    # Table 8c, ETM: learning rate, Adam's L2 weight decay, learning-rate annealing, epochs
    "etm": {
        "learning_rate": Choice((0.001, 0.002, 0.01, 0.02)),
        "weight_decay": Choice((1.2e-5, 1.2e-6, 1.2e-7)),
        "anneal_lr": Choice((False, True)),
        "epochs": Choice((500, 1000)),
    },
}
"""Hoyle et al. 2021, Table 8: the hyperparameter ranges of each model type, by trainer name.

Every range in the table is a finite set drawn uniformly (:class:`Choice`); a configuration's
``[space.MODEL]`` table overrides or adds ranges, with :class:`Uniform` and :class:`LogUniform`
for continuous ones.
"""


@dataclass(frozen=True)
class SweepConfig:
    """What a sweep trains and how it scores (the TOML file of ``tealeaves sweep``).

    Attributes
    ----------
    corpus : Path
        The prepared training corpus (a corpus folder).
    reference : Path
        The reference corpus' index (a :class:`~tealeaves.coherence.RefIndex` folder).
    models : tuple of str
        Trainer names; each needs ranges in :data:`SPACES` or in ``spaces``.
    settings : int
        Random settings per model (Hoyle et al.: 164).
    k : int
        Topics (Hoyle et al.: 50).
    seed : int
        Root of every draw and every training seed.
    max_steps : dict of str to int
        Per model, a cap on its ``iterations`` or ``epochs`` (a drawn value above it is trained
        with the cap, and the record keeps the drawn value); none by default.
    spaces : dict of str to dict
        Per model, ranges that replace or add to :data:`SPACES`; a fixed value is a one-value
        :class:`Choice`.
    on_missing : str
        How coherence treats a top word the reference index lacks (``"zero"``: it scores 0).
    compat : str or None
        Coherence counting: None (exact), ``"lau"`` or ``"gensim"``
        (:func:`~tealeaves.coherence.score`).
    overlap_topn, min_uniqueness : int, float
        Hoyle et al.'s filters: no top-``overlap_topn`` word shared, uniqueness above ``min_uniqueness``.
    """

    corpus: Path
    reference: Path
    models: tuple[str, ...] = ("lda-gibbs", "dvae", "etm")
    settings: int = 164
    k: int = 50
    seed: int = 0
    max_steps: Mapping[str, int] = field(default_factory=dict)
    spaces: Mapping[str, Space] = field(default_factory=dict)
    on_missing: str = "zero"
    compat: str | None = None
    overlap_topn: int = 5
    min_uniqueness: float = 0.7

    def __post_init__(self) -> None:
        from tealeaves.coherence.score import ON_MISSING
        from tealeaves.coherence.windows import check_compat

        object.__setattr__(self, "corpus", Path(self.corpus))
        object.__setattr__(self, "reference", Path(self.reference))
        object.__setattr__(self, "models", tuple(self.models))
        if not self.models or len(set(self.models)) != len(self.models):
            raise InputError(f"models must name each model type once, got {list(self.models)}")
        for name, value in {"settings": self.settings, "k": self.k, "overlap_topn": self.overlap_topn}.items():
            if not _is_int(value) or value < 1:
                raise InputError(f"{name} must be a positive integer, got {value!r}")
        if not _is_int(self.seed) or self.seed < 0:
            raise InputError(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.on_missing not in ON_MISSING:
            raise InputError(f"on_missing must be one of {', '.join(ON_MISSING)}, got {self.on_missing!r}")
        check_compat(self.compat)
        unknown = sorted((set(self.max_steps) | set(self.spaces)) - set(self.models))
        if unknown:
            raise InputError(f"max_steps or space given for {', '.join(unknown)}, which models does not list")
        for model in self.models:
            self._check_space(model)

    def _check_space(self, model: str) -> None:
        accepted = trainer_params(model)  # InputError for an unknown trainer
        space = self.space(model)
        if not space:
            raise InputError(f"no ranges for {model!r}: add a [space.{model}] table to the configuration")
        refused = sorted(set(space) - set(accepted))
        if refused:
            raise InputError(
                f"{model} has no parameter {', '.join(refused)}; its parameters are {', '.join(sorted(accepted))}"
            )
        if model in self.max_steps:
            cap = self.max_steps[model]
            if not _is_int(cap) or cap < 1:
                raise InputError(f"max_steps for {model} must be a positive integer, got {cap!r}")
            if _steps_param(model) is None:
                raise InputError(f"max_steps: {model} has neither of the parameters {' nor '.join(STEPS)}")

    def space(self, model: str) -> dict[str, Distribution]:
        """The ranges of ``model``: Table 8's (:data:`SPACES`) updated by this configuration's."""
        return {**SPACES.get(model, {}), **self.spaces.get(model, {})}

    def to_dict(self) -> dict[str, Any]:
        """The configuration as JSON-safe values (the manifest's ``config``)."""
        return json_safe(
            {
                "corpus": self.corpus,
                "reference": self.reference,
                "models": self.models,
                "settings": self.settings,
                "k": self.k,
                "seed": self.seed,
                "max_steps": dict(self.max_steps),
                "spaces": {m: {p: d.to_dict() for p, d in self.space(m).items()} for m in self.models},
                "on_missing": self.on_missing,
                "compat": self.compat,
                "overlap_topn": self.overlap_topn,
                "min_uniqueness": self.min_uniqueness,
            }
        )

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> SweepConfig:
        """Read a TOML configuration; relative paths in it are relative to the file's folder.

        Top-level keys ``corpus``, ``reference`` (required), ``models``, ``settings``, ``k``,
        ``seed``; tables ``[max_steps]`` (model = cap), ``[score]`` (``on_missing``, ``compat``,
        ``overlap_topn``, ``min_uniqueness``) and ``[space.MODEL]`` (parameter = a list of values,
        ``{uniform = [low, high]}``, ``{log_uniform = [low, high]}``, ``{choice = [...]}`` or one
        fixed value).
        """
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - Python 3.10
            import tomli as tomllib

        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise InputError(f"sweep configuration {path} not found") from exc
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise InputError(f"{path} is not a valid TOML file ({exc})") from exc
        return cls.from_mapping(data, base=path.parent)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], base: str | os.PathLike[str] = ".") -> SweepConfig:
        """Build a configuration from the parsed TOML (paths relative to ``base``)."""
        known = {"corpus", "reference", "models", "settings", "k", "seed", "max_steps", "space", "score"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InputError(
                f"unknown key {', '.join(unknown)} in the sweep configuration; known: {', '.join(sorted(known))}"
            )
        missing = [key for key in ("corpus", "reference") if key not in data]
        if missing:
            raise InputError(
                f"the sweep configuration needs {' and '.join(missing)} (a corpus and a reference index folder)"
            )
        score = dict(data.get("score", {}))
        unknown = sorted(set(score) - {"on_missing", "compat", "overlap_topn", "min_uniqueness"})
        if unknown:
            raise InputError(
                f"unknown key {', '.join(unknown)} in [score]; known: on_missing, compat, overlap_topn, min_uniqueness"
            )
        models = data.get("models", cls.models)
        if isinstance(models, str) or not isinstance(models, Sequence):
            raise InputError(f"models must be a list of trainer names, got {models!r}")
        spaces = {
            model: {name: parse_distribution(value, f"space.{model}.{name}") for name, value in table.items()}
            for model, table in dict(data.get("space", {})).items()
        }
        return cls(
            corpus=Path(base) / data["corpus"],
            reference=Path(base) / data["reference"],
            models=tuple(models),
            settings=data.get("settings", cls.settings),
            k=data.get("k", cls.k),
            seed=data.get("seed", cls.seed),
            max_steps=dict(data.get("max_steps", {})),
            spaces=spaces,
            **score,
        )


def parse_distribution(value: Any, where: str = "range") -> Distribution:
    """A range as a configuration writes it: a list of values or a one-key table, or one fixed value."""
    if isinstance(value, list):
        value = {"choice": value}
    if not isinstance(value, Mapping):
        return Choice((value,))
    if len(value) != 1:
        raise InputError(f"{where} must have one key (choice, uniform or log_uniform), got {dict(value)}")
    ((kind, bounds),) = value.items()
    if kind == "choice":
        if not isinstance(bounds, list) or not bounds:
            raise InputError(f"{where}: choice needs a non-empty list of values, got {bounds!r}")
        return Choice(tuple(bounds))
    if kind not in ("uniform", "log_uniform"):
        raise InputError(f"{where}: unknown distribution {kind!r}; use choice, uniform or log_uniform")
    if not (isinstance(bounds, list) and len(bounds) == 2 and all(isinstance(b, (int, float)) for b in bounds)):
        raise InputError(f"{where}: {kind} needs [low, high], got {bounds!r}")
    low, high = float(bounds[0]), float(bounds[1])
    if not low < high or (kind == "log_uniform" and low <= 0):
        raise InputError(f"{where}: {kind} needs {'0 < ' if kind == 'log_uniform' else ''}low < high, got {bounds}")
    return Uniform(low, high) if kind == "uniform" else LogUniform(low, high)


def draw_settings(space: Space, n: int, seed: int, model: str) -> list[dict[str, Any]]:
    """``n`` settings of ``model`` drawn from ``space``: setting ``i`` from ``family_generator(seed, "sweep/MODEL/i")``.

    Parameters are drawn in the order of ``space``; a setting depends only on the seed, the
    model, its number and the space, so the first settings stay the same when ``n`` grows.
    """
    settings = []
    for i in range(n):
        rng = family_generator(seed, f"sweep/{model}/{i}")
        settings.append({name: dist.draw(rng) for name, dist in space.items()})
    return settings


@dataclass(frozen=True)
class Trial:
    """One setting of one model, as a worker trains and scores it."""

    trial: str
    model: str
    index: int
    seed: int
    drawn: dict[str, Any]
    params: dict[str, Any]
    key: str
    k: int
    corpus: str
    reference: str
    score: dict[str, Any]
    trainer: TrainerSpec


def plan(config: SweepConfig) -> list[Trial]:
    """Every trial of the sweep, model by model, with its setting, training seed and key.

    The key is a hash of what determines the trial's result: the model, k, seed, parameters,
    the fingerprints of the corpus and the reference index, and the scoring options.
    """
    from tealeaves.coherence import RefIndex
    from tealeaves.corpus import Corpus

    fingerprints = {
        "corpus": Corpus.load(config.corpus).fingerprint(),
        "reference": RefIndex.load(config.reference).corpus_fingerprint,
    }
    scoring = {
        "on_missing": config.on_missing,
        "compat": config.compat,
        "overlap_topn": config.overlap_topn,
        "min_uniqueness": config.min_uniqueness,
    }
    trials = []
    for model in config.models:
        steps, cap = _steps_param(model), config.max_steps.get(model)
        for i, drawn in enumerate(draw_settings(config.space(model), config.settings, config.seed, model)):
            params = dict(drawn)
            if cap is not None and steps is not None and params.get(steps, trainer_params(model)[steps]) > cap:
                params[steps] = cap
            seed = family_seed(config.seed, f"sweep/{model}/{i}/train") % 2**31  # trainers take 32-bit seeds
            definition = {"model": model, "k": config.k, "seed": seed, "params": params, **fingerprints, **scoring}
            key = hashlib.sha256(json.dumps(json_safe(definition), sort_keys=True).encode()).hexdigest()[:16]
            trials.append(
                Trial(
                    trial=f"{model}-{i:04d}",
                    model=model,
                    index=i,
                    seed=seed,
                    drawn=drawn,
                    params=params,
                    key=key,
                    k=config.k,
                    corpus=str(config.corpus),
                    reference=str(config.reference),
                    score=scoring,
                    trainer=TRAINERS[model],
                )
            )
    return trials


def run_trial(trial: Trial) -> dict[str, Any]:
    """Train ``trial`` and score it (in a worker): its scores, top words, seconds and the model.

    The trainer's registry entry travels with the trial, so a trainer registered in the
    session that started the sweep is found on a cluster's workers too.
    """
    from tealeaves.coherence import RefIndex, diversity, score

    if TRAINERS.get(trial.model) != trial.trainer:
        TRAINERS[trial.model] = trial.trainer
    model = train(trial.corpus, trial.model, k=trial.k, seed=trial.seed, **trial.params)
    started = time.perf_counter()
    index = RefIndex.load(trial.reference)
    opts = {"topn": TOPN, "on_missing": trial.score["on_missing"], "compat": trial.score["compat"]}
    npmi = score(model, index, measure="npmi", window=NPMI_WINDOW, **opts)
    cv = score(model, index, measure="cv", **opts)
    div = diversity(
        model,
        uniqueness_topn=TOPN,
        overlap_topn=trial.score["overlap_topn"],
        min_uniqueness=trial.score["min_uniqueness"],
    )
    scores = {
        "npmi": npmi.model_mean,
        "cv": cv.model_mean,
        "topic_uniqueness": div.topic_uniqueness,
        "topic_diversity": div.topic_diversity,
        "shared_top_word_pairs": len(div.shared_top_words),
        "filter_a": not div.shared_top_words,
        "filter_b": div.topic_uniqueness > div.min_uniqueness,
        "passes": not div.redundant,
    }
    return {
        "scores": scores,
        "train_seconds": model.manifest["training"]["seconds"],
        "score_seconds": round(time.perf_counter() - started, 3),
        "top_words": model.top_words(TOPN),
        "model": model,
    }


def select_best(frame: pd.DataFrame) -> dict[str, str | None]:
    """The selected trial of each model type in a results table (:meth:`SweepResult.to_frame`).

    Among the type's trials that finished and pass both redundancy filters, the one with the
    highest NPMI; ties go to the lower trial number. None for a type with no such trial.
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
        ``seed``, ``key``, ``drawn`` (the setting as drawn), ``params`` (as trained),
        ``status`` (``"ok"`` or ``"failed"``), ``attempts``, ``errors``, ``traceback``,
        ``scores``, ``top_words``, ``train_seconds``, ``score_seconds``.
    selected : dict of str to str or None
        The selected trial of each model type (:func:`select_best`).
    trained, resumed : int
        Trials run by this call, and trials whose record an earlier call had written.
    seconds : float
        Wall time of this call.
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
    """One row per trial record: ``trial``, ``model``, ``index``, ``seed``, ``status``, ``attempts``,
    ``error`` (the failed attempts' errors), the scores (:data:`SCORE_COLUMNS`), ``selected``,
    ``train_seconds``, then ``p.NAME`` for each parameter as trained."""
    import pandas as pd

    chosen = set((selected or {}).values())
    rows = []
    for record in records:
        scores = record.get("scores") or {}
        row = {
            "trial": record["trial"],
            "model": record["model"],
            "index": record["index"],
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
    "topic_diversity",
    "shared_top_word_pairs",
    "filter_a",
    "filter_b",
    "passes",
)


def sweep(
    config: SweepConfig | str | os.PathLike[str],
    out: str | os.PathLike[str],
    scheduler: str | None = "local",
    workers: int | None = None,
    force: bool = False,
    progress: ProgressCallback | None = None,
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

    Returns
    -------
    SweepResult
        Also written to ``out``: ``results.parquet``, ``results.csv``, ``trials/``, ``models/``
        and ``manifest.json``.
    """
    from tealeaves.parallel import parallel_completed

    started = time.perf_counter()
    if not isinstance(config, SweepConfig):
        config = SweepConfig.from_toml(config)
    trials = plan(config)  # reads the corpus and the index before the folder is touched
    folder = _open_folder(Path(out), force)
    records = _finished(folder, trials)
    _write_manifest(folder, config, scheduler, workers, "running")
    best = {model: _best(records.values(), model) for model in config.models}
    todo = [trial for trial in trials if trial.trial not in records]
    resumed = len(records)
    notify(progress, "sweep", resumed, len(trials))
    for outcome in parallel_completed(run_trial, todo, workers=workers, scheduler=scheduler, retries=RETRIES):
        trial = todo[outcome.index]
        record = _record(trial, outcome)
        if record["status"] == "ok" and _rank(record) > _rank(best[trial.model]):
            _save_model(folder, trial, record, outcome.value["model"])  # type: ignore[index]
            best[trial.model] = record
        _replace(folder / "trials" / f"{trial.trial}.json", functools.partial(write_json, data=record))
        records[trial.trial] = record
        notify(progress, "sweep", len(records), len(trials), model=trial.model, npmi=record["scores"].get("npmi"))
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
    _write_manifest(folder, config, scheduler, workers, "complete", result)
    return result


def _open_folder(out: Path, force: bool) -> Path:
    """Create the sweep folder, or check that an existing one is a sweep folder (delete it with ``force``)."""
    if out.exists() and not out.is_dir():
        raise ArtifactError(f"output {out} exists and is not a folder; remove it or choose another path")
    if out.exists() and force:
        shutil.rmtree(out)
    if out.exists() and any(out.iterdir()):
        if not (out / MANIFEST).is_file():
            raise ArtifactError(f"{out} exists and is not a sweep folder; choose another --out or pass --force")
        read_manifest(out, kind="sweep")
    (out / "trials").mkdir(parents=True, exist_ok=True)
    return out


def _finished(folder: Path, trials: Sequence[Trial]) -> dict[str, dict[str, Any]]:
    """The records of planned trials that an earlier run finished; refuses records of another configuration."""
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
                "scoring changed); choose another --out or pass --force to start the sweep over"
            )
        records[trial.trial] = record
    return records


def _record(trial: Trial, outcome: Outcome[dict[str, Any]]) -> dict[str, Any]:
    value = outcome.value or {}
    return json_safe(
        {
            "trial": trial.trial,
            "model": trial.model,
            "index": trial.index,
            "seed": trial.seed,
            "key": trial.key,
            "drawn": trial.drawn,
            "params": trial.params,
            "status": "ok" if outcome.ok else "failed",
            "attempts": outcome.attempts,
            "errors": list(outcome.errors),
            "traceback": outcome.traceback,
            "scores": value.get("scores", {}),
            "top_words": value.get("top_words"),
            "train_seconds": value.get("train_seconds"),
            "score_seconds": value.get("score_seconds"),
        }
    )


def _rank(record: Mapping[str, Any] | None) -> tuple[float, int]:
    """Order of selection: passing both filters, then NPMI, then the lower trial number."""
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
    scheduler: str | None,
    workers: int | None,
    status: str,
    result: SweepResult | None = None,
) -> None:
    fields: dict[str, Any] = {
        "status": status,
        "config": config.to_dict(),
        "execution": {"scheduler": scheduler, "workers": workers, "retries": RETRIES},
    }
    if result is not None:
        frame = result.to_frame()
        fields["stats"] = {
            "trials": len(frame),
            "ok": int((frame["status"] == "ok").sum()),
            "failed": int((frame["status"] == "failed").sum()),
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


def _steps_param(model: str) -> str | None:
    accepted = trainer_params(model)
    return next((name for name in STEPS if name in accepted), None)


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)
