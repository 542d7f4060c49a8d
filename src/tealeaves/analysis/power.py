"""Power analysis by simulation for human evaluations (Hoyle et al. 2021, Appendix A.5 and A.5.1).

The generative model of annotations (Feiveson 2002's power by simulation):

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
:func:`annotators_needed` finds the smallest :math:`M` reaching the wanted power (the paper:
about 15 for ratings and 25 for intrusion at power 0.9, alpha 0.05, r = 4, K = 50).
:func:`equivalence_margin` reproduces A.5.1: with no true difference, the smallest margin
:math:`\\epsilon` for which the non-superiority test rejects with probability above the power.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tealeaves.analysis.significance import Alternative, mann_whitney_counts, proportion_test, t_test_moments
from tealeaves.errors import InputError
from tealeaves.results import Result

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
    try:
        return TASK_ALIASES[task]
    except KeyError:
        raise InputError(f"task must be 'intrusion' or 'rating', got {task!r}") from None


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

    ``annotators`` is :math:`M` per topic, ``k`` the topics per model, ``effect`` :math:`r`.
    Intrusion uses the two-proportion z-test, ratings the Mann-Whitney U test. The simulations
    draw from the ``"simulate power"`` stream family under ``seed``
    (:func:`tealeaves.rng.family_generator`).
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    task = _task(task)
    if annotators < 1 or k < 1 or not 0 <= effect <= k or n_sim < 1 or not 0 < alpha < 1:
        raise InputError("need annotators >= 1, k >= 1, 0 <= effect <= k, n_sim >= 1 and 0 < alpha < 1")
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
    """Smallest number of annotators per topic whose simulated power reaches ``power``.

    Every candidate :math:`M` is simulated with the same ``seed`` (common random numbers), and
    :math:`M` is scanned upward from 1, so the answer is the first :math:`M` at the target.
    With the defaults (the paper's setting) this returns about 25 for intrusion and 15 for
    ratings (Hoyle et al. 2021, A.5) in well under a second.
    """
    if not 0 < power < 1:
        raise InputError(f"power must lie in (0, 1), got {power}")
    for m in range(1, max_annotators + 1):
        if simulate_power(task, m, k=k, effect=effect, alpha=alpha, n_sim=n_sim, seed=seed) >= power:
            return m
    raise InputError(
        f"even {max_annotators} annotators per topic do not reach power {power} for effect {effect} with "
        f"k={k}; raise max_annotators or the effect size"
    )


def annotators_for_study(
    task: str, items_per_model: int, *, power: float = 0.9, alpha: float = 0.05, effect: int | float = 0.08
) -> tuple[int, int]:
    """Answers per item for a study design, and the effect it is powered for.

    The power analysis of Hoyle et al. 2021 (A.5) for a study of ``task`` (``"rating"``, or a
    word- or topic-intrusion task) with ``items_per_model`` items per model: the fewest
    annotators per item with which the one-tailed test finds, with probability ``power`` at
    level ``alpha``, a model with ``effect`` fewer coherent items, a count (``4``) or a share of
    the items (``0.08``: Hoyle et al.'s 4 of 50). Returns ``(annotators, fewer)``, ``fewer``
    being that count, kept within [1, items_per_model].
    """
    if items_per_model < 1:
        raise InputError(f"a study needs at least one item per model, got {items_per_model}")
    fewer = effect if isinstance(effect, int) else round(effect * items_per_model)
    fewer = min(max(fewer, 1), items_per_model)
    kind = "rating" if task == "rating" else "intrusion"
    return annotators_needed(kind, power=power, alpha=alpha, effect=fewer, k=items_per_model), fewer


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
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    task = _task(task)
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
    """Power for each :math:`M` in ``annotators`` (same seed for every point)."""
    task = _task(task)
    rows = [
        {"annotators": int(m), "power": simulate_power(task, int(m), k, effect, alpha, n_sim, seed)} for m in annotators
    ]
    return PowerCurve(task, k, effect, alpha, pd.DataFrame(rows))
