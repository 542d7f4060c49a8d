"""The evaluation tables' statistics: one estimand and one resampling plan per metric, tests from :mod:`tealeaves.stats`.

Every output has a plan (:attr:`tealeaves.metrics.Output.plan`), which fixes the unit of
inference, the interval and the test:

- ``"paired"`` (held-out likelihood, predictive log likelihood, predictive rank): every model is
  scored on the same held-out documents. A model's value is the token-weighted ratio
  :math:`R = \\sum_i v_i / \\sum_i w_i`; its 95% interval is the symmetric bootstrap-t of :math:`R`
  over ``B`` bootstrap resamples of the documents (:func:`tealeaves.stats.ratio_bootstrap_t_interval`,
  studentised by the jackknife's standard error, within the output's bounds), drawn from one
  stream per metric, so every model is resampled with the same document indices and the
  difference :math:`R_A - R_B` has the paired bootstrap-t interval; the percentile interval it
  replaced covered 92.6% and 93.4% at 20 and 50 documents (90.0% and 91.5% of heavy-tailed
  length), this one 95.2% and 94.7% (94.75%, 95.2%). The test's statistic is
  the paired t on the linearised per-document contributions :math:`u_i = (v_i - R w_i) / \\bar w`
  (the delta method; :func:`linearised`), whose mean difference is the difference of the ratios,
  referred to its randomisation distribution (the two models' values swapped on random documents:
  :class:`tealeaves.stats.family.PairedRatios`), which holds its level with 20 documents of
  heavy-tailed length where the t distribution does not: value, interval and test are all of :math:`R`.
- ``"independent"`` (NPMI, C_V, WI-Auto, human scores per topic): topics (or rated documents) are
  independent units within a model and unpaired across models. A model's value is the mean, its
  interval the studentised bootstrap's over its items (bootstrap-t, 2,000 resamples from a fixed
  stream: :func:`tealeaves.stats.bootstrap_t_interval`, the interval every display shows), which
  covers 95% under the skew per-topic metrics have, where the t interval
  :math:`\\bar x \\pm t_{0.975, n-1} s / \\sqrt n` falls to 91.8-93.7% at 20 topics; under five
  items, or without spread, the t interval. A bounded output's (:attr:`tealeaves.metrics.Output.bounds`)
  is the symmetric bootstrap-t on the logit (or log) scale and back, within its bounds. The estimate and its standard error are Welch's
  (1947; :func:`tealeaves.stats.welch_test`); the test is the symmetric bootstrap-t test of
  Welch's t (:class:`tealeaves.stats.family.IndependentMeans`), whose level holds when the two
  models' values differ in variance and shape (opposite skews: Welch's t on its t distribution
  rejects up to 9% there), the studentised permutation test where values at a ceiling leave
  the bootstrap's draws without spread (:func:`topic_method`), or the permutation test of the
  difference of means where either model has fewer than :data:`MIN_WELCH` items or neither has
  any spread.
- ``"jackknife"`` (topic uniqueness, topic diversity, inverted RBO): model-level quantities whose
  per-topic parts depend on the other topics. A model's interval is the delete-d jackknife's over
  its K topics (:func:`tealeaves.stats.delete_d_jackknife_se`, d = K/2, Shao and Wu 1989): the
  quantity is recomputed on
  :data:`SUBSETS` random subsets of K − d topics (:func:`regrouped`) and the interval is
  :math:`\\theta \\pm t_{0.975, K-1}\\, \\widehat{se}` on the logit scale and back, so that it stays
  within [0, 1] (:func:`tealeaves.stats.bounded_t_interval`; the t interval crossed 1 for inverted
  RBO near 1); on the t scale it covered 96.45% at K = 20 and 97.2% at
  K = 50 (:mod:`tealeaves.evaluation.calibration`), within 4 MC SE of 95%, where Tukey's delete-1
  jackknife over-covers (97.3%, 97.8%); the comparisons' difference keeps the delete-1 standard
  error (:func:`tealeaves.stats.jackknife_difference_test`). The test is the randomisation test
  of :func:`randomisation` (:func:`tealeaves.stats.randomisation_test`), exact in level: under the
  null the two models' topics are
  exchangeable, so the quantity is recomputed on random regroupings of the pooled topics. There is
  never a per-topic test.
- ``None`` (Hoyle et al.'s redundancy filter, a yes/no per model): shown, never tested.

With several trained runs per model (:func:`runs_tables`), the runs are the units and the
topics or documents a second level within them: a model's value is the mean of its runs'
values, its interval and the tests of two models the mixed model's over runs
(:func:`runs_test`, :func:`tealeaves.stats.runs_t_test`; the documents shared by every run of
both models are crossed with the runs, and the paired test's degrees of freedom are no more than
random swaps of the two models' documents allow, :func:`tealeaves.stats.swap_calibrated`, and a
model's interval no narrower than the bootstrap-t of its run-averaged documents,
:func:`tealeaves.stats.bootstrap_calibrated`, so that a few long documents make neither liberal).
With one run each, the tests above compare these
trained artifacts, and :func:`tealeaves.wording.verdicts` says so in each sentence. The runs'
comparisons are one report-wide family too, corrected by Holm's step-down over every pair of
every metric (or of the primary ones): with a few runs each there is nothing to resample jointly.

Every test is two-sided. The "better than" of the report (its bold, badges and verdicts) rests on
Westfall and Young's (1993) step-down over every pair of every metric together
(:func:`report_family`: one joint resampling of the documents and topics the metrics share, so
the probability of any false "better than" in the report is at most ``alpha`` however many
metrics it has), or over the primary metrics' pairs with the others labelled exploratory;
the p-values of the :math:`\\binom M2` pairs of a metric are also given Holm-corrected within the
metric (:func:`tealeaves.stats.holm`), and the direction of a significant difference is the sign
of the estimate. Where a pair is not significant, :func:`tealeaves.stats.detectable_difference`
says how large a difference the test that ran would have found with 80% power at its family's
first step, or the verdict says the test cannot reach the level at all (too few topics for a
permutation test), and where the metric has an equivalence margin (Hoyle et al. 2021,
A.5.1: :data:`tealeaves.analysis.METRIC_MARGINS`, :data:`tealeaves.analysis.HUMAN_MARGINS`), the
two one-sided tests (TOST; Schuirmann 1987, :func:`tealeaves.stats.tost_pvalue`) say whether the
pair is equivalent within it. :func:`verdicts` words the table (:mod:`tealeaves.wording`).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves import wording
from tealeaves.deprecation import moved_names, renamed_parameters
from tealeaves.errors import InputError
from tealeaves.evaluation.metrics import outputs
from tealeaves.metrics.measured import JACKKNIFE, PAIRED, Items, Output
from tealeaves.rng import family_generator
from tealeaves.stats.design import POWER, detectable_difference, minimal_detectable_difference, tost_pvalue
from tealeaves.stats.family import Comparison, IndependentMeans, PairedRatios, Regrouped, joint_null, tied_draws
from tealeaves.stats.intervals import (
    bootstrap_se,
    bootstrap_t_interval,
    bounded_t_interval,
    delete_d_jackknife_se,
    ratio_bootstrap_t_interval,
)
from tealeaves.stats.multiplicity import bonferroni_intervals, holm, westfall_young
from tealeaves.stats.resampling import paired_ratio_bootstrap, ratio_deviations
from tealeaves.stats.result import TestResult
from tealeaves.stats.runs import bootstrap_calibrated, runs_t_test, swap_calibrated
from tealeaves.stats.tests import (
    jackknife_difference_test,
    paired_t_test,
    permutation_test,
    randomisation_test,
    welch_test,
)

__getattr__ = moved_names(__name__, {"Estimates": "tealeaves.evaluation.stats.Measurements"})

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd

MIN_WELCH = 5  # fewer items in a model: the permutation test
PERMUTATIONS = 9999
REGROUPINGS = 1999  # the model-level randomisation test's random regroupings
SUBSETS = 1000  # the delete-d jackknife's random subsets of topics
RUN_DRAWS = 999  # swaps of two models' documents (resamples of one's) calibrating a paired output over runs
PER_MODEL_COLUMNS = ("model", "metric", "label", "unit", "plan", "mean", "se", "ci_low", "ci_high", "n")
COMPARISON_COLUMNS = (
    "metric",
    "model_a",
    "model_b",
    "difference",
    "se",
    "ci_low",
    "ci_high",
    "test",
    "df",
    "n",
    "p",
    "p_holm",
    "better",
    "mdd",
    "margin",
    "p_equivalence",
    "p_equivalence_holm",
    "equivalent",
    "family",
    "p_report",
    "p_attainable",
    "sim_low",
    "sim_high",
)
REPORT_RESAMPLES = 1999  # joint replicates of the report's family (Westfall-Young)
UNIT_RANGE = (0.0, 1.0)  # the range of the model-level quantities (uniqueness, diversity, inverted RBO)
TIED = 0.01  # a model's share of bootstrap draws without spread above which its topics are permuted
TEST_NAMES = {  # the test each comparison of the report's family runs
    "paired": "paired randomisation (studentised)",
    "bootstrap-t": "bootstrap-t",
    "studentised permutation": "studentised permutation",
    "permutation": "permutation",
    "randomisation": "randomisation",
}


def linearised(items: Items) -> np.ndarray:
    """Per-item contributions whose mean is the ratio :math:`R = \\sum v / \\sum w` and whose variance
    over n is its delta-method variance: :math:`u_i = R + (v_i - R w_i) / \\bar w` (for unit
    weights, the values themselves)."""
    if np.all(items.weights == items.weights[0]):
        return items.values / items.weights[0]  # the same, without rounding
    r, deviations = ratio_deviations(items.values, items.weights)
    return r + deviations


def dense_documents(items: dict[str, Items]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every model's values and weights at the positions ``0 .. n-1`` of the held-out corpus (``n`` one
    past the largest id): a document a model left unscored has value and weight 0."""
    n = 1 + max(int(v.ids.max()) for v in items.values() if len(v.ids))
    dense = {}
    for model, v in items.items():
        values, weights = np.zeros(n), np.zeros(n)
        values[v.ids], weights[v.ids] = v.values, v.weights
        dense[model] = values, weights
    return dense


