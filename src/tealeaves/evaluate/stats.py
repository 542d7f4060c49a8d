"""Intervals and tests of the evaluation tables: bootstrap over items, Hoyle et al.'s tests, Holm.

A model's value of an output is the ratio ``sum(values) / sum(weights)`` over its items (a mean
for topics; log likelihood per token for documents weighted by their length), and its 95%
interval the percentile interval of that ratio over ``B`` bootstrap resamples of the items.
Models are compared pairwise with Hoyle et al.'s (2021, §6.1) one-tailed tests in both
directions (:func:`tealeaves.analysis.pairwise_tests`: Student's t on per-item values, or, for
human answers, the tests of the study analysis), and every metric's p-values over all ordered
pairs are corrected for multiple comparisons by Holm's (1979) step-down procedure.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np

from tealeaves.evaluate.metrics import Items, outputs
from tealeaves.rng import family_generator

if TYPE_CHECKING:
    import pandas as pd

CONFIDENCE = 0.95
PER_MODEL_COLUMNS = ("model", "metric", "label", "unit", "mean", "ci_low", "ci_high", "n")
COMPARISON_COLUMNS = (
    "metric",
    "model_a",
    "model_b",
    "difference",
    "ci_low",
    "ci_high",
    "test",
    "p_a_greater",
    "p_b_greater",
    "p_a_greater_holm",
    "p_b_greater_holm",
    "better",
)


def ratio(items: Items) -> float:
    """``sum(values) / sum(weights)``: the model's value of an output."""
    return float(items.values.sum() / items.weights.sum())


