"""How results, models and corpora show themselves: one wording of numbers, intervals and p-values.

The terminal (:mod:`tealeaves.console`), the notebook (``_repr_html_`` of every result, of
:class:`~tealeaves.models.TopicModel`, :class:`~tealeaves.corpus.Corpus` and
:class:`~tealeaves.coherence.RefIndex`) and the plain ``repr`` word values alike:

- a number with four significant digits (:func:`number`, as the report's tables print it);
- a mean with its 95% interval as ``0.1234 [0.1011, 0.1457]`` (:func:`estimate`); the interval
  of a mean over topics is the report's for topics as independent units, the studentised
  bootstrap's from a fixed stream (:func:`bootstrap_t_interval`, :func:`mean_interval`; the t
  interval :math:`\\bar x \\pm t_{0.975, n-1}\\, s / \\sqrt n`, :func:`t_interval`, under five
  values);
- a p-value as ``p = 0.0123`` or ``p < 0.001`` (:func:`p_value`).

Only NumPy and SciPy's special functions are needed (no extra), so the core install displays
results too; :mod:`tealeaves.evaluation.stats` words its p-values and intervals the same way, and
its topic-level intervals are :func:`bootstrap_t_interval`'s (a test checks).

A display is a compact summary: a few named values and the first :data:`MAX_ROWS` rows of one
table (per topic, with its top words, where there are topics), never the whole table; every
cell is HTML-escaped and cut to :data:`MAX_CHARS` characters, so a display stays small for
500 topics or 100,000 words. The HTML has no script and no style sheet.

Examples
--------
>>> from tealeaves.display import estimate, html_table, number
>>> number(0.123456), number(12), number(None)
('0.1235', '12', '–')
>>> estimate(0.5, 0.25, 0.75)
'0.5 [0.25, 0.75]'
>>> print(html_table({"word": ["<script>"], "n": [3]}))
<table><thead><tr><th style='text-align:left'>word</th><th>n</th></tr></thead><tbody><tr><td style='text-align:left'>&lt;script&gt;</td><td>3</td></tr></tbody></table>
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import numpy as np

MAX_ROWS = 10  # rows of a table shown
MAX_COLUMNS = 12  # columns of a table shown
MAX_CHARS = 80  # characters of a cell shown (a topic's words, a snippet)
MAX_WORDS = 10  # top words of a topic shown
MAX_ITEMS = 6  # named values in a plain repr
P_VALUE_NAMES = frozenset({"p", "p_value", "pvalue", "p_holm", "p_adjusted"})
BOOTSTRAP_T_RESAMPLES = 2000  # resamples of the interval of a mean over topics
BOOTSTRAP_T_MIN = 5  # fewer values (or none differing): the t interval


def number(value: Any) -> str:
    """A value as every display words it: floats with four significant digits, None as ``–``.

    Parameters
    ----------
    value : object
        A number (Python or numpy), a flag, None or anything else (shown as ``str``).

    Returns
    -------
    str
        Floats by ``format(value, ".4g")``, integers and flags as they are, None as ``–``.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.display import number
    >>> number(0.123456), number(np.float32(2 / 3)), number(1234567.0)
    ('0.1235', '0.6667', '1.235e+06')
    >>> number(np.int64(12)), number(np.bool_(True)), number(None)
    ('12', 'True', '–')
    """
    if value is None:
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}"
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


def estimate(value: float, low: float, high: float) -> str:
    """A value with its interval: ``0.1234 [0.1011, 0.1457]`` (the value alone when the interval is NaN).

    Parameters
    ----------
    value : float
        The estimate.
    low, high : float
        Its interval's bounds; either one non-finite shows the value alone.

    Returns
    -------
    str
        Each number worded by :func:`number`.

    Examples
    --------
    >>> from tealeaves.display import estimate
    >>> estimate(0.123449, 0.101123, 0.145678)
    '0.1234 [0.1011, 0.1457]'
    >>> estimate(0.5, float("nan"), float("nan"))
    '0.5'
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return number(value)
    return f"{number(value)} [{number(low)}, {number(high)}]"