def document_bootstrap(
    items: dict[str, Items], n_resamples: int, seed: int, metric: str
) -> tuple[dict[str, np.ndarray], int]:
    """``n_resamples`` bootstrap resamples of every model's ratio, all models resampled with the same documents.

    The documents are positions ``0 .. n-1`` in the held-out corpus (:func:`dense_documents`); a
    model that left a document unscored counts it with value and weight 0, so its ratio is over
    its own scored documents among those drawn (:func:`tealeaves.stats.paired_ratio_bootstrap`).
    The draws come from the stream family ``"evaluate bootstrap " + metric`` under ``seed``
    (:func:`tealeaves.rng.family_generator`): one stream per metric, independent of which models
    run. Returns the resamples and ``n``.
    """
    dense = dense_documents(items)
    n = len(next(iter(dense.values()))[0])
    return paired_ratio_bootstrap(dense, n_resamples, _bootstrap_stream(seed, metric)), n


def _bootstrap_stream(seed: int, metric: str) -> np.random.Generator:
    """A paired metric's stream of document resamples: the family ``"evaluate bootstrap " + metric``."""
    return family_generator(seed, f"evaluate bootstrap {metric}")


def document_interval(
    items: dict[str, Items],
    model: str,
    n_resamples: int,
    seed: int,
    metric: str,
    other: str | None = None,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, float]:
    """The 95% interval of a model's ratio over the held-out documents, or of its difference from
    ``other``'s: the symmetric bootstrap-t (:func:`tealeaves.stats.ratio_bootstrap_t_interval`, within
    ``bounds``) over the resamples of :func:`document_bootstrap` (the same stream, the same documents)."""
    dense = dense_documents(items)
    second = dense[other] if other is not None else None
    return ratio_bootstrap_t_interval(
        dense[model], n_resamples, _bootstrap_stream(seed, metric), other=second, bounds=bounds
    )