def bootstrap(items: Items, replicates: int, seed: int, purpose: str) -> np.ndarray:
    """``replicates`` bootstrap replicates of :func:`ratio`, resampling items with replacement.

    The draws come from the stream family ``"evaluate bootstrap " + purpose`` under ``seed``
    (:func:`tealeaves.rng.family_generator`), so a model's interval does not change when other
    models are added to the run.
    """
    rng = family_generator(seed, f"evaluate bootstrap {purpose}")
    n = len(items.values)
    out = np.empty(replicates)
    chunk = max(1, 2_000_000 // max(n, 1))
    for start in range(0, replicates, chunk):
        stop = min(replicates, start + chunk)
        draw = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = items.values[draw].sum(axis=1) / items.weights[draw].sum(axis=1)
    return out


def interval(replicates: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of bootstrap replicates."""
    tail = (1 - CONFIDENCE) / 2
    return float(np.quantile(replicates, tail)), float(np.quantile(replicates, 1 - tail))


def per_model_table(
    items: dict[tuple[str, str], Items], scalars: dict[tuple[str, str], float], replicates: int, seed: int
) -> tuple[pd.DataFrame, dict[tuple[str, str], np.ndarray]]:
    """One row per (model, metric): the value, its 95% bootstrap interval over items, and n.

    Model-level values (topic diversity, inverted RBO, the redundancy filter) have no items to
    resample: their interval is empty (NaN) and n is 1. Returns the table and the replicates.
    """
    import pandas as pd

    known = outputs()
    rows, boots = [], {}
    for (model, metric), values in items.items():
        boots[model, metric] = bootstrap(values, replicates, seed, f"{model} {metric}")
        low, high = interval(boots[model, metric])
        out = known[metric]
        rows.append((model, metric, out.label, out.unit, ratio(values), low, high, len(values.values)))
    for (model, metric), value in scalars.items():
        rows.append((model, metric, known[metric].label, "model", value, np.nan, np.nan, 1))
    return pd.DataFrame(rows, columns=list(PER_MODEL_COLUMNS)), boots


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values of a family of ``m`` tests.

    With the p-values sorted, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`, the adjusted value of the
    i-th is :math:`\\tilde p_{(i)} = \\max_{j \\le i} \\min(1, (m - j + 1)\\, p_{(j)})`; rejecting where
    :math:`\\tilde p < \\alpha` controls the family-wise error rate at :math:`\\alpha`. Computed by
    ``statsmodels.stats.multitest.multipletests(pvalues, method="holm")``.
    """
    from statsmodels.stats.multitest import multipletests

    return np.asarray(multipletests(pvalues, method="holm")[1])


def comparisons_table(
    items: dict[tuple[str, str], Items],
    boots: dict[tuple[str, str], np.ndarray],
    models: list[str],
    level: float,
    human_tests: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Every pair of models on every output with items: the difference A − B, its 95% interval
    (from the two models' independent bootstrap replicates), the one-tailed p-values of "A > B"
    and "B > A", the same after Holm's correction over all ordered pairs of the output, and which
    model is significantly better at ``level`` (empty when neither is).

    ``human_tests`` (metric, model_a, model_b, test, pvalue of "A > B") replaces the t-test for
    human scores, whose tests run on the answers (:func:`tealeaves.analysis.analyze_export`).
    """
    import pandas as pd

    from tealeaves.analysis import pairwise_tests

    known = outputs()
    rows = []
    for metric in dict.fromkeys(metric for _, metric in items):
        present = [m for m in models if (m, metric) in items]
        if len(present) < 2:
            continue
        if human_tests is not None and metric in set(human_tests["metric"]):
            tests = human_tests[human_tests["metric"] == metric]
        else:
            groups = {m: items[m, metric].values / items[m, metric].weights for m in present}
            tests = pairwise_tests(groups, "t") if all(len(g) >= 2 for g in groups.values()) else None
        if tests is None:
            continue
        pvalue = {(r.model_a, r.model_b): float(r.pvalue) for r in tests.itertuples()}
        name = {(r.model_a, r.model_b): r.test for r in tests.itertuples()}
        pairs = [(a, b) for a, b in itertools.combinations(present, 2) if (a, b) in pvalue and (b, a) in pvalue]
        if not pairs:
            continue
        raw = np.array([[pvalue[a, b], pvalue[b, a]] for a, b in pairs])
        adjusted = holm(raw.ravel()).reshape(raw.shape)
        higher = known[metric].higher_is_better
        for (a, b), p, q in zip(pairs, raw, adjusted):
            low, high = interval(boots[a, metric] - boots[b, metric])
            better = (a if higher else b) if q[0] < level else (b if higher else a) if q[1] < level else ""
            difference = ratio(items[a, metric]) - ratio(items[b, metric])
            rows.append((metric, a, b, difference, low, high, name[a, b], p[0], p[1], q[0], q[1], better))
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def format_p(p: float) -> str:
    """A p-value as the report prints it: ``p = 0.0123`` (three significant digits) or ``p < 0.001``."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3g}"


def verdicts(comparisons: pd.DataFrame, level: float) -> dict[str, str]:
    """One line per compared output: which model is significantly better than which, with the
    Holm-corrected one-tailed p-value, and the pairs that do not differ at ``level``."""
    known = outputs()
    lines = {}
    for metric, part in comparisons.groupby("metric", sort=False):
        higher = known[metric].higher_is_better
        label = known[metric].label + ("" if higher else " (lower is better)")
        found, unresolved = [], []
        for row in part.itertuples():
            if not row.better:
                unresolved.append(f"{row.model_a} vs {row.model_b}")
                continue
            other = row.model_b if row.better == row.model_a else row.model_a
            p = row.p_a_greater_holm if (row.better == row.model_a) == higher else row.p_b_greater_holm
            found.append(f"{row.better} > {other} ({format_p(p)})")
        if not found:
            lines[metric] = f"{label}: no significant difference (Holm-corrected one-tailed tests, level {level})"
        else:
            tail = f"; no difference: {', '.join(unresolved)}" if unresolved else ""
            lines[metric] = f"{label}: {', '.join(found)}{tail}"
    return lines
