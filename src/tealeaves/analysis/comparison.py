"""Comparing models on human scores: the topic as the unit, two-sided tests, Holm, honest verdicts.

Human answers cluster: the answers to one topic share that topic's quality, and one annotator
answers many topics. A test that treats every answer as independent (Hoyle et al.'s pooled
tests) is anti-conservative as soon as topics differ in quality: with 20 topics per model, 30
answers a topic and a topic-level standard deviation of 0.25, the pooled test rejects a true
null about 29% of the time at a nominal 5% (``benchmarks/calibration_human.py``). Here:

- :func:`compare_models` (the default): each model's value is the mean over its topics of the
  per-topic score (model precision, mean rating, topic log odds per document), which is what
  the tables print; the test is Welch's two-sided t on the per-topic scores (the topic is the
  unit), with the Welch interval of the difference (:func:`tealeaves.stats.welch_test`).
- :func:`cluster_bootstrap_comparison` (optional): the same topic-averaged estimand, with a
  standard error from a two-way (topic x annotator) cluster bootstrap (Owen 2007's pigeonhole
  bootstrap: topics resampled within model, annotators resampled across the study, each
  answer weighted by its annotator's multiplicity; :func:`tealeaves.stats.two_way_cluster_bootstrap`),
  and a two-sided normal test (:func:`tealeaves.stats.bootstrap_z_test`).
- :func:`pairwise_tests`: Hoyle et al. 2021's (§6.1, Fig. 2) pooled one-tailed tests in both
  directions over all answers (two-proportion z, Mann-Whitney U) or items (Student's t). They
  ignore the clustering; they stay for replicating the paper and are labelled as such.

Every model comparison of a family (the :math:`\\binom{M}{2}` pairs of one score) is corrected
by Holm's step-down procedure (:func:`tealeaves.stats.holm`). A pair is a verdict "A better than
B" only when its Holm p-value is below the level; otherwise it is "not significant (Holm, level
0.05)" with the smallest difference the test would find with 80% power
(:func:`tealeaves.stats.minimal_detectable_difference` at level :math:`\\alpha / \\binom{M}{2}`),
never a claim that the models are equal (:func:`tealeaves.wording.pair_verdict`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
import pandas as pd

from tealeaves.deprecation import renamed_parameters
from tealeaves.errors import EmptyResultError, InputError, as_numbers, check_each, describe, is_count, is_level, is_real
from tealeaves.stats.design import minimal_detectable_difference
from tealeaves.stats.multiplicity import holm
from tealeaves.stats.resampling import two_way_cluster_bootstrap
from tealeaves.stats.tests import bootstrap_z_test, mann_whitney, proportion_test, t_test, welch_test
from tealeaves.wording import pair_verdict

TESTS = ("proportion", "mann-whitney", "t")
COMPARISON_COLUMNS = (
    "model_a",
    "model_b",
    "unit",
    "n_a",
    "n_b",
    "mean_a",
    "mean_b",
    "difference",
    "ci_low",
    "ci_high",
    "test",
    "statistic",
    "pvalue",
    "pvalue_holm",
    "significant",
    "better",
    "detectable",
    "verdict",
)


def pairwise_tests(groups: dict[str, np.ndarray], test: str, alpha: float = 0.05) -> pd.DataFrame:
    """Hoyle et al.'s pooled one-tailed ``test`` of every ordered pair of ``groups`` (for replication).

    ``test``: ``"proportion"`` (0/1 answers), ``"mann-whitney"`` (ordinal answers) or ``"t"``
    (per-item scores). Returns one row per ordered pair: ``model_a``, ``model_b``, ``statistic``,
    ``pvalue`` (of "A > B"), ``significant`` (``pvalue < alpha``, uncorrected), ``mean_a``,
    ``mean_b``. On answers these tests treat every answer as independent, which they are not
    (see the module docstring); :func:`compare_models` is the comparison to report.

    Parameters
    ----------
    groups : dict of str to array-like
        Each model's answers (0/1, ratings) or per-item scores.
    test : {"proportion", "mann-whitney", "t"}
        The one-tailed test (:func:`tealeaves.stats.proportion_test`,
        :func:`tealeaves.stats.mann_whitney`, :func:`tealeaves.stats.t_test`).
    alpha : float, optional
        The (uncorrected) level of ``significant``.

    Returns
    -------
    pandas.DataFrame
        One row per ordered pair of models, as above, and the ``test``'s name.

    Raises
    ------
    InputError
        For an unknown ``test``.
    EmptyResultError
        With fewer than two models.

    Examples
    --------
    Intruders found 6 times in 8 for LDA and 3 times in 8 for NMF:

    >>> from tealeaves.analysis import pairwise_tests
    >>> found = {"lda": [1, 1, 1, 0, 1, 1, 0, 1], "nmf": [1, 0, 0, 1, 0, 0, 1, 0]}
    >>> pairwise_tests(found, "proportion")[["model_a", "model_b", "statistic", "pvalue"]].round(4)
      model_a model_b  statistic  pvalue
    0     lda     nmf     1.5119  0.0653
    1     nmf     lda    -1.5119  0.9347
    """
    if not isinstance(test, str) or test not in TESTS:
        raise InputError(f"test must be one of {TESTS}, got {test!r}")
    scores = _groups(groups)
    _check_levels("pairwise_tests", alpha)
    if len(scores) < 2:
        raise EmptyResultError("a pairwise comparison needs at least two models")
    rows = []
    for a, b in itertools.permutations(sorted(scores), 2):
        x, y = scores[a], scores[b]
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


def _pair_table(pairs: list[dict], alpha: float, power: float, higher_is_better: bool) -> pd.DataFrame:
    """Holm over the pairs' two-sided p-values, the better model, the detectable difference and the verdict."""
    if not pairs:
        return pd.DataFrame(columns=list(COMPARISON_COLUMNS))
    frame = pd.DataFrame(pairs)
    frame["pvalue_holm"] = holm(frame["pvalue"].to_numpy())
    m = len(frame)
    frame["detectable"] = [
        float(minimal_detectable_difference(se, df, alpha / m, power)) for se, df in zip(frame["se"], frame["df"])
    ]
    frame["significant"] = frame["pvalue_holm"] < alpha
    sign = np.sign(frame["difference"]) * (1 if higher_is_better else -1)
    frame["better"] = np.where(frame["significant"], np.where(sign > 0, frame["model_a"], frame["model_b"]), "")
    frame["verdict"] = [
        pair_verdict(
            r.model_a,
            r.model_b,
            r.difference * (1 if higher_is_better else -1),
            r.pvalue_holm,
            r.detectable,
            alpha,
            power,
        )
        for r in frame.itertuples()
    ]
    return frame[list(COMPARISON_COLUMNS)]


