"""Power analysis by simulation for human evaluations: the topic-level test, and Hoyle et al.'s.

Two simulations (Feiveson 2002's power by simulation), each of the test it sizes:

**The topic-level test** (:func:`topic_level_power`, :func:`annotators_for_study`, what
``tealeaves study create`` uses): the study analysis compares models with the topic as the unit,
Welch's two-sided t on the per-topic scores (:func:`tealeaves.analysis.compare_models`), so the
simulation draws answers clustered by topic and by annotator and runs that test:

- topic :math:`k` of a model has a true score :math:`\\theta_k = l + s\\,B_k`,
  :math:`B_k \\sim \\mathrm{Beta}` with the mean and the between-topic standard deviation measured
  on Hoyle et al. 2021's released judgments (:data:`HOYLE_SPREAD`: 300 topics a task, the
  method-of-moments estimate :math:`\\hat\\tau^2 = \\mathrm{var}(\\bar y_k) - \\overline{s_k^2/n_k}`);
  :math:`l` is the lowest answer and :math:`s` the number of steps of the scale (intrusion:
  0/1, :math:`s = 1`; 3-point ratings: 1..3, :math:`s = 2`);
- MODEL B has ``effect`` of its :math:`K` topics incoherent (score 1/6 for intrusion, chance
  among six words; 1.25 for ratings: A.5's answer probabilities of a 1-rated topic), the rest
  drawn as MODEL A's;
- each topic gets :math:`M` answers from :math:`M` of the study's :math:`J = \\lceil M/\\text{share}
  \\rceil` annotators (each annotator answers ``share`` of the items, 25% by default; topic
  :math:`k` gets annotators :math:`o_k, o_k + 1, \\dots, o_k + M - 1 \\bmod J` from a random
  start :math:`o_k`), annotator :math:`j` shifting every score by :math:`a_j \\sim N(0,
  \\sigma_a^2)` (:math:`\\sigma_a^2`: the variance of the annotators' mean residuals
  from the topic means, less its sampling part); an answer is
  :math:`l + \\mathrm{Binomial}(s, q)`, :math:`q = \\min(1, \\max(0, (\\theta_k + a_j - l)/s))`;
- the per-topic score is the mean of its answers (model precision, mean rating), and the test
  Welch's two-sided t at :math:`\\alpha` divided by the number of model pairs (Holm's first
  level, as the analysis' detectable difference).

With unlimited answers the per-topic scores are the :math:`\\theta_k` themselves: the power
then reached (the *ceiling*) is the most any number of annotators gives, set by the topics per
model and the between-topic spread. Beyond it, only more topics per model help.

**Hoyle et al. 2021's pooled tests** (Appendix A.5 and A.5.1; :func:`simulate_power`,
:func:`annotators_needed`, :func:`power_curve`, :func:`equivalence_margin`), kept for replicating
the paper, which treat the answers as independent:

- Word intrusion: topic :math:`k` of MODEL A has a latent label :math:`z_k \\sim Bern(0.5)`
  (coherent or not); MODEL B has :math:`r` fewer coherent topics. Each of :math:`M` annotators
  finds the intruder with probability :math:`p_{z_k}` (:math:`p_0 = 1/6`, chance among six words;
  :math:`p_1 = 0.85`, from Chang et al. 2009). The test is the one-tailed two-proportion z-test
  on the :math:`K M` answers of each model.
- Ratings (3-point): :math:`z_k \\sim Cat(1/3, 1/3, 1/3)`; MODEL B has :math:`r` fewer 3-rated
  and :math:`r` more 1-rated topics. Annotators answer with probabilities :math:`p_1 = (3/4, 1/4,
  0)`, :math:`p_2 = (1/4, 2/4, 1/4)`, :math:`p_3 = (0, 1/4, 3/4)`; the test is the one-tailed
  Mann-Whitney U test.

Power is the share of simulations in which the test is significant at ``alpha``;
:func:`annotators_needed` finds the smallest :math:`M` reaching the wanted power: 12 for
ratings and 22 for intrusion at power 0.9, alpha 0.05, r = 4, K = 50. Hoyle et al. collected 15
and 26 answers per item, where this simulation gives power 0.96 and 0.94.
:func:`equivalence_margin` reproduces A.5.1: with no true difference, the smallest margin
:math:`\\epsilon` for which the non-superiority test rejects with probability above the power.
These pooled tests reject true nulls far above their level once topics differ in quality
(:mod:`tealeaves.analysis.comparison`), so their "power" is not what a study analysed by
topic will have.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tealeaves.errors import InputError, check_each, is_count, is_level, is_real
from tealeaves.results import Result
from tealeaves.stats.tests import Alternative, mann_whitney_counts, proportion_test, t_test_moments, welch_test
from tealeaves.study.tasks.registry import task_named

TASK_ALIASES = {
    "intrusion": "word-intrusion",
    "word-intrusion": "word-intrusion",
    "rating": "rating",
    "ratings": "rating",
}


@dataclass(frozen=True)
class AnnotationModel:
    """Answer probabilities of the simulation: per latent label, the distribution of answers.

    ``probabilities[z]`` is the answer distribution of a topic with label ``z``; answers are
    ``0 .. len - 1`` (intrusion: missed / found; ratings: 1 / 2 / 3 as 0 / 1 / 2).
    ``label_probabilities`` is the prior of the labels.
    """

    probabilities: np.ndarray
    label_probabilities: np.ndarray


INTRUSION = AnnotationModel(np.array([[5 / 6, 1 / 6], [0.15, 0.85]]), np.array([0.5, 0.5]))
RATINGS = AnnotationModel(
    np.array([[0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]]), np.array([1 / 3, 1 / 3, 1 / 3])
)


def _task(task: str) -> str:
    if isinstance(task, str) and task in TASK_ALIASES:
        return TASK_ALIASES[task]
    raise InputError(f"task must be 'intrusion' or 'rating', got {task!r}")


def _labels(task: str, k: int, effect: int, n_sim: int, rng: np.random.Generator, same: bool):
    """Per simulation, how many topics of each label models A and B have (n_sim x labels)."""
    model = INTRUSION if task == "word-intrusion" else RATINGS
    a = rng.multinomial(k, model.label_probabilities, size=n_sim)
    b = a.copy()
    if not same:
        b[:, -1] -= effect  # r fewer top-label topics ...
        b[:, 0] += effect  # ... replaced by bottom-label ones
    valid = b[:, -1] >= 0  # the paper skips draws where A has fewer than r coherent topics
    return model, a[valid], b[valid]


def _answers(model: AnnotationModel, labels: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """Answer counts per category of each simulated model: sum over labels of multinomials."""
    out = np.zeros((labels.shape[0], model.probabilities.shape[1]), dtype=np.int64)
    for z, p in enumerate(model.probabilities):
        out += rng.multinomial(labels[:, z] * m, p)
    return out


def _pvalues(task: str, a: np.ndarray, b: np.ndarray, alternative: Alternative, value: float, test: str) -> np.ndarray:
    levels = np.arange(a.shape[1], dtype=np.float64)
    if task == "word-intrusion":
        return np.asarray(proportion_test(a[:, 1], a.sum(1), b[:, 1], b.sum(1), alternative, value).pvalue)
    if test == "mann-whitney":
        return np.asarray(mann_whitney_counts(a, b, alternative).pvalue)
    na, nb = a.sum(1), b.sum(1)
    mean_a, mean_b = a @ levels / na, b @ levels / nb
    var_a = (a @ levels**2 - na * mean_a**2) / (na - 1)
    var_b = (b @ levels**2 - nb * mean_b**2) / (nb - 1)
    return np.asarray(t_test_moments(mean_a, var_a, na, mean_b, var_b, nb, alternative, value).pvalue)


def _check_design(
    owner: str,
    *,
    annotators: int | None,
    k: int,
    least_k: int,
    effect: int,
    n_sim: int,
    alpha: float,
    share: float = 1.0,
    pairs: int = 1,
    allow_none: bool = False,
) -> None:
    """Refuse a power analysis' design value out of its range or of another type, naming the value (NaN is out
    of every range). With ``allow_none``, ``annotators=None`` passes: not chosen yet, or every topic's true
    score known."""
    k_ok = is_count(k, least_k)
    check_each(
        owner,
        [
            (
                is_count(annotators) or (allow_none and annotators is None),
                "annotators >= 1 (a whole number)",
                annotators,
            ),
            (k_ok, f"k >= {least_k} topics per model (a whole number)", k),
            (is_count(effect, 0) and (not k_ok or effect <= k), f"0 <= effect <= k = {k} (a whole number)", effect),
            (is_count(n_sim), "n_sim >= 1 (a whole number)", n_sim),
            (is_level(alpha), "0 < alpha <= 0.5", alpha),
            (is_real(share) and 0 < share <= 1, "0 < share <= 1", share),
            (is_count(pairs), "pairs >= 1 (a whole number)", pairs),
        ],
    )


def simulate_power(
    task: str,
    annotators: int,
    k: int = 50,
    effect: int = 4,
    alpha: float = 0.05,
    n_sim: int = 4000,
    seed: int | np.random.Generator = 0,
) -> float:
    """Simulated power of the one-tailed test of MODEL A > MODEL B (Hoyle et al. 2021, A.5).

    Hoyle et al.'s pooled test, answers taken as independent: for replicating the paper. The
    power of the topic-level test a study is analysed with is :func:`topic_level_power`'s.

    ``annotators`` is :math:`M` per topic, ``k`` the topics per model, ``effect`` :math:`r`.
    Intrusion uses the two-proportion z-test, ratings the Mann-Whitney U test. The simulations
    draw from the ``"simulate power"`` stream family under ``seed``
    (:func:`tealeaves.rng.family_generator`).

    Parameters
    ----------
    task : {"intrusion", "rating"}
        Word intrusion or 3-point ratings (``"word-intrusion"`` and ``"ratings"`` are accepted).
    annotators : int
        Answers per topic, :math:`M`.
    k : int, optional
        Topics per model.
    effect : int, optional
        :math:`r`, MODEL B's fewer coherent topics.
    alpha : float, optional
        The test's level.
    n_sim : int, optional
        Simulated studies.
    seed : int or numpy.random.Generator, optional
        Seed of the simulations.

    Returns
    -------
    float
        The share of simulations in which the test rejects.

    Raises
    ------
    InputError
        For an unknown task or a parameter out of range.

    Examples
    --------
    Hoyle et al.'s design: 50 topics per model, 4 fewer coherent in MODEL B, 15 ratings a topic
    (their A.5 found power 0.9 at about 15):

    >>> from tealeaves.analysis import simulate_power
    >>> simulate_power("rating", 15, k=50, effect=4)
    0.96325
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    task = _task(task)
    _check_design("the power analysis", annotators=annotators, k=k, least_k=1, effect=effect, n_sim=n_sim, alpha=alpha)
    rng = family_generator(seed, "simulate power")
    model, a, b = _labels(task, k, effect, n_sim, rng, same=False)
    pvalues = _pvalues(
        task, _answers(model, a, annotators, rng), _answers(model, b, annotators, rng), "greater", 0.0, "mann-whitney"
    )
    return float(np.mean(pvalues < alpha))


