"""How results, models and corpora show themselves: one wording of numbers, intervals and p-values.

The terminal (:mod:`tealeaves.console`), the notebook (``_repr_html_`` of every result, of
:class:`~tealeaves.models.TopicModel`, :class:`~tealeaves.corpus.Corpus` and
:class:`~tealeaves.coherence.RefIndex`) and the plain ``repr`` word values alike:

- a number with four significant digits (:func:`number`, as the report's tables print it);
- a mean with its 95% interval as ``0.1234 [0.1011, 0.1457]`` (:func:`interval_estimate`); the interval
  is computed by the caller, never here: a mean over topics gets the one the evaluation's tables
  give a topic-level metric, :func:`tealeaves.stats.mean_with_interval`'s (as
  :func:`tealeaves.topic_means.mean_interval` words it for every per-topic result's summary);
- a p-value as ``p = 0.0123`` or ``p < 0.001`` (:func:`p_value`).

Only NumPy is needed (no extra), so the core install displays results too; sentences (verdicts,
what they are about, row labels) are :mod:`tealeaves.wording`'s. ``t_interval``,
``bootstrap_t_interval`` and ``mean_interval``, once here, are :mod:`tealeaves.stats`'s and
:mod:`tealeaves.topic_means`' (their old names still work, with a ``DeprecationWarning``).

A display is a compact summary: a few named values and the first :data:`MAX_ROWS` rows of one
table (per topic, with its top words, where there are topics), never the whole table; every
cell is HTML-escaped and cut to :data:`MAX_CHARS` characters, so a display stays small for
500 topics or 100,000 words. The HTML has no script and no style sheet.

Examples
--------
>>> from tealeaves.display import html_table, interval_estimate, number
>>> number(0.123456), number(12), number(None)
('0.1235', '12', '–')
>>> interval_estimate(0.5, 0.25, 0.75)
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

from tealeaves.deprecation import moved_names

MAX_ROWS = 10  # rows of a table shown
MAX_COLUMNS = 12  # columns of a table shown
MAX_CHARS = 80  # characters of a cell shown (a topic's words, a snippet)
MAX_WORDS = 10  # top words of a topic shown
MAX_ITEMS = 6  # named values in a plain repr
P_VALUE_NAMES = frozenset({"p", "p_value", "pvalue", "p_holm", "p_adjusted"})

__getattr__ = moved_names(
    __name__,
    {
        "t_interval": "tealeaves.stats.t_interval",
        "bootstrap_t_interval": "tealeaves.stats.bootstrap_t_interval",
        "mean_interval": "tealeaves.topic_means.mean_interval",
        "BOOTSTRAP_T_RESAMPLES": "tealeaves.stats.intervals.BOOTSTRAP_T_RESAMPLES",
        "BOOTSTRAP_T_MIN": "tealeaves.stats.intervals.BOOTSTRAP_T_MIN",
        "estimate": "tealeaves.display.interval_estimate",  # the name of tealeaves.likelihood.estimate
    },
)


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


def interval_estimate(value: float, low: float, high: float) -> str:
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
    >>> from tealeaves.display import interval_estimate
    >>> interval_estimate(0.123449, 0.101123, 0.145678)
    '0.1234 [0.1011, 0.1457]'
    >>> interval_estimate(0.5, float("nan"), float("nan"))
    '0.5'
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return number(value)
    return f"{number(value)} [{number(low)}, {number(high)}]"


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
