"""Calibration of the evaluation's tests and intervals by simulation (:mod:`tealeaves.evaluation.stats`).

Each check draws ``replicates`` pairs of simulated models and counts how often a test rejects at
5% (under the null: it should be 5%; under a stated alternative: the power) or a 95% interval
covers the true value. The Monte Carlo standard error of a rate is
:math:`\\sqrt{p(1-p)/R}` at the target rate ``p``; a check passes when the rate lies within four
of them of the target. The simulated data, one plan each:

- topics (``"independent"``), by ``kind`` (:data:`TOPIC_KINDS`): a model's per-topic values
  are ``"moderate"``, Gamma(6, 0.05/√3) (sd 0.071, skewness 0.82, like most of the demo's NPMI
  and C_V, whose skewness over topics lies between −0.84 and 1.42), ``"skewed"``, Gamma(2, 0.05)
  (the same sd, skewness 1.41: as skewed as the demo's lda-gibbs NPMI, and 7 of the 48
  model-metric cells of Hoyle et al.'s released NPMI and C_V reach 1.4 in absolute value;
  ``benchmarks/calibration_skew.py``), ``"very skewed"``, Gamma(1, 0.05·√2) (the same sd,
  skewness 2), or ``"discrete"``, WI-Auto's kind, the share of 8 intrusion sets an SVM got
  right, ``Binomial(8, p_k) / 8`` with ``p_k ~ Beta(4, 2)``; plus a shift;
- documents (``"paired"``): ``n`` held-out documents of ``5 + Poisson(40)`` tokens, a document
  effect shared by both models, :math:`r_i \\sim N(-7, 0.5)` nats per token, and each model's own
  noise :math:`e_i \\sim N(0, 0.3)`: :math:`v_i = w_i (r_i + e_i + \\delta)`; the true ratio is
  :math:`-7 + \\delta`;
- model-level (``"jackknife"``): a model's K topics are each 25 words drawn without replacement
  from a Zipf(``exponent``) vocabulary of 1,000 words, so popular words recur across topics;
  the quantity is topic uniqueness over the top 10 words, tested by the randomisation test
  (:func:`tealeaves.evaluation.stats.randomisation`), its interval the delete-d jackknife's
  (:func:`tealeaves.stats.delete_d_jackknife_se`); its true value at K topics is estimated by the
  mean over ``truth_replicates`` further models.

Used by ``tests/evaluate/test_calibration.py`` (small) and ``benchmarks/calibration_verdicts.py`` (large).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tealeaves.evaluation.stats import (
    SUBSETS,
    UNIT_RANGE,
    Measurements,
    comparisons_table,
    document_bootstrap,
    document_interval,
    paired_t,
    randomisation,
    regrouped,
    topic_method,
)
from tealeaves.metrics.measured import Items
from tealeaves.metrics.words import model_level_topics
from tealeaves.rng import family_generator
from tealeaves.stats.design import minimal_detectable_difference
from tealeaves.stats.family import IndependentMeans, PairedRatios, joint_null
from tealeaves.stats.intervals import (
    CONFIDENCE,
    bootstrap_t_interval,
    bounded_t_interval,
    delete_d_jackknife_se,
    percentile_interval,
    t_interval,
)
from tealeaves.stats.tests import welch_test

if TYPE_CHECKING:
    from tealeaves.corpus import Corpus
    from tealeaves.models import TopicModel

LEVEL = 0.05
VOCABULARY = 1000
DOCUMENT_RATE, DOCUMENT_SD, NOISE_SD = -7.0, 0.5, 0.3
LENGTH_MIN, LENGTH_MEAN = 5, 40


@dataclass(frozen=True)
class Calibration:
    """One check: the rate observed over ``replicates`` simulations and the rate it should have."""

    check: str
    plan: str
    k: int
    replicates: int
    rate: float
    target: float

    @property
    def mc_se(self) -> float:
        """The Monte Carlo standard error of the rate at the target, :math:`\\sqrt{p(1-p)/R}`."""
        return float(np.sqrt(self.target * (1 - self.target) / self.replicates))

    @property
    def within(self) -> bool:
        """Whether the rate lies within four Monte Carlo standard errors of the target."""
        return abs(self.rate - self.target) <= 4 * self.mc_se


TOPIC_KINDS = {  # Gamma shape and scale (sd 0.05 √2 each), or WI-Auto's shares
    "moderate": (6.0, 0.05 / np.sqrt(3)),
    "skewed": (2.0, 0.05),
    "very skewed": (1.0, 0.05 * np.sqrt(2)),
    "discrete": None,
}


def topic_values(rng: np.random.Generator, k: int, shift: float = 0.0, kind: str = "moderate") -> np.ndarray:
    """K per-topic values of one simulated model (see the module docstring); the mean is known."""
    gamma = TOPIC_KINDS[kind]
    if gamma is None:
        return shift + rng.binomial(8, rng.beta(4, 2, size=k)) / 8
    shape, scale = gamma
    return shift + rng.gamma(shape, scale, size=k)


def topic_mean(kind: str = "moderate") -> float:
    """The true mean of :func:`topic_values` without a shift."""
    gamma = TOPIC_KINDS[kind]
    return 4 / 6 if gamma is None else gamma[0] * gamma[1]


def documents(rng: np.random.Generator, n: int, shift: float = 0.0) -> tuple[Items, Items]:
    """Two models' per-document log likelihoods on the same ``n`` documents; model B is ``shift`` nats per token better."""
    lengths = (LENGTH_MIN + rng.poisson(LENGTH_MEAN, size=n)).astype(float)
    rate = rng.normal(DOCUMENT_RATE, DOCUMENT_SD, size=n)
    ids = np.arange(n)
    a = Items(lengths * (rate + rng.normal(0, NOISE_SD, size=n)), lengths, ids)
    b = Items(lengths * (rate + rng.normal(0, NOISE_SD, size=n) + shift), lengths, ids)
    return a, b