def annotators_needed(
    task: str,
    power: float = 0.9,
    alpha: float = 0.05,
    effect: int = 4,
    k: int = 50,
    seed: int = 0,
    n_sim: int = 4000,
    max_annotators: int = 500,
) -> int:
    """Smallest number of annotators per topic whose simulated power reaches ``power`` (Hoyle et al.'s pooled A.5).

    Every candidate :math:`M` is simulated with the same ``seed`` (common random numbers), and
    :math:`M` is scanned upward from 1, so the answer is the first :math:`M` at the target.
    With the defaults (the paper's setting) this returns 22 for intrusion and 12 for ratings in
    well under a second; Hoyle et al. 2021 (A.5) collected 26 and 15 answers per item.

    Parameters
    ----------
    task : {"intrusion", "rating"}
        Word intrusion or 3-point ratings.
    power : float, optional
        The power wanted.
    alpha : float, optional
        The test's level.
    effect : int, optional
        :math:`r`, MODEL B's fewer coherent topics.
    k : int, optional
        Topics per model.
    seed : int, optional
        Seed of the simulations (the same for every :math:`M`).
    n_sim : int, optional
        Simulated studies per :math:`M`.
    max_annotators : int, optional
        The largest :math:`M` tried.

    Returns
    -------
    int
        :math:`M`.

    Raises
    ------
    InputError
        When ``power`` is outside (0, 1), or no :math:`M` up to ``max_annotators`` reaches it.

    Examples
    --------
    >>> from tealeaves.analysis import annotators_needed
    >>> annotators_needed("intrusion", power=0.9), annotators_needed("rating", power=0.9)  # the paper collected 26, 15
    (22, 12)
    """
    _check_design(
        "the power analysis", annotators=None, k=k, least_k=1, effect=effect, n_sim=n_sim, alpha=alpha, allow_none=True
    )
    check_each(
        "the power analysis",
        [
            (is_real(power) and 0 < power < 1, "0 < power < 1", power),
            (is_count(max_annotators), "max_annotators >= 1 (a whole number)", max_annotators),
        ],
    )
    for m in range(1, max_annotators + 1):
        if simulate_power(task, m, k=k, effect=effect, alpha=alpha, n_sim=n_sim, seed=seed) >= power:
            return m
    raise InputError(
        f"even {max_annotators} annotators per topic do not reach power {power} for effect {effect} with "
        f"k={k}; raise max_annotators or the effect size"
    )


