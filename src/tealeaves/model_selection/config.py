"""What a sweep trains and how it scores: :class:`SweepConfig`, the TOML file of ``tealeaves sweep``."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tealeaves.artifacts import json_safe
from tealeaves.coherence.redundancy import UNIQUENESS_FILTER_MODELS
from tealeaves.errors import InputError, is_count, is_real
from tealeaves.metrics.options import unknown_keys
from tealeaves.missing import check_on_missing
from tealeaves.model_selection.space import (
    CONSTRAINTS,
    FIXED,
    SPACES,
    Choice,
    Constraint,
    Distribution,
    parse_constraint,
    parse_distribution,
)
from tealeaves.models.hyperparameters import check_distribution, check_hyperparameters
from tealeaves.models.training import check_param_names, check_param_types, trainer_params, trainer_rules

STEPS = ("iterations", "epochs")  # the parameter counting a trainer's passes, capped by ``max_steps``
SCORE_KEYS = ("on_missing", "compat", "filter_topn", "min_uniqueness", "uniqueness_filter")


@dataclass(frozen=True)
class SweepConfig:
    """What a sweep trains and how it scores (the TOML file of ``tealeaves sweep``).

    Attributes
    ----------
    corpus : Path
        The prepared training corpus (a corpus folder).
    reference : Path
        The reference corpus' index (a :class:`~tealeaves.coherence.RefIndex` folder). Hoyle et
        al. score against a reference corpus much larger than the training one (the full
        Wikipedia or NYT collection), not the training documents.
    models : tuple of str
        Trainer names; each needs ranges in :data:`~tealeaves.model_selection.SPACES` or in ``spaces``.
    settings : int
        Settings per model, for this one corpus, drawn without replacement from the model's
        grid (:func:`~tealeaves.model_selection.draw_settings`); a grid with fewer settings runs whole.
        Hoyle et al.'s "164 settings" were drawn from one grid spanning both their data sets
        (``runs/hyper.py --random_runs 164``), about 82 per model per data set: the default.
    replicates : int
        Run seeds in the grid: a setting is the parameters and one of ``replicates`` training
        seeds (the authors' grids list 3 ``run_seeds``).
    k : int
        Topics (Hoyle et al.: 50).
    seed : int
        Root of every draw and every training seed.
    max_steps : dict of str to int
        Per model, a cap on its ``iterations`` or ``epochs``: a setting drawn with more is
        trained with the cap, and the parameters counted in its steps (D-VAE's γ_BN and γ_KL,
        G-LDA's burn-in and optimisation interval) are scaled with it
        (:func:`~tealeaves.model_selection.cap_steps`); the record and the manifest keep both the
        drawn and the trained values. None by default.
    spaces : dict of str to dict
        Per model, ranges that replace or add to ``SPACES`` and ``FIXED`` (G-LDA's topics
        from the last sweep, ``topics_from = "last"``); a fixed value is a one-value
        :class:`~tealeaves.model_selection.space.Choice`.
    constraints : dict of str to tuple
        Per model, constraints ``(parameter, operator, parameter)`` that replace
        :data:`~tealeaves.model_selection.CONSTRAINTS` (D-VAE: γ_BN < epochs, γ_KL < epochs).
    on_missing : str
        How coherence treats a top word the reference index lacks (``"zero"``: it scores 0, as
        the authors' ``nan_to_num``).
    compat : str or None
        Coherence counting (:func:`~tealeaves.coherence.score`): ``"gensim"`` (the default, as
        the authors scored with gensim's ``CoherenceModel``), None (exact counts; ``"exact"``
        in the TOML file) or ``"lau"``.
    filter_topn, min_uniqueness : int, float
        The filters: (a) no two topics with the same top-``filter_topn`` word set, (b) topic
        uniqueness over the top ``filter_topn`` words above ``min_uniqueness`` (5, 0.7).
    uniqueness_filter : tuple of str
        The models filter (b) applies to: ETM only by default, as the authors' notebook; every
        model with ``"all"`` in the TOML file (or all of ``models``).
    batch_trials : int
        At most this many ETM (or D-VAE) trials of one shape trained as one batch on one device
        (:mod:`tealeaves.model_selection.packing`); 1, the default, trains every trial alone.
    batch_memory_gb : float
        The device memory one batch may use (GB), by the estimate of
        :func:`tealeaves.models.neural.batched.trial_bytes`.

    Examples
    --------
    A configuration is usually read from its TOML file (paths relative to the file):

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.model_selection import SweepConfig
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "sweep.toml"
    ...     _ = path.write_text(
    ...         'corpus = "corpus"\\nreference = "index"\\nmodels = ["lda-gibbs", "dvae"]\\nsettings = 10\\n'
    ...         "[max_steps]\\ndvae = 50\\n[space.lda-gibbs]\\nbeta = [0.01, 0.1]\\n"
    ...     )
    ...     config = SweepConfig.from_toml(path)
    ...     config.corpus == Path(folder) / "corpus"
    True
    >>> config.models, config.settings, config.k, dict(config.max_steps)
    (('lda-gibbs', 'dvae'), 10, 50, {'dvae': 50})
    >>> config.space("lda-gibbs")["beta"]  # replaces Table 8's range
    Choice(values=(0.01, 0.1))
    >>> config.model_constraints("dvae")  # the authors'
    (('gamma_bn', '<', 'epochs'), ('gamma_kl', '<', 'epochs'))
    """

    corpus: Path
    reference: Path
    models: tuple[str, ...] = ("lda-gibbs", "dvae", "etm")
    settings: int = 82
    replicates: int = 3
    k: int = 50
    seed: int = 0
    max_steps: Mapping[str, int] = field(default_factory=dict)
    spaces: Mapping[str, Mapping[str, Distribution]] = field(default_factory=dict)
    constraints: Mapping[str, tuple[Constraint, ...]] = field(default_factory=dict)
    on_missing: str = "zero"
    compat: str | None = "gensim"
    filter_topn: int = 5
    min_uniqueness: float = 0.7
    uniqueness_filter: tuple[str, ...] = UNIQUENESS_FILTER_MODELS
    batch_trials: int = 1
    batch_memory_gb: float = 8.0

    def __post_init__(self) -> None:
        from tealeaves.coherence.windows import check_compat

        object.__setattr__(self, "corpus", Path(self.corpus))
        object.__setattr__(self, "reference", Path(self.reference))
        object.__setattr__(self, "models", tuple(self.models))
        object.__setattr__(self, "uniqueness_filter", tuple(self.uniqueness_filter))
        if not self.models or len(set(self.models)) != len(self.models):
            raise InputError(f"models must name each model type once, got {list(self.models)}")
        positive = {
            "settings": self.settings,
            "replicates": self.replicates,
            "k": self.k,
            "filter_topn": self.filter_topn,
            "batch_trials": self.batch_trials,
        }
        for name, value in positive.items():
            if not is_count(value):
                raise InputError(f"{name} must be a positive integer, got {value!r}")
        if not is_count(self.seed, 0):
            raise InputError(f"seed must be a non-negative integer, got {self.seed!r}")
        if not (is_real(self.min_uniqueness) and 0 <= self.min_uniqueness <= 1):
            raise InputError(f"min_uniqueness must be a topic uniqueness in [0, 1], got {self.min_uniqueness!r}")
        memory = self.batch_memory_gb
        if not is_real(memory) or not memory > 0:
            raise InputError(f"batch_memory_gb must be a positive number, got {memory!r}")
        check_on_missing(self.on_missing)
        check_compat(self.compat)
        unknown = sorted((set(self.max_steps) | set(self.spaces) | set(self.constraints)) - set(self.models))
        if unknown:
            raise InputError(
                f"max_steps, space or constraints given for {', '.join(unknown)}, which models does not list"
            )
        for model in self.models:
            self._check_space(model)

    def _check_space(self, model: str) -> None:
        accepted = trainer_params(model)  # InputError for an unknown trainer
        space = self.space(model)
        if not space:
            raise InputError(f"no ranges for {model!r}: add a [space.{model}] table to the configuration")
        check_param_names(model, space, accepted)
        rules = trainer_rules(model)
        check_hyperparameters(model, rules, {"k": self.k})  # ctm and the neural trainers need 2 topics
        for name, distribution in space.items():  # types and ranges, before any trial trains
            where = f"space.{model}.{name}"
            for value in getattr(distribution, "values", ()):
                check_param_types(model, {name: value}, accepted)
            if not hasattr(distribution, "values") and not isinstance(accepted[name], float):
                raise InputError(
                    f"{where}: {distribution.to_dict()} draws reals, and {model}'s {name} is not one "
                    f"(its default is {accepted[name]!r}); give a list of values"
                )
            if name in rules:
                check_distribution(model, name, rules[name], distribution, where)
        if model in self.max_steps:
            cap = self.max_steps[model]
            if not is_count(cap):
                raise InputError(f"max_steps for {model} must be a positive integer, got {cap!r}")
            if self.steps_param(model) is None:
                raise InputError(f"max_steps: {model} has neither of the parameters {' nor '.join(STEPS)}")

    def space(self, model: str) -> dict[str, Distribution]:
        """The ranges of ``model``: the authors' fixed settings (``FIXED``) and Table 8's (``SPACES``),
        updated by this configuration's."""
        fixed = {name: Choice((value,)) for name, value in FIXED.get(model, {}).items()}
        return {**fixed, **SPACES.get(model, {}), **self.spaces.get(model, {})}

    def model_constraints(self, model: str) -> tuple[Constraint, ...]:
        """The constraints of ``model``: this configuration's, else the authors' (``CONSTRAINTS``)."""
        return tuple(self.constraints.get(model, CONSTRAINTS.get(model, ())))

    def steps_param(self, model: str) -> str | None:
        """The parameter counting ``model``'s passes (``iterations`` or ``epochs``), if it has one."""
        accepted = trainer_params(model)
        return next((name for name in STEPS if name in accepted), None)

    def scoring(self) -> dict[str, Any]:
        """The scoring options, as each trial records them."""
        return {
            "on_missing": self.on_missing,
            "compat": self.compat,
            "filter_topn": self.filter_topn,
            "min_uniqueness": self.min_uniqueness,
        }

    def to_dict(self) -> dict[str, Any]:
        """The configuration as JSON-safe values (the manifest's ``config``)."""
        return json_safe(
            {
                "corpus": self.corpus,
                "reference": self.reference,
                "models": self.models,
                "settings": self.settings,
                "replicates": self.replicates,
                "k": self.k,
                "seed": self.seed,
                "max_steps": dict(self.max_steps),
                "spaces": {m: {p: d.to_dict() for p, d in self.space(m).items()} for m in self.models},
                "constraints": {m: [list(c) for c in self.model_constraints(m)] for m in self.models},
                **self.scoring(),
                "uniqueness_filter": self.uniqueness_filter,
                "batch_trials": self.batch_trials,
                "batch_memory_gb": self.batch_memory_gb,
            }
        )

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> SweepConfig:
        """Read a TOML configuration; relative paths in it are relative to the file's folder.

        Top-level keys ``corpus``, ``reference`` (required), ``models``, ``settings``,
        ``replicates``, ``k``, ``seed``, ``batch_trials``, ``batch_memory_gb``; tables ``[max_steps]`` (model = cap), ``[score]``
        (``on_missing``, ``compat`` (``"exact"`` for None), ``filter_topn``,
        ``min_uniqueness``, ``uniqueness_filter`` (a list of models or
        ``"all"``)), ``[space.MODEL]`` (parameter = a list of values, ``{uniform = [low,
        high]}``, ``{log_uniform = [low, high]}``, ``{choice = [...]}`` or one fixed value) and
        ``[constraints]`` (model = a list of ``[parameter, operator, parameter]``).
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
        known = {
            "corpus",
            "reference",
            "models",
            "settings",
            "replicates",
            "k",
            "seed",
            "batch_trials",
            "batch_memory_gb",
        }
        known |= {"max_steps", "space", "score", "constraints"}
        unknown_keys(dict(data), known, "the sweep configuration")
        missing = [key for key in ("corpus", "reference") if key not in data]
        if missing:
            raise InputError(
                f"the sweep configuration needs {' and '.join(missing)} (a corpus and a reference index folder)"
            )
        for key in ("corpus", "reference"):
            if not isinstance(data[key], (str, os.PathLike)):
                raise InputError(f"{key} must be a folder's path, got {data[key]!r}")
        score = _table(data, "score")
        unknown_keys(score, SCORE_KEYS, "[score]", top_level=known)
        models = data.get("models", cls.models)
        if isinstance(models, str) or not isinstance(models, Sequence):
            raise InputError(f"models must be a list of trainer names, got {models!r}")
        if score.get("compat") == "exact":
            score["compat"] = None
        chosen = score.get("uniqueness_filter", UNIQUENESS_FILTER_MODELS)
        if chosen == "all":
            chosen = models
        if isinstance(chosen, str) or not isinstance(chosen, Sequence):
            raise InputError(f"uniqueness_filter must be a list of models or 'all', got {chosen!r}")
        score["uniqueness_filter"] = tuple(chosen)
        space = _table(data, "space")
        spaces = {
            model: {
                name: parse_distribution(value, f"space.{model}.{name}")
                for name, value in _table(space, model, f"space.{model}").items()
            }
            for model in space
        }
        constraints = {
            model: tuple(parse_constraint(c, f"constraints.{model}") for c in _rules(rules, model))
            for model, rules in _table(data, "constraints").items()
        }
        return cls(
            corpus=Path(base) / data["corpus"],
            reference=Path(base) / data["reference"],
            models=tuple(models),
            settings=data.get("settings", cls.settings),
            replicates=data.get("replicates", cls.replicates),
            k=data.get("k", cls.k),
            seed=data.get("seed", cls.seed),
            batch_trials=data.get("batch_trials", cls.batch_trials),
            batch_memory_gb=data.get("batch_memory_gb", cls.batch_memory_gb),
            max_steps=_table(data, "max_steps"),
            spaces=spaces,
            constraints=constraints,
            **score,
        )


def _table(data: Mapping[str, Any], key: str, where: str | None = None) -> dict[str, Any]:
    """The table under ``key`` (empty when absent); a refusal naming it where the value is not a table."""
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise InputError(f"[{where or key}] must be a table of KEY = VALUE settings, got {value!r}")
    return dict(value)


def _rules(rules: Any, model: str) -> list[Any]:
    """A model's constraints: a list of ``[parameter, operator, parameter]`` rules."""
    if isinstance(rules, str) or not isinstance(rules, Sequence):
        raise InputError(
            f"constraints.{model} must be a list of [parameter, operator, parameter] rules, e.g. "
            f'[["gamma_bn", "<", "epochs"]], got {rules!r}'
        )
    return list(rules)
