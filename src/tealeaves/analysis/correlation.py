"""Correlation of automated metrics with human scores, with bootstrap CIs over annotators.

Topic level (Lau et al. 2014 §5; Hoyle et al. 2021 §6.2, Table 3): correlate each topic's mean
human score with its automated score over all topics. Hoyle et al. resample each topic's
annotations with replacement (as many as it has) 1,000 times, recompute the per-topic means and
the Spearman correlation each time, and report the mean over the resamples with a 95% percentile
interval; a value is underlined when its interval overlaps that of the largest value in its row.
Model level (Lau et al. 2014 §4): Pearson correlation between the per-model means.
Human data with one mean per topic and no answers get intervals from a bootstrap over the
topics instead (:func:`topic_bootstrap_correlations`, stratified by
:func:`tealeaves.stats.stratified_indices`). The resampling engines and the percentile intervals
are :mod:`tealeaves.stats`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from tealeaves.deprecation import renamed_attribute, renamed_parameters
from tealeaves.errors import EmptyResultError, InputError, as_numbers, check_each, describe, is_count
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Result
from tealeaves.stats.intervals import check_confidence, percentile_interval
from tealeaves.stats.resampling import resampled_group_means, stratified_indices

Method = Literal["spearman", "pearson", "kendall"]


class RaggedScores:
    """Per-topic human answers of varying number, stored flat with offsets (CSR style).

    Parameters
    ----------
    groups : sequence of array-like
        Each topic's answers (1 = intruder found, or the ratings), at least one per topic.

    Attributes
    ----------
    values : ndarray of float64
        Every answer, topic after topic.
    sizes, offsets : ndarray of int64
        Each topic's number of answers and the position of its first one in ``values``.

    Raises
    ------
    EmptyResultError
        Without topics, or for a topic without answers.

    Examples
    --------
    >>> from tealeaves.analysis import RaggedScores
    >>> human = RaggedScores([[3, 3, 2], [1, 2], [2, 2, 3, 3]])
    >>> len(human), human.sizes.tolist(), human.offsets.tolist()
    (3, [3, 2, 4], [0, 3, 5])
    >>> human.means().round(4).tolist()
    [2.6667, 1.5, 2.5]
    """

    def __init__(self, groups: Sequence[np.ndarray]):
        if isinstance(groups, (str, bytes)) or not isinstance(groups, Sequence | np.ndarray):
            raise InputError(f"the answers must be a list of each topic's answers, got {describe(groups)}")
        arrays = [as_numbers(g, f"topic {i}'s answers", ndim=1) for i, g in enumerate(groups)]
        sizes = np.array([len(g) for g in arrays], dtype=np.int64)
        if len(arrays) == 0 or np.any(sizes == 0):
            raise EmptyResultError("every topic needs at least one human answer to be scored")
        self.values = np.concatenate(arrays)
        self.sizes = sizes
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])

    def __len__(self) -> int:
        return len(self.sizes)

    def means(self) -> np.ndarray:
        """Each topic's mean answer."""
        return np.add.reduceat(self.values, self.offsets) / self.sizes

    def resampled_means(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` bootstrap resamples (rows) of every topic's mean, resampling its answers
        (:func:`tealeaves.stats.resampled_group_means`)."""
        return resampled_group_means(self.values, self.sizes, n, rng)

    def take(self, index: np.ndarray) -> RaggedScores:
        return RaggedScores([self.values[self.offsets[i] : self.offsets[i] + self.sizes[i]] for i in index])


def _rank_rows(x: np.ndarray) -> np.ndarray:
    return stats.rankdata(x, axis=-1)


def correlate_rows(human: np.ndarray, metric: np.ndarray, method: Method = "spearman") -> np.ndarray:
    """Correlation of each row of ``human`` (resamples x topics) with ``metric`` (topics).

    Spearman's rho is Pearson's r of the ranks (average ranks for ties), exactly as
    ``scipy.stats.spearmanr``; Pearson's r as ``scipy.stats.pearsonr``; Kendall's tau-b as
    ``scipy.stats.kendalltau``: ``sum_{i<j} s_ij t_ij / sqrt(sum s_ij^2 sum t_ij^2)`` with
    ``s_ij = sign(x_i - x_j)``, ``t_ij = sign(y_i - y_j)`` (Kendall 1945; ties count 0).

    Parameters
    ----------
    human : array-like of shape (B, K) or (K,)
        Human scores of K topics, one row per resample.
    metric : array-like of shape (K,)
        The metric's value of each topic.
    method : {"spearman", "pearson", "kendall"}, optional
        The correlation.

    Returns
    -------
    ndarray of shape (B,)
        One correlation per row (NaN where a row is constant).

    Raises
    ------
    InputError
        For an unknown ``method``.

    Examples
    --------
    Topics 2 and 3 are in the opposite order in the two rankings: one discordant pair of 6.

    >>> from tealeaves.analysis import correlate_rows
    >>> correlate_rows([1, 2, 3, 4], [1, 3, 2, 4], "kendall").round(4).tolist()  # (5 - 1) / 6
    [0.6667]
    >>> correlate_rows([[1, 2, 3, 4], [4, 3, 2, 1]], [1, 3, 2, 4]).tolist()  # Spearman, two rows
    [0.8, -0.8]
    """
    human = np.atleast_2d(as_numbers(human, "human"))
    metric = as_numbers(metric, "metric", ndim=1)
    if human.shape[1] != len(metric):  # NumPy's "mismatch in its core dimension" before
        raise InputError(f"human scores of {human.shape[1]} topics and metric values of {len(metric)}: they must align")
    if method == "kendall":
        return _kendall_rows(human, metric)
    if method == "spearman":
        human, metric = _rank_rows(human), stats.rankdata(metric)
    elif method != "pearson":
        raise InputError(f"method must be 'spearman', 'pearson' or 'kendall', got {method!r}")
    hc = human - human.mean(axis=1, keepdims=True)
    mc = metric - metric.mean()
    with np.errstate(divide="ignore", invalid="ignore"):
        return (hc @ mc) / np.sqrt((hc**2).sum(axis=1) * (mc**2).sum())


def _kendall_rows(human: np.ndarray, metric: np.ndarray, cells: int = 1 << 22) -> np.ndarray:
    """Kendall's tau-b of each row of ``human`` with ``metric``, over all pairs, in row chunks."""
    i, j = np.triu_indices(len(metric), 1)
    t = np.sign(metric[i] - metric[j])
    out = np.empty(len(human))
    step = max(1, cells // max(len(i), 1))
    for start in range(0, len(human), step):
        s = np.sign(human[start : start + step, i] - human[start : start + step, j])
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start : start + step] = (s @ t) / np.sqrt((s**2).sum(axis=1) * (t**2).sum())
    return out


@dataclass(frozen=True)
class Correlations(Result):
    """Topic-level correlations of metrics with human scores and their bootstrap intervals.

    ``table`` has one row per metric column: ``metric_column``, ``observed`` (on the observed
    means), ``mean`` (mean over bootstrap resamples, what Hoyle et al. report), ``ci_low``,
    ``ci_high`` (percentile interval), ``n_topics``, ``best`` (largest mean) and ``overlaps_best``
    (interval overlaps the best one's; the best overlaps itself).

    Attributes
    ----------
    method : str
        ``"spearman"``, ``"pearson"`` or ``"kendall"``.
    n_resamples : int
        Bootstrap resamples (``n_boot``, its old name, is deprecated).
    confidence : float
        The intervals' level.
    table : pandas.DataFrame
        One row per metric column, as above.
    resamples : ndarray of shape (n_resamples, metrics)
        Every resample's correlation, one column per metric (``replicates``, its old name, is
        deprecated).

    Examples
    --------
    >>> import pandas as pd
    >>> from tealeaves.analysis import RaggedScores
    >>> human = RaggedScores([[3, 3, 2], [1, 2], [2, 2, 3, 3], [1, 1, 1], [3, 2]])  # ratings of 5 topics
    >>> metrics = pd.DataFrame({"npmi": [0.12, 0.02, 0.08, -0.05, 0.10], "umass": [-1.2, -3.0, -1.5, -2.0, -2.5]})
    >>> from tealeaves.analysis import bootstrap_correlations
    >>> result = bootstrap_correlations(human, metrics, n_resamples=200, seed=0)
    >>> result
    Correlations(method=spearman, n_resamples=200, confidence=0.95, table=2 rows × 8 columns)
    >>> result.resamples.shape
    (200, 2)
    """

    method: str
    n_resamples: int
    confidence: float
    table: pd.DataFrame
    resamples: np.ndarray  # n_resamples x metric columns

    n_boot = renamed_attribute("n_resamples")
    replicates = renamed_attribute("resamples")

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "n_resamples": self.n_resamples,
            "confidence": self.confidence,
            "table": self.table.to_dict(orient="records"),
        }


def _usable(column: str, x: np.ndarray) -> np.ndarray:
    """The topics with a value of metric ``column`` (at least three, or the metric is refused)."""
    ok = np.isfinite(x)
    if ok.sum() < 3:
        raise EmptyResultError(f"metric {column!r} has fewer than three topics with values")
    return ok


def _row(column: str, observed: float, values: np.ndarray, confidence: float, ok: np.ndarray) -> dict:
    """One metric's row: the observed correlation, and the mean and percentile interval of its resamples."""
    low, high = percentile_interval(values, confidence)
    return {
        "metric_column": column,
        "observed": float(observed),
        "mean": float(np.nanmean(values)),
        "ci_low": low,
        "ci_high": high,
        "n_topics": int(ok.sum()),
    }


def check_resampling(owner: str, n_resamples: int, confidence: float, least: int = 1) -> None:
    """Refuse a number of resamples (a whole number of at least ``least``) or a confidence (in (0, 1)) out of
    range or of another type, naming the value; NaN is out of range."""
    check_each(owner, [(is_count(n_resamples, least), f"n_resamples >= {least} (a whole number)", n_resamples)])
    check_confidence(confidence)


@renamed_parameters(n_boot="n_resamples")
def bootstrap_correlations(
    human: RaggedScores,
    metrics: pd.DataFrame,
    method: Method = "spearman",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | np.random.Generator = 0,
    progress: ProgressCallback | None = None,
) -> Correlations:
    """Correlate every column of ``metrics`` (rows = topics) with the topics' mean human scores.

    The human side is bootstrapped over annotators per topic (Hoyle et al. 2021 Table 3): each
    resample draws every topic's answers with replacement, keeping their number
    (:func:`tealeaves.stats.resampled_group_means`). All metric columns share the resamples, so
    their intervals are comparable. Topics with a missing metric value are dropped from that
    metric's correlation. The resamples come from the
    ``"bootstrap correlations"`` stream family under ``seed`` (:func:`tealeaves.rng.family_generator`).

    Parameters
    ----------
    human : RaggedScores
        Each topic's answers.
    metrics : pandas.DataFrame
        One row per topic (in the order of ``human``), one column per metric.
    method : {"spearman", "pearson", "kendall"}, optional
        The correlation.
    n_resamples : int, optional
        Bootstrap resamples (``n_boot``, its old name, is deprecated).
    confidence : float, optional
        The percentile intervals' level.
    seed : int or numpy.random.Generator, optional
        Seed of the resampling.
    progress : callable, optional
        Called with ``("correlations", done, total)`` after each metric.

    Returns
    -------
    Correlations

    Raises
    ------
    InputError
        When ``metrics`` and ``human`` have different numbers of topics, or for a bad
        ``n_resamples`` or ``confidence``.
    EmptyResultError
        For a metric with values for fewer than three topics.

    Examples
    --------
    Five topics with two to four ratings each, and two metrics: NPMI ranks the topics' mean
    ratings almost exactly as they are (0.975), UMass less well; their intervals overlap.

    >>> import pandas as pd
    >>> from tealeaves.analysis import RaggedScores
    >>> human = RaggedScores([[3, 3, 2], [1, 2], [2, 2, 3, 3], [1, 1, 1], [3, 2]])  # ratings of 5 topics
    >>> metrics = pd.DataFrame({"npmi": [0.12, 0.02, 0.08, -0.05, 0.10], "umass": [-1.2, -3.0, -1.5, -2.0, -2.5]})
    >>> from tealeaves.analysis import bootstrap_correlations
    >>> result = bootstrap_correlations(human, metrics, n_resamples=200, seed=0)
    >>> result.table[["metric_column", "observed", "mean", "ci_low", "ci_high", "overlaps_best"]].round(3)
      metric_column  observed   mean  ci_low  ci_high  overlaps_best
    0          npmi     0.975  0.854     0.6    1.000           True
    1         umass     0.616  0.479     0.1    0.821           True
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    if len(metrics) != len(human):
        raise InputError(f"{len(metrics)} metric rows for {len(human)} topics: they must align")
    check_resampling("the bootstrap", n_resamples, confidence)
    rng = family_generator(seed, "bootstrap correlations")
    boots = human.resampled_means(n_resamples, rng)
    observed_means = human.means()
    rows, resamples = [], []
    for i, column in enumerate(metrics.columns):
        x = metrics[column].to_numpy(dtype=np.float64)
        ok = _usable(column, x)
        values = correlate_rows(boots[:, ok], x[ok], method)
        resamples.append(values)
        rows.append(_row(column, correlate_rows(observed_means[ok], x[ok], method)[0], values, confidence, ok))
        notify(progress, "correlations", i + 1, len(metrics.columns))
    table = pd.DataFrame(rows)
    table = flag_overlaps(table)
    return Correlations(method, n_resamples, confidence, table, np.column_stack(resamples))


def flag_overlaps(table: pd.DataFrame, value: str = "mean") -> pd.DataFrame:
    """Add ``best`` (largest ``value``) and ``overlaps_best`` (CI overlaps the best's CI)."""
    table = table.copy()
    best = int(np.argmax(table[value].to_numpy()))
    low, high = table.loc[best, "ci_low"], table.loc[best, "ci_high"]
    table["best"] = np.arange(len(table)) == best
    table["overlaps_best"] = (table["ci_high"] >= low) & (table["ci_low"] <= high)
    return table


def model_level_correlation(
    human_scores, metric_scores, models, method: Method = "pearson"
) -> tuple[float, pd.DataFrame]:
    """Model-level correlation (Lau et al. 2014 §4): correlate per-model means over models.

    ``human_scores`` and ``metric_scores`` are per topic, ``models`` the model of each topic.
    A topic with a missing (NaN) value, such as a coherence topic that ``on_missing="skip"``
    left unscored, is left out of its model's means; the ``topics`` column counts the topics
    each mean is over. Returns the correlation and the per-model means it was computed from.

    Parameters
    ----------
    human_scores, metric_scores : array-like
        Each topic's human score and metric value.
    models : array-like
        Each topic's model.
    method : {"pearson", "spearman", "kendall"}, optional
        The correlation.

    Returns
    -------
    value : float
        The correlation over models.
    means : pandas.DataFrame
        One row per model: ``model``, ``human``, ``metric``, ``topics``.

    Raises
    ------
    EmptyResultError
        With fewer than three models.

    Examples
    --------
    ETM's second topic has no metric value, so ETM's means are over its first topic only.

    >>> from tealeaves.analysis import model_level_correlation
    >>> value, means = model_level_correlation(
    ...     [0.9, 0.7, 0.5, 0.6, 0.3, 0.4],
    ...     [0.12, 0.10, 0.05, 0.07, 0.02, float("nan")],
    ...     ["lda", "lda", "nmf", "nmf", "etm", "etm"],
    ... )
    >>> means
      model  human  metric  topics
    0   etm   0.30    0.02       1
    1   lda   0.80    0.11       2
    2   nmf   0.55    0.06       2
    >>> round(value, 4)
    0.9979
    """
    columns = {"model": np.asarray(models), "human": as_numbers(human_scores, "human_scores", ndim=1)}
    columns["metric"] = as_numbers(metric_scores, "metric_scores", ndim=1)
    if len({len(values) for values in columns.values()}) > 1:  # pandas' "All arrays must be of the same length"
        raise InputError(
            f"models, human_scores and metric_scores must give one entry per topic, got "
            f"{ {name: len(values) for name, values in columns.items()} } entries"
        )
    frame = pd.DataFrame(columns).dropna()
    grouped = frame.groupby("model", sort=True)
    means = grouped[["human", "metric"]].mean().assign(topics=grouped.size()).reset_index()
    if len(means) < 3:
        raise EmptyResultError(f"a model-level correlation needs at least three models, got {len(means)}")
    value = float(correlate_rows(means["human"].to_numpy(), means["metric"].to_numpy(), method)[0])
    return value, means


def masked_correlations(human: np.ndarray, metric: np.ndarray, method: str) -> np.ndarray:
    """Correlation of each row of ``human`` with the same row of ``metric`` [B, K], over the entries where both are finite.

    Without missing entries all rows are computed at once (as :func:`correlate_rows`); with
    missing entries one row at a time.
    """
    human = np.atleast_2d(np.asarray(human, dtype=np.float64))
    metric = np.atleast_2d(np.asarray(metric, dtype=np.float64))
    if method not in ("spearman", "pearson", "kendall"):
        raise InputError(f"method must be 'spearman', 'pearson' or 'kendall', got {method!r}")
    complete = np.isfinite(human).all() and np.isfinite(metric).all()
    if method == "kendall" and complete:
        return _paired_kendall_rows(human, metric)
    if method != "kendall" and complete:
        if method == "spearman":
            human, metric = stats.rankdata(human, axis=1), stats.rankdata(metric, axis=1)
        hc = human - human.mean(axis=1, keepdims=True)
        mc = metric - metric.mean(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (hc * mc).sum(axis=1) / np.sqrt((hc**2).sum(axis=1) * (mc**2).sum(axis=1))
    out = np.empty(len(human))
    for b in range(len(human)):
        ok = np.isfinite(human[b]) & np.isfinite(metric[b])
        out[b] = correlate_rows(human[b, ok], metric[b, ok], method)[0] if ok.sum() >= 3 else np.nan  # type: ignore[arg-type]
    return out


def _paired_kendall_rows(human: np.ndarray, metric: np.ndarray, cells: int = 1 << 22) -> np.ndarray:
    """Kendall's tau-b of each row of ``human`` with the same row of ``metric``, in row chunks."""
    i, j = np.triu_indices(human.shape[1], 1)
    out = np.empty(len(human))
    step = max(1, cells // max(len(i), 1))
    for start in range(0, len(human), step):
        s = np.sign(human[start : start + step, i] - human[start : start + step, j])
        t = np.sign(metric[start : start + step, i] - metric[start : start + step, j])
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start : start + step] = (s * t).sum(axis=1) / np.sqrt((s**2).sum(axis=1) * (t**2).sum(axis=1))
    return out


@renamed_parameters(n_boot="n_resamples")
def topic_bootstrap_correlations(
    means: np.ndarray,
    metrics: pd.DataFrame,
    strata: np.ndarray | None = None,
    method: Method = "spearman",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | np.random.Generator = 0,
) -> Correlations:
    """Correlate every column of ``metrics`` with the topics' mean human scores; intervals over topics.

    For human data that give one mean per topic and no answers. The estimate is the correlation
    on the observed means (``observed``; ``mean`` is the mean over resamples, for reference);
    the interval is the percentile interval of ``n_resamples`` resamples, each drawing the topics
    with replacement within their ``strata`` (:func:`tealeaves.stats.stratified_indices`; one
    stratum when None)
    and correlating the drawn topics' means with the drawn topics' metric values. The
    interval carries the sampling of topics only: the annotator noise is inside each topic's
    mean and so inside the topic-to-topic spread, but not separately. Topics with a missing
    metric value are left out of that metric's correlations. Replicates come from the
    ``"topic bootstrap"`` stream family under ``seed``.

    Parameters
    ----------
    means : array-like of shape (K,)
        Each topic's mean human score.
    metrics : pandas.DataFrame
        K rows (in the order of ``means``), one column per metric.
    strata : array-like of shape (K,), optional
        Each topic's stratum (e.g. its (dataset, model)); resamples keep every stratum's
        number of topics.
    method : {"spearman", "pearson", "kendall"}, optional
        The correlation.
    n_resamples : int, optional
        Bootstrap resamples (``n_boot``, its old name, is deprecated).
    confidence : float, optional
        The percentile intervals' level.
    seed : int or numpy.random.Generator, optional
        Seed of the resampling.

    Returns
    -------
    Correlations
        ``best`` and ``overlaps_best`` refer to ``observed``.

    Raises
    ------
    InputError
        When ``metrics`` and ``means`` have different numbers of topics, or for a bad
        ``n_resamples`` or ``confidence``.

    Examples
    --------
    The same topics as :func:`bootstrap_correlations`' example, known only by their means:
    the same estimates, and wider intervals from resampling five topics.

    >>> import pandas as pd
    >>> from tealeaves.analysis import topic_bootstrap_correlations
    >>> means = [8 / 3, 1.5, 2.5, 1.0, 2.5]
    >>> metrics = pd.DataFrame({"npmi": [0.12, 0.02, 0.08, -0.05, 0.10], "umass": [-1.2, -3.0, -1.5, -2.0, -2.5]})
    >>> result = topic_bootstrap_correlations(means, metrics, n_resamples=200, seed=0)
    >>> result.table[["metric_column", "observed", "ci_low", "ci_high"]].round(3)
      metric_column  observed  ci_low  ci_high
    0          npmi     0.975   0.791      1.0
    1         umass     0.616  -0.667      1.0
    """
    from tealeaves.rng import family_generator

    means = np.asarray(means, dtype=np.float64)
    if len(metrics) != len(means):
        raise InputError(f"{len(metrics)} metric rows for {len(means)} topics: they must align")
    check_resampling("the bootstrap", n_resamples, confidence)
    rng = family_generator(seed, "topic bootstrap")
    drawn = stratified_indices(np.zeros(len(means)) if strata is None else strata, n_resamples, rng)
    return resampled_correlations(means, metrics, drawn, means[drawn], method, confidence)


def resampled_correlations(
    means: np.ndarray,
    metrics: pd.DataFrame,
    drawn: np.ndarray,
    resampled: np.ndarray,
    method: Method = "spearman",
    confidence: float = 0.95,
) -> Correlations:
    """Correlations on the observed means with percentile intervals from given topic resamples.

    ``drawn`` (resamples x topics) are the topics each resample drew and ``resampled`` their
    human scores in that resample (the observed means for a topic bootstrap; re-weighted
    answers for a crossed one). Each resample correlates ``resampled`` with the drawn topics'
    metric values, over the entries where both are finite. The estimate is ``observed``.
    """
    rows, resamples = [], []
    for column in metrics.columns:
        x = metrics[column].to_numpy(dtype=np.float64)
        ok = _usable(column, x)
        values = masked_correlations(resampled, x[drawn], method)
        resamples.append(values)
        rows.append(_row(column, correlate_rows(means[ok], x[ok], method)[0], values, confidence, ok))
    table = flag_overlaps(pd.DataFrame(rows), "observed")
    return Correlations(method, len(drawn), confidence, table, np.column_stack(resamples))