def t_interval(value: float, se: float, df: float) -> tuple[float, float]:
    """:math:`\\hat\\theta \\pm t_{0.975, df}\\, se`, the report's interval (NaN without degrees of freedom).

    Parameters
    ----------
    value : float
        The estimate :math:`\\hat\\theta`.
    se : float
        Its standard error.
    df : float
        The t distribution's degrees of freedom; none (``df <= 0``) gives a NaN interval.

    Returns
    -------
    tuple of float
        ``(low, high)``.

    Examples
    --------
    With 4 degrees of freedom :math:`t_{0.975, 4} = 2.7764`, so the half-width is
    :math:`2.7764 \\times 0.5`:

    >>> from tealeaves.display import t_interval
    >>> [round(bound, 4) for bound in t_interval(1.0, 0.5, 4)]
    [-0.3882, 2.3882]
    >>> t_interval(1.0, 0.5, 0)
    (nan, nan)
    """
    from scipy.special import stdtrit

    half = float(stdtrit(df, 0.975)) * se if df > 0 else math.nan
    return value - half, value + half


def bootstrap_t_interval(values: np.ndarray | Sequence[float]) -> tuple[float, float]:
    """The 95% interval of the mean of the finite ``values``: the studentised bootstrap's (bootstrap-t).

    With the ``n`` finite values' mean :math:`\\bar x`, standard deviation :math:`s` and
    :math:`B` = :data:`BOOTSTRAP_T_RESAMPLES` resamples of ``n`` values drawn with replacement,
    each resample's studentised mean is :math:`t^*_b = (\\bar x^*_b - \\bar x) / (s^*_b / \\sqrt n)`
    and the interval is

    .. math:: \\left[\\bar x - t^*_{(0.975)}\\, s / \\sqrt n,\\ \\bar x - t^*_{(0.025)}\\, s / \\sqrt n\\right],

    :math:`t^*_{(\\alpha)}` the :math:`B\\alpha`-th smallest :math:`t^*_b` (the 50th and the 1,950th
    of 2,000): Efron and Tibshirani (1993, *An Introduction to the Bootstrap*, ch. 12.5); its
    coverage error is :math:`O(1/n)` where the t interval's is :math:`O(1/\\sqrt n)` under skew
    (Hall 1988, "Theoretical comparison of bootstrap confidence intervals", Ann. Statist. 16,
    927-953). Per-topic metrics are skewed (NPMI up to 1.6 over topics); there the t interval
    covers 93.67% at 20 topics of skewness 1.41 and 91.79% at skewness 2, this one 94.92% and
    94.52% (``benchmarks/calibration_verdicts.py``, 20,000 replicates, MC SE 0.0015).

    A resample whose ``n`` values are all equal has :math:`s^* = 0`: its :math:`t^*` is
    :math:`+\\infty` or :math:`-\\infty` by the sign of :math:`\\bar x^* - \\bar x` (the limit as
    :math:`s^* \\to 0`: a mean that moved with no spread to scale it is the most extreme
    studentised value, and dropping such resamples would pull both quantiles inwards), and 0
    where the mean did not move either (no deviation at all). Where either quantile is
    infinite all the same (values so tied that more than 2.5% of resamples are constant), and
    for fewer than :data:`BOOTSTRAP_T_MIN` values or values without spread, the interval is the t
    interval :math:`\\bar x \\pm t_{0.975, n-1}\\, s / \\sqrt n` (:func:`t_interval`), as the
    evaluation's tests fall back to a permutation test under five topics; with fewer than two
    values it is NaN.

    The resamples come from one fixed stream (the family ``"bootstrap-t interval"``,
    :func:`tealeaves.rng.family_generator` with seed 0) and are drawn over the values in
    sorted order, so the same values, in any order, always give the same interval: the
    report, the CLI and every display show the same one.

    Parameters
    ----------
    values : array-like of float
        Per-topic values; NaN and infinite ones are left out.

    Returns
    -------
    tuple of float
        ``(low, high)``.

    Examples
    --------
    Ten skewed values, as NPMI over topics often is (a few topics far above the rest): the
    bootstrap-t interval reaches further above the mean, 0.096, than below it, where the t
    interval (:math:`s / \\sqrt n = 0.02651`) is symmetric.

    >>> from tealeaves.display import bootstrap_t_interval, t_interval
    >>> values = [0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.16, 0.3]
    >>> [round(bound, 4) for bound in bootstrap_t_interval(values)]
    [0.0511, 0.2107]
    >>> [round(bound, 4) for bound in t_interval(0.096, 0.026508, 9)]
    [0.036, 0.156]

    The same values in another order give the same interval; four values the t interval:

    >>> bootstrap_t_interval(values[::-1]) == bootstrap_t_interval(values)
    True
    >>> [round(bound, 4) for bound in bootstrap_t_interval([0.1, 0.2, 0.3, 0.4])]
    [0.0446, 0.4554]
    """
    x = np.asarray(values, dtype=np.float64)
    x = np.sort(x[np.isfinite(x)])
    n = len(x)
    if n < 2:
        return math.nan, math.nan
    mean = float(x.mean())
    se = float(x.std(ddof=1) / np.sqrt(n))
    if n < BOOTSTRAP_T_MIN or x[0] == x[-1]:
        return t_interval(mean, se, n - 1.0)
    from tealeaves.rng import family_generator

    rng = family_generator(0, "bootstrap-t interval")
    studentised = np.empty(BOOTSTRAP_T_RESAMPLES)
    chunk = max(1, 2_000_000 // n)  # rows of indices a draw: bounded memory for many values
    for start in range(0, BOOTSTRAP_T_RESAMPLES, chunk):
        stop = min(BOOTSTRAP_T_RESAMPLES, start + chunk)
        draw = rng.integers(0, n, size=(stop - start, n))
        resampled = x[draw]
        moved = resampled.mean(axis=1) - mean
        flat = x[draw.min(axis=1)] == x[draw.max(axis=1)]  # all n values equal (x is sorted): s* = 0
        moved[flat] = x[draw[flat, 0]] - mean  # exactly, not through a rounded mean of equal values
        with np.errstate(divide="ignore", invalid="ignore"):
            t = moved / (resampled.std(axis=1, ddof=1) / np.sqrt(n))
        t[flat] = np.where(moved[flat] == 0, 0.0, np.copysign(np.inf, moved[flat]))
        studentised[start:stop] = t
    studentised.sort()
    tail = round(BOOTSTRAP_T_RESAMPLES * 0.025)
    low_t, high_t = studentised[tail - 1], studentised[BOOTSTRAP_T_RESAMPLES - tail - 1]
    if not (np.isfinite(low_t) and np.isfinite(high_t)):
        return t_interval(mean, se, n - 1.0)
    return mean - float(high_t) * se, mean - float(low_t) * se


def mean_interval(values: np.ndarray | Sequence[float], bounds: tuple[float, float] | None = None) -> str:
    """The mean of the finite ``values`` with its 95% interval, as the report shows a mean over topics.

    The interval is :func:`bootstrap_t_interval`'s over the ``n`` finite values (the t interval
    :math:`\\bar x \\pm t_{0.975, n-1}\\, s / \\sqrt n` for fewer than five or without spread),
    the one the evaluation's tables give a topic-level metric; with one value the mean is shown
    alone, with none ``nan``. :func:`interval_label` says which it is. A metric bounded to
    ``bounds`` (NPMI to [-1, 1], a share to [0, 1]) has its interval clipped to them (to the
    values themselves where one lies outside, as an epsilon can make NPMI do): the mean lies
    within them, and so does the interval shown.

    Parameters
    ----------
    values : array-like of float
        Per-topic values; NaN and infinite ones are left out.
    bounds : tuple of float, optional
        The values' range, ``(low, high)``, that the interval is clipped to.

    Returns
    -------
    str
        Worded by :func:`estimate`.

    Examples
    --------
    Three values with standard deviation 0.1 (too few for the bootstrap): the half-width is
    :math:`t_{0.975, 2} \\times 0.1 / \\sqrt 3 = 4.303 \\times 0.05774 = 0.2484`.

    >>> from tealeaves.display import mean_interval
    >>> mean_interval([0.1, 0.2, 0.3, float("nan")])
    '0.2 [-0.04841, 0.4484]'
    >>> mean_interval([0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.16, 0.3])
    '0.096 [0.05111, 0.2107]'
    >>> mean_interval([0.2])
    '0.2'

    NPMI of two topics, clipped to its range:

    >>> mean_interval([1.0, 0.3691]), mean_interval([1.0, 0.3691], bounds=(-1.0, 1.0))
    ('0.6845 [-3.324, 4.693]', '0.6845 [-1, 1]')
    """
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return number(math.nan)
    mean = float(x.mean())
    if len(x) < 2:
        return number(mean)
    low, high = bootstrap_t_interval(x)
    if bounds is not None:  # widened to the values themselves, should a convention (an epsilon) step outside
        low, high = max(low, min(bounds[0], x.min())), min(high, max(bounds[1], x.max()))
    return estimate(mean, low, high)


def interval_label(values: np.ndarray | Sequence[float], unit: str = "topics") -> str:
    """What the interval of :func:`mean_interval` is: ``95% CI, bootstrap-t over 20 topics``, or ``t`` where it is
    the t interval (under five values, without spread, or values so tied that the bootstrap's quantiles are not finite).

    Parameters
    ----------
    values : array-like of float
        The values :func:`mean_interval` was given; NaN and infinite ones are left out.
    unit : str
        What a value is, in the plural.

    Returns
    -------
    str
        The label; ``no interval: 1 topics`` style under two values.

    Examples
    --------
    >>> from tealeaves.display import interval_label
    >>> interval_label([0.1, 0.2, 0.3]), interval_label(range(20)), interval_label([0.2])
    ('95% CI, t over 3 topics', '95% CI, bootstrap-t over 20 topics', 'no interval: 1 topics')
    """
    x = np.asarray(values, dtype=np.float64)
    x = np.sort(x[np.isfinite(x)])  # as bootstrap_t_interval sums them
    if len(x) < 2:
        return f"no interval: {len(x)} {unit}"
    t_bounds = t_interval(float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x))), len(x) - 1.0)
    method = "t" if bootstrap_t_interval(x) == t_bounds else "bootstrap-t"
    return f"95% CI, {method} over {len(x)} {unit}"