def compare_models(
    groups: dict[str, np.ndarray],
    unit: str = "topic",
    alpha: float = 0.05,
    power: float = 0.8,
    higher_is_better: bool = True,
) -> pd.DataFrame:
    """Every pair of models on one per-``unit`` score: Welch's two-sided t, Holm over the pairs.

    ``groups`` maps a model to its per-unit scores (one value per topic: model precision, mean
    rating; per document: topic log odds). For each unordered pair (A, B), sorted by name, the
    difference :math:`\\bar x_A - \\bar x_B` of the unit means (the value the tables print), its
    :math:`1-\\alpha` Welch interval :math:`d \\pm t_{1-\\alpha/2,\\nu}\\,\\mathrm{SE}`, Welch's t and
    its two-sided p-value (:func:`tealeaves.stats.welch_test`), the p-value after
    Holm over the :math:`\\binom{M}{2}` pairs, ``better`` (the model the Holm-corrected test
    names, by ``higher_is_better``; empty when not significant), ``detectable`` (the difference
    found with probability ``power`` at level :math:`\\alpha/\\binom{M}{2}`) and ``verdict``.

    Parameters
    ----------
    groups : dict of str to array-like
        Each model's per-unit scores (at least two per model).
    unit : str, optional
        What one score is of (``"topic"``, ``"document"``), for the table and the messages.
    alpha : float, optional
        The level of the Holm-corrected tests and of the intervals.
    power : float, optional
        The power of ``detectable``.
    higher_is_better : bool, optional
        Whether a higher score is better (it is for model precision, ratings and topic log
        odds).

    Returns
    -------
    pandas.DataFrame
        One row per pair, with the columns ``model_a``, ``model_b``, ``unit``, ``n_a``,
        ``n_b``, ``mean_a``, ``mean_b``, ``difference``, ``ci_low``, ``ci_high``, ``test``,
        ``statistic``, ``pvalue``, ``pvalue_holm``, ``significant``, ``better``,
        ``detectable`` and ``verdict``.

    Raises
    ------
    EmptyResultError
        With fewer than two models.
    InputError
        For a model with fewer than two scores.

    Examples
    --------
    Model precision of five topics of three models. Holm multiplies the smallest of the
    three p-values by 3 (0.0111 → 0.0333), the next by 2, and keeps them increasing.

    >>> from tealeaves.analysis import compare_models
    >>> groups = {
    ...     "lda": [0.9, 0.8, 1.0, 0.7, 0.9],
    ...     "nmf": [0.6, 0.5, 0.8, 0.4, 0.6],
    ...     "etm": [0.8, 0.9, 0.7, 0.8, 0.6],
    ... }
    >>> table = compare_models(groups)
    >>> table[["model_a", "model_b", "difference", "pvalue", "pvalue_holm", "better"]].round(4)
      model_a model_b  difference  pvalue  pvalue_holm better
    0     etm     lda       -0.10  0.2029       0.2029
    1     etm     nmf        0.18  0.0659       0.1317
    2     lda     nmf        0.28  0.0111       0.0333    lda
    >>> print(table["verdict"][1])
    not significant (Holm, level 0.05); a difference of 0.331 would be found with 80% power
    """
    scores = _groups(groups)
    if not isinstance(unit, str) or not unit:
        raise InputError(f"unit must name what one score is of ('topic', 'document'), got {unit!r}")
    _check_levels("compare_models", alpha, power)
    if len(scores) < 2:
        raise EmptyResultError("a model comparison needs at least two models")
    pairs = []
    for a, b in itertools.combinations(sorted(scores), 2):
        x, y = scores[a], scores[b]
        if x.size < 2 or y.size < 2:
            raise InputError(f"comparing {a} and {b} needs at least two {unit}s per model")
        test = welch_test(x, y, confidence=1 - alpha)
        pairs.append(
            {
                "model_a": a,
                "model_b": b,
                "unit": unit,
                "n_a": x.size,
                "n_b": y.size,
                "mean_a": float(x.mean()),
                "mean_b": float(y.mean()),
                "difference": test.difference,
                "ci_low": test.ci_low,
                "ci_high": test.ci_high,
                "test": f"Welch t ({unit}s)",
                "statistic": test.statistic,
                "pvalue": test.pvalue,
                "se": test.se,
                "df": test.df,
            }
        )
    return _pair_table(pairs, alpha, power, higher_is_better)