def paired_detectable(n: int) -> float:
    """The difference per token the paired test finds with 80% power at 5% on ``n`` documents:
    :math:`(t_{0.975} + t_{0.8})\\, sd(d) / \\sqrt n`, :math:`sd(d) = \\sqrt 2\\, \\sigma_e \\sqrt{E w^2} / E w`."""
    mean = LENGTH_MIN + LENGTH_MEAN
    sd = np.sqrt(2) * NOISE_SD * np.sqrt(LENGTH_MEAN + mean**2) / mean
    return float(minimal_detectable_difference(sd, n - 1, LEVEL, 0.8) / np.sqrt(n))


def welch_detectable(k: int, kind: str = "moderate") -> float:
    """The difference of means Welch's test finds with 80% power at 5% with ``k`` topics a model."""
    var_p = 4 * 2 / (6**2 * 7)  # Beta(4, 2)
    gamma = TOPIC_KINDS[kind]
    sd = np.sqrt((2 / 3 - var_p - 4 / 9) / 8 + var_p) if gamma is None else np.sqrt(gamma[0]) * gamma[1]
    df = 2 * k - 2
    return float(minimal_detectable_difference(sd, df, LEVEL, 0.8) * np.sqrt(2 / k))


def zipf_topics(rng: np.random.Generator, k: int, exponent: float = 1.0) -> list[list[str]]:
    """K topics of 25 words each, drawn without replacement from a Zipf(``exponent``) vocabulary
    (the Gumbel top-k trick: the 25 largest :math:`\\log p_w + G_w`, in order, are such a draw)."""
    keys = -exponent * np.log(np.arange(1, VOCABULARY + 1)) + rng.gumbel(size=(k, VOCABULARY))
    top = np.argsort(-keys, axis=1)[:, :25]
    return [[f"w{i}" for i in row] for row in top]


def rejection(plan: str, k: int, replicates: int, seed: int, shift: float = 0.0, **options) -> Calibration:
    """How often the plan's test rejects at 5% over ``replicates`` simulated pairs of models.

    ``shift`` is the true difference (0: the null, target 5%); otherwise ``options["target"]``
    is the power the alternative was built for. ``k`` counts topics (documents for ``"paired"``).
    The test is the one the evaluation runs, as a comparison of its report family on its own
    (:func:`tealeaves.stats.family.joint_null`, ``options["resamples"]`` draws, default 499):
    ``"independent"``, the test :func:`tealeaves.evaluation.stats.topic_method` picks (bootstrap-t;
    the studentised permutation test for the tied ``"discrete"`` values); ``"paired"``, the
    studentised paired randomisation test; with ``options["replaced"]``, the test each replaced
    instead, Welch's t and the paired t on their t distributions. For ``"jackknife"``, the
    randomisation test of topic uniqueness (:func:`randomisation`, with ``options["regroupings"]``,
    default 199: its level is exact for any number), ``shift`` is added to model B's Zipf exponent.
    """
    rng = family_generator(seed, f"calibration {plan} {k} {shift}")
    kind = str(options.get("kind", "moderate"))
    replaced, resamples = bool(options.get("replaced", False)), int(options.get("resamples", 499))
    hits = 0
    for _ in range(replicates):
        if plan == "paired":
            a, b = documents(rng, k, shift)
            if replaced:
                p = paired_t(a, b).pvalue
            else:
                pair = PairedRatios("a", "b", a.ids, (a.values, a.weights), (b.values, b.weights))
                p = _resampled_p(pair, rng, resamples)
        elif plan == "independent":
            x, y = topic_values(rng, k, 0.0, kind), topic_values(rng, k, shift, kind)
            if replaced:
                p = welch_test(x, y).pvalue
            else:
                ids = np.arange(k)
                p = _resampled_p(IndependentMeans("a", "b", ids, x, ids, y, topic_method(x, y)), rng, resamples)
        else:
            first, second = (model_level_topics(zipf_topics(rng, k, e), 25, 10, 0.9) for e in (1.0, 1.0 + shift))
            regroupings = int(options.get("regroupings", 199))
            test = randomisation(
                "topic_uniqueness", first, second, int(rng.integers(2**62)), "calibration", regroupings
            )
            p = test.pvalue
        hits += float(p) < LEVEL
    check = "rejection under the null" if shift == 0 else f"power at a difference of {shift:.3g}"
    target = LEVEL if shift == 0 else float(options["target"])
    name = f"{plan} ({kind})" if plan == "independent" else plan
    if replaced:
        name = f"REPLACED {'paired t' if plan == 'paired' else TOPIC_TESTS[-1]}, {name}"
    return Calibration(check, name, k, replicates, hits / replicates, target)