def p_value(p: float | None) -> str:
    """A p-value as the report and the CLI print it: ``p = 0.0123`` (three significant digits) or ``p < 0.001``.

    Parameters
    ----------
    p : float or None
        The p-value; None or NaN (no test) is shown as ``–``.

    Returns
    -------
    str

    Examples
    --------
    >>> from tealeaves.display import p_value
    >>> p_value(0.012345), p_value(0.0004), p_value(None)
    ('p = 0.0123', 'p < 0.001', '–')
    """
    if p is None or not math.isfinite(p):
        return number(None)
    return "p < 0.001" if p < 0.001 else f"p = {p:.3g}"


def shape(rows: int, columns: int) -> str:
    """A table's size in words: ``1 row × 3 columns``."""
    return f"{rows} row{'s' * (rows != 1)} × {columns} column{'s' * (columns != 1)}"


def cell(value: Any, column: str = "") -> str:
    """A table cell as text: numbers by :func:`number`, p-values by :func:`p_value`, cut to ``MAX_CHARS``."""
    if column in P_VALUE_NAMES and isinstance(value, (float, np.floating)):
        text = p_value(float(value))
    else:
        text = number(value)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def words(topic: Sequence[str]) -> str:
    """A topic's first ``MAX_WORDS`` words, space-separated."""
    return " ".join(list(topic)[:MAX_WORDS])