def _check_levels(owner: str, alpha: float, power: float = 0.8) -> None:
    """Refuse a level or a power outside (0, 1), or not a number."""
    check_each(
        owner,
        [
            (is_level(alpha), "0 < alpha <= 0.5", alpha),
            (is_real(power) and 0 < power < 1, "0 < power < 1", power),
        ],
    )


def _groups(groups: object) -> dict[str, np.ndarray]:
    """Each model's per-unit scores as floats, from a mapping of model to scores; a refusal naming what is not."""
    if not isinstance(groups, Mapping):
        raise InputError(
            "groups must map each model's name to its per-unit scores, e.g. {'lda': [0.9, 0.8], 'nmf': [0.6, 0.5]}, "
            f"got {describe(groups)}"
        )
    return {name: as_numbers(values, f"the scores of model {name!r}", ndim=1) for name, values in groups.items()}


@renamed_parameters(n_boot="n_resamples")
def cluster_bootstrap_comparison(
    answers: pd.DataFrame,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    alpha: float = 0.05,
    power: float = 0.8,
    higher_is_better: bool = True,
) -> pd.DataFrame:
    """Every pair of models, topic-averaged, with a two-way (topic x annotator) cluster bootstrap.

    ``answers`` has one row per answer: ``model``, ``topic``, ``annotator``, ``value`` (0/1 for
    word intrusion, the rating). A model's value is the mean over its topics of the topic's mean
    answer, as in :func:`compare_models`. Each resample draws, independently, every model's
    topics with replacement (as many as it has) and the study's annotators with replacement (as
    many as there are); an answer counts as many times as its annotator was drawn, a topic as
    many times as it was drawn (Owen 2007's pigeonhole bootstrap, which holds for crossed
    designs where annotators answer topics of several models;
    :func:`tealeaves.stats.two_way_cluster_bootstrap`). A drawn topic none of whose annotators
    was drawn is left out of that resample. The standard error of a difference is the standard
    deviation of its resamples; the interval :math:`d \\pm z_{1-\\alpha/2}\\,\\mathrm{SE}` and the
    two-sided p-value :math:`2\\Phi(-|d|/\\mathrm{SE})` go with the observed difference :math:`d`
    (:func:`tealeaves.stats.bootstrap_z_test`). Holm and the verdicts as :func:`compare_models`.
    The resamples come from the ``"cluster bootstrap"`` stream family under ``seed``.

    Parameters
    ----------
    answers : pandas.DataFrame
        One row per answer, with the columns ``model``, ``topic``, ``annotator`` and ``value``.
    n_resamples : int, optional
        Bootstrap resamples (at least two; ``n_boot``, its old name, is deprecated).
    seed : int or numpy.random.Generator, optional
        Seed of the resampling.
    alpha : float, optional
        The level of the Holm-corrected tests and of the intervals.
    power : float, optional
        The power of ``detectable``.
    higher_is_better : bool, optional
        Whether a higher value is better.

    Returns
    -------
    pandas.DataFrame
        One row per pair of models, with the columns of :func:`compare_models`.

    Raises
    ------
    InputError
        For a missing column or fewer than two resamples.
    EmptyResultError
        With fewer than two models.

    Examples
    --------
    Three annotators look for the intruders of four topics of each of two models: LDA's
    topic means are 1, 2/3, 1, 2/3 (mean 0.8333), NMF's 1/3, 1/3, 1/3, 0 (mean 0.25).

    >>> import pandas as pd
    >>> from tealeaves.analysis import cluster_bootstrap_comparison
    >>> answers = pd.DataFrame({
    ...     "model": ["lda"] * 12 + ["nmf"] * 12,
    ...     "topic": [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3] * 2,
    ...     "annotator": ["a1", "a2", "a3"] * 8,
    ...     "value": [1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0],
    ... })
    >>> table = cluster_bootstrap_comparison(answers, n_resamples=200, seed=0)
    >>> table[["mean_a", "mean_b", "difference", "ci_low", "ci_high"]].round(4)
       mean_a  mean_b  difference  ci_low  ci_high
    0  0.8333    0.25      0.5833  0.1992   0.9675
    >>> print(table["verdict"][0])
    lda better than nmf (Holm p = 0.00292)
    """
    from tealeaves.rng import family_generator

    if not isinstance(answers, pd.DataFrame):
        raise InputError(
            f"answers must be a DataFrame of one answer a row (model, topic, annotator, value), got {describe(answers)}"
        )
    missing = {"model", "topic", "annotator", "value"} - set(answers.columns)
    if missing:
        raise InputError(f"the answers lack the column(s) {sorted(missing)}")
    models = sorted(answers["model"].astype(str).unique())
    if len(models) < 2:
        raise EmptyResultError("a model comparison needs at least two models")
    if not is_count(n_resamples, 2):
        raise InputError(f"the cluster bootstrap needs at least two resamples (a whole number), got {n_resamples!r}")
    _check_levels("cluster_bootstrap_comparison", alpha, power)
    frame = answers.assign(model=answers["model"].astype(str))
    topic_index, topic_keys = pd.factorize(pd.MultiIndex.from_frame(frame[["model", "topic"]]))
    annotator_index, _ = pd.factorize(frame["annotator"])
    topic_model = np.array([models.index(str(m)) for m, _ in topic_keys])
    observed, resampled = two_way_cluster_bootstrap(
        frame["value"].to_numpy(np.float64),
        topic_index,
        annotator_index,
        topic_model,
        n_resamples,
        family_generator(seed, "cluster bootstrap"),
    )
    count = np.bincount(topic_model, minlength=len(models))
    pairs = []
    for i, j in itertools.combinations(range(len(models)), 2):
        difference = float(observed[i]) - float(observed[j])
        test = bootstrap_z_test(difference, resampled[:, i] - resampled[:, j], 1 - alpha)
        pairs.append(
            {
                "model_a": models[i],
                "model_b": models[j],
                "unit": "topic",
                "n_a": int(count[i]),
                "n_b": int(count[j]),
                "mean_a": float(observed[i]),
                "mean_b": float(observed[j]),
                "difference": difference,
                "ci_low": test.ci_low,
                "ci_high": test.ci_high,
                "test": "two-way cluster bootstrap (topics x annotators)",
                "statistic": test.statistic,
                "pvalue": test.pvalue,
                "se": test.se,
                "df": np.inf,
            }
        )
    return _pair_table(pairs, alpha, power, higher_is_better)
