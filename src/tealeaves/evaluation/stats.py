"""Intervals, tests and verdicts of the evaluation tables: one estimand and one resampling plan per metric.

Every output has a plan (:attr:`tealeaves.evaluation.metrics.Output.plan`), which fixes the unit of
inference, the interval and the test:

- ``"paired"`` (held-out likelihood, predictive log likelihood, predictive rank): every model is
  scored on the same held-out documents. A model's value is the token-weighted ratio
  :math:`R = \\sum_i v_i / \\sum_i w_i`; its 95% interval is the percentile interval of :math:`R`
  over ``B`` bootstrap resamples of the documents, drawn from one stream per metric, so every model
  is resampled with the same document indices and the difference :math:`R_A - R_B` has the paired
  bootstrap interval. The test is the paired t-test on the linearised per-document contributions
  :math:`u_i = (v_i - R w_i) / \\bar w` (the delta method; :func:`linearised`), whose mean
  difference is the difference of the ratios: value, interval and test are all of :math:`R`.
- ``"independent"`` (NPMI, C_V, WI-Auto, human scores per topic): topics (or rated documents) are
  independent units within a model and unpaired across models. A model's value is the mean, its
  interval the studentised bootstrap's over its items (bootstrap-t, 2,000 resamples from a fixed
  stream: :func:`tealeaves.display.bootstrap_t_interval`, the interval every display shows), which
  covers 95% under the skew per-topic metrics have, where the t interval
  :math:`\\bar x \\pm t_{0.975, n-1} s / \\sqrt n` falls to 91.8-93.7% at 20 topics; under five
  items, or without spread, the t interval. The test is Welch's (1947) t-test (its level holds under that skew),
  or a permutation test of the difference of means where either model has fewer than
  :data:`MIN_WELCH` items or neither has any spread.
- ``"jackknife"`` (topic uniqueness, topic diversity, inverted RBO): model-level quantities whose
  per-topic parts depend on the other topics. A model's interval is the delete-d jackknife's over
  its K topics (:func:`delete_d_se`, d = K/2, Shao and Wu 1989): the quantity is recomputed on
  :data:`SUBSETS` random subsets of K − d topics (:func:`regrouped`) and the interval is
  :math:`\\theta \\pm t_{0.975, K-1}\\, \\widehat{se}`; it covers 96.45% at K = 20 and 97.2% at
  K = 50 (:mod:`tealeaves.evaluation.calibration`), within 4 MC SE of 95%, where Tukey's delete-1
  jackknife over-covers (97.3%, 97.8%); the comparisons' difference keeps the delete-1 standard
  error (:func:`jackknife_contrast`). The test is the randomisation test
  of :func:`randomisation`, exact in level: under the null the two models' topics are
  exchangeable, so the quantity is recomputed on random regroupings of the pooled topics. There is
  never a per-topic test.
- ``None`` (Hoyle et al.'s redundancy filter, a yes/no per model): shown, never tested.

Every test is two-sided; the p-values of the :math:`\\binom M2` pairs of a metric are corrected by
Holm's (1979) step-down procedure, and the direction of a significant difference is the sign of
the estimate. Where a pair is not significant, :func:`minimal_detectable_difference` says how large
a difference the test would have found with 80% power, and where the metric has an equivalence
margin (Hoyle et al. 2021, A.5.1: :data:`tealeaves.analysis.METRIC_MARGINS`,
:data:`tealeaves.analysis.HUMAN_MARGINS`), the two one-sided tests (TOST; Schuirmann 1987) say
whether the pair is equivalent within it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats as sps

from tealeaves.display import bootstrap_t_interval, p_value, t_interval
from tealeaves.evaluation.metrics import JACKKNIFE, PAIRED, Items, Output, outputs
from tealeaves.rng import family_generator

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd

CONFIDENCE = 0.95
POWER = 0.80
MIN_WELCH = 5  # fewer items in a model: the permutation test
PERMUTATIONS = 9999
REGROUPINGS = 1999  # the model-level randomisation test's random regroupings
SUBSETS = 1000  # the delete-d jackknife's random subsets of topics
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
)
PLAN_WORDS = {
    PAIRED: "documents as units, paired across models (paired t on linearised contributions)",
    "independent": "topics as units, independent across models (Welch's t)",
    JACKKNIFE: "model-level quantity, randomisation test over topics, jackknife interval",
    "runs": "trained runs as units (Welch's t over runs)",
}


def ratio(items: Items) -> float:
    """``sum(values) / sum(weights)``: the model's value of an output."""
    return float(items.values.sum() / items.weights.sum())