@dataclass(frozen=True)
class TopicSpread:
    """One task's per-topic scores and answers in the topic-level simulation (module docstring).

    ``mean`` and ``sd``: the mean and the between-topic standard deviation of the true per-topic
    score; ``annotator_sd``: :math:`\\sigma_a`; answers are ``low + Binomial(steps, q)``;
    ``incoherent``: the score of an incoherent topic.
    """

    mean: float
    sd: float
    annotator_sd: float
    low: float
    steps: int
    incoherent: float

    def topics(self, rng: np.random.Generator, size: tuple[int, ...]) -> np.ndarray:
        """True per-topic scores :math:`l + s B`, :math:`B` Beta with mean :math:`(\\mu - l)/s` and sd :math:`\\tau/s`."""
        m, v = (self.mean - self.low) / self.steps, (self.sd / self.steps) ** 2
        total = m * (1 - m) / v - 1
        return self.low + self.steps * rng.beta(m * total, (1 - m) * total, size=size)


HOYLE_SPREAD = {
    "word-intrusion": TopicSpread(0.714, 0.217, 0.077, 0.0, 1, 1 / 6),
    "rating": TopicSpread(2.544, 0.407, 0.184, 1.0, 2, 1.25),
}
"""Measured on Hoyle et al. 2021's released responses (``human/hoyle2021``, the per-respondent
CSVs, attention checks left out; 300 topics a task: NYT and WIKI, three models, 50 topics each):
word intrusion, mean model precision 0.714, between-topic sd 0.217 (sd of the observed topic
means 0.226 over about 41 answers a topic), annotator sd 0.077; ratings, mean 2.544, 0.407
(0.424 over about 19 answers), annotator sd 0.184. ``tests/analysis/test_power_topic.py``
recomputes them from the data."""

