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

from tealeaves.errors import InputError, is_real
from tealeaves.rng import family_generator


@dataclass(frozen=True)
class Choice:
    """One of ``values``, each with probability ``1 / len(values)``.

    Attributes
    ----------
    values : tuple
        The values (a finite range of Table 8, or one fixed value).

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.model_selection.space import Choice
    >>> epochs = Choice((200, 500))
    >>> epochs.draw(np.random.default_rng(0)) in (200, 500)
    True
    >>> epochs.to_dict()  # as a configuration writes it
    {'choice': [200, 500]}
    """

    values: tuple[Any, ...]

    def draw(self, rng: np.random.Generator) -> Any:
        """One of the values, drawn with ``rng``."""
        return self.values[int(rng.integers(len(self.values)))]

    def to_dict(self) -> dict[str, Any]:
        """The range as a configuration writes it."""
        return {"choice": list(self.values)}


@dataclass(frozen=True)
class Uniform:
    """A float uniform on ``[low, high)``.

    Attributes
    ----------
    low, high : float
        The bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.model_selection.space import Uniform
    >>> dropout = Uniform(0.0, 0.5)
    >>> 0.0 <= dropout.draw(np.random.default_rng(0)) < 0.5
    True
    >>> dropout.to_dict()
    {'uniform': [0.0, 0.5]}
    """

    low: float
    high: float

    def draw(self, rng: np.random.Generator) -> float:
        """A value drawn with ``rng``."""
        return float(rng.uniform(self.low, self.high))

    def to_dict(self) -> dict[str, Any]:
        """The range as a configuration writes it."""
        return {"uniform": [self.low, self.high]}


@dataclass(frozen=True)
class LogUniform:
    """A float whose logarithm is uniform on ``[log low, log high)`` (``0 < low < high``).

    Attributes
    ----------
    low, high : float
        The bounds.

    Examples
    --------
    Each decade of a learning rate between 0.0001 and 0.1 is drawn equally often:

    >>> import numpy as np
    >>> from tealeaves.model_selection.space import LogUniform
    >>> rate = LogUniform(1e-4, 1e-1)
    >>> rng = np.random.default_rng(0)
    >>> draws = np.array([rate.draw(rng) for _ in range(3000)])
    >>> [round(float(np.mean(draws < bound)), 1) for bound in (1e-3, 1e-2)]  # 1/3, 2/3
    [0.3, 0.7]
    >>> rate.to_dict()
    {'log_uniform': [0.0001, 0.1]}
    """

    low: float
    high: float

    def draw(self, rng: np.random.Generator) -> float:
        """A value drawn with ``rng``."""
        return float(math.exp(rng.uniform(math.log(self.low), math.log(self.high))))

    def to_dict(self) -> dict[str, Any]:
        """The range as a configuration writes it."""
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

SCALED_WITH_STEPS = ("gamma_bn", "gamma_kl", "optimize_burn_in", "optimize_interval")
"""Parameters counted in a trainer's steps (D-VAE's annealing epochs, G-LDA's burn-in and
optimisation interval in sweeps): a cap on the steps scales them by the same factor."""

GRID_LIMIT = 1_000_000  # a finite space with more settings than this is refused (use continuous ranges)
REJECTIONS = 1000  # draws of a continuous space that may break the constraints before giving up


