"""False discovery and omission rates of automated metrics (Hoyle et al. 2021 §6.2, Table 4, A.5.1).

The resampling procedure of the paper: for each of ``n_iter`` iterations, draw two disjoint sets
of ``k`` topics (without replacement) from a pool, resample every topic's human answers with
replacement (as for Table 3), and treat the two sets as the outputs of two "models". For each
ordered pair (A, B) of the two sets:

- the automated metric *discovers* "A > B" when a one-tailed t-test on the ``k`` metric values
  is significant at ``alpha``;
- the humans find A *equivalent* to B ("no meaningful A > B") when the non-superiority test of
  ``H0: mean_A - mean_B >= margin`` is rejected at ``alpha`` (A.5.1: a two-proportion z-test for
  intrusion answers, a t-test for ratings, both over the ``k x M`` individual answers); the
  margins are the paper's (0.05 for intrusion, 0.11 for 3-point ratings);
- the humans find a *difference* "A > B" when the one-tailed human test is significant, and the
  metric finds A *equivalent* to B when its non-superiority test with the metric's margin (0.05
  for NPMI, 0.06 for C_v) is rejected.

FDR is the share of automated discoveries that the humans find equivalent, times
``false_discovery_weight`` (1 by default); FOR, as the paper computes it, is the share of
human-detected differences that the metric declares equivalent (the metric "omits" a difference
people see). Both are over all iterations and both directions.

``false_discovery_weight`` is the authors' "correction for the probability of type I errors"
(§6.2): their notebook (ahoho/topics ``analysis/regress-auto-metrics.ipynb``, commit 9fc914e, the
last version the repository still holds; its successor ``auto-metric-analysis.ipynb`` was not
retrievable) keeps each discovery with probability 1 − α and then counts it as false only with
probability 1 − β (β = 0.1, the type II error of the 0.9-power design of A.5), at random. In
expectation that multiplies the FDR by 1 − β = 0.9, which is what the weight does, without the
extra Monte Carlo noise of the thinning. The weight applies to the FDR only: applied to the FOR
it moves that column away from the paper (see docs/reproducing.md).

The FOR is steep in the metric's margin: on Hoyle et al.'s topics it moves 1.1-1.9 points per
0.001 of it, while the FDR does not involve it. The margins A.5.1 prints (0.05, 0.06) are
rounded results of a simulation; margins within that rounding (NPMI 0.047-0.050, C_v
0.058-0.063 by dataset) reproduce the paper's FOR column within its Monte Carlo error, which
the printed ones do not (docs/reproducing.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tealeaves.analysis.correlation import RaggedScores
from tealeaves.errors import InputError, check_each, describe, is_count, is_level, is_real
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Result
from tealeaves.stats.resampling import random_orders, within_group_draws
from tealeaves.stats.tests import Alternative, proportion_test, t_test, t_test_moments

HUMAN_MARGINS = {"word-intrusion": 0.05, "rating": 0.11}  # Hoyle et al. 2021, A.5.1
"""The humans' non-superiority margins of Hoyle et al. 2021 (A.5.1), by task: 0.05 of model
precision for word intrusion, 0.11 of a mean 3-point rating."""
METRIC_MARGINS = {"NPMI": 0.05, "Cv": 0.06}  # Hoyle et al. 2021, A.5.1
"""The automated metrics' non-superiority margins of Hoyle et al. 2021 (A.5.1): 0.05 for NPMI,
0.06 for C_v (the ``metric_margins`` of :func:`false_discovery_rates`)."""


@dataclass(frozen=True)
class HumanSets:
    """Per iteration, the summed answers of each set: sum, sum of squares and count (arrays n_iter)."""

    total: np.ndarray
    squares: np.ndarray
    count: np.ndarray

    def mean(self) -> np.ndarray:
        return self.total / self.count

    def var(self) -> np.ndarray:
        return (self.squares - self.total**2 / self.count) / (self.count - 1)


def human_test(task: str, a: HumanSets, b: HumanSets, alternative: Alternative, value: float) -> np.ndarray:
    """p-values of the human test of A against B: proportion z-test (intrusion) or t-test (ratings)."""
    if task == "word-intrusion":
        return np.asarray(proportion_test(a.total, a.count, b.total, b.count, alternative, value).pvalue)
    if task == "rating":
        return np.asarray(
            t_test_moments(a.mean(), a.var(), a.count, b.mean(), b.var(), b.count, alternative, value).pvalue
        )
    raise InputError(f"task must be 'word-intrusion' or 'rating', got {task!r}")


def discovery_outcomes(
    task: str,
    human_a: HumanSets,
    human_b: HumanSets,
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human_margin: float,
    metric_margin: float,
    alpha: float = 0.05,
) -> dict[str, np.ndarray]:
    """The four test outcomes for "A > B" per iteration (rows of ``metric_a``/``metric_b``, k columns)."""
    return {
        "discovery": np.asarray(t_test(metric_a, metric_b, "greater").pvalue) < alpha,
        "metric_equivalent": np.asarray(t_test(metric_a, metric_b, "smaller", metric_margin).pvalue) < alpha,
        "human_difference": human_test(task, human_a, human_b, "greater", 0.0) < alpha,
        "human_equivalent": human_test(task, human_a, human_b, "smaller", human_margin) < alpha,
    }


@dataclass(frozen=True)
class DiscoveryRates(Result):
    """FDR and FOR per metric column with the counts they are ratios of.

    Attributes
    ----------
    task : str
        ``"word-intrusion"`` or ``"rating"``.
    k : int
        Topics per set.
    n_iter : int
        Iterations (each tests both directions).
    alpha : float
        The level of every test.
    human_margin : float
        The humans' non-superiority margin.
    table : pandas.DataFrame
        One row per metric column: ``metric_column``, ``fdr``, ``for``, and the counts
        ``discoveries``, ``false_discoveries``, ``human_differences``, ``false_omissions``.
    false_discovery_weight : float
        The weight of a false discovery in ``fdr``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from tealeaves.analysis import METRIC_MARGINS, RaggedScores, false_discovery_rates
    >>> rng = np.random.default_rng(0)
    >>> quality = np.linspace(0.2, 0.9, 12)  # 12 topics; 10 intrusion answers each
    >>> human = RaggedScores([rng.random(10) < q for q in quality])
    >>> metrics = pd.DataFrame({"NPMI": quality / 5 + rng.normal(0, 0.02, 12)})
    >>> rates = false_discovery_rates("word-intrusion", human, metrics, METRIC_MARGINS, k=4, n_iter=200, seed=0)
    >>> rates
    DiscoveryRates(task=word-intrusion, k=4, n_iter=200, alpha=0.05, human_margin=0.05, table=1 row × 7 columns, …)
    """

    task: str
    k: int
    n_iter: int
    alpha: float
    human_margin: float
    table: pd.DataFrame
    false_discovery_weight: float = 1.0

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def to_dict(self) -> dict:
        head = {f: getattr(self, f) for f in ("task", "k", "n_iter", "alpha", "human_margin", "false_discovery_weight")}
        return {**head, "table": self.table.to_dict(orient="records")}


def _set_sums(values: tuple[np.ndarray, np.ndarray], sizes: np.ndarray, members: np.ndarray) -> HumanSets:
    rows = np.arange(members.shape[0])[:, None]
    total = values[0][rows, members].sum(axis=1)
    squares = values[1][rows, members].sum(axis=1)
    return HumanSets(total, squares, sizes[members].sum(axis=1).astype(np.float64))


def _is_margin(value: object) -> bool:
    """Whether ``value`` is a non-superiority margin: a finite number of at least 0."""
    return is_real(value) and math.isfinite(value) and value >= 0


def false_discovery_rates(
    task: str,
    human: RaggedScores,
    metrics: pd.DataFrame,
    metric_margins: dict[str, float],
    k: int = 50,
    n_iter: int = 1000,
    alpha: float = 0.05,
    human_margin: float | None = None,
    seed: int | np.random.Generator = 0,
    progress: ProgressCallback | None = None,
    false_discovery_weight: float = 1.0,
) -> DiscoveryRates:
    """Hoyle et al.'s resampling estimate of FDR and FOR for every column of ``metrics``.

    Parameters
    ----------
    task : {"word-intrusion", "rating"}
        Answers 0/1 (intruder found), or ratings.
    human : RaggedScores
        Every pool topic's human answers (rows of ``metrics`` in the same order).
    metrics : pandas.DataFrame
        One column per automated metric; a missing value is an error here (fill first).
    metric_margins : dict of str to float
        Non-superiority margin of each column (:data:`METRIC_MARGINS` has the paper's).
    k : int, optional
        Topics per "model"; the pool needs at least ``2 k`` topics.
    n_iter : int, optional
        Iterations of the procedure.
    alpha : float, optional
        The level of every test.
    human_margin : float, optional
        Defaults to the paper's margin for the task (:data:`HUMAN_MARGINS`).
    seed : int or numpy.random.Generator, optional
        The resampling draws from the ``"false discovery rates"`` stream family under ``seed``
        (:func:`tealeaves.rng.family_generator`).
    progress : callable, optional
        Called with ``("false discovery rates", done, n_iter)`` after each chunk of iterations.
    false_discovery_weight : float, optional
        The weight of a false discovery in the FDR, in (0, 1]; Hoyle et al.'s analysis: 0.9
        (see the module docstring).

    Returns
    -------
    DiscoveryRates

    Raises
    ------
    InputError
        For an unknown task, misaligned or missing metric values, a pool smaller than
        ``2 k``, a column without a margin or a weight outside (0, 1].

    Examples
    --------
    A pool of 12 topics whose intruder-finding rate rises from 0.2 to 0.9, and an NPMI that
    follows it with noise; two disjoint sets of 4 topics per iteration.

    >>> import numpy as np
    >>> import pandas as pd
    >>> from tealeaves.analysis import METRIC_MARGINS, RaggedScores, false_discovery_rates
    >>> rng = np.random.default_rng(0)
    >>> quality = np.linspace(0.2, 0.9, 12)  # 12 topics; 10 intrusion answers each
    >>> human = RaggedScores([rng.random(10) < q for q in quality])
    >>> metrics = pd.DataFrame({"NPMI": quality / 5 + rng.normal(0, 0.02, 12)})
    >>> rates = false_discovery_rates("word-intrusion", human, metrics, METRIC_MARGINS, k=4, n_iter=200, seed=0)
    >>> rates.table[["discoveries", "false_discoveries", "fdr"]].round(4)  # 2 / 27
       discoveries  false_discoveries     fdr
    0           27                  2  0.0741
    >>> rates.table[["human_differences", "false_omissions", "for"]].round(4)  # 17 / 73
       human_differences  false_omissions     for
    0                 73               17  0.2329
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    if not isinstance(task, str) or task not in HUMAN_MARGINS:
        raise InputError(f"task must be one of {sorted(HUMAN_MARGINS)}, got {task!r}")
    pool = len(human)
    if len(metrics) != pool:
        raise InputError(f"{len(metrics)} metric rows for {pool} topics: they must align")
    if not is_count(k, 2):
        raise InputError(f"k must be a whole number of at least 2 topics a set, got {k!r}")
    if 2 * k > pool:
        raise InputError(f"two disjoint sets of k={k} topics need a pool of at least {2 * k}, got {pool}")
    if metrics.isna().any().any():
        raise InputError("metric values are missing; fill or drop those topics before estimating FDR")
    if not isinstance(metric_margins, Mapping):
        raise InputError(
            "metric_margins must map each metric column to its non-superiority margin (METRIC_MARGINS has the "
            f"paper's), got {describe(metric_margins)}"
        )
    missing = [c for c in metrics.columns if c not in metric_margins]
    if missing:
        raise InputError(f"no non-superiority margin for metric column(s) {missing}")
    check_each(
        "false_discovery_rates",
        [
            *((_is_margin(metric_margins[c]), f"a margin >= 0 for {c}", metric_margins[c]) for c in metrics.columns),
            (human_margin is None or _is_margin(human_margin), "human_margin >= 0", human_margin),
            (is_count(n_iter), "n_iter >= 1 (a whole number)", n_iter),
            (is_level(alpha), "0 < alpha <= 0.5", alpha),
            (
                is_real(false_discovery_weight) and 0 < false_discovery_weight <= 1,
                "0 < false_discovery_weight <= 1",
                false_discovery_weight,
            ),
        ],
    )
    margin = HUMAN_MARGINS[task] if human_margin is None else float(human_margin)
    rng = family_generator(seed, "false discovery rates")
    names = ("discoveries", "false_discoveries", "human_differences", "false_omissions")
    counts = {column: dict.fromkeys(names, 0) for column in metrics.columns}
    done = 0
    while done < n_iter:  # chunks bound the memory of the resampled answers
        size = min(CHUNK, n_iter - done)
        _count_chunk(task, human, metrics, metric_margins, margin, k, size, alpha, rng, counts)
        done += size
        notify(progress, "false discovery rates", done, n_iter)
    rows = [
        {
            "metric_column": column,
            "fdr": false_discovery_weight * c["false_discoveries"] / c["discoveries"] if c["discoveries"] else np.nan,
            "for": c["false_omissions"] / c["human_differences"] if c["human_differences"] else np.nan,
            **c,
        }
        for column, c in counts.items()
    ]
    return DiscoveryRates(task, k, n_iter, alpha, margin, pd.DataFrame(rows), float(false_discovery_weight))


CHUNK = 500


def _count_chunk(task, human, metrics, metric_margins, margin, k, n_iter, alpha, rng, counts) -> None:
    """Run ``n_iter`` iterations of the procedure and add their outcomes to ``counts``."""
    pool = len(human)
    order = random_orders(rng, n_iter, pool)[:, : 2 * k]
    sets = (order[:, :k], order[:, k:])
    drawn = within_group_draws(human.values, human.sizes, n_iter, rng)  # every topic's answers, as in Table 3
    sums = (np.add.reduceat(drawn, human.offsets, axis=1), np.add.reduceat(drawn**2, human.offsets, axis=1))
    humans = (_set_sums(sums, human.sizes, sets[0]), _set_sums(sums, human.sizes, sets[1]))
    for column in metrics.columns:
        x = metrics[column].to_numpy(dtype=np.float64)
        c = counts[column]
        for first, second in ((0, 1), (1, 0)):
            out = discovery_outcomes(
                task,
                humans[first],
                humans[second],
                x[sets[first]],
                x[sets[second]],
                margin,
                metric_margins[column],
                alpha,
            )
            c["discoveries"] += int(out["discovery"].sum())
            c["false_discoveries"] += int((out["discovery"] & out["human_equivalent"]).sum())
            c["human_differences"] += int(out["human_difference"].sum())
            c["false_omissions"] += int((out["human_difference"] & out["metric_equivalent"]).sum())
