"""The ranges of the trainers' hyperparameters, declared once, beside each trainer's ``fit``
(and of Wallach et al.'s estimators' options: ``tealeaves.likelihood.estimators.RULES``).

Each trainer module holds ``RULES``, a :class:`Rule` for each hyperparameter that has a range
or a set of choices. Its ``fit`` checks its arguments against them (:func:`check_hyperparameters`).
:func:`~tealeaves.models.train` (so ``tealeaves train -p``) and a sweep's configuration check
the same rules before any work: a sweep whose ``[space.lda-gibbs]`` draws ``alpha_sum`` from
``{uniform = [-1, 1]}`` is refused when its configuration is read (:func:`check_distribution`),
not at the start of each trial that draws a negative value. A rule's ``also`` names what
gensim, scikit-learn, MALLET or Dieng et al. call the hyperparameter, so that a user who writes
that name is told ours (:func:`named_elsewhere`: ``decay`` is gensim's name for lda-vb's
``kappa``). The modules that hold the rules import neither PyTorch nor gensim, so a neural
trainer's rules are read without them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tealeaves.errors import InputError, is_count, is_real


@dataclass(frozen=True)
class Rule:
    """The values one hyperparameter accepts: a range of integers or of finite reals, or a set of choices.

    Build one with :func:`count`, :func:`real`, :func:`positive` or :func:`one_of`.

    Parameters
    ----------
    low, high : float, optional
        The range's ends; None leaves that side open-ended.
    low_open, high_open : bool
        Whether an end is excluded (``alpha > 0``) rather than included (``iterations >= 1``).
    whole : bool
        Whether the values are integers.
    choices : tuple
        The only values accepted, where the hyperparameter names a method.
    why : str
        Where the range comes from, for the message.
    also : tuple of (str, str)
        The names other tools give the hyperparameter, each with whose name it is (``("decay",
        "gensim's")``): a name given that is one of them is refused with the name to use.

    Examples
    --------
    >>> from tealeaves.models.hyperparameters import real
    >>> kappa = real(0.5, 1, low_open=True, why="Hoffman et al. 2010's condition for convergence")
    >>> kappa.admits(0.7), kappa.admits(0.5), kappa.admits("0.7")
    (True, False, False)
    >>> kappa.describe("kappa")
    "0.5 < kappa <= 1 (Hoffman et al. 2010's condition for convergence)"
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    whole: bool = False
    choices: tuple[Any, ...] = ()
    why: str = ""
    also: tuple[tuple[str, str], ...] = ()

    def admits(self, value: Any) -> bool:
        """Whether ``value`` is of the rule's type and within its range or among its choices."""
        if self.choices:
            return isinstance(value, (str, int, float)) and value in self.choices
        if not (is_count(value, minimum=-(2**63)) if self.whole else is_real(value) and math.isfinite(value)):
            return False
        above = self.low is None or (value > self.low if self.low_open else value >= self.low)
        below = self.high is None or (value < self.high if self.high_open else value <= self.high)
        return above and below

    def describe(self, name: str) -> str:
        """The rule as a message writes it, with what it adds in brackets: ``alpha_sum > 0``,
        ``0 <= dropout < 1``, ``iterations >= 1 (a whole number)``, ``sampler in {auto, dense, sparse}``."""
        reasons = ["a whole number"] * self.whole + [self.why] * bool(self.why)
        reason = f" ({'; '.join(reasons)})" if reasons else ""
        if self.choices:
            return f"{name} in {{{', '.join(map(str, self.choices))}}}{reason}"
        if self.low is not None and self.high is None:  # one-sided: the name first (iterations >= 1)
            return f"{name} {'>' if self.low_open else '>='} {_number(self.low)}{reason}"
        lower = "" if self.low is None else f"{_number(self.low)} {'<' if self.low_open else '<='} "
        upper = "" if self.high is None else f" {'<' if self.high_open else '<='} {_number(self.high)}"
        return f"{lower}{name}{upper}{reason}"

    def covers(self, low: float, high: float) -> bool:
        """Whether every value of ``[low, high)`` is admitted: a sweep's uniform range of reals."""
        return (
            not self.choices
            and not self.whole
            and self.admits(low)
            and (self.high is None or (math.isfinite(high) and high <= self.high))
        )