def parse_distribution(value: Any, where: str = "range") -> Distribution:
    """A range as a configuration writes it: a list of values or a one-key table, or one fixed value.

    Parameters
    ----------
    value : list, dict or scalar
        ``[v1, v2, ...]``, ``{"choice": [...]}``, ``{"uniform": [low, high]}``,
        ``{"log_uniform": [low, high]}``, or one value.
    where : str, optional
        Where the range was read, for error messages.

    Returns
    -------
    Choice, Uniform or LogUniform

    Raises
    ------
    InputError
        For an unknown distribution, an empty choice or bad bounds.

    Examples
    --------
    >>> from tealeaves.model_selection.space import parse_distribution
    >>> parse_distribution([0.01, 0.1])
    Choice(values=(0.01, 0.1))
    >>> parse_distribution({"log_uniform": [1e-4, 1e-1]})
    LogUniform(low=0.0001, high=0.1)
    >>> parse_distribution("last")  # a fixed value
    Choice(values=('last',))
    """
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
    if not (isinstance(bounds, list) and len(bounds) == 2 and all(is_real(b) for b in bounds)):
        raise InputError(f"{where}: {kind} needs [low, high], got {bounds!r}")
    low, high = float(bounds[0]), float(bounds[1])
    if not low < high or (kind == "log_uniform" and low <= 0):
        raise InputError(f"{where}: {kind} needs {'0 < ' if kind == 'log_uniform' else ''}low < high, got {bounds}")
    return Uniform(low, high) if kind == "uniform" else LogUniform(low, high)


def parse_constraint(value: Any, where: str = "constraint") -> Constraint:
    """A constraint as a configuration writes it: ``[parameter, operator, parameter]``.

    Parameters
    ----------
    value : list or tuple of str
        The parameter, one of ``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=``, and the other
        parameter.
    where : str, optional
        Where the constraint was read, for error messages.

    Returns
    -------
    tuple of (str, str, str)

    Raises
    ------
    InputError
        For anything else, or an unknown operator.

    Examples
    --------
    >>> from tealeaves.model_selection.space import parse_constraint
    >>> parse_constraint(["gamma_bn", "<", "epochs"])
    ('gamma_bn', '<', 'epochs')
    >>> parse_constraint(["gamma_bn", "<<", "epochs"])
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: constraint: unknown operator '<<'; use one of < <= > >= == !=
    """
    if not (isinstance(value, (list, tuple)) and len(value) == 3 and all(isinstance(v, str) for v in value)):
        raise InputError(f"{where} must be [parameter, operator, parameter], got {value!r}")
    if value[1] not in OPERATORS:
        raise InputError(f"{where}: unknown operator {value[1]!r}; use one of {' '.join(OPERATORS)}")
    return (value[0], value[1], value[2])