def linearised(items: Items) -> np.ndarray:
    """Per-item contributions whose mean is the ratio :math:`R = \\sum v / \\sum w` and whose variance
    over n is its delta-method variance: :math:`u_i = R + (v_i - R w_i) / \\bar w` (for unit
    weights, the values themselves)."""
    if np.all(items.weights == items.weights[0]):
        return items.values / items.weights[0]  # the same, without rounding
    r = ratio(items)
    return r + (items.values - r * items.weights) / items.weights.mean()


def interval(replicates: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of bootstrap replicates."""
    tail = (1 - CONFIDENCE) / 2
    return float(np.quantile(replicates, tail)), float(np.quantile(replicates, 1 - tail))


def paired_bootstrap(
    items: dict[str, Items], replicates: int, seed: int, metric: str
) -> tuple[dict[str, np.ndarray], int]:
    """``replicates`` bootstrap replicates of every model's ratio, all models resampled with the same documents.

    The documents are positions ``0 .. n-1`` in the held-out corpus (``n`` one past the largest
    id); a model that left a document unscored counts it with value and weight 0, so its ratio is
    over its own scored documents among those drawn. The draws come from the stream family
    ``"evaluate bootstrap " + metric`` under ``seed`` (:func:`tealeaves.rng.family_generator`):
    one stream per metric, independent of which models run. Returns the replicates and ``n``.
    """
    n = 1 + max(int(v.ids.max()) for v in items.values() if len(v.ids))
    dense = {}
    for model, v in items.items():
        values, weights = np.zeros(n), np.zeros(n)
        values[v.ids], weights[v.ids] = v.values, v.weights
        dense[model] = values, weights
    rng = family_generator(seed, f"evaluate bootstrap {metric}")
    out = {model: np.empty(replicates) for model in items}
    chunk = max(1, 2_000_000 // n)
    for start in range(0, replicates, chunk):
        stop = min(replicates, start + chunk)
        draw = rng.integers(0, n, size=(stop - start, n))
        for model, (values, weights) in dense.items():
            out[model][start:stop] = values[draw].sum(axis=1) / weights[draw].sum(axis=1)
    return out, n


def jackknife_se(leave_one_out: np.ndarray) -> float:
    """Tukey's jackknife standard error from the n leave-one-out values:
    :math:`\\sqrt{\\frac{n-1}{n} \\sum_j (\\theta_{(j)} - \\bar\\theta_{(\\cdot)})^2}`."""
    n = len(leave_one_out)
    return float(np.sqrt((n - 1) / n * np.sum((leave_one_out - leave_one_out.mean()) ** 2)))


def delete_d_se(
    quantity: Callable[[np.ndarray], np.ndarray], k: int, rng: np.random.Generator, subsets: int = SUBSETS
) -> float:
    """The delete-d jackknife standard error of a model-level quantity of ``k`` topics, d = ⌊K/2⌋.

    ``quantity`` maps boolean masks over the topics (one row a subset) to the quantity of each
    subset (:func:`regrouped`). With :math:`\\theta_s` its value on the s-th of S subsets of
    K − d topics drawn uniformly at random (``subsets``, from ``rng``),
    :math:`\\widehat{se}^2 = \\frac{K - d}{d\\, S} \\sum_s (\\theta_s - \\bar\\theta)^2`, the delete-d
    jackknife variance of Shao and Wu (1989, "A general theory for jackknife variance estimation",
    Ann. Statist. 17, 1176-1197), over a random sample of the :math:`\\binom Kd` subsets instead of
    all of them (Shao 1989, JASA 84, 114-119). Over all subsets, for a mean it is :math:`s^2 / K`
    exactly; with d a fixed share of K it is consistent for statistics that are not smooth
    enough for Tukey's delete-1 jackknife (:func:`jackknife_se`), which over-covers here.
    """
    d = k // 2
    keep = np.argsort(rng.random((subsets, k)), axis=1) >= d  # a random K - d of the k positions a row
    theta = quantity(keep)
    return float(np.sqrt((k - d) / (d * subsets) * np.sum((theta - theta.mean()) ** 2)))


@dataclass(frozen=True)
class Contrast:
    """One pair's difference A − B: its standard error, degrees of freedom, 95% interval and two-sided p."""

    difference: float
    se: float
    df: float
    ci_low: float
    ci_high: float
    test: str
    p: float
    n: int


def welch(a: np.ndarray, b: np.ndarray) -> Contrast:
    """Welch's (1947) t-test of the difference of means, two-sided, with its t interval.

    :math:`t = (\\bar a - \\bar b) / \\sqrt{s_a^2/n_a + s_b^2/n_b}` on the Welch-Satterthwaite
    degrees of freedom :math:`\\nu = (s_a^2/n_a + s_b^2/n_b)^2 / \\big((s_a^2/n_a)^2/(n_a-1) +
    (s_b^2/n_b)^2/(n_b-1)\\big)`; the same as ``scipy.stats.ttest_ind(a, b, equal_var=False)``.
    """
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = float(np.sqrt(va + vb))
    df = float((va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)))
    return _contrast(float(a.mean() - b.mean()), se, df, "Welch's t", len(a) + len(b))