def head(columns: Mapping[str, Any]) -> tuple[dict[str, list[Any]], int]:
    """The first ``MAX_ROWS`` rows of the first ``MAX_COLUMNS`` columns, and the number of rows in all."""
    names = list(columns)[:MAX_COLUMNS]
    n = len(columns[names[0]]) if names else 0
    return {name: list(columns[name][:MAX_ROWS]) for name in names}, n


LEFT = " style='text-align:left'"  # text reads from the left; notebooks right-align every cell by default


def html_table(columns: Mapping[str, Any], header: bool = True) -> str:
    """An HTML table of ``columns`` (escaped); without ``header`` the first column is a row heading.

    Text (a column of words, a cell holding a string) is left-aligned and numbers keep the
    notebook's right alignment.
    """
    names = list(columns)
    rows = zip(*(columns[n] for n in names))
    if header:
        text = {n: any(isinstance(v, str) for v in columns[n]) for n in names}
        head_row = "".join(f"<th{LEFT if text[n] else ''}>{escape(n)}</th>" for n in names)
        body = "".join(
            "<tr>"
            + "".join(f"<td{LEFT if text[n] else ''}>{escape(cell(v, n))}</td>" for v, n in zip(row, names))
            + "</tr>"
            for row in rows
        )
        return f"<table><thead><tr>{head_row}</tr></thead><tbody>{body}</tbody></table>"
    body = "".join(
        f"<tr><th{LEFT}>{escape(cell(row[0]))}</th>"
        + "".join(f"<td{LEFT if isinstance(v, str) else ''}>{escape(cell(v, str(row[0])))}</td>" for v in row[1:])
        + "</tr>"
        for row in rows
    )
    return f"<table><tbody>{body}</tbody></table>"