def regrouped(metric: str, topics: dict[str, Any]) -> Callable[[np.ndarray], np.ndarray]:
    """The model-level quantity of any subsets of ``topics["words"]``: a function of boolean masks
    (one row a subset) returning one value a row.

    Topic uniqueness over the top N words is :math:`\\frac1K \\sum_k \\frac1N \\sum_{w \\in k} 1/c_w
    = |\\bigcup_k \\mathrm{top}_N(k)| / (K N)` (each distinct word contributes :math:`c_w \\cdot 1/c_w`;
    Nan et al. 2019), topic diversity the same over the top 25 (Dieng et al. 2020), inverted RBO
    one minus the mean RBO of the subset's pairs (Bianchi et al. 2021), with the settings of
    :func:`tealeaves.metrics.words.model_level_topics`.
    """
    from tealeaves.coherence import rank_biased_overlap

    words = topics["words"]
    if metric == "inverted_rbo":
        top = [topic[: topics["uniqueness_topn"]] for topic in words]
        rbo = np.zeros((len(top), len(top)))
        for i, j in itertools.combinations(range(len(top)), 2):
            rbo[i, j] = rbo[j, i] = rank_biased_overlap(top[i], top[j], topics["rbo_p"])

        def inverted(groups: np.ndarray) -> np.ndarray:
            g, k = groups.astype(np.float64), groups.sum(axis=1)
            return 1.0 - ((g @ rbo) * g).sum(axis=1) / (k * (k - 1))

        return inverted
    topn = topics["uniqueness_topn" if metric == "topic_uniqueness" else "diversity_topn"]
    vocab = {w: i for i, w in enumerate(dict.fromkeys(w for topic in words for w in topic[:topn]))}
    held = np.zeros((len(words), len(vocab)), dtype=np.float32)
    for i, topic in enumerate(words):
        held[i, [vocab[w] for w in topic[:topn]]] = 1.0

    def distinct(groups: np.ndarray) -> np.ndarray:
        return np.count_nonzero(groups.astype(np.float32) @ held, axis=1) / (groups.sum(axis=1) * topn)

    return distinct


def randomisation(
    metric: str, a: dict[str, Any], b: dict[str, Any], seed: int, purpose: str, regroupings: int = REGROUPINGS
) -> TestResult:
    """The randomisation test of the difference of a model-level quantity :math:`Q` of two models' topics.

    Under the null the :math:`K_A + K_B` topics of the two models (``a["words"]``, ``b["words"]``;
    :func:`tealeaves.metrics.words.model_level_topics`) are exchangeable: the test pools them
    and recomputes :math:`Q` (:func:`regrouped`) on ``regroupings`` random splits into groups of
    :math:`K_A` and :math:`K_B` topics (:func:`tealeaves.stats.randomisation_test`; exact in level,
    ties broken at random, where :math:`(1 + \\#\\{\\ge\\}) / (1 + P)` rejects about 3.5% at
    K = 20). The splits come from the stream family ``"evaluate randomisation " + purpose``.
    """
    quantity = regrouped(metric, {**a, "words": list(a["words"]) + list(b["words"])})
    ka, n = len(a["words"]), len(a["words"]) + len(b["words"])
    rng = family_generator(seed, f"evaluate randomisation {purpose}")
    return randomisation_test(quantity, ka, n, rng, regroupings)


def paired_t(a: Items, b: Items) -> TestResult:
    """The paired t-test of two ratios on the documents both scored (linearised contributions).

    With :math:`d_i = u^A_i - u^B_i` (:func:`linearised`, over the common documents),
    :math:`t = \\bar d / (s_d / \\sqrt n)` on :math:`n - 1` degrees of freedom, two-sided
    (:func:`tealeaves.stats.paired_t_test`); :math:`\\bar d = R_A - R_B`.
    """
    common, ia, ib = np.intersect1d(a.ids, b.ids, return_indices=True)
    ua = linearised(Items(a.values[ia], a.weights[ia], common))
    ub = linearised(Items(b.values[ib], b.weights[ib], common))
    return paired_t_test(ua, ub)


def permutation(a: np.ndarray, b: np.ndarray, seed: int, purpose: str) -> TestResult:
    """The permutation test of the difference of means (:data:`PERMUTATIONS` relabellings,
    :func:`tealeaves.stats.permutation_test`) from the stream family ``"evaluate permutation " +
    purpose``: where Welch's t is not usable (fewer than :data:`MIN_WELCH` items, or no spread)."""
    return permutation_test(a, b, family_generator(seed, f"evaluate permutation {purpose}"), PERMUTATIONS)