POWER_SIMULATIONS = 2000
"""Simulated studies per power estimate of :func:`annotators_for_study` (MC SE at most 0.011, 0.0067 at power 0.9)."""


def _spread(task: str) -> TopicSpread:
    """The spread of the task of Hoyle et al. that ``task`` is (or an alias names), or that a study task
    is sized as (:attr:`~tealeaves.study.tasks.HumanTask.sized_as`: topic intrusion, answers right or
    wrong, as word intrusion)."""
    alias = TASK_ALIASES.get(task) if isinstance(task, str) else None
    return HOYLE_SPREAD[alias or task_named(task).sized_as]


def _answer_means(
    spread: TopicSpread, theta: np.ndarray, annotators: int, share: float, rng: np.random.Generator
) -> np.ndarray:
    """Per-topic means of ``annotators`` simulated answers each, crossed annotators (module docstring)."""
    people = max(annotators, int(np.ceil(annotators / share)))
    effects = rng.normal(0.0, spread.annotator_sd, size=(theta.shape[0], people))
    first = rng.integers(people, size=theta.shape)
    who = (first[..., None] + np.arange(annotators)) % people
    shifts = effects[np.arange(theta.shape[0])[:, None, None, None], who]
    q = np.clip((theta[..., None] + shifts - spread.low) / spread.steps, 0.0, 1.0)
    hits = sum((rng.random(q.shape) < q).sum(axis=-1) for _ in range(spread.steps))  # Binomial(steps, q) answers
    return spread.low + hits / annotators


