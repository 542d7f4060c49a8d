"""The mean over topics of a result with a value per topic, with its named, clipped 95% interval.

Every display of a per-topic result (coherence, word intrusion, topic significance) shows its
model mean as ``0.6845 [-1, 1]`` under a name that says which interval it is
(``model mean (95% CI, t over 2 topics)``): :func:`mean_interval` and :func:`interval_label`
word it from :func:`tealeaves.stats.mean_with_interval`, the interval the evaluation's tables
give a topic-level metric, and :class:`PerTopicResult` is the :class:`~tealeaves.results.Result`
whose summary shows it. A base module above :mod:`tealeaves.stats`, which uses
:mod:`tealeaves.results` for its own result type: the interval stays out of ``results``, so the
two do not import each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tealeaves import display
from tealeaves.results import Result
from tealeaves.stats.intervals import interval_method, mean_with_interval


class PerTopicResult(Result):
    """A :class:`~tealeaves.results.Result` with a value per topic and their mean.

    Its :meth:`summary` shows ``model_mean`` with its 95% interval over the topics
    (:func:`mean_interval`: bootstrap-t, the t interval under five topics; within
    :meth:`value_bounds`) under a name that says which (:func:`interval_label`:
    ``model mean (95% CI, bootstrap-t over 20 topics)``), in the place of the field.

    Attributes
    ----------
    per_topic : ndarray
        A subclass's per-topic values.
    model_mean : float
        Their mean.

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex, score
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab))
    >>> result = score([["tax", "budget"], ["war", "peace"]], index, measure="npmi", window="document")
    >>> list(result.summary())[3:5]
    ['topics', 'model mean (95% CI, t over 2 topics)']
    >>> result.summary()["model mean (95% CI, t over 2 topics)"]  # NPMI's interval, within [-1, 1]
    '0.6845 [-1, 1]'
    """

    def summary(self) -> dict[str, Any]:
        """:meth:`Result.summary <tealeaves.results.Result.summary>`, its ``model_mean`` worded with its interval."""
        values = super().summary()
        per_topic = getattr(self, "per_topic", None)
        if "model_mean" not in values or not isinstance(per_topic, np.ndarray):
            return values
        label = f"model mean ({interval_label(per_topic, bounds=self.value_bounds())})"
        mean = mean_interval(per_topic, self.value_bounds())
        return {
            (label if name == "model_mean" else name): (mean if name == "model_mean" else value)
            for name, value in values.items()
        }

    def value_bounds(self) -> tuple[float, float] | None:
        """The range a ``per_topic`` value lies in, within which :meth:`summary` keeps the interval of their mean
        (None: unbounded; a result of a bounded metric says so)."""
        return None


def mean_interval(values: np.ndarray | Sequence[float], bounds: tuple[float, float] | None = None) -> str:
    """The mean of the finite ``values`` with its 95% interval, as every display shows a mean over topics.

    The interval is :func:`tealeaves.stats.mean_with_interval`'s (bootstrap-t over the ``n``
    finite values; the t interval :math:`\\bar x \\pm t_{0.975, n-1}\\, s / \\sqrt n` for fewer
    than five or without spread), the one the evaluation's tables give a topic-level metric,
    worded by :func:`tealeaves.display.interval_estimate`: with one value the mean alone, with none ``nan``;
    :func:`interval_label` says which interval it is. A metric bounded to ``bounds`` (NPMI to
    [-1, 1], a share to [0, 1]) has its interval computed on a scale that keeps it within them
    (:func:`tealeaves.stats.bootstrap_t_interval`: the symmetric bootstrap-t on the logit scale,
    the t interval on the logit scale under five values; widened to the values themselves where
    one lies outside, as an epsilon can make NPMI do).

    Parameters
    ----------
    values : array-like of float
        Per-topic values; NaN and infinite ones are left out.
    bounds : tuple of float, optional
        The values' range, ``(low, high)``, that the interval stays within.

    Returns
    -------
    str
        Worded by :func:`tealeaves.display.interval_estimate`.

    Examples
    --------
    Three values with standard deviation 0.1 (too few for the bootstrap): the half-width is
    :math:`t_{0.975, 2} \\times 0.1 / \\sqrt 3 = 4.303 \\times 0.05774 = 0.2484`.

    >>> from tealeaves.topic_means import mean_interval
    >>> mean_interval([0.1, 0.2, 0.3, float("nan")])
    '0.2 [-0.04841, 0.4484]'
    >>> mean_interval([0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.16, 0.3])
    '0.096 [0.05111, 0.2107]'
    >>> mean_interval([0.2]), mean_interval([])
    ('0.2', 'nan')

    NPMI of two topics, within its range:

    >>> mean_interval([1.0, 0.3691]), mean_interval([1.0, 0.3691], bounds=(-1.0, 1.0))
    ('0.6845 [-3.324, 4.693]', '0.6845 [-1, 1]')
    """
    return display.interval_estimate(*mean_with_interval(values, bounds=bounds))


def interval_label(
    values: np.ndarray | Sequence[float], unit: str = "topics", bounds: tuple[float, float] | None = None
) -> str:
    """What the interval of :func:`mean_interval` is: ``95% CI, bootstrap-t over 20 topics``, ``t`` where it is
    the t interval (under five values, without spread, or values so tied that the bootstrap's quantiles are not
    finite), either ``with Gaffke's limit`` where values at a bound make an end reach to
    :func:`tealeaves.stats.gaffke_limit`, ``bound`` where every value lies at one of the two ``bounds``.

    Parameters
    ----------
    values : array-like of float
        The values :func:`mean_interval` was given; NaN and infinite ones are left out.
    unit : str
        What a value is, in the plural.
    bounds : tuple of float, optional
        The ``bounds`` :func:`mean_interval` was given.

    Returns
    -------
    str
        The label; ``no interval: 1 topic`` style under two values.

    Examples
    --------
    >>> from tealeaves.topic_means import interval_label
    >>> interval_label([0.1, 0.2, 0.3]), interval_label(range(20)), interval_label([0.2])
    ('95% CI, t over 3 topics', '95% CI, bootstrap-t over 20 topics', 'no interval: 1 topic')
    >>> interval_label([1.0] * 6, bounds=(0.0, 1.0))
    '95% CI, bound over 6 topics'
    >>> interval_label([1.0, 1.0, 0.9, 0.8, 0.6], bounds=(0.0, 1.0))
    "95% CI, bootstrap-t with Gaffke's limit over 5 topics"
    """
    *_, method = interval_method(values, bounds=bounds)
    n = int(np.isfinite(np.asarray(values, dtype=np.float64)).sum())
    counted = f"{n} {unit.removesuffix('s') if n == 1 else unit}"
    return f"no interval: {counted}" if method == "none" else f"95% CI, {method} over {counted}"
