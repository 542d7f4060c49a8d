"""Calibration of the tests with trained runs as the units (:func:`tealeaves.evaluation.stats.runs_test`) by simulation.

The null of these checks is that two algorithms are the same while each trained run differs
by its seed: every run gets its own effect :math:`b_r \\sim N(0, \\sigma_b)` (the between-run
variance is real), and the test should reject 5% of such pairs at level 0.05 and its 95%
interval of one algorithm's value should cover the truth 95% of the time. The tests a single
run per model allows, and the pooled test that treats every topic of every run as independent,
are run on the same data beside it (they reject far more often). The data:

- topics (``"independent"``): run r of a model has K per-topic values
  :func:`tealeaves.evaluation.calibration.topic_values` (Gamma, by ``kind``) plus its run effect,
  :data:`TOPIC_BETWEEN` (0.02: a quarter of the topics' own sd of 0.071, so the runs' means
  differ by about as much as the 20 topics' mean is uncertain);
- documents (``"paired"``): n held-out documents of ``5 + Poisson(40)`` tokens, shared by every
  run of both models: a document effect :math:`r_i \\sim N(-7, 0.5)` nats per token shared by all,
  each model's own effect on each document :math:`a_{mi} \\sim N(0,` :data:`DOCUMENT_INTERACTION`
  :math:`)` (shared by its runs: what pairs the runs of a model), the run's effect
  :math:`b_{mr} \\sim N(0,` :data:`DOCUMENT_BETWEEN` :math:`)` and noise :math:`e \\sim N(0, 0.3)`:
  :math:`v_{mri} = w_i (r_i + a_{mi} + b_{mr} + e_{mri} + \\delta_m)`, the true value
  :math:`-7 + \\delta_m`.

The tests compared (``test``): ``"runs"``, the evaluation's two-level test; ``"one run"``, what
an evaluation of one run per model tests (the first run of each, by Welch's t over topics or the
paired t over documents); ``"pooled"``, every topic of every run as an independent unit (Welch's
t over all of them; for documents, the paired t of the run-averaged values, which ignores the
run effects); ``"runs, Welch"``, Welch's t over the runs' values alone (the test the evaluation
used before, which for documents leaves out the documents' own variance).

The simultaneous intervals of a family of pairs (:func:`runs_simultaneous_coverage`) should cover
every pair's true difference together at least 95% of the time (Bonferroni's: a little more).

Used by ``tests/evaluate/test_calibration_runs.py`` (small) and
``benchmarks/calibration_verdicts.py --runs`` (large).
"""

from __future__ import annotations

import numpy as np

from tealeaves.evaluation.calibration import (
    DOCUMENT_RATE,
    DOCUMENT_SD,
    LENGTH_MEAN,
    LENGTH_MIN,
    LEVEL,
    NOISE_SD,
    Calibration,
    heavy_lengths,
    topic_mean,
    topic_values,
)
from tealeaves.evaluation.stats import PAIRED, linearised, paired_t, run_units, runs_test
from tealeaves.metrics.measured import JACKKNIFE, Items
from tealeaves.rng import family_generator
from tealeaves.stats.intervals import t_interval
from tealeaves.stats.multiplicity import bonferroni_intervals
from tealeaves.stats.result import TestResult
from tealeaves.stats.runs import runs_t_test
from tealeaves.stats.tests import paired_t_test, welch_test

TOPIC_BETWEEN = 0.02  # sd of a run's effect on its topics' values
DOCUMENT_BETWEEN = 0.02  # sd of a run's effect, nats per token
DOCUMENT_INTERACTION = 0.2  # sd of a model's own effect on a document, shared by its runs
TESTS = ("runs", "one run", "pooled", "runs, Welch")
NPMI_RANGE = (-1.0, 1.0)  # the range of the simulated topic values' metric, for the per-model interval
RUN_VALUE_SHAPES = {"near 1": (18.0, 2.0), "nearer 1": (9.0, 1.0), "near 0": (2.0, 8.0)}
"""Beta(a, b) shapes of a model-level quantity's values across runs (:func:`runs_bounded_coverage`)."""


def run_topics(rng: np.random.Generator, runs: int, k: int, shift: float = 0.0, kind: str = "moderate") -> list[Items]:
    """One algorithm's ``runs`` trained runs of K topics each: Gamma values plus each run's own effect."""
    values = [topic_values(rng, k, shift + rng.normal(0.0, TOPIC_BETWEEN), kind) for _ in range(runs)]
    return [Items(v, np.ones(k), np.arange(k)) for v in values]