def topic_level_power(
    task: str,
    annotators: int | None,
    k: int = 50,
    effect: int = 4,
    alpha: float = 0.05,
    n_sim: int = POWER_SIMULATIONS,
    seed: int | np.random.Generator = 0,
    share: float = 0.25,
    pairs: int = 1,
) -> float:
    """Simulated power of the study analysis' topic-level test (module docstring).

    Welch's two-sided t on the per-topic scores of two models of ``k`` topics, MODEL B with
    ``effect`` incoherent topics, each topic answered by ``annotators`` of the study's annotators
    (who each answer ``share`` of the items), at level ``alpha / pairs``. ``annotators=None``
    gives the ceiling: the power with unlimited answers per topic. Untestable simulations
    (both models' scores constant) count as not rejected. The simulations draw from the
    ``"topic-level power"`` stream family under ``seed``; the topic scores come first, so every
    ``annotators`` (and the ceiling) sees the same topics (common random numbers).

    Parameters
    ----------
    task : str
        ``"rating"`` or ``"word-intrusion"``, or another study task, sized as the one of these its
        :attr:`~tealeaves.study.tasks.HumanTask.sized_as` names (``"topic-intrusion"``: as word
        intrusion): which of :data:`HOYLE_SPREAD`'s spreads the topic scores and answers follow.
    annotators : int or None
        Answers per topic; None for the ceiling (the true per-topic scores, no answer noise).
    k : int, default 50
        Topics per model.
    effect : int, default 4
        Topics of model B at the incoherent level (Hoyle et al.'s 4 of 50).
    alpha : float, default 0.05
        Level of the test before dividing by ``pairs``.
    n_sim : int, default :data:`POWER_SIMULATIONS`
        Simulated studies; the Monte Carlo SE of the power is at most :math:`0.5/\\sqrt{n_{sim}}`.
    seed : int or Generator, default 0
        Seed of the ``"topic-level power"`` stream family.
    share : float, default 0.25
        Share of the items each annotator answers (annotator effects are crossed with topics).
    pairs : int, default 1
        Model pairs the level is divided among (Holm's first step over :math:`\\binom{M}{2}`).

    Returns
    -------
    float
        The share of simulated studies whose Welch p-value is below ``alpha / pairs``.

    Examples
    --------
    Two rating models of 50 topics, one with 10 incoherent topics: 20 answers a topic come
    close to the power of knowing every topic's true score.

    >>> from tealeaves.analysis import topic_level_power
    >>> topic_level_power("rating", 20, k=50, effect=10, n_sim=400, seed=0)
    0.71
    >>> topic_level_power("rating", None, k=50, effect=10, n_sim=400, seed=0)  # the ceiling
    0.725
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    spread = _spread(task)
    _check_design(
        "the power analysis",
        annotators=annotators,
        k=k,
        least_k=2,
        effect=effect,
        n_sim=n_sim,
        alpha=alpha,
        share=share,
        pairs=pairs,
        allow_none=True,
    )
    rng = family_generator(seed, "topic-level power")
    theta = spread.topics(rng, (n_sim, 2, k))
    theta[:, 1, :effect] = spread.incoherent
    if annotators is None:
        scores = theta
    else:
        chunks = np.array_split(theta, max(1, n_sim * k * annotators // 2_000_000))
        scores = np.concatenate([_answer_means(spread, c, annotators, share, rng) for c in chunks])
    pvalues = np.asarray(welch_test(scores[:, 0], scores[:, 1]).pvalue)
    return float(np.mean(np.nan_to_num(pvalues, nan=1.0) < alpha / pairs))


@dataclass(frozen=True)
class StudySize:
    """The answers per item :func:`annotators_for_study` chose, and what they buy.

    When ``ceiling`` is below ``wanted`` no number of annotators reaches it (:attr:`reachable`
    is false) and ``annotators`` is the fewest whose power is within 0.01 of the ceiling.

    Attributes
    ----------
    annotators : int
        Answers per item.
    fewer : int
        Incoherent items of the alternative the study is sized to find.
    power : float
        The simulated power at ``annotators``.
    ceiling : float
        The power with unlimited answers per item.
    wanted : float
        The power asked for.

    Examples
    --------
    >>> from tealeaves.analysis import annotators_for_study
    >>> size = annotators_for_study("word-intrusion", 50, n_sim=400)  # Hoyle's 4 of 50 topics
    >>> size.reachable, size.fewer, size.ceiling  # no number of answers finds 4 of 50 reliably
    (False, 4, 0.1325)
    """

    annotators: int
    fewer: int
    power: float
    ceiling: float
    wanted: float

    @property
    def reachable(self) -> bool:
        return self.ceiling >= self.wanted


def annotators_for_study(
    task: str,
    items_per_model: int,
    *,
    power: float = 0.9,
    alpha: float = 0.05,
    effect: int | float = 0.08,
    models: int = 2,
    share: float = 0.25,
    seed: int = 0,
    n_sim: int = POWER_SIMULATIONS,
    max_annotators: int = 200,
) -> StudySize:
    """Answers per item for a study design, sized for the topic-level test the analysis runs.

    For a study of ``task`` (``"rating"``, or a word- or topic-intrusion task, sized as word
    intrusion) with ``items_per_model`` items per model, ``models`` models and annotators who
    each answer ``share`` of the items: the fewest answers per item with which Welch's
    two-sided t over items (:func:`topic_level_power`, at Holm's first level
    :math:`\\alpha / \\binom{M}{2}`) finds, with probability ``power``, a model with ``effect``
    more incoherent items, a count (``4``) or a share of the items (``0.08``: Hoyle et al.'s 4
    of 50), kept within [1, items_per_model]. The smallest such number is found by bisection
    over [1, ``max_annotators``] (power grows with the answers; the answers are doubled from 1 until
    the power suffices, then bisected); where even unlimited answers
    fall short of ``power``, the answers whose power is within 0.01 of that ceiling.

    Parameters
    ----------
    task : str
        ``"rating"``, ``"word-intrusion"``, ``"topic-intrusion"`` or a registered study task
        (:func:`topic_level_power`).
    items_per_model : int
        Items (topics) each model contributes to the study.
    power : float, default 0.9
        The power wanted.
    alpha : float, default 0.05
        Level of the study's tests, before Holm's division among the model pairs.
    effect : int or float, default 0.08
        More incoherent items in the worse model: a count (1 to ``items_per_model``), or a share of
        ``items_per_model`` in (0, 1] (at least one item).
    models : int, default 2
        Models in the study.
    share : float, default 0.25
        Share of the items each annotator answers.
    seed : int, default 0
        Seed of the simulations.
    n_sim : int, default :data:`POWER_SIMULATIONS`
        Simulated studies per power estimate.
    max_annotators : int, default 200
        The most answers per item searched.

    Returns
    -------
    StudySize
        The answers per item, the power they give, and the ceiling.

    Raises
    ------
    InputError
        For fewer than two items per model, a power outside (0, 1), or an effect of no item (0 or
        less), a share above 1 or a count above ``items_per_model``.

    Examples
    --------
    100 rating items per model, sized to find a model with a fifth of them incoherent:

    >>> from tealeaves.analysis import annotators_for_study
    >>> annotators_for_study("rating", 100, effect=0.2, n_sim=400)
    StudySize(annotators=4, fewer=20, power=0.9175, ceiling=0.9725, wanted=0.9)
    """
    if not is_count(items_per_model, 2):
        raise InputError(f"a study needs at least two items per model, got {items_per_model!r}")
    check_each(
        "the power analysis",
        [
            (is_real(power) and 0 < power < 1, "0 < power < 1", power),
            (is_count(models), "models >= 1 (a whole number)", models),
            (is_count(max_annotators), "max_annotators >= 1 (a whole number)", max_annotators),
        ],
    )
    count = is_count(effect, 0)
    if not is_real(effect) or not 0 < effect <= (items_per_model if count else 1):
        raise InputError(
            f"effect must be a share of the {items_per_model} items per model in (0, 1] (0.08: Hoyle's 4 of 50) "
            f"or a count from 1 to {items_per_model}, got {effect!r}"
        )
    fewer = int(effect) if count else max(round(effect * items_per_model), 1)  # a share below half an item: one
    pairs = max(1, models * (models - 1) // 2)

    def at(m: int | None) -> float:
        return topic_level_power(task, m, items_per_model, fewer, alpha, n_sim, seed, share, pairs)

    ceiling = at(None)
    goal = power if ceiling >= power else ceiling - 0.01
    low, high = 0, 1  # doubled until power(high) >= goal, then bisected: power(low) < goal <= power(high)
    while high < max_annotators and at(high) < goal:
        low, high = high, min(2 * high, max_annotators)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if at(middle) >= goal else (middle, high)
    return StudySize(high, fewer, at(high), ceiling, power)


def equivalence_margin(
    task: str,
    annotators: int,
    k: int = 50,
    power: float = 0.9,
    alpha: float = 0.05,
    n_sim: int = 4000,
    seed: int = 0,
    step: float = 0.01,
) -> float:
    """Smallest non-superiority margin detectable with ``power`` when models do not differ (A.5.1).

    Both models share their latent labels (:math:`z^{(A)} = z^{(B)}`); for margins
    :math:`\\epsilon` on a grid of ``step``, the one-sided test of :math:`H_0: \\mu_B - \\mu_A \\ge
    \\epsilon` (proportion z-test for intrusion, t-test for ratings on the 1..3 scale) is run on
    every simulation; the answer is the smallest :math:`\\epsilon` whose rejection rate exceeds
    ``power``. The paper reports 0.05 for intrusion and 0.11 for ratings. The simulations draw
    from the ``"equivalence margin"`` stream family under ``seed`` (:func:`tealeaves.rng.family_generator`).

    Parameters
    ----------
    task : {"intrusion", "rating"}
        Word intrusion or 3-point ratings.
    annotators : int
        Answers per topic.
    k : int, optional
        Topics per model.
    power : float, optional
        The rejection rate the margin must exceed.
    alpha : float, optional
        The test's level.
    n_sim : int, optional
        Simulated studies.
    seed : int, optional
        Seed of the simulations.
    step : float, optional
        The grid of margins.

    Returns
    -------
    float
        :math:`\\epsilon`.

    Raises
    ------
    InputError
        When no margin up to 1 reaches ``power``.

    Examples
    --------
    With the paper's 26 intrusion answers and 15 ratings per topic:

    >>> from tealeaves.analysis import equivalence_margin
    >>> equivalence_margin("intrusion", 26), equivalence_margin("rating", 15)  # the paper: 0.05, 0.11
    (0.06, 0.11)
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    task = _task(task)
    _check_design("the power analysis", annotators=annotators, k=k, least_k=1, effect=0, n_sim=n_sim, alpha=alpha)
    check_each(
        "the power analysis",
        [
            (is_real(power) and 0 < power < 1, "0 < power < 1", power),
            (is_real(step) and 0 < step <= 1, "0 < step <= 1", step),
        ],
    )
    rng = family_generator(seed, "equivalence margin")
    model, a, _ = _labels(task, k, 0, n_sim, rng, same=True)
    answers_a, answers_b = _answers(model, a, annotators, rng), _answers(model, a, annotators, rng)
    for epsilon in np.arange(step, 1.0 + step / 2, step):
        pvalues = _pvalues(task, answers_b, answers_a, "smaller", float(epsilon), "t")
        if np.mean(pvalues < alpha) > power:
            return float(round(epsilon, 10))
    raise InputError("no margin up to 1.0 reaches the wanted power; use more annotators or topics")