def permutation(a: np.ndarray, b: np.ndarray, seed: int, purpose: str) -> Contrast:
    """A two-sided permutation test of the difference of means (:data:`PERMUTATIONS` random relabellings).

    :math:`p = (1 + \\#\\{|\\bar a^* - \\bar b^*| \\ge |\\bar a - \\bar b|\\}) / (1 + P)`, exact in
    level for any distribution (the labels are exchangeable under the null); used where Welch's
    t is not (fewer than :data:`MIN_WELCH` items, or two groups without spread, where t would be
    infinite). The interval is Welch's where it exists.
    """
    rng = family_generator(seed, f"evaluate permutation {purpose}")
    pooled = np.concatenate([a, b])
    observed = abs(a.mean() - b.mean())
    keys = rng.random((PERMUTATIONS, len(pooled)))
    shuffled = pooled[np.argsort(keys, axis=1)]
    diffs = np.abs(shuffled[:, : len(a)].mean(axis=1) - shuffled[:, len(a) :].mean(axis=1))
    p = (1 + int(np.sum(diffs >= observed - 1e-12 * max(1.0, observed)))) / (1 + PERMUTATIONS)
    spread = len(a) > 1 and len(b) > 1 and (a.var() > 0 or b.var() > 0)
    base = welch(a, b) if spread else None
    low, high = (base.ci_low, base.ci_high) if base else (np.nan, np.nan)
    return Contrast(
        float(a.mean() - b.mean()), base.se if base else 0.0, np.nan, low, high, "permutation", p, len(pooled)
    )