def coverage(plan: str, k: int, replicates: int, seed: int, *, boot: int = 500, **options) -> Calibration:
    """How often the plan's 95% interval of one model's value covers the true value.

    ``"independent"``: the interval of the mean over ``k`` topics the evaluation uses, the
    bootstrap-t interval (:func:`tealeaves.stats.bootstrap_t_interval`, its fixed stream of 2,000
    resamples), or with ``options["interval"] = "t"`` the t interval it replaced; ``"paired"``: the
    symmetric bootstrap-t of the ratio over ``k`` documents (:func:`tealeaves.evaluation.stats.document_interval`,
    ``boot`` resamples; of heavy-tailed length, :func:`heavy_documents`, with ``options["kind"] =
    "heavy"``), or with ``options["interval"] = "percentile"`` the percentile interval it
    replaced; ``"jackknife"``:
    the delete-d jackknife t interval of topic uniqueness at ``k`` topics (as
    :func:`tealeaves.evaluation.stats.per_model_table` computes it: ``options["subsets"]`` random
    subsets, default :data:`tealeaves.evaluation.stats.SUBSETS`), against its mean over
    ``options["truth_replicates"]`` (default 2,000) further simulated models.
    """
    rng = family_generator(seed, f"calibration coverage {plan} {k}")
    kind = str(options.get("kind", "moderate"))
    replaced = options.get("interval") == "t"
    if plan == "jackknife":
        from tealeaves.coherence import topic_uniqueness

        draws = options.get("truth_replicates", 2000)
        truth = float(np.mean([topic_uniqueness(zipf_topics(rng, k), 10).mean() for _ in range(draws)]))
    else:
        truth = DOCUMENT_RATE if plan == "paired" else topic_mean(kind)
    hits = 0
    for r in range(replicates):
        if plan == "paired":
            a, _ = heavy_documents(rng, k) if kind == "heavy" else documents(rng, k)
            if options.get("interval") == "percentile":
                resamples = document_bootstrap({"a": a}, boot, seed + r, "coverage")[0]["a"]
                low, high = percentile_interval(resamples, CONFIDENCE, nan_policy="propagate")
            else:
                low, high = document_interval({"a": a}, "a", boot, seed + r, "coverage")
        elif plan == "independent":
            x = topic_values(rng, k, 0.0, kind)
            if replaced:
                low, high = t_interval(float(x.mean()), float(x.std(ddof=1) / np.sqrt(k)), k - 1.0)
            else:
                low, high = bootstrap_t_interval(x)
        else:
            quantity = regrouped("topic_uniqueness", model_level_topics(zipf_topics(rng, k), 25, 10, 0.9))
            value = float(quantity(np.ones((1, k), dtype=bool))[0])
            se = delete_d_jackknife_se(quantity, k, rng, int(options.get("subsets", SUBSETS)))
            low, high = bounded_t_interval(value, se, k - 1.0, UNIT_RANGE)
        hits += low <= truth <= high
    name = f"{plan} ({kind})" if plan == "independent" else plan
    name = f"{name} (heavy-tailed lengths)" if plan == "paired" and kind == "heavy" else name
    name = f"REPLACED t interval, {name}" if replaced else name
    name = f"REPLACED percentile interval, {name}" if options.get("interval") == "percentile" else name
    return Calibration(f"{CONFIDENCE:.0%} interval coverage", name, k, replicates, hits / replicates, CONFIDENCE)