@dataclass(frozen=True)
class PowerCurve(Result):
    """Simulated power for each number of annotators."""

    task: str
    k: int
    effect: int
    alpha: float
    table: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()


def power_curve(
    task: str, annotators, k: int = 50, effect: int = 4, alpha: float = 0.05, n_sim: int = 4000, seed: int = 0
) -> PowerCurve:
    """Power for each :math:`M` in ``annotators`` (same seed for every point).

    Parameters
    ----------
    task : {"intrusion", "rating"}
        Word intrusion or 3-point ratings.
    annotators : iterable of int
        The values of :math:`M`.
    k : int, optional
        Topics per model.
    effect : int, optional
        :math:`r`, MODEL B's fewer coherent topics.
    alpha : float, optional
        The test's level.
    n_sim : int, optional
        Simulated studies per point.
    seed : int, optional
        Seed of the simulations.

    Returns
    -------
    PowerCurve
        Its ``table`` has ``annotators`` and ``power``, one row per :math:`M`.

    Examples
    --------
    >>> from tealeaves.analysis import power_curve
    >>> curve = power_curve("rating", [5, 10, 15, 20], n_sim=1000)
    >>> curve.table
       annotators  power
    0           5  0.487
    1          10  0.839
    2          15  0.963
    3          20  0.996
    """
    task = _task(task)
    if isinstance(annotators, (str, bytes)) or not isinstance(annotators, Iterable):
        raise InputError(f"annotators must be a list of numbers of annotators, e.g. [5, 10, 15], got {annotators!r}")
    annotators = [int(m) if is_real(m) and float(m).is_integer() else m for m in annotators]  # np.linspace's 5.0
    if not annotators:
        raise InputError("annotators is empty: give the numbers of annotators to simulate, e.g. [5, 10, 15]")
    rows = [{"annotators": m, "power": simulate_power(task, m, k, effect, alpha, n_sim, seed)} for m in annotators]
    return PowerCurve(task, k, effect, alpha, pd.DataFrame(rows))