def run_documents(
    rng: np.random.Generator, runs: tuple[int, int], n: int, shift: float = 0.0, heavy: bool = False
) -> tuple[list[Items], list[Items]]:
    """Two algorithms' runs scored on the same ``n`` documents (the module docstring); B is ``shift`` better;
    ``heavy``: documents of heavy-tailed length (:func:`tealeaves.evaluation.calibration.heavy_lengths`)."""
    lengths = heavy_lengths(rng, n) if heavy else (LENGTH_MIN + rng.poisson(LENGTH_MEAN, size=n)).astype(float)
    rate = rng.normal(DOCUMENT_RATE, DOCUMENT_SD, size=n)
    ids = np.arange(n)
    models = []
    for r, delta in zip(runs, (0.0, shift)):
        own = rng.normal(0.0, DOCUMENT_INTERACTION, size=n)
        between = rng.normal(0.0, DOCUMENT_BETWEEN, size=r)
        per_token = [rate + own + b + delta + rng.normal(0.0, NOISE_SD, size=n) for b in between]
        models.append([Items(lengths * u, lengths, ids) for u in per_token])
    return models[0], models[1]


def compared(test: str, a: list[Items], b: list[Items], plan: str, rng: np.random.Generator) -> TestResult:
    """One of :data:`TESTS` of two algorithms' runs (``rng``: the paired test's document swaps), or
    ``"t alone"``: the mixed model's t without the swaps' calibration (:func:`tealeaves.stats.runs_t_test`)."""
    if test == "runs":
        return runs_test(a, b, plan, rng=rng)
    if test == "t alone":
        units = run_units([*a, *b], plan)
        return runs_t_test(units[: len(a)], units[len(a) :], paired=plan == PAIRED)
    if test == "one run":
        return paired_t(a[0], b[0]) if plan == PAIRED else welch_test(linearised(a[0]), linearised(b[0]))
    if test == "pooled":
        if plan == PAIRED:
            units = run_units([*a, *b], plan)
            return paired_t_test(np.mean(units[: len(a)], axis=0), np.mean(units[len(a) :], axis=0))
        return welch_test(np.concatenate(run_units(a, plan)), np.concatenate(run_units(b, plan)))
    means_a, means_b = (np.array([u.mean() for u in run_units(runs, plan)]) for runs in (a, b))
    return welch_test(means_a, means_b)


def runs_rejection(
    plan: str, k: int, runs: int, replicates: int, seed: int, test: str = "runs", kind: str = "moderate"
) -> Calibration:
    """How often ``test`` (:data:`TESTS`) rejects at 5% when two algorithms are the same and runs
    differ by seed: ``runs`` runs each, ``k`` topics a run (documents for ``"paired"``, of heavy-tailed
    length where ``kind`` is ``"heavy"``)."""
    rng = family_generator(seed, f"runs null {plan} {k} {runs}")
    hits = 0
    for _ in range(replicates):
        if plan == PAIRED:
            a, b = run_documents(rng, (runs, runs), k, heavy=kind == "heavy")
        else:
            a, b = run_topics(rng, runs, k, 0.0, kind), run_topics(rng, runs, k, 0.0, kind)
        hits += float(compared(test, a, b, plan, rng).pvalue) < LEVEL
    name = f"{plan} ({kind})" if plan != PAIRED or kind == "heavy" else plan
    label = {"runs": "runs as units", "t alone": "PREVIOUS runs as units, the t alone"}.get(test, f"NAIVE {test}")
    return Calibration(
        "rejection under the null, runs differ by seed",
        f"{label}, {name}, {runs} runs",
        k,
        replicates,
        hits / replicates,
        LEVEL,
    )