TOPIC_TESTS = ("bootstrap-t", "studentised permutation", "Welch's t")
DOCUMENT_TESTS = ("paired randomisation", "paired t")
REPORT_TOPIC_METRICS = ("npmi", "cv", "kl_uniform", "kl_vacuous", "kl_background", "embedding", "embedding_centroid")
REPORT_DOCUMENT_METRICS = ("heldout_log_likelihood", "predictive_log_likelihood")


def opposite_skews(rng: np.random.Generator, k: int, shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Two models' K per-topic values with equal means (plus ``shift``) and opposite skews: model A's
    Gamma(1, 1) − 1 (a few excellent topics, skewness +2), model B's 1 − Gamma(1, 1) (a few junk
    ones, skewness −2), both of sd 1."""
    return rng.gamma(1.0, 1.0, size=k) - 1.0, 1.0 + shift - rng.gamma(1.0, 1.0, size=k)


def ceiling_values(rng: np.random.Generator, k: int, annotators: int = 10, junk: float = 0.0) -> np.ndarray:
    """K ceiling-bound per-topic values (word intrusion, human precision): the share of ``annotators``
    who found a topic's intruder, ``Binomial(annotators, p_k) / annotators`` with ``p_k ~ Beta(8, 1.2)``
    (mean 0.87; with 10 annotators a third of the topics at 1, with 5 half of them); with ``junk``,
    that share of the topics are junk, ``p_k ~ Beta(1, 2)`` (mean 1/3): the few topics near 0 of real
    WI-Auto values (the demo's lda-gibbs: 0.0 or 0.125 beside 14 of 20 topics at 1)."""
    p = rng.beta(8.0, 1.2, size=k)
    if junk > 0:
        p = np.where(rng.random(k) < junk, rng.beta(1.0, 2.0, size=k), p)
    return rng.binomial(annotators, p) / annotators


def ceiling_mean(junk: float = 0.0) -> float:
    """The mean of :func:`ceiling_values`: :math:`(1 - j) \\cdot 8 / 9.2 + j / 3`."""
    return (1.0 - junk) * 8.0 / 9.2 + junk / 3.0


def heavy_lengths(rng: np.random.Generator, n: int) -> np.ndarray:
    """The heavy-tailed lengths of ``n`` documents, :math:`w_i = \\lceil e^{N(3.5, 1.2)} \\rceil` tokens (median 33,
    a few of thousands)."""
    return np.ceil(np.exp(rng.normal(3.5, 1.2, size=n)))


def heavy_documents(rng: np.random.Generator, n: int) -> tuple[Items, Items]:
    """Two equally good models' log likelihoods on ``n`` documents of heavy-tailed length
    (:func:`heavy_lengths`), otherwise as :func:`documents`."""
    lengths = heavy_lengths(rng, n)
    rate = rng.normal(DOCUMENT_RATE, DOCUMENT_SD, size=n)
    ids = np.arange(n)
    a = Items(lengths * (rate + rng.normal(0, NOISE_SD, size=n)), lengths, ids)
    b = Items(lengths * (rate + rng.normal(0, NOISE_SD, size=n)), lengths, ids)
    return a, b


def _resampled_p(comparison, rng: np.random.Generator, replicates: int) -> float:
    """The marginal p-value of one comparison of the report's family (:func:`tealeaves.stats.family.joint_null`)."""
    observed, null, _ = joint_null([comparison], replicates, rng)
    return float((1 + np.sum(null[:, 0] >= observed[0] * (1 - 1e-12))) / (replicates + 1))


SHAPES = ("opposite skews", "lognormal", "lognormal, σ 0.5", "ceiling", "ceiling, 8 sets, junk topics")

LOGNORMAL_SPREADS = {"lognormal": 1.0, "lognormal, σ 0.5": 0.5}
"""The log-scale standard deviation σ of each lognormal shape: σ = 1 (skewness 6.2, beyond every real
metric measured: ``benchmarks/calibration_skew.py``) and σ = 0.5 (skewness 1.75, as real metrics are)."""


def shaped_values(rng: np.random.Generator, k: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Two models' K per-topic values with equal means, by ``kind`` (:data:`SHAPES`): opposite skews
    (:func:`opposite_skews`), lognormal of unequal spread (LogNormal(0, σ) against LogNormal(3σ²/8, σ/2),
    both of mean :math:`e^{σ^2/2}`, σ of :data:`LOGNORMAL_SPREADS`), or both ceiling-bound
    (:func:`ceiling_values`; ``"ceiling, 8 sets, junk topics"``: WI-Auto's 8 sets, a junk topic in ten)."""
    if kind == "opposite skews":
        return opposite_skews(rng, k)
    if kind in LOGNORMAL_SPREADS:
        sigma = LOGNORMAL_SPREADS[kind]
        return rng.lognormal(0.0, sigma, size=k), rng.lognormal(0.375 * sigma**2, sigma / 2, size=k)
    trials, junk = (8, 0.1) if "junk" in kind else (10, 0.0)
    return ceiling_values(rng, k, trials, junk), ceiling_values(rng, k, trials, junk)


def shape_rejection(
    test: str, k: int, replicates: int, seed: int, resamples: int = 499, kind: str = "opposite skews"
) -> Calibration:
    """How often a test of two models' mean per-topic values rejects at 5% when only their shapes differ
    (:func:`shaped_values`): ``test`` is the test the evaluation picks (``"evaluation"``,
    :func:`tealeaves.evaluation.stats.topic_method`: bootstrap-t, or the studentised permutation
    test at a ceiling), or one of :data:`TOPIC_TESTS` (Welch's t on its t distribution), each
    resampling test with ``resamples`` draws."""
    rng = family_generator(seed, f"calibration shapes {test} {k} {kind}")
    hits = 0
    ids = np.arange(k)
    for _ in range(replicates):
        a, b = shaped_values(rng, k, kind)
        if test == "Welch's t":
            p = welch_test(a, b).pvalue
        else:
            method = topic_method(a, b) if test == "evaluation" else test
            p = _resampled_p(IndependentMeans("a", "b", ids, a, ids, b, method), rng, resamples)
        hits += int(p < LEVEL)
    return Calibration(
        "rejection under the null", f"independent ({kind}), {test}", k, replicates, hits / replicates, LEVEL
    )


def document_rejection(test: str, n: int, replicates: int, seed: int, resamples: int = 499) -> Calibration:
    """How often the paired test of two equally good models rejects at 5% on ``n`` documents of
    heavy-tailed length (:func:`heavy_documents`): the studentised paired randomisation test the
    evaluation runs or the paired t on its t distribution (``test``, one of :data:`DOCUMENT_TESTS`)."""
    rng = family_generator(seed, f"calibration heavy documents {test} {n}")
    hits = 0
    for _ in range(replicates):
        a, b = heavy_documents(rng, n)
        if test == "paired t":
            p = paired_t(a, b).pvalue
        else:
            p = _resampled_p(
                PairedRatios("a", "b", a.ids, (a.values, a.weights), (b.values, b.weights)), rng, resamples
            )
        hits += int(p < LEVEL)
    return Calibration(
        "rejection under the null", f"paired (heavy-tailed lengths), {test}", n, replicates, hits / replicates, LEVEL
    )


def report_measurements(
    rng: np.random.Generator,
    models: int = 4,
    k: int = 20,
    documents_n: int = 100,
    correlation: float = 0.5,
    topics_only: bool = False,
) -> Measurements:
    """One simulated report under the complete null: ``models`` equally good models on ten registered
    metrics, seven per topic (:data:`REPORT_TOPIC_METRICS`, a model's K topics each with a shared
    topic effect, so the metrics correlate ``correlation`` across topics, and a skewed Gamma(2) part),
    two per held-out document (:data:`REPORT_DOCUMENT_METRICS`, :func:`documents`, sharing the
    documents) and topic uniqueness (K Zipf topics a model, :func:`zipf_topics`); ``topics_only``:
    the seven per-topic metrics alone (a quick check)."""
    items: dict[tuple[str, str], Items] = {}
    scalars: dict[tuple[str, str], float] = {}
    jackknife: dict[tuple[str, str], np.ndarray] = {}
    topics = {}
    ids = np.arange(k)
    lengths = (LENGTH_MIN + rng.poisson(LENGTH_MEAN, size=documents_n)).astype(float)
    rate = rng.normal(DOCUMENT_RATE, DOCUMENT_SD, size=documents_n)
    for m in range(models):
        name = f"m{m}"
        shared = rng.gamma(2.0, 0.05, size=k)
        for metric in REPORT_TOPIC_METRICS:
            own = rng.gamma(2.0, 0.05, size=k)
            values = np.sqrt(correlation) * shared + np.sqrt(1 - correlation) * own
            items[name, metric] = Items(values, np.ones(k), ids)
        if topics_only:
            continue
        for metric in REPORT_DOCUMENT_METRICS:
            noise = rng.normal(0, NOISE_SD, size=documents_n)
            items[name, metric] = Items(lengths * (rate + noise), lengths, np.arange(documents_n))
        topics[name] = model_level_topics(zipf_topics(rng, k), 25, 10, 0.9)
        quantity = regrouped("topic_uniqueness", topics[name])
        scalars[name, "topic_uniqueness"] = float(quantity(np.ones((1, k), dtype=bool))[0])
        jackknife[name, "topic_uniqueness"] = quantity(~np.eye(k, dtype=bool))
    return Measurements(items, scalars, jackknife, topics)


def report_rejection(
    replicates: int, seed: int, models: int = 4, k: int = 20, correlation: float = 0.5, topics_only: bool = False
) -> tuple[Calibration, Calibration]:
    """How often a whole report under the complete null (:func:`report_measurements`: ten metrics,
    ``models`` models, all their pairs) shows any "better than", through the evaluation's own
    :func:`tealeaves.evaluation.stats.comparisons_table`: Westfall and Young's step-down over all
    its comparisons, the family the report's bold, badges and verdicts rest on (target 5%), and,
    from the same tables, Holm within each metric's pairs alone (``p_holm``), which the report
    used before (no target: its rate is the error the report-wide family removes). ``topics_only``:
    the seven per-topic metrics alone (:func:`report_measurements`)."""
    rng = family_generator(seed, f"calibration report {models} {k} {correlation}")
    hits = holm_hits = 0
    names = [f"m{m}" for m in range(models)]
    for r in range(replicates):
        measured = report_measurements(rng, models, k, correlation=correlation, topics_only=topics_only)
        boots: dict[tuple[str, str], np.ndarray] = {}
        for metric in () if topics_only else REPORT_DOCUMENT_METRICS:
            part = {m: measured.items[m, metric] for m in names}
            boots |= {(m, metric): v for m, v in document_bootstrap(part, 100, seed + r, metric)[0].items()}
        table = comparisons_table(measured, boots, names, LEVEL, seed + r)
        hits += bool((table["better"] != "").any())
        holm_hits += bool((table["p_holm"] < LEVEL).any())
    plan = f"{7 if topics_only else 10} metrics x {models} models, correlation {correlation:g}"
    return _report_rates(plan, k, replicates, hits, holm_hits)


def _report_rates(plan: str, k: int, replicates: int, hits: int, holm_hits: int) -> tuple[Calibration, Calibration]:
    """The rows of :func:`report_rejection` and :func:`evaluation_rejection`: the reports with any false
    "better than" by the report family (target 5%) and by Holm within each metric (no target)."""
    check = "any false 'better than' in a report"
    return (
        Calibration(check, f"report family (Westfall-Young), {plan}", k, replicates, hits / replicates, LEVEL),
        Calibration(check, f"REPLACED Holm per metric, {plan}", k, replicates, holm_hits / replicates, np.nan),
    )


BOUNDED_CASES = (
    "gamma",
    "lognormal",
    "lognormal, σ 0.5",
    "t3",
    "ceiling",
    "ceiling, 5 annotators",
    "ceiling, 8 sets, junk topics",
    "beta near 1",
)
"""The shapes of :func:`bounded_values`."""


def bounded_values(rng: np.random.Generator, k: int, case: str) -> tuple[np.ndarray, float, tuple[float, float]]:
    """K per-topic values of a bounded metric by ``case`` (:data:`BOUNDED_CASES`), their true mean and the range.

    ``"gamma"``: Gamma(1, 1) in [0, ∞) (a KL divergence; skewness 2, mean 1); ``"lognormal"``,
    ``"lognormal, σ 0.5"``: LogNormal(0, σ) in [0, ∞) (:data:`LOGNORMAL_SPREADS`; σ = 1: skewness 6.2,
    σ = 0.5: 1.75; mean :math:`e^{σ^2/2}`); ``"t3"``: 0.1 + 0.05 t₃ in
    [-1, 1] (NPMI with heavy tails, mean 0.1); ``"ceiling"``, ``"ceiling, 5 annotators"``: word
    intrusion's shares (:func:`ceiling_values`, 10 or 5 annotators, mean 8/9.2) in [0, 1];
    ``"ceiling, 8 sets, junk topics"``: WI-Auto's shares of 8 sets with a junk topic in ten
    (:func:`ceiling_values` with ``junk=0.1``, mean :func:`ceiling_mean`);
    ``"beta near 1"``: Beta(8, 1) in [0, 1] (mean 8/9).
    """
    if case == "gamma":
        return rng.gamma(1.0, 1.0, size=k), 1.0, (0.0, np.inf)
    if case in LOGNORMAL_SPREADS:
        sigma = LOGNORMAL_SPREADS[case]
        return rng.lognormal(0.0, sigma, size=k), float(np.exp(sigma**2 / 2)), (0.0, np.inf)
    if case == "t3":
        return 0.1 + 0.05 * rng.standard_t(3, size=k), 0.1, (-1.0, 1.0)
    if case.startswith("ceiling"):
        junk = 0.1 if "junk" in case else 0.0
        trials = 8 if "8 sets" in case else 5 if "5" in case else 10
        return ceiling_values(rng, k, trials, junk), ceiling_mean(junk), (0.0, 1.0)
    return rng.beta(8.0, 1.0, size=k), 8.0 / 9.0, (0.0, 1.0)


INTERVAL_CANDIDATES = (
    "bounded bootstrap-t",
    "PREVIOUS bootstrap-t, clipped",
    "CANDIDATE symmetric, no transform",
    "CANDIDATE t",
)
"""The intervals :func:`bounded_coverage` compares: the one shipped, the one it replaced and two candidates."""


def bounded_intervals(
    case: str, k: int, replicates: int, seed: int, interval: str = INTERVAL_CANDIDATES[0]
) -> Iterator[tuple[float, float, float]]:
    """``(low, high, truth)`` for ``replicates`` simulated models' values of :func:`bounded_values`: the
    95% interval of their mean (``interval``, one of :data:`INTERVAL_CANDIDATES`) and the true mean.

    The interval is the evaluation's and every display's (:func:`tealeaves.stats.bootstrap_t_interval`
    with the metric's bounds: the symmetric bootstrap-t on the logit or log scale, reaching to Gaffke's
    limit away from a bound that values lie at), the one it replaced (the equal-tailed bootstrap-t on the
    values' scale, clipped to the bounds, which does not change its coverage), or a candidate: the same
    symmetric bootstrap-t without the transformation (bounds :math:`(-\\infty, \\infty)`), or the t
    interval (:func:`tealeaves.stats.t_interval`). One stream per case and K, so every interval is
    computed on the same values.
    """
    rng = family_generator(seed, f"calibration bounded {case} {k}")
    for _ in range(replicates):
        x, truth, bounds = bounded_values(rng, k, case)
        if interval == INTERVAL_CANDIDATES[3]:
            low, high = t_interval(float(x.mean()), float(x.std(ddof=1) / np.sqrt(k)), k - 1.0)
        else:
            given = {INTERVAL_CANDIDATES[1]: None, INTERVAL_CANDIDATES[2]: (-np.inf, np.inf)}.get(interval, bounds)
            low, high = bootstrap_t_interval(x, bounds=given)
        yield low, high, truth


def bounded_coverage(
    case: str, k: int, replicates: int, seed: int, *, previous: bool = False, interval: str | None = None
) -> Calibration:
    """How often the 95% interval of a topic-level mean covers the true mean for values of :func:`bounded_values`:
    the interval of :func:`bounded_intervals` (``interval``; with ``previous``, the one the evaluation's interval
    replaced)."""
    interval = interval or INTERVAL_CANDIDATES[int(previous)]
    hits = sum(low <= truth <= high for low, high, truth in bounded_intervals(case, k, replicates, seed, interval))
    name = f"topic mean ({case}), {interval}"
    return Calibration(f"{CONFIDENCE:.0%} interval coverage", name, k, replicates, hits / replicates, CONFIDENCE)


def bounded_ends(case: str, k: int, replicates: int, seed: int) -> tuple[Calibration, Calibration]:
    """How often each end of the evaluation's interval (:func:`bounded_intervals`, on the values of
    :func:`bounded_coverage`) misses the true mean, each against :math:`(1 - c) / 2` = 2.5%: the lower
    end above it, the upper end below it. Where values lie at a ceiling, the lower end reaches at least
    to Gaffke's limit, meant to miss at most 2.5% for every distribution within the bounds: these rows
    show which end makes an interval's coverage differ from 95%."""
    above = below = 0
    for low, high, truth in bounded_intervals(case, k, replicates, seed):
        above += low > truth
        below += high < truth
    plan, tail = f"topic mean ({case}), bounded bootstrap-t", (1 - CONFIDENCE) / 2
    return (
        Calibration("lower end above the mean", plan, k, replicates, above / replicates, tail),
        Calibration("upper end below the mean", plan, k, replicates, below / replicates, tail),
    )


TWIN_SPLIT = 0.9
"""The share of a base word's probability that a simulated model gives to the form it favours (:func:`twin_model`)."""


@dataclass(frozen=True)
class TwinWorld:
    """The corpora of :func:`twin_world`: base topics over base words, each word written in two forms
    (word ids ``2 w`` and ``2 w + 1``), a reference corpus and held-out documents."""

    topics: np.ndarray
    alpha: np.ndarray
    reference: Corpus
    heldout: Corpus


def twin_world(
    rng: np.random.Generator, k: int = 10, block: int = 15, reference_docs: int = 300, heldout_docs: int = 30
) -> TwinWorld:
    """A synthetic corpus around which equally good models differ (see :func:`evaluation_rejection`).

    ``k`` base topics over :math:`k \\times` ``block`` base words, topic j Zipf-shaped over its own
    block, :math:`p_{j,i} \\propto 1/i` for its i-th word (floored at :math:`10^{-6}` elsewhere), so
    that no topic is better than another; documents :math:`\\theta_d \\sim Dir(0.3)`. Every base
    word has two written forms. The reference corpus (``reference_docs`` documents of 60 tokens)
    writes a topic's tokens in the first form, and adds a third as many background tokens, uniform
    over the base words, in the second: first forms co-occur by topic, second forms at random. The
    held-out documents (``heldout_docs`` of 40 tokens) draw each token's form by a fair coin.
    """
    from tealeaves.corpus import Corpus, Vocabulary

    base = k * block
    topics = np.full((k, base), 1e-6)
    for j in range(k):
        topics[j, j * block : (j + 1) * block] = 1 / np.arange(1, block + 1)
    topics /= topics.sum(axis=1, keepdims=True)
    alpha = np.full(k, 0.3)
    vocab = Vocabulary([f"w{w}{form}" for w in range(base) for form in "ab"])

    def topical(n: int, length: int) -> list[np.ndarray]:
        docs = []
        for theta in rng.dirichlet(alpha, size=n):
            counts = rng.multinomial(length, theta)
            docs.append(np.concatenate([rng.choice(base, size=c, p=topics[j]) for j, c in enumerate(counts)]))
        return docs

    reference = [
        np.concatenate([2 * words, 2 * rng.integers(0, base, size=len(words) // 3) + 1])
        for words in topical(reference_docs, 60)
    ]
    heldout = [2 * words + rng.integers(0, 2, size=len(words)) for words in topical(heldout_docs, 40)]
    return TwinWorld(topics, alpha, Corpus.from_documents(reference, vocab), Corpus.from_documents(heldout, vocab))


def twin_model(rng: np.random.Generator, world: TwinWorld) -> TopicModel:
    """One simulated model of :func:`twin_world`: the base topics, each base word's probability split
    :data:`TWIN_SPLIT` to one form, drawn by a fair coin per (model, word), the rest to the other.

    The split is the same in every topic of the model, so on any document the model's likelihood is
    the base topics' times 0.9 or 0.1 per token (θ's posterior is unchanged): on a held-out token,
    whose form is a fair coin, every model's expected log likelihood is the same, and the paired
    tests' null holds given the models. A topic's top words are a fair-coin mix of first forms
    (coherent in the reference corpus) and second forms (not), drawn anew for every model: the
    per-topic values of every model share one distribution.
    """
    from tealeaves.models import TopicModel

    favoured = np.asarray(rng.integers(0, 2, size=world.topics.shape[1]))
    share = np.where(np.arange(2)[None, :] == favoured[:, None], TWIN_SPLIT, 1 - TWIN_SPLIT)  # (base, 2)
    phi = (world.topics[:, :, None] * share[None, :, :]).reshape(len(world.topics), -1)
    return TopicModel(world.reference.vocab, phi, alpha=world.alpha.copy(), kind="simulated")


def evaluation_rejection(replicates: int, seed: int, models: int = 4, k: int = 10) -> tuple[Calibration, Calibration]:
    """How often a whole evaluation of equally good models shows any "better than", through
    :func:`tealeaves.evaluate` itself: the default metrics (NPMI, C_V, topic uniqueness, topic diversity,
    inverted RBO, WI-Auto's PMI and NPMI, held-out and predictive log likelihood, predictive rank: ten
    tested outputs, 6 pairs each for 4 models), the report-wide family, and the ``better`` column
    that the summary's bold cells and badges, the CLI table and the verdicts read.

    One :func:`twin_world` (``k`` topics) per call; each replicate draws ``models`` fresh
    :func:`twin_model` s (every metric's null holds: see there) and evaluates them with the
    replicate's seed. Returns that rate (target 5%) and, from the same tables, the rate of any
    Holm-per-metric rejection (``p_holm``, the family the report used before; no target).
    """
    import tempfile

    from tealeaves.evaluation.run import evaluate

    rng = family_generator(seed, f"calibration evaluate {models} {k}")
    world = twin_world(rng, k)
    hits = holm_hits = 0
    tested: set[str] = set()
    with tempfile.TemporaryDirectory() as folder:
        for r in range(replicates):
            config = {
                "corpora": {"reference": world.reference, "heldout": world.heldout},
                "models": {f"m{m}": twin_model(rng, world) for m in range(models)},
                "seed": seed + r,
            }
            table = evaluate(config, f"{folder}/run").comparisons
            tested |= set(table["metric"])
            hits += bool((table["better"] != "").any())
            holm_hits += bool((table["p_holm"] < LEVEL).any())
    return _report_rates(f"evaluate, {len(tested)} metrics x {models} models", k, replicates, hits, holm_hits)
