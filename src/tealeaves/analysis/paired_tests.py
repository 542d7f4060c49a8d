"""Whether two metrics correlate equally well with people: paired bootstrap tests on the same resamples.

Each resample draws the topics with replacement within each (dataset, model), keeps each drawn
topic's observed mean (which already carries its annotators' noise: resampling the answers
inside it as well would count that noise twice), and computes both metrics' correlations on the
same drawn topics (:func:`resampled_means`; ``resample="topics+annotators"`` resamples topics and
annotators crossed, when the answers name their annotators). The estimate is the observed
difference, its standard error the resamples' standard deviation, the test two-sided
(:func:`tealeaves.stats.bootstrap_z_test`): :func:`paired_bootstrap` for one pair,
:func:`pairwise_comparisons` for every pair of a data set, with Holm over its pairs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tealeaves.analysis.correlation import RaggedScores, check_resampling, correlate_rows, masked_correlations
from tealeaves.analysis.judgments import HumanJudgments
from tealeaves.deprecation import renamed_parameters
from tealeaves.errors import EmptyResultError, InputError, as_numbers
from tealeaves.stats.multiplicity import holm
from tealeaves.stats.resampling import bootstrap_counts, stratified_indices, weighted_group_means
from tealeaves.stats.result import TestResult
from tealeaves.stats.tests import bootstrap_z_test

RESAMPLING = {
    "topics": "topics (stratified by dataset and model)",
    "topics+annotators": "topics and annotators (crossed)",
}
ANNOTATOR_INTERVAL = "annotators (topics fixed; Hoyle et al. 2021 Table 3)"


@renamed_parameters(n_boot="n_resamples")
def resampled_means(
    judgment: HumanJudgments, n_resamples: int, seed: int | np.random.Generator, resample: str = "topics"
) -> tuple[np.ndarray, np.ndarray]:
    """``n_resamples`` resamples of (the topics drawn, the drawn topics' mean human scores), ``B x K``.

    ``resample="topics"``: the topics are drawn with replacement within each (dataset, model)
    (:func:`tealeaves.stats.stratified_indices`), each keeping its observed mean: the topic means
    already hold their annotators' noise, so resampling the answers as well would count it twice.
    ``"topics+annotators"`` (crossed designs, needs the annotator of each answer): the topics as
    before and, independently, the annotators with replacement (as many as there are;
    :func:`tealeaves.stats.bootstrap_counts`); a drawn topic's mean weights each answer by its
    annotator's multiplicity (:func:`tealeaves.stats.weighted_group_means`), and is NaN (left out
    of that resample's correlation) when none of its annotators was drawn. Resamples come from the
    ``"paired bootstrap"`` stream family.
    """
    from tealeaves.rng import family_generator

    if not isinstance(resample, str) or resample not in RESAMPLING:
        raise InputError(f"resample must be one of {sorted(RESAMPLING)}, got {resample!r}")
    rng = family_generator(seed, "paired bootstrap")
    drawn = stratified_indices(judgment.strata(), n_resamples, rng)
    human = judgment.answers
    if resample == "topics":
        return drawn, human.means()[drawn]
    if judgment.annotators is None or judgment.means_only:
        raise InputError(
            f"{judgment.name}: crossed resampling needs the annotator of every answer (a study export, or a CSV "
            "with score and annotator columns); use resample='topics'"
        )
    ids, index = np.unique(judgment.annotators, return_inverse=True)
    weight = bootstrap_counts(len(ids), n_resamples, rng)[:, index].astype(np.float64)
    owner = np.repeat(np.arange(len(human)), human.sizes)
    means = weighted_group_means(human.values, owner, len(human), weight)
    return drawn, np.take_along_axis(means, drawn, axis=1)


def _paired(d: np.ndarray, observed: float, n_topics: int, method: str, confidence: float, resample: str) -> TestResult:
    """The normal test and interval of an observed difference of correlations with its bootstrap standard error."""
    return bootstrap_z_test(
        observed,
        d,
        confidence,
        test="paired bootstrap",
        n=n_topics,
        estimand=method,
        resampled=RESAMPLING.get(resample, resample),
    )


@renamed_parameters(n_boot="n_resamples")
def paired_bootstrap(
    human: RaggedScores,
    a: np.ndarray,
    b: np.ndarray,
    method: str = "spearman",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | np.random.Generator = 0,
    strata: np.ndarray | None = None,
) -> TestResult:
    """Do metrics ``a`` and ``b`` correlate equally well with the topics' mean human scores?

    Over the topics both metrics score, the estimate is the observed difference
    :math:`d = r(a) - r(b)` of the two correlations with the mean scores (``method``: Spearman,
    Pearson or Kendall). Each of ``n_resamples`` resamples draws the topics with replacement
    (within ``strata``, e.g. each topic's (dataset, model); one stratum when None), keeps each
    drawn topic's mean, and computes :math:`d^*` on the drawn topics; the standard error is the
    standard deviation of :math:`d^*`. The test of equal correlations is two-sided,
    :math:`p = 2\\Phi(-|d| / \\mathrm{SE})`, with the interval :math:`d \\pm z_{(1+c)/2}\\,\\mathrm{SE}`
    (:func:`tealeaves.stats.bootstrap_z_test`). The resamples come from the ``"paired bootstrap"``
    stream family under ``seed``.

    Parameters
    ----------
    human : RaggedScores
        Each topic's human answers.
    a, b : array-like
        The two metrics' values of each topic (NaN: not scored).
    method : {"spearman", "pearson", "kendall"}, optional
        The correlation.
    n_resamples : int, optional
        Resamples (``n_boot``, its old name, is deprecated).
    confidence : float, optional
        The interval's level.
    seed : int or numpy.random.Generator, optional
        Seed of the resampling.
    strata : array-like, optional
        Each topic's stratum.

    Returns
    -------
    TestResult
        ``test`` is ``"paired bootstrap"``, ``estimand`` the correlation, ``difference`` the
        observed difference, ``n`` the topics both metrics score, ``resampled`` what the
        resamples draw and ``resamples`` their differences (the fields of the deprecated
        ``PairedTest``: ``p_value`` is ``pvalue``, ``observed`` ``difference``, ``n_topics``
        ``n``, ``n_boot`` ``n_resamples``, ``replicates`` ``resamples``, ``method``
        ``estimand``, ``uncertainty`` ``resampled``).

    Raises
    ------
    InputError
        When ``a`` or ``b`` does not have one value per topic.
    EmptyResultError
        With fewer than three topics scored by both metrics.

    Examples
    --------
    On six topics, NPMI's Spearman correlation with the mean ratings (0.941) is 0.243 above
    UMass's (0.698); with six topics that is far from significant.

    >>> from tealeaves.analysis import RaggedScores, paired_bootstrap
    >>> human = RaggedScores([[3, 3, 2], [1, 2], [2, 2, 3, 3], [1, 1, 1], [3, 2], [2, 3]])  # ratings of 6 topics
    >>> npmi = [0.12, 0.02, 0.08, -0.05, 0.10, 0.07]
    >>> umass = [-1.2, -3.0, -1.5, -2.0, -2.5, -1.9]
    >>> test = paired_bootstrap(human, npmi, umass, n_resamples=200, seed=0)
    >>> round(test.difference, 4), round(test.se, 4), round(test.pvalue, 4)
    (0.2429, 0.3441, 0.4803)
    >>> test.n_resamples, test.resamples.shape
    (200, (200,))
    """
    a, b = as_numbers(a, "metric a's values", ndim=1), as_numbers(b, "metric b's values", ndim=1)
    check_resampling("paired_bootstrap", n_resamples, confidence)
    if len(a) != len(human) or len(b) != len(human):
        raise InputError(f"metric values for {len(a)} and {len(b)} topics, human answers for {len(human)}")
    ok = np.flatnonzero(np.isfinite(a) & np.isfinite(b))
    if len(ok) < 3:
        raise EmptyResultError("the paired test needs at least three topics that both metrics score")
    means = human.means()[ok]
    topics = pd.DataFrame({"dataset": "", "model": np.zeros(len(ok)) if strata is None else np.asarray(strata)[ok]})
    judgment = HumanJudgments("paired", "", topics.assign(topic=0, words=""), human.take(ok))
    drawn, resampled = resampled_means(judgment, n_resamples, seed)
    d = masked_correlations(resampled, a[ok][drawn], method) - masked_correlations(resampled, b[ok][drawn], method)
    observed = float(correlate_rows(means, a[ok], method)[0] - correlate_rows(means, b[ok], method)[0])  # type: ignore[arg-type]
    return _paired(d, observed, len(ok), method, confidence, "topics")


def pairwise_comparisons(
    judgment: HumanJudgments, table: pd.DataFrame, n_resamples: int, confidence: float, seed: int, resample: str
) -> tuple[pd.DataFrame, dict]:
    """Paired tests of every pair of metrics of one data set on one set of resamples; Holm over its pairs.

    Each pair's difference of Spearman correlations is tested as :func:`paired_bootstrap` tests it
    (on :func:`resampled_means`' resamples, over the topics both metrics score); two rows per
    pair, one from each side. Returns the table and each pair's resampled differences (what the
    max-T adjustment of :meth:`~tealeaves.analysis.ValidationResult.versus_best` reads).
    """
    drawn, resampled = resampled_means(judgment, n_resamples, seed, resample)
    observed = judgment.answers.means()
    columns = list(table.columns)
    values = {c: table[c].to_numpy(np.float64) for c in columns}
    boots = {c: masked_correlations(resampled, values[c][drawn], "spearman") for c in columns}
    rows, resamples = [], {}
    for i, a in enumerate(columns):
        for b in columns[i + 1 :]:
            ok = np.isfinite(values[a]) & np.isfinite(values[b])
            if ok.all():
                d = boots[a] - boots[b]
            else:  # correlations over the topics both metrics score, as the observed difference
                mask = np.where(ok, 1.0, np.nan)[drawn]
                d = masked_correlations(resampled, values[a][drawn] * mask, "spearman") - masked_correlations(
                    resampled, values[b][drawn] * mask, "spearman"
                )
            r_a, r_b = (correlate_rows(observed[ok], values[c][ok], "spearman")[0] for c in (a, b))
            test = _paired(d, float(r_a - r_b), int(ok.sum()), "spearman", confidence, resample)
            resamples[judgment.name, a, b] = d
            for metric, versus, sign in ((a, b, 1.0), (b, a, -1.0)):
                low, high = (test.ci_low, test.ci_high) if sign > 0 else (-test.ci_high, -test.ci_low)
                rows.append(
                    {
                        "human": judgment.name,
                        "task": judgment.task,
                        "metric": metric,
                        "versus": versus,
                        "method": test.estimand,
                        "observed": sign * test.difference,
                        "difference": sign * test.difference,
                        "se": test.se,
                        "ci_low": low,
                        "ci_high": high,
                        "p_value": test.pvalue,
                        "n_topics": test.n,
                        "uncertainty": test.resampled,
                    }
                )
    frame = pd.DataFrame(rows)
    if not frame.empty:
        unordered = frame.iloc[::2]["p_value"].to_numpy()
        frame["p_holm"] = np.repeat(holm(unordered), 2)
    return frame, resamples