def count(minimum: int = 1, why: str = "", also: Mapping[str, str] | None = None) -> Rule:
    """Whole numbers of at least ``minimum``: iterations, epochs, batch sizes, workers.

    Parameters
    ----------
    minimum : int
        The smallest value accepted.
    why, also : str and mapping of str to str, optional
        Where the rule comes from and the names other tools give the hyperparameter (:class:`Rule`).

    Returns
    -------
    Rule

    Examples
    --------
    >>> from tealeaves.models.hyperparameters import count
    >>> count(1).admits(200), count(1).admits(0), count(1).admits(2.5)
    (True, False, False)
    """
    return Rule(low=minimum, whole=True, why=why, also=_names(also))


def real(
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    why: str = "",
    also: Mapping[str, str] | None = None,
) -> Rule:
    """Finite reals between ``low`` and ``high``, each end included unless said open.

    Parameters
    ----------
    low, high : float, optional
        The ends; None leaves that side unbounded.
    low_open, high_open : bool
        Whether each end is excluded.
    why, also : str and mapping of str to str, optional
        Where the rule comes from and the names other tools give the hyperparameter (:class:`Rule`).

    Returns
    -------
    Rule

    Examples
    --------
    >>> from tealeaves.models.hyperparameters import real
    >>> dropout = real(0, 1, high_open=True)
    >>> dropout.describe("dropout"), dropout.admits(0.0), dropout.admits(1.0), dropout.admits(float("nan"))
    ('0 <= dropout < 1', True, False, False)
    """
    return Rule(low=low, high=high, low_open=low_open, high_open=high_open, why=why, also=_names(also))


def positive(why: str = "", also: Mapping[str, str] | None = None) -> Rule:
    """Finite reals above 0: priors, learning rates, tolerances.

    Parameters
    ----------
    why, also : str and mapping of str to str, optional
        Where the rule comes from and the names other tools give the hyperparameter (:class:`Rule`).

    Returns
    -------
    Rule

    Examples
    --------
    >>> from tealeaves.models.hyperparameters import positive
    >>> positive().describe("beta"), positive().admits(0.01), positive().admits(0)
    ('beta > 0', True, False)
    """
    return real(0, low_open=True, why=why, also=also)


def one_of(*choices: Any, why: str = "", also: Mapping[str, str] | None = None) -> Rule:
    """Exactly these values: the names of methods.

    Parameters
    ----------
    *choices : str, int or float
        The values accepted.
    why, also : str and mapping of str to str, optional
        Where the rule comes from and the names other tools give the hyperparameter (:class:`Rule`).

    Returns
    -------
    Rule

    Examples
    --------
    >>> from tealeaves.models.hyperparameters import one_of
    >>> method = one_of("batch", "online")
    >>> method.describe("method"), method.admits("online"), method.admits("Online")
    ('method in {batch, online}', True, False)
    """
    return Rule(choices=choices, why=why, also=_names(also))


def check_hyperparameters(kind: str, rules: Mapping[str, Rule], values: Mapping[str, Any]) -> None:
    """Refuse the first of ``values`` that its rule does not admit: ``lda-gibbs needs alpha_sum > 0, got -1``.

    Values without a rule pass (a trainer's ``device``, a corpus); the types of the rest are
    :func:`~tealeaves.models.training.check_param_types`'s to check first, where the defaults
    say them.

    Parameters
    ----------
    kind : str
        The trainer, as the message names it.
    rules : mapping of str to Rule
        The trainer's ``RULES`` (:func:`~tealeaves.models.training.trainer_rules`).
    values : mapping
        The hyperparameters given, by name.

    Raises
    ------
    InputError
        Naming the hyperparameter, its rule (and where the rule comes from) and the value given.

    Examples
    --------
    >>> from tealeaves.models.hyperparameters import check_hyperparameters
    >>> from tealeaves.models.training import trainer_rules
    >>> check_hyperparameters("lda-vb", trainer_rules("lda-vb"), {"iterations": 50, "kappa": 0.5})
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: lda-vb needs 0.5 < kappa <= 1 (Hoffman et al. 2010's condition for the convergence of ρ_t = (τ₀ + t)^-κ), got 0.5
    """
    for name, value in values.items():
        rule = rules.get(name)
        if rule is not None and not rule.admits(value):
            raise InputError(f"{kind} needs {rule.describe(name)}, got {value!r}")


