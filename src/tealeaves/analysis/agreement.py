"""Inter-annotator agreement: one-vs-rest correlation, split-half correlation, Krippendorff's alpha.

- One-vs-rest (Aletras & Stevenson 2013, as used by Hoyle et al. 2021 §6.1, who report 0.75): for
  each annotator, the correlation between their scores of the items they judged and the mean
  score of the other annotators on the same items, averaged over annotators. Lau et al. 2014
  §5.2 use the per-response variant (``unit="response"``): every single rating against the mean
  of the other ratings of its topic, one Pearson correlation over all of them.
- Split-half (Lau et al. 2014 §5.1): for each item split its responses at random into two halves,
  score each half, and correlate the two per-item scores (Pearson) over items; averaged over
  ``n_splits`` random splits.
- Krippendorff's alpha (Krippendorff 2004, §12): :math:`\\alpha = 1 - D_o / D_e` from the
  coincidence matrix, nominal for intrusion (correct / not), ordinal for ratings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from tealeaves.errors import EmptyResultError, InputError, as_numbers, is_count
from tealeaves.results import Result

Method = Literal["spearman", "pearson"]


def _frame(annotator, item, score) -> pd.DataFrame:
    columns = {
        "annotator": np.asarray(annotator),
        "item": np.asarray(item),
        "score": as_numbers(score, "score", ndim=1),
    }
    lengths = {name: len(np.atleast_1d(values)) for name, values in columns.items()}
    if len(set(lengths.values())) > 1:
        raise InputError(f"annotator, item and score must give one entry per response, got {lengths} entries")
    frame = pd.DataFrame(columns)
    frame = frame.dropna(subset=["score"])
    frame["score"] = frame["score"].astype(np.float64)
    if frame.empty:
        raise EmptyResultError("no scores to compute agreement on")
    return frame


def _correlate(x: np.ndarray, y: np.ndarray, method: Method) -> float:
    if method == "spearman":
        return float(stats.spearmanr(x, y)[0])
    if method == "pearson":
        return float(stats.pearsonr(x, y)[0])
    raise InputError(f"method must be 'spearman' or 'pearson', got {method!r}")


@dataclass(frozen=True)
class OneVsRest(Result):
    """Mean one-vs-rest correlation with the per-annotator values it averages.

    Attributes
    ----------
    method : str
        ``"spearman"`` or ``"pearson"``.
    unit : str
        ``"annotator"`` (one correlation per annotator, averaged) or ``"response"`` (one
        correlation over all responses).
    value : float
        The agreement: the mean of the per-annotator correlations, or the single correlation.
    per_annotator : pandas.DataFrame
        One row per annotator (``annotator``, ``items``, ``correlation``; NaN where it is
        undefined), or one row ``"all"`` for ``unit="response"``.

    Examples
    --------
    >>> from tealeaves.analysis import one_vs_rest
    >>> result = one_vs_rest(["ann"] * 4 + ["bob"] * 4, [0, 1, 2, 3] * 2, [3, 2, 1, 2, 3, 3, 1, 2])
    >>> result.per_annotator
      annotator  items  correlation
    0       ann      4     0.833333
    1       bob      4     0.833333
    >>> round(result.value, 4)  # each one's Spearman correlation with the other
    0.8333
    """

    method: str
    unit: str
    value: float
    per_annotator: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        return self.per_annotator.copy()


def one_vs_rest(
    annotator, item, score, method: Method = "spearman", unit: Literal["annotator", "response"] = "annotator"
) -> OneVsRest:
    """One-vs-rest agreement (Aletras & Stevenson 2013; Hoyle et al. 2021 §6.1; Lau et al. 2014 §5.2).

    ``unit="annotator"``: :math:`\\frac{1}{|A|}\\sum_a \\rho(s_a, \\bar s_{-a})` where :math:`s_a`
    are annotator :math:`a`'s scores of the items they judged and :math:`\\bar s_{-a}` the mean of
    everybody else's scores of those items; annotators with fewer than three such items or with a
    constant score vector (undefined correlation) are left out and reported with NaN.
    ``unit="response"``: one correlation over every response and the mean of the other responses
    to its item (Lau et al. 2014).

    Parameters
    ----------
    annotator, item, score : array-like
        One entry per response: who answered, which item (topic), and the score (1 = intruder
        found, or the rating); responses with a missing score are dropped.
    method : {"spearman", "pearson"}, optional
        The correlation.
    unit : {"annotator", "response"}, optional
        Average per-annotator correlations (Hoyle et al.), or correlate every response with
        the others' mean (Lau et al.).

    Returns
    -------
    OneVsRest

    Raises
    ------
    EmptyResultError
        When no item has two responses, or no annotator has three varying scores on them.

    Examples
    --------
    Three annotators rate four topics; each one's ratings are correlated with the mean of the
    two others' on the same topics.

    >>> from tealeaves.analysis import one_vs_rest
    >>> annotator = ["ann"] * 4 + ["bob"] * 4 + ["cat"] * 4
    >>> item = [0, 1, 2, 3] * 3
    >>> rating = [3, 2, 1, 2, 3, 3, 1, 2, 2, 2, 1, 1]
    >>> result = one_vs_rest(annotator, item, rating)
    >>> result.per_annotator["correlation"].round(4).tolist()
    [0.8333, 0.9487, 0.8944]
    >>> round(result.value, 4)  # their mean
    0.8921
    >>> round(one_vs_rest(annotator, item, rating, method="pearson", unit="response").value, 4)
    0.6399
    """
    frame = _frame(annotator, item, score)
    sums = frame.groupby("item")["score"].agg(["sum", "count"])
    frame = frame.join(sums, on="item")
    frame = frame[frame["count"] > 1]
    if frame.empty:
        raise EmptyResultError("one-vs-rest agreement needs items judged by at least two annotators")
    frame = frame.assign(rest=(frame["sum"] - frame["score"]) / (frame["count"] - 1))
    if unit == "response":
        value = _correlate(frame["score"].to_numpy(), frame["rest"].to_numpy(), method)
        table = pd.DataFrame({"annotator": ["all"], "items": [len(frame)], "correlation": [value]})
        return OneVsRest(method, unit, value, table)
    if unit != "annotator":
        raise InputError(f"unit must be 'annotator' or 'response', got {unit!r}")
    rows = []
    for name, part in frame.groupby("annotator", sort=True):
        x, y = part["score"].to_numpy(), part["rest"].to_numpy()
        ok = len(part) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0
        rows.append({"annotator": name, "items": len(part), "correlation": _correlate(x, y, method) if ok else np.nan})
    table = pd.DataFrame(rows)
    if table["correlation"].notna().sum() == 0:
        raise EmptyResultError("no annotator has three or more varying scores on shared items")
    return OneVsRest(method, unit, float(table["correlation"].mean()), table)


def split_half(item, score, n_splits: int = 100, seed: int | np.random.Generator = 0) -> float:
    """Split-half agreement (Lau et al. 2014 §5.1): mean Pearson r between random half-scores.

    For each split and each item with at least two responses, the responses are shuffled and
    split into halves of sizes :math:`\\lfloor n/2 \\rfloor` and :math:`\\lceil n/2 \\rceil`; the
    item's score in each half is the half's mean (MP for 0/1 intrusion answers, mean rating for
    ratings). The value is the mean over ``n_splits`` splits of the Pearson correlation between
    the two half-scores across items. The shuffles come from the ``"split-half agreement"``
    stream family under ``seed`` (:func:`tealeaves.rng.family_generator`).

    Parameters
    ----------
    item, score : array-like
        One entry per response: the item (topic) and its score; missing scores are dropped.
    n_splits : int, optional
        Random splits averaged over.
    seed : int or numpy.random.Generator, optional
        Seed of the shuffles.

    Returns
    -------
    float
        The mean Pearson correlation between the half-scores.

    Raises
    ------
    EmptyResultError
        With fewer than three items of two or more responses, or when every split gives
        constant half-scores.

    Examples
    --------
    >>> from tealeaves.analysis import split_half
    >>> item = [0, 1, 2, 3] * 3
    >>> rating = [3, 2, 1, 2, 3, 3, 1, 2, 2, 2, 1, 1]
    >>> round(split_half(item, rating, n_splits=20, seed=0), 4)
    0.7781
    """
    from tealeaves.rng import family_generator  # numba, which tealeaves.rng loads, only when drawing

    if not is_count(n_splits):
        raise InputError(f"n_splits must be a whole number of at least 1, got {n_splits!r}")
    frame = _frame(np.zeros(len(np.asarray(item))), item, score)
    groups = [g.to_numpy() for _, g in frame.groupby("item")["score"] if len(g) >= 2]
    if len(groups) < 3:
        raise EmptyResultError("split-half agreement needs at least three items with two or more responses")
    rng = family_generator(seed, "split-half agreement")
    values = []
    for _ in range(n_splits):
        first, second = np.empty(len(groups)), np.empty(len(groups))
        for i, g in enumerate(groups):
            shuffled = rng.permutation(g)
            half = len(g) // 2
            first[i], second[i] = shuffled[:half].mean(), shuffled[half:].mean()
        if np.ptp(first) > 0 and np.ptp(second) > 0:
            values.append(stats.pearsonr(first, second)[0])
    if not values:
        raise EmptyResultError("every split gave constant half-scores; the correlation is undefined")
    return float(np.mean(values))


def krippendorff_alpha(annotator, item, score, level: Literal["nominal", "ordinal", "interval"] = "nominal") -> float:
    """Krippendorff's alpha (Krippendorff 2004, ch. 12) from the coincidence matrix.

    With :math:`m_u` pairable values in unit (item) :math:`u`, the coincidences are
    :math:`o_{ck} = \\sum_u \\frac{1}{m_u - 1} \\#\\{(i, j), i \\ne j: v_{ui} = c, v_{uj} = k\\}`,
    :math:`n_c = \\sum_k o_{ck}`, :math:`n = \\sum_c n_c`, and

    .. math:: \\alpha = 1 - (n - 1)\\frac{\\sum_{c,k} o_{ck}\\,\\delta^2_{ck}}
              {\\sum_{c,k} n_c n_k\\,\\delta^2_{ck}}

    with :math:`\\delta^2_{ck} = 1(c \\ne k)` (nominal), :math:`(c-k)^2` (interval) and
    :math:`(\\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2` (ordinal). Units with a single value are not
    pairable and are ignored. An annotator's repeated answers to one unit all count.

    Parameters
    ----------
    annotator, item, score : array-like
        One entry per response: who answered, the unit (item) and the value; missing values
        are dropped.
    level : {"nominal", "ordinal", "interval"}, optional
        The metric :math:`\\delta^2`: nominal for intrusion answers, ordinal for ratings.

    Returns
    -------
    float
        :math:`\\alpha`: 1 for perfect agreement, 0 for agreement at chance.

    Raises
    ------
    EmptyResultError
        Without pairable units or with a single distinct value.

    Examples
    --------
    Two annotators answer three intrusion items: they agree on two (1, 1 and 0, 0) and
    disagree on one. The coincidences are :math:`o_{00} = o_{11} = 2`, :math:`o_{01} = o_{10} = 1`,
    so :math:`n_0 = n_1 = 3` and :math:`\\alpha = 1 - 5 \\cdot 2 / 18 = 4/9`.

    >>> from tealeaves.analysis import krippendorff_alpha
    >>> round(krippendorff_alpha(["a", "b"] * 3, [0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 1, 0]), 4)
    0.4444
    >>> annotator = ["ann"] * 4 + ["bob"] * 4 + ["cat"] * 4
    >>> rating = [3, 2, 1, 2, 3, 3, 1, 2, 2, 2, 1, 1]
    >>> round(krippendorff_alpha(annotator, [0, 1, 2, 3] * 3, rating, level="ordinal"), 4)
    0.6199
    """
    frame = _frame(annotator, item, score)
    values = np.unique(frame["score"].to_numpy())
    code = {v: i for i, v in enumerate(values)}
    m = len(values)
    coincidence = np.zeros((m, m))
    for _, g in frame.groupby("item")["score"]:
        if len(g) < 2:
            continue
        counts = np.bincount([code[v] for v in g], minlength=m).astype(np.float64)
        coincidence += (np.outer(counts, counts) - np.diag(counts)) / (len(g) - 1)
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    if n < 2 or m < 2:
        raise EmptyResultError("Krippendorff's alpha needs pairable units with at least two distinct values")
    if level == "nominal":
        delta = 1.0 - np.eye(m)
    elif level == "interval":
        delta = (values[:, None] - values[None, :]) ** 2
    elif level == "ordinal":
        cum = np.cumsum(n_c)
        lo, hi = np.minimum.outer(np.arange(m), np.arange(m)), np.maximum.outer(np.arange(m), np.arange(m))
        between = cum[hi] - np.concatenate([[0.0], cum])[lo]
        delta = (between - (n_c[:, None] + n_c[None, :]) / 2) ** 2
    else:
        raise InputError(f"level must be 'nominal', 'ordinal' or 'interval', got {level!r}")
    expected = (np.outer(n_c, n_c) * delta).sum()
    if expected == 0:
        raise EmptyResultError("all values are equal: Krippendorff's alpha is undefined")
    return float(1.0 - (n - 1) * (coincidence * delta).sum() / expected)
