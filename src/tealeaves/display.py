"""How results, models and corpora show themselves: one wording of numbers, intervals and p-values.

The terminal (:mod:`tealeaves.console`), the notebook (``_repr_html_`` of every result, of
:class:`~tealeaves.models.TopicModel`, :class:`~tealeaves.corpus.Corpus` and
:class:`~tealeaves.coherence.RefIndex`) and the plain ``repr`` word values alike:

- a number with four significant digits (:func:`number`, as the report's tables print it);
- a mean with its 95% interval as ``0.1234 [0.1011, 0.1457]`` (:func:`estimate`); the interval
  of a mean over topics is the report's for topics as independent units, the t interval
  :math:`\\bar x \\pm t_{0.975, n-1}\\, s / \\sqrt n` (:func:`mean_interval`, :func:`t_interval`);
- a p-value as ``p = 0.0123`` or ``p < 0.001`` (:func:`p_value`).

Only SciPy's special functions are needed (no extra), so the core install displays results too;
:mod:`tealeaves.evaluate.stats` words its p-values and t intervals the same way (a test checks).

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
<table><thead><tr><th>word</th><th>n</th></tr></thead><tbody><tr><td>&lt;script&gt;</td><td>3</td></tr></tbody></table>
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


def number(value: Any) -> str:
    """A value as every display words it: floats with four significant digits, None as ``–``."""
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
    """A value with its interval: ``0.1234 [0.1011, 0.1457]`` (the value alone when the interval is NaN)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return number(value)
    return f"{number(value)} [{number(low)}, {number(high)}]"


def t_interval(value: float, se: float, df: float) -> tuple[float, float]:
    """:math:`\\hat\\theta \\pm t_{0.975, df}\\, se`, the report's interval (NaN without degrees of freedom)."""
    from scipy.special import stdtrit

    half = float(stdtrit(df, 0.975)) * se if df > 0 else math.nan
    return value - half, value + half


def mean_interval(values: np.ndarray | Sequence[float]) -> str:
    """The mean of the finite ``values`` with its 95% t interval, as the report shows a mean over topics."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return number(math.nan)
    mean = float(x.mean())
    if len(x) < 2:
        return number(mean)
    low, high = t_interval(mean, float(x.std(ddof=1) / np.sqrt(len(x))), len(x) - 1.0)
    return estimate(mean, low, high)


def p_value(p: float | None) -> str:
    """A p-value as the report and the CLI print it: ``p = 0.0123`` (three significant digits) or ``p < 0.001``."""
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


def html_table(columns: Mapping[str, Any], header: bool = True) -> str:
    """An HTML table of ``columns`` (escaped); without ``header`` the first column is a row heading."""
    names = list(columns)
    rows = zip(*(columns[n] for n in names))
    if header:
        head_row = "".join(f"<th>{escape(n)}</th>" for n in names)
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(cell(v, n))}</td>" for v, n in zip(row, names)) + "</tr>" for row in rows
        )
        return f"<table><thead><tr>{head_row}</tr></thead><tbody>{body}</tbody></table>"
    body = "".join(
        f"<tr><th>{escape(cell(row[0]))}</th>"
        + "".join(f"<td>{escape(cell(v, str(row[0])))}</td>" for v in row[1:])
        + "</tr>"
        for row in rows
    )
    return f"<table><tbody>{body}</tbody></table>"


def html(
    title: str, summary: Mapping[str, Any], table: Mapping[str, Any] | None = None, rows: int | None = None
) -> str:
    """A compact HTML display: ``title``, the ``summary`` values, the first rows of ``table``.

    ``rows`` is the table's length in all when ``table`` holds only its first rows.
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
