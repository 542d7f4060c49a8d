"""The one result type of every test in tealeaves: :class:`TestResult`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from tealeaves.deprecation import renamed_attribute
from tealeaves.results import Columns, Result


@dataclass(frozen=True)
class TestResult(Result):
    """What a test found: the estimate it tested, its uncertainty, the statistic and the p-value.

    Every test of :mod:`tealeaves.stats` returns one, whether it compares two groups (Welch's t,
    a permutation test), two paired series (the paired t-test), two resampled quantities (a
    bootstrap or randomisation test) or runs many tests at once: batched tests (a simulation's
    thousands of studies) hold arrays of the leading shape in ``statistic``, ``pvalue`` and the
    other numeric fields.

    Attributes
    ----------
    test : str
        The test's name (``"Welch's t"``, ``"paired t"``, ``"permutation"``, ``"randomisation"``,
        ``"jackknife t"``, ``"Student t"``, ``"two-proportion z"``, ``"Mann-Whitney U"``, ...).
    statistic : float or ndarray
        The test statistic (t, z or :math:`U_a`); NaN where a test has none.
    pvalue : float or ndarray
        The p-value of ``alternative``; NaN where the data leave nothing to test.
    alternative : str
        ``"two-sided"``, or ``"greater"`` / ``"smaller"`` (one-tailed).
    difference : float or ndarray
        The estimate tested, A − B (a difference of means, ratios, correlations or model-level
        quantities); NaN where a test does not estimate one.
    se : float or ndarray
        Its standard error; NaN where unknown.
    df : float or ndarray
        Degrees of freedom of the t distribution behind ``pvalue`` and the interval; NaN for a
        test without one (normal, permutation, randomisation).
    ci_low, ci_high : float or ndarray
        The interval of ``difference`` (at the confidence the test was asked for, 95% by
        default); NaN where there is none.
    n : int or ndarray
        The units the test is over (items of both groups, pairs, topics); 0 where not counted.
    estimand : str
        What ``difference`` is a difference of, where the test does not say (``"spearman"``
        for two correlations with people).
    resampled : str
        What the resamples resample (``"topics (stratified by dataset and model)"``), for a
        resampling test; empty otherwise.
    resamples : ndarray or None
        The resampled differences of a bootstrap test (their spread is ``se``).

    Examples
    --------
    >>> from tealeaves.stats import welch_test
    >>> result = welch_test([0.12, 0.15, 0.11, 0.14], [0.08, 0.10, 0.09, 0.12, 0.02])
    >>> result
    TestResult(test=Welch's t, statistic=2.504, pvalue=p = 0.0462, alternative=two-sided, difference=0.048, se=0.01917, …)
    >>> round(result.ci_low, 4), round(result.ci_high, 4)
    (0.0011, 0.0949)
    """

    __test__ = False  # a result type, not a test class, for pytest's collection

    test: str
    statistic: float | np.ndarray = math.nan
    pvalue: float | np.ndarray = math.nan
    alternative: str = "two-sided"
    difference: float | np.ndarray = math.nan
    se: float | np.ndarray = math.nan
    df: float | np.ndarray = math.nan
    ci_low: float | np.ndarray = math.nan
    ci_high: float | np.ndarray = math.nan
    n: int | np.ndarray = 0
    estimand: str = ""
    resampled: str = ""
    resamples: np.ndarray | None = field(default=None, repr=False)

    # the names of tealeaves.analysis.PairedTest, whose results this type now holds
    p_value = renamed_attribute("pvalue")
    observed = renamed_attribute("difference")
    n_topics = renamed_attribute("n")
    n_boot = renamed_attribute("n_resamples")
    replicates = renamed_attribute("resamples")
    method = renamed_attribute("estimand")
    uncertainty = renamed_attribute("resampled")

    @property
    def n_resamples(self) -> int:
        """The number of ``resamples`` (0 for a test that did not resample)."""
        return 0 if self.resamples is None else len(self.resamples)

    def columns(self) -> Columns:
        """One row per test (one for a single test): the numeric fields, the test and its alternative."""
        names = ("statistic", "pvalue", "difference", "se", "df", "ci_low", "ci_high", "n")
        arrays = np.broadcast_arrays(*(np.atleast_1d(np.asarray(getattr(self, name), dtype=float)) for name in names))
        table: Columns = dict(zip(names, arrays))
        table["n"] = arrays[-1].astype(np.int64)
        rows = len(arrays[0])
        return {**table, "test": [self.test] * rows, "alternative": [self.alternative] * rows}