def runs_coverage(
    plan: str, k: int, runs: int, replicates: int, seed: int, kind: str = "moderate", calibrated: bool = True
) -> Calibration:
    """How often the 95% interval of one algorithm's value over its ``runs`` runs (the per-model row's,
    :func:`tealeaves.evaluation.stats.runs_test` without ``b``) covers the algorithm's true value: for
    topics, NPMI-like values, within NPMI's range [-1, 1] (the logit scale and back, as the evaluation
    computes it); for documents, log likelihoods, unbounded (of heavy-tailed length where ``kind`` is
    ``"heavy"``), the interval no narrower than the documents' bootstrap-t allows, or with
    ``calibrated`` False the mixed model's t alone that it replaced (:func:`tealeaves.stats.runs_t_test`)."""
    rng = family_generator(seed, f"runs coverage {plan} {k} {runs}")
    truth = DOCUMENT_RATE if plan == PAIRED else topic_mean(kind)
    hits = 0.0
    for _ in range(replicates):
        if plan == PAIRED:
            a = run_documents(rng, (runs, 0), k, heavy=kind == "heavy")[0]
            c = runs_test(a, None, plan, rng=rng) if calibrated else runs_t_test(run_units(a, plan), paired=True)
        else:
            c = runs_test(run_topics(rng, runs, k, 0.0, kind), None, plan, NPMI_RANGE)
        hits += float(c.ci_low <= truth <= c.ci_high)
    name = f"{plan} ({kind})" if plan != PAIRED or kind == "heavy" else plan
    label = "runs as units" if calibrated else "PREVIOUS runs as units, the t alone"
    return Calibration("95% interval coverage", f"{label}, {name}, {runs} runs", k, replicates, hits / replicates, 0.95)


def runs_simultaneous_coverage(
    k: int, runs: int, replicates: int, seed: int, models: int = 4, kind: str = "moderate", unadjusted: bool = False
) -> Calibration:
    """How often the simultaneous intervals of every pair of ``models`` algorithms (the runs' family's
    ``sim_low``, ``sim_high``: :func:`tealeaves.stats.bonferroni_intervals` over the pairs' runs tests)
    cover all the pairs' true differences together: ``runs`` runs of ``k`` topics each, algorithm j
    better by :data:`TOPIC_BETWEEN` · j, so that some pairs differ and some barely; with ``unadjusted``,
    the pairs' unadjusted 95% intervals instead (``ci_low``, ``ci_high``), on the same draws."""
    rng = family_generator(seed, f"runs simultaneous coverage {k} {runs} {models}")
    shifts = TOPIC_BETWEEN * np.arange(models)
    pairs = [(a, b) for a in range(models) for b in range(a + 1, models)]
    truth = np.array([shifts[a] - shifts[b] for a, b in pairs])
    hits = 0
    for _ in range(replicates):
        algorithms = [run_topics(rng, runs, k, shift, kind) for shift in shifts]
        tested = [runs_test(algorithms[a], algorithms[b], "independent") for a, b in pairs]
        if unadjusted:
            low, high = np.array([c.ci_low for c in tested]), np.array([c.ci_high for c in tested])
        else:
            difference, se, df = (np.array([getattr(c, f) for c in tested]) for f in ("difference", "se", "df"))
            low, high = bonferroni_intervals(difference, se, df)
        hits += bool(np.all((low <= truth) & (truth <= high)))
    label = "NAIVE unadjusted" if unadjusted else "runs as units"
    return Calibration(
        "95% simultaneous coverage",
        f"{label}, independent ({kind}), {runs} runs, {len(pairs)} pairs",
        k,
        replicates,
        hits / replicates,
        0.95,
    )


def runs_bounded_coverage(shape: str, runs: int, replicates: int, seed: int, bounded: bool = True) -> Calibration:
    """How often the per-model interval of a model-level quantity in [0, 1] (topic diversity, inverted RBO:
    one value a run) covers its mean over runs, with its values across runs Beta(a, b) by ``shape``
    (:data:`RUN_VALUE_SHAPES`: mean 0.9 with sd 0.065 or 0.09, or mean 0.2): the evaluation's interval
    (:func:`tealeaves.evaluation.stats.runs_test` within [0, 1], on the logit scale and back) or, with
    ``bounded`` False, the t interval of the run values it replaced, which crosses the bounds."""
    a, b = RUN_VALUE_SHAPES[shape]
    rng = family_generator(seed, f"runs bounded coverage {shape} {runs}")
    hits = 0
    for _ in range(replicates):
        values = rng.beta(a, b, size=runs)
        c = runs_test([Items(np.array([v]), np.ones(1), np.zeros(1)) for v in values], None, JACKKNIFE, (0.0, 1.0))
        low, high = (c.ci_low, c.ci_high) if bounded else t_interval(c.difference, c.se, c.df)
        hits += bool(low <= a / (a + b) <= high)
    label = "runs as units" if bounded else "REPLACED t interval, runs as units"
    return Calibration(
        "95% interval coverage",
        f"{label}, model-level in [0, 1] (Beta({a:g}, {b:g}) over runs), {runs} runs",
        1,
        replicates,
        hits / replicates,
        0.95,
    )