def html(
    title: str, summary: Mapping[str, Any], table: Mapping[str, Any] | None = None, rows: int | None = None
) -> str:
    """A compact HTML display: ``title``, the ``summary`` values, the first rows of ``table``.

    What every ``_repr_html_`` returns: the title, a two-column table of the summary values,
    then the first :data:`MAX_ROWS` rows and :data:`MAX_COLUMNS` columns of ``table`` with a
    note of how many there are in all. Every cell is escaped and worded by :func:`number`
    (:func:`p_value` in a p-value column); there is no script and no style sheet.

    Parameters
    ----------
    title : str
        The display's heading (a result's class name).
    summary : mapping of str to object
        Named values shown first.
    table : mapping of str to sequence, optional
        Named columns of equal length.
    rows : int, optional
        The table's length in all when ``table`` holds only its first rows.

    Returns
    -------
    str
        An HTML fragment (a ``div``).

    Examples
    --------
    >>> from tealeaves.display import html
    >>> print(html("Topics", {"K": 2}, {"topic": [0, 1], "words": ["tax budget", "<war>"]}))
    <div class='tealeaves-display'><p><strong>Topics</strong></p><table><tbody><tr><th style='text-align:left'>K</th><td>2</td></tr></tbody></table><table><thead><tr><th>topic</th><th style='text-align:left'>words</th></tr></thead><tbody><tr><td>0</td><td style='text-align:left'>tax budget</td></tr><tr><td>1</td><td style='text-align:left'>&lt;war&gt;</td></tr></tbody></table></div>

    Of 500 rows, the header and the first 10 are shown, with a note:

    >>> page = html("Topics", {}, {"topic": list(range(500))})
    >>> page.count("<tr>"), page.endswith("<p><small>the first 10 of 500 rows</small></p></div>")
    (11, True)
    """
    parts = [f"<div class='tealeaves-display'><p><strong>{escape(title)}</strong></p>"]
    if summary:
        parts.append(html_table({"name": list(summary), "value": list(summary.values())}, header=False))
    if table:
        shown, n = head(table)
        n = n if rows is None else rows
        parts.append(html_table(shown))
        if n > MAX_ROWS or len(table) > MAX_COLUMNS:
            more = f"the first {min(n, MAX_ROWS)} of {n} rows" + (
                f" and {MAX_COLUMNS} of {len(table)} columns" if len(table) > MAX_COLUMNS else ""
            )
            parts.append(f"<p><small>{escape(more)}</small></p>")
    parts.append("</div>")
    return "".join(parts)


def text(title: str, summary: Mapping[str, Any]) -> str:
    """A one-line plain display: ``Title(name=value, ...)`` with the first ``MAX_ITEMS`` values."""
    items = [f"{name}={cell(value, name)}" for name, value in list(summary.items())[:MAX_ITEMS]]
    more = ", …" if len(summary) > MAX_ITEMS else ""
    return f"{title}({', '.join(items)}{more})"