def satisfies(setting: Mapping[str, Any], constraints: Sequence[Constraint]) -> bool:
    """Whether ``setting`` meets every constraint (``runs/hyper.py``'s ``apply_constraints``).

    Parameters
    ----------
    setting : mapping
        Parameter values by name (every parameter a constraint names).
    constraints : sequence of (str, str, str)
        ``(parameter, operator, parameter)`` triples.

    Returns
    -------
    bool

    Examples
    --------
    >>> from tealeaves.model_selection import CONSTRAINTS
    >>> from tealeaves.model_selection.space import satisfies
    >>> satisfies({"gamma_bn": 100, "gamma_kl": 100, "epochs": 200}, CONSTRAINTS["dvae"])
    True
    >>> satisfies({"gamma_bn": 200, "gamma_kl": 100, "epochs": 200}, CONSTRAINTS["dvae"])  # γ_BN = epochs
    False
    """
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

    Parameters
    ----------
    space : mapping of str to Choice, Uniform or LogUniform
        The ranges (:data:`SPACES`, or a configuration's).
    n : int
        Settings wanted.
    seed : int
        The root of the draws.
    model : str
        The trainer's name (it names the stream families).
    constraints : sequence of (str, str, str), optional
        :data:`CONSTRAINTS` of the model, or a configuration's.
    replicates : int, optional
        Run seeds in the grid.
    defaults : mapping, optional
        The trainer's default parameters, for constraints on a parameter ``space`` lacks.

    Returns
    -------
    list of (dict, int)
        Each setting's parameters and replicate number.

    Raises
    ------
    InputError
        When a constraint names a parameter without a value, ``replicates`` is below 1, the
        grid is too large or no setting meets the constraints.

    Examples
    --------
    D-VAE's grid of Table 8 has 384 parameter settings; with three run seeds and less those
    that break γ_BN < epochs or γ_KL < epochs, three drawn without replacement:

    >>> from tealeaves.model_selection import CONSTRAINTS, SPACES, draw_settings
    >>> for params, replicate in draw_settings(SPACES["dvae"], 3, 0, "dvae", CONSTRAINTS["dvae"], replicates=3):
    ...     print(params, replicate)
    {'alpha': 0.001, 'learning_rate': 0.01, 'beta_reg': 0.0, 'gamma_bn': 1, 'gamma_kl': 100, 'epochs': 200} 2
    {'alpha': 0.001, 'learning_rate': 0.01, 'beta_reg': 0.1, 'gamma_bn': 100, 'gamma_kl': 100, 'epochs': 500} 0
    {'alpha': 0.001, 'learning_rate': 0.01, 'beta_reg': 1.0, 'gamma_bn': 0, 'gamma_kl': 100, 'epochs': 200} 2

    A continuous range is drawn setting by setting:

    >>> from tealeaves.model_selection.space import Choice, LogUniform
    >>> space = {"alpha": Choice((0.1, 1.0)), "learning_rate": LogUniform(1e-3, 1e-1)}
    >>> [(params["alpha"], round(params["learning_rate"], 4)) for params, _ in draw_settings(space, 2, 0, "demo")]
    [(0.1, 0.0098), (0.1, 0.0439)]
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
    so that D-VAE's annealing ends, and G-LDA's optimisation of α and β starts, at the same share
    of training as drawn, and G-LDA re-estimates them as many times: a value of 0 stays 0 (no
    annealing, no optimisation), any other becomes ``round(value * cap / S)``, at least 1, and at
    most ``cap - 1`` when the drawn value was below ``S`` (the constraint γ < epochs holds after
    the cap too, for ``cap >= 2``). A setting within the cap is trained as drawn.

    Parameters
    ----------
    drawn : mapping
        The setting as drawn.
    steps : str
        The parameter counting the trainer's passes: ``"iterations"`` or ``"epochs"``.
    cap : int
        The most steps to train.
    defaults : mapping
        The trainer's default parameters (for a step count or γ the setting does not draw).

    Returns
    -------
    dict
        The parameters to train with.

    Examples
    --------
    500 epochs capped at 50: the annealing epochs are scaled by 1/10.

    >>> from tealeaves.model_selection import cap_steps
    >>> cap_steps({"epochs": 500, "gamma_bn": 200, "gamma_kl": 100}, "epochs", 50, {})
    {'epochs': 50, 'gamma_bn': 20, 'gamma_kl': 10}
    >>> cap_steps({"epochs": 200, "gamma_bn": 0}, "epochs", 50, {"gamma_kl": 100})  # 0 stays 0
    {'epochs': 50, 'gamma_bn': 0, 'gamma_kl': 25}
    >>> cap_steps({"epochs": 40}, "epochs", 50, {})  # within the cap: as drawn
    {'epochs': 40}

    G-LDA's 1,000 sweeps capped at 200: MALLET's burn-in (200 sweeps) and interval scale by 1/5.

    >>> cap_steps({"iterations": 1000, "optimize_interval": 10}, "iterations", 200, {"optimize_burn_in": 200})
    {'iterations': 200, 'optimize_interval': 2, 'optimize_burn_in': 40}
    """
    params = dict(drawn)
    total = params.get(steps, defaults.get(steps))
    if total is None or total <= cap:
        return params
    params[steps] = cap
    for name in SCALED_WITH_STEPS:
        if name not in params and name not in defaults:
            continue
        value = params[name] if name in params else defaults[name]
        if value == 0:
            scaled = 0
        else:
            scaled = max(1, round(value * cap / total))
            if value < total:
                scaled = min(scaled, max(1, cap - 1))
        params[name] = scaled
    return params
