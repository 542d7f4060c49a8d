"""Pairwise model comparison (Hoyle et al. 2021 §6.1, Fig. 2): one-tailed tests in both directions.

For every ordered pair of models (A, B) the test of "A scores higher than B": the two-proportion
z-test on all word-intrusion answers, the Mann-Whitney U test on all ratings, Student's t-test on
per-item scores (automated metrics, topic log odds).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from tealeaves.analysis.significance import mann_whitney, proportion_test, t_test
from tealeaves.errors import EmptyResultError, InputError

TESTS = ("proportion", "mann-whitney", "t")


def pairwise_tests(groups: dict[str, np.ndarray], test: str, alpha: float = 0.05) -> pd.DataFrame:
    """One-tailed ``test`` of every ordered pair of ``groups`` (model -> its answers or scores).

    ``test``: ``"proportion"`` (0/1 answers), ``"mann-whitney"`` (ordinal answers) or ``"t"``
    (per-item scores). Returns one row per ordered pair: ``model_a``, ``model_b``, ``statistic``,
    ``pvalue`` (of "A > B"), ``significant`` (``pvalue < alpha``), ``mean_a``, ``mean_b``.
    """
    if test not in TESTS:
        raise InputError(f"test must be one of {TESTS}, got {test!r}")
    if len(groups) < 2:
        raise EmptyResultError("a pairwise comparison needs at least two models")
    rows = []
    for a, b in itertools.permutations(sorted(groups), 2):
        x, y = np.asarray(groups[a], dtype=np.float64), np.asarray(groups[b], dtype=np.float64)
        if test == "proportion":
            result = proportion_test(x.sum(), x.size, y.sum(), y.size, "greater")
        elif test == "mann-whitney":
            result = mann_whitney(x, y, "greater")
        else:
            result = t_test(x, y, "greater")
        rows.append(
            {
                "model_a": a,
                "model_b": b,
                "test": result.test,
                "statistic": float(result.statistic),
                "pvalue": float(result.pvalue),
                "significant": bool(result.pvalue < alpha),
                "mean_a": float(x.mean()),
                "mean_b": float(y.mean()),
            }
        )
    return pd.DataFrame(rows)
