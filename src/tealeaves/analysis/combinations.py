"""Combinations of two metrics' per-topic values: candidates for a metric chosen out of sample.

:func:`rank_mixtures` mixes two metrics (a reference-corpus coherence and an embedding
coherence, say) by a weighted sum of their ranks within each topic source, for a grid of
weights. Each mixture is a metric like any other (``csv:`` in :func:`~tealeaves.analysis.validate`),
so the weight is chosen the way any variant is: by
:meth:`~tealeaves.analysis.ValidationResult.leave_one_out`, on the data sets that do not hold the
topics it is then tested on. Ranks, not raw values, so that two measures on different scales
mix without a fitted scale; no human score enters a mixture.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from tealeaves.errors import InputError, is_real


def mixture_label(weight: float, first: str, second: str) -> str:
    """The name of a mixture: ``mix0.25:FIRST+SECOND`` (the weight is the first metric's)."""
    return f"mix{weight:g}:{first}+{second}"


def rank_mixtures(
    topic_values: pd.DataFrame, first: str, second: str, weights: Sequence[float] = (0.25, 0.5, 0.75)
) -> pd.DataFrame:
    """Weighted sums of two metrics' ranks, per topic: :math:`w\\,u_1 + (1 - w)\\,u_2`.

    Within each topic source (the ``dataset`` key), each metric's values over the topics both
    metrics score are turned into fractional ranks :math:`u = \\mathrm{rank}/n \\in (0, 1]`
    (ties share their mean rank); a topic either metric leaves unscored gets no mixture.

    Parameters
    ----------
    topic_values : DataFrame
        :attr:`ValidationResult.topic_values <tealeaves.analysis.ValidationResult.topic_values>`
        of a run that scored both metrics (the rows of one topic in several data sets, e.g. its
        ratings and its word intrusion, hold the same values).
    first, second : str
        The two metrics' labels.
    weights : sequence of float
        The weights of ``first``, each in [0, 1].

    Returns
    -------
    DataFrame
        ``dataset``, ``model``, ``topic`` and one column per weight, named by
        :func:`mixture_label`: a metric table for ``csv:``.

    Raises
    ------
    InputError
        When a metric is not in ``topic_values`` or a weight lies outside [0, 1].

    Examples
    --------
    >>> import pandas as pd
    >>> from tealeaves.analysis.combinations import rank_mixtures
    >>> values = pd.DataFrame({
    ...     "dataset": "d", "model": "m", "topic": [0, 1, 2] * 2,
    ...     "metric": ["npmi"] * 3 + ["embedding"] * 3, "value": [0.1, 0.3, 0.2, 0.9, 0.2, 0.5],
    ... })
    >>> rank_mixtures(values, "npmi", "embedding", weights=[0.5]).round(3)
      dataset model  topic  mix0.5:npmi+embedding
    0       d     m      0                  0.667
    1       d     m      1                  0.667
    2       d     m      2                  0.667
    """
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence) or not weights:
        raise InputError(f"weights must be a list of the first metric's weights in [0, 1], e.g. [0.5], got {weights!r}")
    if not all(is_real(w) and 0 <= w <= 1 for w in weights):
        raise InputError(f"mixture weights must lie in [0, 1], got {list(weights)}")
    keys = ["dataset", "model", "topic"]
    wide = topic_values.drop_duplicates([*keys, "metric"]).pivot(index=keys, columns="metric", values="value")
    lacking = {first, second} - set(wide.columns)
    if lacking:
        raise InputError(f"no values of {sorted(lacking)} to mix; score them in the same run first")
    both = wide[[first, second]].astype(float).dropna()
    ranks = both.groupby(level="dataset").rank(pct=True)
    out = pd.DataFrame(index=both.index)
    for w in weights:
        out[mixture_label(w, first, second)] = w * ranks[first].to_numpy() + (1 - w) * ranks[second].to_numpy()
    return out.reset_index().astype({"model": str}).assign(topic=lambda f: f["topic"].astype(np.int64))