def margin_of(metric: str) -> float:
    """Hoyle et al.'s (2021, A.5.1) equivalence margin of an output, NaN where none is defined."""
    from tealeaves.analysis import HUMAN_MARGINS, METRIC_MARGINS

    margins = {
        "npmi": METRIC_MARGINS["NPMI"],
        "cv": METRIC_MARGINS["Cv"],
        "model_precision": HUMAN_MARGINS["word-intrusion"],
    }
    return float(margins.get(metric, np.nan))


@dataclass
class Measurements:
    """What the tables are made of, every model's :class:`~tealeaves.metrics.Measured` by (model, output):
    per-item values, model-level values, leave-one-topic-out values, and every model's top words
    (:func:`tealeaves.metrics.words.model_level_topics`). Was ``Estimates``, the name of the likelihood
    estimators' result (:class:`tealeaves.likelihood.estimators.Estimates`)."""

    items: dict[tuple[str, str], Items]
    scalars: dict[tuple[str, str], float]
    jackknife: dict[tuple[str, str], np.ndarray]
    topics: dict[str, dict[str, Any]] = field(default_factory=dict)  # model -> its top words and settings


def per_model_table(
    measurements: Measurements, n_resamples: int, seed: int
) -> tuple[pd.DataFrame, dict[tuple[str, str], np.ndarray]]:
    """One row per (model, metric): the value, its standard error and 95% interval by the metric's plan, and n.

    A paired output's interval is the symmetric bootstrap-t of its ratio over the
    :func:`document_bootstrap` resamples (:func:`document_interval`, within the output's bounds),
    its standard error their standard deviation (NaN where a resample held none of a model's
    documents). A topic-level (``"independent"``) output's interval is the bootstrap-t
    interval of the mean of its linearised items (:func:`tealeaves.stats.bootstrap_t_interval`; for
    topics, the values themselves), within the output's :attr:`~tealeaves.metrics.Output.bounds`. A model-level quantity's interval is the delete-d jackknife's
    over the model's topics (:func:`tealeaves.stats.delete_d_jackknife_se`; its subsets from the
    stream family ``"evaluate delete-d METRIC MODEL"`` under ``seed``), n its number of topics.

    Returns the table and, for paired metrics, each model's bootstrap resamples (same documents
    for every model of a metric).
    """
    import pandas as pd

    known = outputs()
    rows = []
    boots: dict[tuple[str, str], np.ndarray] = {}
    for metric in dict.fromkeys(m for _, m in measurements.items):
        if known[metric].plan == PAIRED:
            part = {model: v for (model, m), v in measurements.items.items() if m == metric}
            resampled, _ = document_bootstrap(part, n_resamples, seed, metric)
            boots |= {(model, metric): r for model, r in resampled.items()}
    for (model, metric), values in measurements.items.items():
        out = known[metric]
        if out.plan == JACKKNIFE:
            continue  # the model-level value and its jackknife below
        if out.plan == PAIRED:
            part = {m: v for (m, name), v in measurements.items.items() if name == metric}
            low, high = document_interval(part, model, n_resamples, seed, metric, bounds=out.bounds)
            se = bootstrap_se(boots[model, metric], nan_policy="propagate")
        else:
            n = len(values.values)
            se = float(linearised(values).std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
            low, high = bootstrap_t_interval(linearised(values), bounds=out.bounds)  # NaN for one item
        rows.append((model, metric, out.label, out.unit, out.plan, values.ratio(), se, low, high, len(values.values)))
    for (model, metric), value in measurements.scalars.items():
        out = known[metric]
        topics = measurements.topics.get(model, {}) if out.plan == JACKKNIFE else {}
        k = len(topics.get("words", ()))
        se = np.nan
        if k >= 3:  # the delete-d jackknife over the model's topics, one stream per (metric, model)
            rng = family_generator(seed, f"evaluate delete-d {metric} {model}")
            se = delete_d_jackknife_se(regrouped(metric, topics), k, rng, SUBSETS)
        low, high = bounded_t_interval(value, se, k - 1.0, UNIT_RANGE) if np.isfinite(se) else (np.nan, np.nan)
        rows.append((model, metric, out.label, "model", out.plan, value, se, low, high, max(k, 1)))
    return pd.DataFrame(rows, columns=list(PER_MODEL_COLUMNS)), boots


def comparisons_table(
    measurements: Measurements,
    boots: dict[tuple[str, str], np.ndarray],
    models: list[str],
    alpha: float,
    seed: int = 0,
    primary: list[str] | None = None,
) -> pd.DataFrame:
    """Every pair of models on every tested output, by the output's plan (see the module docstring).

    Per pair: the difference A − B, its standard error and 95% interval, the test and its
    two-sided p-value (``p``), the same Holm-corrected over the pairs of the output
    (``p_holm``), and the report-wide Westfall-Young adjusted p-value (``p_report``, over the
    ``family`` of comparisons it belongs to: every pair of every metric, or, with ``primary``
    metrics, the primary metrics' pairs and, apart, the other, exploratory ones; see
    :func:`report_family`), with the smallest p-value it could attain (``p_attainable``) and
    the simultaneous interval consistent with it (``sim_low``, ``sim_high``). The model
    significantly better at ``alpha`` by ``p_report`` (empty when neither is); the minimal
    detectable difference at 80% power of the test that runs, at the level its family's first
    step rejects at (NaN where it cannot reach ``alpha`` at all); and, where the output has an
    equivalence margin, the TOST p-value (Holm-corrected over the output's pairs) and whether
    the pair is equivalent.
    """
    import pandas as pd

    known = outputs()
    tested: list[tuple[str, str, str, TestResult, Comparison]] = []
    for metric in dict.fromkeys([m for _, m in measurements.items] + [m for _, m in measurements.jackknife]):
        out = known[metric]
        if out.plan is None:
            continue
        present = [m for m in models if _has(measurements, out, m, metric)]
        for a, b in itertools.combinations(present, 2):
            plan = _comparison(measurements, out, metric, a, b)
            estimate = _compare(measurements, boots, out, metric, a, b, seed)
            tested.append((metric, a, b, dataclasses.replace(estimate, test=TEST_NAMES[_method(plan)]), plan))
    found = report_family(tested, alpha, seed, primary)
    rows = []
    for metric in dict.fromkeys(t[0] for t in tested):
        at = [i for i, t in enumerate(tested) if t[0] == metric]
        pairs = [(tested[i][1], tested[i][2]) for i in at]
        results = [dataclasses.replace(tested[i][3], pvalue=float(found["p"][i])) for i in at]
        rows += _report_rows(metric, known[metric], pairs, results, {k: v[at] for k, v in found.items()}, alpha)
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def _method(plan: Comparison) -> str:
    """The name of the test a comparison of the report's family runs (a key of :data:`TEST_NAMES`)."""
    if isinstance(plan, PairedRatios):
        return "paired"
    return plan.method if isinstance(plan, IndependentMeans) else "randomisation"


def _comparison(measurements: Measurements, out: Output, metric: str, a: str, b: str) -> Comparison:
    """Which test of the report's family fits a pair on an output: the output's plan and units decide.

    Documents scored by both models (``"paired"``): the studentised paired randomisation test of
    the ratios on their common documents. Topics (``"independent"``): the bootstrap-t test of
    the means of their linearised values (:func:`topic_method`); the studentised permutation test where the values are
    so tied that more than :data:`TIED` of a model's bootstrap draws would have no spread
    (:func:`tealeaves.stats.family.tied_draws`: values at a ceiling); the permutation test of the
    difference of means where either model has fewer than :data:`MIN_WELCH` or neither varies. A model-level quantity (``"jackknife"``): the
    randomisation test of its regrouped topics (:func:`regrouped`).
    """
    if out.plan == JACKKNIFE:
        ta, tb = measurements.topics[a], measurements.topics[b]
        quantity = regrouped(metric, {**ta, "words": list(ta["words"]) + list(tb["words"])})
        return Regrouped(a, b, len(ta["words"]), len(tb["words"]), quantity)
    items_a, items_b = measurements.items[a, metric], measurements.items[b, metric]
    if out.plan == PAIRED:
        common, ia, ib = np.intersect1d(items_a.ids, items_b.ids, return_indices=True)
        series = [(v.values[i], v.weights[i]) for v, i in ((items_a, ia), (items_b, ib))]
        return PairedRatios(a, b, common, series[0], series[1])
    x, y = linearised(items_a), linearised(items_b)
    return IndependentMeans(a, b, items_a.ids, x, items_b.ids, y, topic_method(x, y), space=out.unit)


def topic_method(x: np.ndarray, y: np.ndarray) -> str:
    """The test of two models' mean per-topic values (see :func:`_comparison`): ``"bootstrap-t"``,
    ``"studentised permutation"`` (values at a ceiling) or ``"permutation"`` (too few, or no spread)."""
    if min(len(x), len(y)) < MIN_WELCH or (x.var() == 0 and y.var() == 0):
        return "permutation"
    if max(tied_draws(x), tied_draws(y)) > TIED:  # a ceiling: the bootstrap's draws often have no spread
        return "studentised permutation"
    return "bootstrap-t"


def report_family(
    tested: list[tuple[str, str, str, TestResult, Comparison]], alpha: float, seed: int, primary: list[str] | None
) -> dict[str, np.ndarray]:
    """Westfall and Young's step-down over the report: every comparison tested on one joint resampling.

    The family is every pair of every tested metric (or, where ``primary`` names metrics,
    those metrics' pairs, and apart from them the other metrics' pairs, labelled exploratory):
    the probability of any false "better than" anywhere in the report (the summary's bold and
    badges, the verdicts) is at most ``alpha`` under the complete null. Every comparison is
    recomputed on each of :data:`REPORT_RESAMPLES` joint replicates (or :math:`4m / \\alpha`, where
    more, so that a continuous test of a large family can still reach ``alpha``)
    (:func:`tealeaves.stats.family.joint_null`: the held-out documents relabelled across models,
    the topics drawn within each model for the topic-level metrics, relabelled across models
    for the model-level quantities and the permutation tests, the same draws for every metric
    that shares the units) from the stream family ``"evaluate report family"`` under ``seed``,
    and adjusted by :func:`tealeaves.stats.westfall_young`. Returns, per comparison in the
    order given, ``p`` (marginal), ``p_report``, ``p_attainable``, ``critical`` and ``level`` (of
    its family's first step) and ``family`` (its name).
    """
    m = len(tested)
    found = {k: np.full(m, np.nan) for k in ("p", "p_report", "p_attainable", "critical", "level")}
    found["family"] = np.full(m, "", dtype=object)
    if not m:
        return found
    rng = family_generator(seed, "evaluate report family")
    # enough replicates that a continuous test's best adjusted p, about m / (B + 1), stays below alpha / 4
    replicates = max(REPORT_RESAMPLES, math.ceil(4 * m / alpha) - 1)
    observed, null, floor = joint_null([t[4] for t in tested], replicates, rng)
    chosen = set(primary or ())
    groups = {"report": list(range(m))}
    if chosen:
        groups = {
            "primary": [i for i, t in enumerate(tested) if t[0] in chosen],
            "exploratory": [i for i, t in enumerate(tested) if t[0] not in chosen],
        }
    for name, at in groups.items():
        if not at:
            continue
        adjusted = westfall_young(observed[at], null[:, at], alpha, floor[at])
        found["p"][at], found["p_report"][at] = adjusted.pvalue, adjusted.adjusted
        found["p_attainable"][at], found["critical"][at] = adjusted.attainable, adjusted.critical
        found["level"][at] = adjusted.level
        found["family"][at] = wording.family_name(name, len(at), sorted({tested[i][0] for i in at}))
    return found


def _report_rows(
    metric: str, out: Output, pairs: list[tuple[str, str]], tested: list[TestResult], found: dict, alpha: float
) -> list:
    """The comparison rows of one metric's pairs: Holm over its pairs, the report's family, direction,
    the test's detectable difference, the simultaneous interval, TOST."""
    rows = []
    adjusted, margin, tost, tost_holm = _holm_and_tost(metric, tested)
    for i, ((a, b), c) in enumerate(zip(pairs, tested)):
        q = found["p_report"][i]
        better = "" if not q < alpha else (a if (c.difference > 0) == out.higher_is_better else b)
        studentised = c.test not in (TEST_NAMES["permutation"], TEST_NAMES["randomisation"])
        critical, reachable = found["critical"][i], found["p_attainable"][i] < alpha
        mdd = np.nan
        if c.se > 0 and reachable:
            mdd = detectable_difference(critical, c.se, _df(c), POWER, studentised)
        reach = critical * c.se if studentised else critical
        equivalent = bool(tost_holm[i] < alpha) and not better
        estimate = (c.difference, c.se, c.ci_low, c.ci_high, c.test, c.df, c.n)
        family = (found["family"][i], q, found["p_attainable"][i], c.difference - reach, c.difference + reach)
        tests = (c.pvalue, adjusted[i], better, mdd, margin, tost[i], tost_holm[i], equivalent)
        rows.append((metric, a, b, *estimate, *tests, *family))
    return rows


def _holm_and_tost(metric: str, tested: list[TestResult]) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Holm over one metric's pairs, and, where the metric has an equivalence margin, the TOST p-values
    (Holm-corrected too): the adjusted p-values, the margin, the TOST p-values and their Holm."""
    margin = margin_of(metric)
    tost = np.full(len(tested), np.nan)
    if np.isfinite(margin):
        tost = np.array([tost_pvalue(c.difference, c.se, _df(c), margin) for c in tested])  # type: ignore[arg-type]
    return holm([c.pvalue for c in tested]), margin, tost, holm(tost)


def _df(test: TestResult) -> float | None:
    """A test's degrees of freedom, None for a test without any (permutation: the normal's quantiles)."""
    return float(test.df) if np.isfinite(test.df) else None


def _runs_rows(metric: str, pairs: list[tuple[str, str]], tested: list[TestResult]) -> list:
    """One metric's comparison rows over runs: the test, Holm over the metric's pairs and TOST; the
    direction, the report's family and the detectable difference are :func:`_runs_family`'s."""
    adjusted, margin, tost, tost_holm = _holm_and_tost(metric, tested)
    decided = ("", np.nan)  # better and mdd: the family's
    family = ("", np.nan, np.nan, np.nan, np.nan)  # family, p_report, p_attainable, sim_low, sim_high
    rows = []
    for (a, b), c, q, e, eq in zip(pairs, tested, adjusted, tost, tost_holm):
        estimate = (c.difference, c.se, c.ci_low, c.ci_high, c.test, c.df, c.n)
        rows.append((metric, a, b, *estimate, c.pvalue, q, *decided, margin, e, eq, False, *family))
    return rows


def _runs_family(table: pd.DataFrame, alpha: float, primary: list[str] | None) -> pd.DataFrame:
    """The runs' comparisons as the report's family: Holm's step-down over every pair of every metric
    (or the primary metrics' pairs and, apart, the others'), valid under any dependence between the
    metrics; ``better`` where the family's adjusted p is below ``alpha``, the minimal detectable
    difference at its first step (``alpha / m``), ``equivalent`` by TOST where no difference is found.

    The simultaneous interval (``sim_low``, ``sim_high``) is Bonferroni's over the family
    (:func:`tealeaves.stats.bonferroni_intervals`, Holm's first step), which excludes 0 only where
    Holm's adjusted p is below ``alpha``. A t-test's p-value reaches 0, so ``p_attainable`` is 0."""
    known = outputs()
    chosen = set(primary or ())
    in_primary = table["metric"].isin(chosen).to_numpy()
    groups = {"primary": in_primary, "exploratory": ~in_primary} if chosen else {"report": np.ones(len(table), bool)}
    table = table.copy()
    for name, at in groups.items():
        if not at.any():
            continue
        part = table[at]
        table.loc[at, "p_report"] = holm(part["p"].to_numpy())
        metrics = sorted(set(part["metric"]))
        table.loc[at, "family"] = wording.family_name(name, int(at.sum()), metrics, method="Holm")
        strictest = alpha / int(at.sum())
        freedom = part["df"].to_numpy(dtype=float)  # NaN (no degrees of freedom): the normal
        low, high = bonferroni_intervals(part["difference"], part["se"], np.nan_to_num(freedom, nan=np.inf), alpha)
        table.loc[at, "sim_low"], table.loc[at, "sim_high"] = low, high
        table.loc[at, "p_attainable"] = np.where(part["p"].notna(), 0.0, np.nan)
        table.loc[at, "mdd"] = [
            minimal_detectable_difference(se, df if np.isfinite(df) else None, strictest, POWER) if se > 0 else np.nan
            for se, df in zip(part["se"], part["df"])
        ]
    higher = table["metric"].map(lambda m: known[m].higher_is_better)
    significant = table["p_report"] < alpha
    a_ahead = (table["difference"] > 0) == higher
    table["better"] = np.where(significant, np.where(a_ahead, table["model_a"], table["model_b"]), "")
    table["equivalent"] = (table["p_equivalence_holm"] < alpha) & ~significant
    return table


def run_units(runs: list[Items], plan: str | None) -> list[np.ndarray]:
    """Each run's units as :func:`tealeaves.stats.runs_t_test` takes them: a topic-level output's
    linearised items (:func:`linearised`), a paired output's linearised contributions on the
    documents every given run scored (:func:`_aligned`), a model-level quantity's one value."""
    return [linearised(r) for r in (_aligned(runs) if plan == PAIRED else runs)]


def _aligned(runs: list[Items]) -> list[Items]:
    """Each run's items on the documents every run scored, in the same order (an :class:`InputError`
    where they share none)."""
    common = functools.reduce(np.intersect1d, [r.ids for r in runs])
    if len(common) == 0:
        raise InputError(
            "the runs share no held-out document: score every run of the models compared on the same held-out corpus"
        )
    positions = [_positions(r.ids, common) for r in runs]
    return [Items(r.values[at], r.weights[at], common) for r, at in zip(runs, positions)]


def _positions(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Where each of ``wanted`` (all present) stands in ``ids``, sorted or not."""
    order = np.argsort(ids, kind="stable")
    return order[np.searchsorted(ids[order], wanted)]


def runs_test(
    a: list[Items],
    b: list[Items] | None,
    plan: str | None,
    bounds: tuple[float, float] | None = None,
    rng: np.random.Generator | None = None,
) -> TestResult:
    """Two models' runs compared with the runs as units (:func:`tealeaves.stats.runs_t_test`): topics
    within runs for a topic-level output, the held-out documents crossed with the runs (the same
    documents for every run of both models: paired) for a paired one, one value a run for a
    model-level quantity. A paired test's degrees of freedom are calibrated by :data:`RUN_DRAWS`
    random swaps of the two models' run-averaged documents drawn from ``rng``
    (:func:`tealeaves.stats.swap_calibrated`). ``b`` None: model A's value alone, whose interval the per-model row shows,
    within ``bounds`` (the metric's range; widened to the value should it lie outside) on the logit
    or log scale and back (:func:`tealeaves.stats.bounded_t_interval`); a paired output's no narrower
    than the bootstrap-t of :data:`RUN_DRAWS` resamples of its run-averaged documents drawn from
    ``rng`` allows (:func:`tealeaves.stats.bootstrap_calibrated`)."""
    if plan == PAIRED:
        if rng is None:
            raise ValueError(
                "runs_test: a paired output needs rng, the stream its document swaps or resamples come from"
            )
        aligned = _aligned([*a, *(b or [])])
        units = [linearised(r) for r in aligned]
        averaged = [
            (np.mean([r.values for r in x], axis=0), np.mean([r.weights for r in x], axis=0))
            for x in (aligned[: len(a)], aligned[len(a) :])
            if x
        ]
        if b is not None:
            found = runs_t_test(units[: len(a)], units[len(a) :], paired=True)
            return swap_calibrated(found, averaged[0], averaged[1], rng.random((RUN_DRAWS, len(units[0]))) < 0.5)
        found = bootstrap_calibrated(runs_t_test(units, paired=True), averaged[0], RUN_DRAWS, rng)
    else:
        found = runs_t_test(run_units(a, plan), run_units(b, plan) if b is not None else None)
    if b is not None or bounds is None:
        return found
    value = float(found.difference)
    span = (min(bounds[0], value), max(bounds[1], value))
    low, high = bounded_t_interval(value, float(found.se), float(found.df), span)
    return dataclasses.replace(found, ci_low=low, ci_high=high)


def runs_tables(
    measurements: Measurements,
    per_model: pd.DataFrame,
    runs: dict[str, list[str]],
    alpha: float,
    primary: list[str] | None = None,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """With several trained runs per model, the runs are the units: each model's value, interval and test.

    A model's value is the mean of its runs' values (each run's own value by its metric's plan,
    the rows of ``per_model`` named ``MODEL/1``, ``MODEL/2``, ...); its interval and the test of
    two models are the two-level (mixed) model's over runs, topics or documents within them
    (:func:`runs_test`, :func:`tealeaves.stats.runs_t_test`): over the run means for topic-level
    outputs and model-level quantities, the run means and the shared documents for paired ones.
    The comparisons are the report's family, corrected by Holm over every pair of every metric
    (:func:`_runs_family`; ``primary``: the primary metrics' pairs and the others apart). A
    paired pair's document swaps come from the stream family ``"evaluate runs swaps METRIC A B"``
    under ``seed``, a paired model's document resamples from ``"evaluate runs resamples METRIC MODEL"``.
    Returns the model rows (plan ``"runs"``, n the number of runs) and the comparisons.
    """
    import pandas as pd

    known = outputs()
    rows: list[tuple] = []
    compared = []
    for metric, part in per_model.groupby("metric", sort=False):
        out = known[str(metric)]
        values = part.set_index("model")["mean"]
        present = [m for m, names in runs.items() if values.reindex(names).notna().sum() >= 2]
        given = {m: [n for n in runs[m] if n in values.index and np.isfinite(values[n])] for m in present}
        for m in present:
            x = values[given[m]].to_numpy()
            if out.plan is None:  # untested (the redundancy filter): the share of runs, no interval
                rows.append((m, metric, out.label, "model", None, float(x.mean()), np.nan, np.nan, np.nan, len(x)))
                continue
            span = UNIT_RANGE if out.plan == JACKKNIFE else out.bounds
            resamples = family_generator(seed, f"evaluate runs resamples {metric} {m}")
            c = runs_test(_run_items(measurements, out, given[m], str(metric)), None, out.plan, span, resamples)
            rows.append((m, metric, out.label, "model", "runs", float(x.mean()), c.se, c.ci_low, c.ci_high, len(x)))
        if out.plan is None:
            continue
        pairs = list(itertools.combinations(present, 2))
        items = {m: _run_items(measurements, out, given[m], str(metric)) for m in present}
        tested = [
            runs_test(items[a], items[b], out.plan, rng=family_generator(seed, f"evaluate runs swaps {metric} {a} {b}"))
            for a, b in pairs
        ]
        compared += _runs_rows(str(metric), pairs, tested)
    table = pd.DataFrame(compared, columns=list(COMPARISON_COLUMNS))
    return pd.DataFrame(rows, columns=list(PER_MODEL_COLUMNS)), _runs_family(table, alpha, primary)


def _run_items(measurements: Measurements, out: Output, names: list[str], metric: str) -> list[Items]:
    """The runs' items of an output; a model-level quantity's one value a run."""
    if out.plan == JACKKNIFE:
        return [
            Items(np.array([measurements.scalars[n, metric]]), np.ones(1), np.zeros(1, dtype=np.int64)) for n in names
        ]
    return [measurements.items[n, metric] for n in names]


def _has(measurements: Measurements, out: Output, model: str, metric: str) -> bool:
    if out.plan == JACKKNIFE:
        loo = measurements.jackknife.get((model, metric))
        return loo is not None and len(loo) > 1 and model in measurements.topics
    return (model, metric) in measurements.items and len(measurements.items[model, metric].values) > 0


def _compare(measurements, boots, out: Output, metric: str, a: str, b: str, seed: int) -> TestResult:
    """One pair's test by the output's plan (the module docstring)."""
    if out.plan == JACKKNIFE:
        jackknifed = jackknife_difference_test(
            (measurements.scalars[a, metric], measurements.jackknife[a, metric]),
            (measurements.scalars[b, metric], measurements.jackknife[b, metric]),
        )
        return dataclasses.replace(jackknifed, test=TEST_NAMES["randomisation"])  # its p: the report's family
    items_a, items_b = measurements.items[a, metric], measurements.items[b, metric]
    if out.plan == PAIRED:
        part = {m: v for (m, name), v in measurements.items.items() if name == metric}
        low, high = document_interval(part, a, len(boots[a, metric]), seed, metric, other=b)
        return dataclasses.replace(
            paired_t(items_a, items_b), difference=items_a.ratio() - items_b.ratio(), ci_low=low, ci_high=high
        )
    x, y = linearised(items_a), linearised(items_b)
    few = min(len(x), len(y)) < MIN_WELCH
    if few or (x.var() == 0 and y.var() == 0):
        return permutation(x, y, seed, f"{metric} {a} {b}")
    return welch_test(x, y)


@renamed_parameters(level="alpha")
def verdicts(comparisons: pd.DataFrame, alpha: float) -> dict[str, str]:
    """One sentence per compared output: what was found and how sure, as :func:`tealeaves.wording.verdicts`
    words it with the outputs' labels, directions and plans (:func:`tealeaves.evaluation.metrics.outputs`).

    Parameters
    ----------
    comparisons : DataFrame
        The ``comparisons`` table of an evaluation (:attr:`Evaluation.comparisons`).
    alpha : float
        The significance level the table was tested at, named in the sentences (its old name,
        ``level``, is deprecated).

    Returns
    -------
    dict of str to str
        One sentence per output, by output name.

    Examples
    --------
    Two topic lists scored by NPMI on a reference corpus of eight documents, each holding the
    three words of one of the first model's topics; the second model mixes them.

    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.evaluation import evaluate
    >>> tmp = tempfile.TemporaryDirectory()
    >>> folder = Path(tmp.name)
    >>> words = "tax budget deficit war peace army school teacher student farm crop harvest".split()
    >>> docs = [[3 * k + (i + s) % 3 for i in range(3)] for k in range(4) for s in range(2)]  # 2 per topic
    >>> _ = Corpus.from_documents(docs, Vocabulary(words)).save(folder / "reference")
    >>> _ = (folder / "clean.txt").write_text("tax budget deficit\\nwar peace army\\nschool teacher student\\nfarm crop harvest\\n")
    >>> _ = (folder / "mixed.txt").write_text("tax war school\\nbudget peace farm\\ndeficit army crop\\nteacher student harvest\\n")
    >>> config = {
    ...     "corpora": {"reference": str(folder / "reference")},
    ...     "models": [
    ...         {"name": "clean", "path": str(folder / "clean.txt")},
    ...         {"name": "mixed", "path": str(folder / "mixed.txt")},
    ...     ],
    ...     "metrics": {"npmi": {"topn": 3, "window": "document"}, "cv": False, "wi-auto": False, "diversity": False},
    ... }
    >>> evaluation = evaluate(config, folder / "run")
    >>> from tealeaves.evaluation import verdicts
    >>> for output, sentence in verdicts(evaluation.comparisons, 0.05).items():
    ...     print(output, "|", sentence)
    npmi | NPMI (higher is better; ...): clean (this run) better than mixed (this run) by 1.83 [1.3, 2.36] (p = 0.04) (Westfall-Young ...): ...
    >>> tmp.cleanup()
    """
    return wording.verdicts(comparisons.to_dict("records"), outputs(), alpha)