def check_distribution(kind: str, name: str, rule: Rule, distribution: Any, where: str) -> None:
    """Refuse a sweep's range of ``name`` that can draw a value the trainer refuses.

    A choice's every value must be admitted; a uniform or log-uniform range of reals,
    ``[low, high)``, must lie within the rule (an integer's rule takes choices only, as a uniform
    draws reals).

    Parameters
    ----------
    kind : str
        The trainer, as the message names it.
    name : str
        One of its hyperparameters.
    rule : Rule
        Its rule (:func:`~tealeaves.models.training.trainer_rules`).
    distribution : Choice, Uniform or LogUniform
        The range (:func:`~tealeaves.model_selection.space.parse_distribution`).
    where : str
        Where the range was given, for the message (``[space.lda-gibbs] alpha_sum``).

    Raises
    ------
    InputError
        Naming where the range was given, what it draws and the rule.

    Examples
    --------
    >>> from tealeaves.model_selection.space import Uniform
    >>> from tealeaves.models.hyperparameters import check_distribution, positive
    >>> check_distribution("lda-gibbs", "alpha_sum", positive(), Uniform(-1.0, 1.0), "[space.lda-gibbs] alpha_sum")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: [space.lda-gibbs] alpha_sum: {'uniform': [-1.0, 1.0]} draws values lda-gibbs refuses; it needs alpha_sum > 0
    """
    values = getattr(distribution, "values", None)
    if values is not None:
        refused = [value for value in values if not rule.admits(value)]
        if not refused:
            return
        drawn = f"the choice {refused[0]!r} is a value"
    elif rule.covers(distribution.low, distribution.high):
        return
    else:
        drawn = f"{distribution.to_dict()} draws values"
    raise InputError(f"{where}: {drawn} {kind} refuses; it needs {rule.describe(name)}")


ARGUMENTS_ELSEWHERE = {
    "num_topics": ("k", "gensim's, MALLET's and Dieng et al.'s"),
    "n_components": ("k", "scikit-learn's"),
    "random_state": ("seed", "scikit-learn's and gensim's"),
    "random_seed": ("seed", "MALLET's"),
}
"""The names other tools give :func:`~tealeaves.models.train`'s own arguments: name -> (ours, whose)."""


def named_elsewhere(rules: Mapping[str, Rule]) -> dict[str, tuple[str, str]]:
    """Each name other tools give one of a trainer's hyperparameters (its rules' ``also``) or one of
    ``train``'s own arguments (:data:`ARGUMENTS_ELSEWHERE`): name -> (our name, whose name it is).

    Parameters
    ----------
    rules : mapping of str to Rule
        The trainer's rules (:func:`~tealeaves.models.training.trainer_rules`).

    Returns
    -------
    dict of str to (str, str)

    Examples
    --------
    >>> from tealeaves.models.hyperparameters import named_elsewhere
    >>> from tealeaves.models.training import trainer_rules
    >>> named_elsewhere(trainer_rules("lda-vb"))["decay"]
    ('kappa', "gensim's")
    """
    own = {alias: (name, whose) for name, rule in rules.items() for alias, whose in rule.also}
    return {**ARGUMENTS_ELSEWHERE, **own}


def _names(also: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    """A rule's other names as a tuple of pairs (a frozen, hashable rule)."""
    return tuple((also or {}).items())


def _number(value: float) -> str:
    """A range's end as written: 1 rather than 1.0."""
    return str(int(value)) if float(value).is_integer() else str(value)