def regrouped(metric: str, topics: dict[str, Any]) -> Callable[[np.ndarray], np.ndarray]:
    """The model-level quantity of any subsets of ``topics["words"]``: a function of boolean masks
    (one row a subset) returning one value a row.

    Topic uniqueness over the top N words is :math:`\\frac1K \\sum_k \\frac1N \\sum_{w \\in k} 1/c_w
    = |\\bigcup_k \\mathrm{top}_N(k)| / (K N)` (each distinct word contributes :math:`c_w \\cdot 1/c_w`;
    Nan et al. 2019), topic diversity the same over the top 25 (Dieng et al. 2020), inverted RBO
    one minus the mean RBO of the subset's pairs (Bianchi et al. 2021), with the settings of
    :func:`tealeaves.evaluation.metrics.model_level_topics`.
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
) -> float:
    """The two-sided p-value of the randomisation test of the difference of a model-level quantity :math:`Q`.

    Under the null the :math:`K_A + K_B` topics of the two models (``a["words"]``, ``b["words"]``;
    :func:`tealeaves.evaluation.metrics.model_level_topics`) are exchangeable: the test pools them,
    draws ``regroupings`` random splits into groups of :math:`K_A` and :math:`K_B` topics,
    recomputes :math:`Q` of each group (:func:`regrouped`) and ranks the observed :math:`|Q_A - Q_B|`
    among the splits' :math:`|Q^*_A - Q^*_B|`. Uniqueness and diversity are ratios of counts, so
    splits often tie with the observed value; ties are broken at random (the randomised p-value),
    :math:`p = (\\#\\{>\\} + U (1 + \\#\\{=\\})) / (1 + P)`, :math:`U \\sim U(0, 1)`, which is uniform
    under the null for any P: the level is exact (Fisher 1935; Lehmann and Romano 2005, §15.2),
    where :math:`(1 + \\#\\{\\ge\\}) / (1 + P)` rejects about 3.5% at K = 20. The splits and U
    come from the stream family ``"evaluate randomisation " + purpose``.
    """
    quantity = regrouped(metric, {**a, "words": list(a["words"]) + list(b["words"])})
    ka, n = len(a["words"]), len(a["words"]) + len(b["words"])
    rng = family_generator(seed, f"evaluate randomisation {purpose}")
    groups = np.zeros((regroupings + 1, n), dtype=bool)
    groups[0, :ka] = True  # the observed grouping
    np.put_along_axis(groups[1:], np.argsort(rng.random((regroupings, n)), axis=1)[:, :ka], True, axis=1)
    differences = np.abs(quantity(groups) - quantity(~groups))
    tolerance = 1e-12 * max(1.0, differences[0])
    above = int(np.sum(differences[1:] > differences[0] + tolerance))
    tied = int(np.sum(np.abs(differences[1:] - differences[0]) <= tolerance))
    return float((above + rng.random() * (1 + tied)) / (1 + regroupings))


def paired_t(a: Items, b: Items) -> Contrast:
    """The paired t-test of two ratios on the documents both scored (linearised contributions).

    With :math:`d_i = u^A_i - u^B_i` (:func:`linearised`, over the common documents),
    :math:`t = \\bar d / (s_d / \\sqrt n)` on :math:`n - 1` degrees of freedom, two-sided;
    :math:`\\bar d = R_A - R_B`.
    """
    common, ia, ib = np.intersect1d(a.ids, b.ids, return_indices=True)
    ua = linearised(Items(a.values[ia], a.weights[ia], common))
    ub = linearised(Items(b.values[ib], b.weights[ib], common))
    d = ua - ub
    se = float(d.std(ddof=1) / np.sqrt(len(d)))
    return _contrast(float(d.mean()), se, len(d) - 1.0, "paired t", len(d))


def jackknife_contrast(a: tuple[float, np.ndarray], b: tuple[float, np.ndarray]) -> Contrast:
    """The difference of two model-level quantities with jackknife standard errors: its t interval
    and the minimal detectable difference of the comparisons (the test is :func:`randomisation`;
    this t-test's p-value is conservative, 2-3% under the null at K = 20 to 50).

    ``a`` and ``b`` are (value, leave-one-topic-out values); :math:`se = \\sqrt{se_A^2 + se_B^2}`
    (the models are fitted independently), degrees of freedom by Welch-Satterthwaite from
    :math:`n_A - 1` and :math:`n_B - 1`.
    """
    (ta, la), (tb, lb) = a, b
    va, vb = jackknife_se(la) ** 2, jackknife_se(lb) ** 2
    se = float(np.sqrt(va + vb))
    denominator = va**2 / (len(la) - 1) + vb**2 / (len(lb) - 1)
    df = float((va + vb) ** 2 / denominator) if denominator > 0 else float(len(la) + len(lb) - 2)
    return _contrast(ta - tb, se, df, "jackknife t", len(la) + len(lb))


def _contrast(difference: float, se: float, df: float, test: str, n: int) -> Contrast:
    if not se > 0:  # no spread at all: nothing to test (the permutation test handles topic metrics)
        p = 1.0 if difference == 0 else np.nan
        return Contrast(difference, 0.0, df, difference, difference, test, p, n)
    low, high = t_interval(difference, se, df)
    p = float(2 * sps.t.sf(abs(difference) / se, df))
    return Contrast(difference, se, df, low, high, test, p, n)


def minimal_detectable_difference(se: float, df: float, alpha: float) -> float:
    """The smallest true difference a two-sided t-test at ``alpha`` finds with 80% power:
    :math:`(t_{1-\\alpha/2, df} + t_{0.8, df})\\, se` (normal quantiles where df is unknown)."""
    if not np.isfinite(df):
        return float((sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(POWER)) * se)
    return float((sps.t.ppf(1 - alpha / 2, df) + sps.t.ppf(POWER, df)) * se)


def equivalence_p(difference: float, se: float, df: float, margin: float) -> float:
    """Schuirmann's (1987) two one-sided tests of :math:`|\\theta_A - \\theta_B| < \\epsilon`:
    :math:`p = \\max\\{P(T \\ge (d + \\epsilon)/se),\\ P(T \\le (d - \\epsilon)/se)\\}` on ``df``
    degrees of freedom; below the level, the pair is equivalent within the margin."""
    if not se > 0:
        return 0.0 if abs(difference) < margin else 1.0
    dist = sps.t(df) if np.isfinite(df) else sps.norm
    return float(max(dist.sf((difference + margin) / se), dist.cdf((difference - margin) / se)))


def margin_of(metric: str) -> float:
    """Hoyle et al.'s (2021, A.5.1) equivalence margin of an output, NaN where none is defined."""
    from tealeaves.analysis import HUMAN_MARGINS, METRIC_MARGINS

    margins = {
        "npmi": METRIC_MARGINS["NPMI"],
        "cv": METRIC_MARGINS["Cv"],
        "model_precision": HUMAN_MARGINS["word-intrusion"],
    }
    return float(margins.get(metric, np.nan))


def holm(pvalues: np.ndarray) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values of a family of ``m`` tests.

    With the p-values sorted, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`, the adjusted value of the
    i-th is :math:`\\tilde p_{(i)} = \\max_{j \\le i} \\min(1, (m - j + 1)\\, p_{(j)})`; rejecting where
    :math:`\\tilde p < \\alpha` controls the family-wise error rate at :math:`\\alpha`. Computed by
    ``statsmodels.stats.multitest.multipletests(pvalues, method="holm")``; a NaN (no test) stays NaN
    and does not count in the family.
    """
    from statsmodels.stats.multitest import multipletests

    pvalues = np.asarray(pvalues, dtype=np.float64)
    out = np.full(pvalues.shape, np.nan)
    ok = np.isfinite(pvalues)
    if ok.any():
        out[ok] = multipletests(pvalues[ok], method="holm")[1]
    return out


@dataclass
class Estimates:
    """What the tables are made of: per-item values, model-level values, leave-one-topic-out values,
    and every model's top words (:func:`tealeaves.evaluation.metrics.model_level_topics`)."""

    items: dict[tuple[str, str], Items]
    scalars: dict[tuple[str, str], float]
    jackknife: dict[tuple[str, str], np.ndarray]
    topics: dict[str, dict[str, Any]] = field(default_factory=dict)  # model -> its top words and settings


def per_model_table(
    estimates: Estimates, replicates: int, seed: int
) -> tuple[pd.DataFrame, dict[tuple[str, str], np.ndarray]]:
    """One row per (model, metric): the value, its standard error and 95% interval by the metric's plan, and n.

    A topic-level (``"independent"``) output's interval is the bootstrap-t interval of the mean of
    its linearised items (:func:`tealeaves.display.bootstrap_t_interval`; for topics, the values
    themselves). A model-level quantity's interval is the delete-d jackknife's over the model's topics
    (:func:`delete_d_se`; its subsets from the stream family ``"evaluate delete-d METRIC MODEL"``
    under ``seed``), n its number of topics.

    Returns the table and, for paired metrics, each model's bootstrap replicates (same documents
    for every model of a metric).
    """
    import pandas as pd

    known = outputs()
    rows = []
    boots: dict[tuple[str, str], np.ndarray] = {}
    for metric in dict.fromkeys(m for _, m in estimates.items):
        if known[metric].plan == PAIRED:
            part = {model: v for (model, m), v in estimates.items.items() if m == metric}
            replicated, _ = paired_bootstrap(part, replicates, seed, metric)
            boots |= {(model, metric): r for model, r in replicated.items()}
    for (model, metric), values in estimates.items.items():
        out = known[metric]
        if out.plan == JACKKNIFE:
            continue  # the model-level value and its jackknife below
        if out.plan == PAIRED:
            r = boots[model, metric]
            low, high = interval(r)
            se = float(r.std(ddof=1))
        else:
            n = len(values.values)
            se = float(linearised(values).std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
            low, high = bootstrap_t_interval(linearised(values))  # NaN for one item
        rows.append((model, metric, out.label, out.unit, out.plan, ratio(values), se, low, high, len(values.values)))
    for (model, metric), value in estimates.scalars.items():
        out = known[metric]
        topics = estimates.topics.get(model, {}) if out.plan == JACKKNIFE else {}
        k = len(topics.get("words", ()))
        se = np.nan
        if k >= 3:  # the delete-d jackknife over the model's topics, one stream per (metric, model)
            rng = family_generator(seed, f"evaluate delete-d {metric} {model}")
            se = delete_d_se(regrouped(metric, topics), k, rng)
        low, high = t_interval(value, se, k - 1.0) if np.isfinite(se) else (np.nan, np.nan)
        rows.append((model, metric, out.label, "model", out.plan, value, se, low, high, max(k, 1)))
    return pd.DataFrame(rows, columns=list(PER_MODEL_COLUMNS)), boots


def comparisons_table(
    estimates: Estimates,
    boots: dict[tuple[str, str], np.ndarray],
    models: list[str],
    level: float,
    seed: int = 0,
) -> pd.DataFrame:
    """Every pair of models on every tested output, by the output's plan (see the module docstring).

    Per pair: the difference A − B, its standard error and 95% interval, the test and its two-sided
    p-value, the same Holm-corrected over the pairs of the output, the model significantly better
    at ``level`` (empty when neither is), the minimal detectable difference at 80% power (at Holm's
    strictest level, ``level`` over the number of pairs), and, where the output has an
    equivalence margin, the TOST p-value (Holm-corrected too) and whether the pair is equivalent.
    """
    import pandas as pd

    known = outputs()
    rows = []
    for metric in dict.fromkeys([m for _, m in estimates.items] + [m for _, m in estimates.jackknife]):
        out = known[metric]
        if out.plan is None:
            continue
        present = [m for m in models if _has(estimates, out, m, metric)]
        pairs = list(itertools.combinations(present, 2))
        contrasts = [_compare(estimates, boots, out, metric, a, b, seed) for a, b in pairs]
        rows += _family(metric, out, pairs, contrasts, level)
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def _family(metric: str, out: Output, pairs: list[tuple[str, str]], contrasts: list[Contrast], level: float) -> list:
    """The comparison rows of one metric's pairs: Holm over the family, direction, MDD, TOST."""
    if not pairs:
        return []
    rows = []
    adjusted = holm(np.array([c.p for c in contrasts]))
    margin = margin_of(metric)
    tost = np.full(len(pairs), np.nan)
    if np.isfinite(margin):
        tost = np.array([equivalence_p(c.difference, c.se, c.df, margin) for c in contrasts])
    tost_holm = holm(tost)
    strictest = level / len(pairs)
    for (a, b), c, q, e, eq in zip(pairs, contrasts, adjusted, tost, tost_holm):
        better = "" if not q < level else (a if (c.difference > 0) == out.higher_is_better else b)
        mdd = minimal_detectable_difference(c.se, c.df, strictest) if c.se > 0 else np.nan
        equivalent = bool(eq < level) and not better
        estimate = (c.difference, c.se, c.ci_low, c.ci_high, c.test, c.df, c.n)
        rows.append((metric, a, b, *estimate, c.p, q, better, mdd, margin, e, eq, equivalent))
    return rows


def runs_tables(per_model: pd.DataFrame, runs: dict[str, list[str]], level: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """With several trained runs per model, the runs are the units: each model's value, interval and test.

    A model's value is the mean of its runs' values (each run's own value by its metric's plan,
    the rows of ``per_model`` named ``MODEL/1``, ``MODEL/2``, ...), its interval the t interval
    over runs, :math:`\\bar x \\pm t_{0.975, R-1}\\, s / \\sqrt R`, and two models are compared by
    Welch's t-test over their runs' values (a permutation test where neither model's runs vary).
    Returns the model rows (plan ``"runs"``, n the number of runs) and the comparisons.
    """
    import pandas as pd

    known = outputs()
    rows: list[tuple] = []
    compared = []
    for metric, part in per_model.groupby("metric", sort=False):
        out = known[str(metric)]
        values = part.set_index("model")["mean"]
        run_values = {m: values.reindex(names).dropna().to_numpy() for m, names in runs.items()}
        present = [m for m, v in run_values.items() if len(v) >= 2]
        for m in present:
            x = run_values[m]
            if out.plan is None:  # untested (the redundancy filter): the share of runs, no interval
                rows.append((m, metric, out.label, "model", None, float(x.mean()), np.nan, np.nan, np.nan, len(x)))
                continue
            se = float(x.std(ddof=1) / np.sqrt(len(x)))
            low, high = t_interval(float(x.mean()), se, len(x) - 1.0)
            rows.append((m, metric, out.label, "model", "runs", float(x.mean()), se, low, high, len(x)))
        if out.plan is None:
            continue
        pairs = list(itertools.combinations(present, 2))
        contrasts = []
        for a, b in pairs:
            x, y = run_values[a], run_values[b]
            c = permutation(x, y, 0, f"runs {metric} {a} {b}") if x.var() == 0 and y.var() == 0 else welch(x, y)
            contrasts.append(Contrast(c.difference, c.se, c.df, c.ci_low, c.ci_high, f"{c.test} over runs", c.p, c.n))
        compared += _family(str(metric), out, pairs, contrasts, level)
    return (
        pd.DataFrame(rows, columns=list(PER_MODEL_COLUMNS)),
        pd.DataFrame(compared, columns=list(COMPARISON_COLUMNS)),
    )


def _has(estimates: Estimates, out: Output, model: str, metric: str) -> bool:
    if out.plan == JACKKNIFE:
        loo = estimates.jackknife.get((model, metric))
        return loo is not None and len(loo) > 1 and model in estimates.topics
    return (model, metric) in estimates.items and len(estimates.items[model, metric].values) > 0


def _compare(estimates, boots, out: Output, metric: str, a: str, b: str, seed: int) -> Contrast:
    if out.plan == JACKKNIFE:
        c = jackknife_contrast(
            (estimates.scalars[a, metric], estimates.jackknife[a, metric]),
            (estimates.scalars[b, metric], estimates.jackknife[b, metric]),
        )
        p = randomisation(metric, estimates.topics[a], estimates.topics[b], seed, f"{metric} {a} {b}")
        return Contrast(c.difference, c.se, c.df, c.ci_low, c.ci_high, "randomisation", p, c.n)
    items_a, items_b = estimates.items[a, metric], estimates.items[b, metric]
    if out.plan == PAIRED:
        c = paired_t(items_a, items_b)
        low, high = interval(boots[a, metric] - boots[b, metric])  # the paired bootstrap interval
        return Contrast(ratio(items_a) - ratio(items_b), c.se, c.df, low, high, c.test, c.p, c.n)
    x, y = linearised(items_a), linearised(items_b)
    few = min(len(x), len(y)) < MIN_WELCH
    if few or (x.var() == 0 and y.var() == 0):
        return permutation(x, y, seed, f"{metric} {a} {b}")
    return welch(x, y)


def verdicts(comparisons: pd.DataFrame, level: float) -> dict[str, str]:
    """One sentence per compared output: what was found and how sure.

    The pairs significantly different after Holm's correction ("A better than B", with the
    difference, its 95% interval and the Holm-corrected two-sided p-value); the other pairs are
    "not significant (Holm, level 0.05)", with the difference the test could have found with 80%
    power, and "equivalent within ±ε (TOST)" where the output has a margin and the pair passes.

    Parameters
    ----------
    comparisons : DataFrame
        The ``comparisons`` table of an evaluation (:attr:`Evaluation.comparisons`).
    level : float
        The significance level the table was tested at, named in the sentences.

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
    npmi | NPMI (higher is better; ...): clean better than mixed by 1.83 [1.3, 2.36] (p = 0.0268).
    >>> tmp.cleanup()
    """
    known = outputs()
    lines = {}
    for metric, part in comparisons.groupby("metric", sort=False):
        out = known[metric]
        direction = "higher is better" if out.higher_is_better else "lower is better"
        pairs = f"{len(part)} pair" + ("s" if len(part) > 1 else "")
        over_runs = str(part["test"].iloc[0]).endswith("over runs")
        plan = PLAN_WORDS["runs" if over_runs else str(out.plan)]
        if out.unit == "document" and out.plan != PAIRED:  # topic log odds: the rated documents
            plan = plan.replace("topics as units", "rated documents as units")
        tests = {str(test) for test in part["test"]}
        if any(test.startswith("permutation") for test in tests):  # too few units, or no spread
            used = "permutation test" if all(t.startswith("permutation") for t in tests) else "Welch's t or permutation"
            plan = plan.replace("Welch's t", used)
        head = f"{out.label} ({direction}; {plan}, {pairs})"
        found, open_pairs, equivalent = [], [], []
        for row in part.itertuples():
            if row.better:
                other = row.model_b if row.better == row.model_a else row.model_a
                size = abs(row.difference)
                low, high = sorted(abs(x) for x in (row.ci_low, row.ci_high))
                interval_text = f" [{low:.3g}, {high:.3g}]" if row.ci_low * row.ci_high > 0 else ""
                found.append(f"{row.better} better than {other} by {size:.3g}{interval_text} ({p_value(row.p_holm)})")
            elif row.equivalent:
                equivalent.append(f"{row.model_a} and {row.model_b}")
            else:
                open_pairs.append(row)
        sentences = [f"{', '.join(found)}." if found else "no pair differs significantly."]
        if equivalent:
            margin = float(part["margin"].iloc[0])
            sentences.append(f"Equivalent within ±{margin:g} (TOST, Holm, level {level:g}): {', '.join(equivalent)}.")
        if open_pairs:
            names = ", ".join(f"{r.model_a} vs {r.model_b}" for r in open_pairs)
            mdd = [r.mdd for r in open_pairs if np.isfinite(r.mdd)]
            span = f"{min(mdd):.3g}" if mdd and f"{min(mdd):.3g}" == f"{max(mdd):.3g}" else ""
            span = span or (f"{min(mdd):.3g} to {max(mdd):.3g}" if mdd else "")
            reach = f"; the smallest true difference these tests find with 80% power: {span}" if span else ""
            sentences.append(f"Not significant (Holm, level {level:g}): {names}{reach}.")
        lines[metric] = f"{head}: " + " ".join(sentences)
    return lines


SCOPE = (
    "Each model is one trained run (one seed): the verdicts are about these trained models, scored "
    "on this held-out and this reference corpus, not about the algorithms that trained them."
)


def scope(runs: dict[str, list[str]] | None) -> str:
    """What the verdicts are about: these trained models (one run each, :data:`SCOPE`), or, with
    several runs per model, the models as trained with these settings (runs are the units)."""
    if not runs:
        return SCOPE
    counts = sorted({len(names) for names in runs.values()})
    many = " to ".join(str(n) for n in (counts[0], counts[-1]) if n) if len(counts) > 1 else str(counts[0])
    return (
        f"Each model is {many} trained runs (seeds), the units of its intervals and tests: the verdicts are "
        "about the models as trained with these settings, run to run variation included, scored on this "
        "held-out and this reference corpus."
    )


def winners(comparisons: pd.DataFrame) -> dict[str, str]:
    """Per metric, the model significantly better than every other model (Holm), where one is."""
    found = {}
    for metric, part in comparisons.groupby("metric", sort=False):
        models = set(part["model_a"]) | set(part["model_b"])
        for model in models:
            if (part["better"] == model).sum() == len(models) - 1:
                found[str(metric)] = str(model)
    return found


def row_label(metric: str) -> str:
    """A metric's label as the tables print it: its direction when lower is better, and what a
    model-level row is (jackknifed, or not tested)."""
    out = outputs()[metric]
    if out.plan is None:
        return out.label + " (model-level; not tested)"
    label = out.label + ("" if out.higher_is_better else " (lower is better)")
    return label + (" (model-level; jackknife over topics)" if out.plan == JACKKNIFE else "")
