"""The search space of Hoyle et al.'s sweep: Table 8's ranges, the authors' constraints, draws from the grid.

Hoyle et al. (2021, Appendix A.3) draw their settings as their sweep script does
(``runs/hyper.py`` in ahoho/topics, with the grids of ``runs/*-sweep.yml``): the grid is the
product of every parameter's values *and* three run seeds, the settings are drawn from it
uniformly without replacement, and a setting that breaks a constraint of the model
(D-VAE: γ_BN < epochs, γ_KL < epochs) is not run. :func:`draw_settings` draws from the grid of
the settings that satisfy the constraints, which gives the same distribution over settings
with exactly ``n`` of them. A setting here is the parameters and a replicate number (which run
seed of the grid); the trial's training seed is derived from the replicate.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tealeaves.errors import InputError
from tealeaves.rng import family_generator


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
Constraint = tuple[str, str, str]  # (parameter, operator, parameter), as runs/hyper.py writes them

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

FIXED: dict[str, dict[str, Any]] = {
    "lda-gibbs": {"topics_from": "last"},
}
"""Settings the authors ran that Table 8 does not list, fixed in every trial: G-LDA's topics come
from the last Gibbs sweep (gensim's ``LdaMallet`` reads MALLET's final state), not an average. A
configuration's ``[space.MODEL]`` overrides them like any range."""

CONSTRAINTS: dict[str, tuple[Constraint, ...]] = {
    "dvae": (("gamma_bn", "<", "epochs"), ("gamma_kl", "<", "epochs")),
}
"""The authors' constraints on a setting (``constraints`` of ahoho/topics ``runs/dvae-sweep.yml``):
D-VAE anneals batch norm and the KL term over fewer epochs than it trains."""

OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}

SCALED_WITH_STEPS = ("gamma_bn", "gamma_kl")
"""Parameters counted in a trainer's epochs: a cap on the epochs scales them by the same factor."""

GRID_LIMIT = 1_000_000  # a finite space with more settings than this is refused (use continuous ranges)
REJECTIONS = 1000  # draws of a continuous space that may break the constraints before giving up


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


def parse_constraint(value: Any, where: str = "constraint") -> Constraint:
    """A constraint as a configuration writes it: ``[parameter, operator, parameter]``."""
    if not (isinstance(value, (list, tuple)) and len(value) == 3 and all(isinstance(v, str) for v in value)):
        raise InputError(f"{where} must be [parameter, operator, parameter], got {value!r}")
    if value[1] not in OPERATORS:
        raise InputError(f"{where}: unknown operator {value[1]!r}; use one of {' '.join(OPERATORS)}")
    return (value[0], value[1], value[2])


def satisfies(setting: Mapping[str, Any], constraints: Sequence[Constraint]) -> bool:
    """Whether ``setting`` meets every constraint (``runs/hyper.py``'s ``apply_constraints``)."""
    return all(OPERATORS[op](setting[left], setting[right]) for left, op, right in constraints)


def draw_settings(
    space: Space,
    n: int,
    seed: int,
    model: str,
    constraints: Sequence[Constraint] = (),
    replicates: int = 1,
    defaults: Mapping[str, Any] | None = None,
) -> list[tuple[dict[str, Any], int]]:
    """Up to ``n`` settings of ``model``, each ``(parameters, replicate)``.

    When every range is a :class:`Choice`, the grid is every combination of the values and of
    ``replicates`` replicate numbers, less the settings that break ``constraints`` (checked
    on the setting over ``defaults``, the trainer's defaults); the settings are the first ``n``
    of one random order of that grid (``family_generator(seed, "sweep/MODEL/grid")``): drawn
    uniformly without replacement, and the first ones stay the same when ``n`` grows. ``n``
    larger than the grid gives the whole grid. A space with a continuous range cannot be
    enumerated: setting ``i`` is drawn parameter by parameter, in the order of ``space``, from
    ``family_generator(seed, "sweep/MODEL/i")`` (again until it meets the constraints), and its
    replicate uniformly.
    """
    defaults = dict(defaults or {})
    missing = sorted({name for left, _, right in constraints for name in (left, right)} - set(space) - set(defaults))
    if missing:
        raise InputError(f"the constraints of {model} name {', '.join(missing)}, which {model} has no value for")
    if replicates < 1:
        raise InputError(f"replicates must be at least 1, got {replicates}")

    def allowed(setting: dict[str, Any]) -> bool:
        return satisfies({**defaults, **setting}, constraints)

    names = list(space)
    choices = [dist.values for dist in space.values() if isinstance(dist, Choice)]
    if len(choices) == len(names):
        size = math.prod(len(values) for values in choices) * replicates
        if size > GRID_LIMIT:
            raise InputError(f"the grid of {model} has {size:,} settings; give continuous ranges for some parameters")
        grid = [dict(zip(names, combo)) for combo in itertools.product(*choices)]
        pairs = [(setting, r) for setting in grid if allowed(setting) for r in range(replicates)]
        if not pairs:
            raise InputError(f"no setting of {model}'s ranges meets its constraints {list(constraints)}")
        order = family_generator(seed, f"sweep/{model}/grid").permutation(len(pairs))
        return [(dict(pairs[j][0]), pairs[j][1]) for j in order[:n]]
    settings = []
    for i in range(n):
        rng = family_generator(seed, f"sweep/{model}/{i}")
        for _ in range(REJECTIONS):
            setting = {name: dist.draw(rng) for name, dist in space.items()}
            if allowed(setting):
                break
        else:
            raise InputError(f"{REJECTIONS} draws of {model}'s ranges broke its constraints {list(constraints)}")
        settings.append((setting, int(rng.integers(replicates))))
    return settings


def cap_steps(drawn: Mapping[str, Any], steps: str, cap: int, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters to train ``drawn`` with when its ``steps`` (iterations or epochs) are capped at ``cap``.

    A setting drawn with ``S > cap`` steps is trained for ``cap``, and every parameter of
    :data:`SCALED_WITH_STEPS` the trainer has (drawn, or its default) is scaled by ``cap / S``,
    so that the annealing schedules end at the same share of training as drawn: a value of 0
    stays 0 (no annealing), any other becomes ``round(value * cap / S)``, at least 1, and at
    most ``cap - 1`` when the drawn value was below ``S`` (the constraint γ < epochs holds after
    the cap too, for ``cap >= 2``). A setting within the cap is trained as drawn.
    """
    params = dict(drawn)
    total = params.get(steps, defaults.get(steps))
    if total is None or total <= cap:
        return params
    params[steps] = cap
    for name in SCALED_WITH_STEPS:
        if name not in params and name not in defaults:
            continue
        value = params.get(name, defaults[name])
        if value == 0:
            scaled = 0
        else:
            scaled = max(1, round(value * cap / total))
            if value < total:
                scaled = min(scaled, max(1, cap - 1))
        params[name] = scaled
    return params
