"""Hand-written SVG figures (the report's and the notebook's): interval plots, box plots and scatter plots.

Plain SVG text with presentation attributes (no ``style`` attributes, which a strict
Content-Security-Policy would block), scalable through ``viewBox``, in the Okabe-Ito palette
(Okabe & Ito 2008), which stays distinguishable under the common colour-vision deficiencies.
Every axis is labelled; every mark carries a ``<title>`` with its exact value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

import numpy as np

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
WIDTH = 520
LEFT, RIGHT, TOP, BOTTOM = 110, 20, 30, 48


def colour(i: int) -> str:
    """The i-th colour of the palette (cycling)."""
    return PALETTE[i % len(PALETTE)]


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values covering [low, high] (steps of 1, 2 or 5 times a power of ten)."""
    if not high > low:
        low, high = low - 0.5, high + 0.5
    raw = (high - low) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 12))
    return ticks


def tick_label(value: float) -> str:
    """A tick's text: up to four significant digits, no trailing zeros."""
    return f"{value:.4g}"


class Scale:
    """A linear map from data values to pixels over nice ticks."""

    def __init__(self, values: Sequence[float], start: float, stop: float, zero: bool = False):
        finite = [v for v in values if np.isfinite(v)]
        low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
        if zero:
            low, high = min(low, 0.0), max(high, 0.0)
        pad = (high - low) * 0.05 or abs(high) * 0.05 or 0.5
        self.ticks = nice_ticks(low - pad, high + pad)
        self.low, self.high = self.ticks[0], self.ticks[-1]
        self.start, self.stop = start, stop

    def __call__(self, value: float) -> float:
        return self.start + (value - self.low) / (self.high - self.low) * (self.stop - self.start)


def _svg(height: float, title: str, body: list[str], width: float = WIDTH) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height:.0f}" role="img" '
        f'aria-label="{escape(title)}" font-family="sans-serif" font-size="12">'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>"
    )


def _x_axis(scale: Scale, y: float, label: str, top: float) -> list[str]:
    out = [f'<line x1="{scale.start}" x2="{scale.stop}" y1="{y}" y2="{y}" stroke="#333"/>']
    for t in scale.ticks:
        x = scale(t)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{y + 15}" text-anchor="middle">{tick_label(t)}</text>')
    middle = (scale.start + scale.stop) / 2
    out.append(f'<text x="{middle:.1f}" y="{y + 34}" text-anchor="middle" font-weight="bold">{escape(label)}</text>')
    return out


def _y_axis(scale: Scale, x: float, label: str, right: float) -> list[str]:
    out = [f'<line x1="{x}" x2="{x}" y1="{scale.stop}" y2="{scale.start}" stroke="#333"/>']
    for t in scale.ticks:
        y = scale(t)
        out.append(f'<line x1="{x}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x - 6}" y="{y + 4:.1f}" text-anchor="end">{tick_label(t)}</text>')
    middle = (scale.start + scale.stop) / 2
    out.append(
        f'<text x="14" y="{middle:.1f}" text-anchor="middle" font-weight="bold" '
        f'transform="rotate(-90 14 {middle:.1f})">{escape(label)}</text>'
    )
    return out


def interval_plot(
    title: str, label: str, models: Sequence[str], means: Sequence[float], lows: Sequence[float], highs: Sequence[float]
) -> str:
    """One row per model: its value (a dot) and 95% interval (a line), as Hoyle et al. 2021 Fig. 2."""
    row = 28
    height = TOP + row * len(models) + BOTTOM
    scale = Scale([*means, *lows, *highs], LEFT, WIDTH - RIGHT)
    bottom = TOP + row * len(models)
    body = [f'<text x="{LEFT}" y="16" font-weight="bold">{escape(title)}</text>']
    body += _x_axis(scale, bottom, label, TOP)
    for i, (name, mean, low, high) in enumerate(zip(models, means, lows, highs)):
        y = TOP + row * i + row / 2
        body.append(f'<text x="{LEFT - 8}" y="{y + 4}" text-anchor="end">{escape(name)}</text>')
        body.append(
            f'<line x1="{scale(low):.1f}" x2="{scale(high):.1f}" y1="{y}" y2="{y}" stroke="{colour(i)}" stroke-width="3"/>'
        )
        body.append(
            f'<circle cx="{scale(mean):.1f}" cy="{y}" r="5" fill="{colour(i)}" stroke="#000">'
            f"<title>{escape(name)}: {mean:.6g} [{low:.6g}, {high:.6g}]</title></circle>"
        )
    return _svg(height, title, body)


def box_plot(title: str, label: str, groups: dict[str, np.ndarray]) -> str:
    """One horizontal box per model (quartiles, whiskers to 1.5 IQR, outliers as points), as
    Chang et al. 2009 Figs. 3 and 5 show model precision and topic log odds."""
    row = 34
    names = list(groups)
    height = TOP + row * len(names) + BOTTOM
    scale = Scale([v for g in groups.values() for v in g], LEFT, WIDTH - RIGHT)
    bottom = TOP + row * len(names)
    body = [f'<text x="{LEFT}" y="16" font-weight="bold">{escape(title)}</text>']
    body += _x_axis(scale, bottom, label, TOP)
    for i, name in enumerate(names):
        values = np.sort(np.asarray(groups[name], dtype=np.float64))
        y = TOP + row * i + row / 2
        q1, median, q3 = np.quantile(values, [0.25, 0.5, 0.75])
        reach = 1.5 * (q3 - q1)
        inside = values[(values >= q1 - reach) & (values <= q3 + reach)]
        lo, hi = inside.min(), inside.max()
        c = colour(i)
        body.append(f'<text x="{LEFT - 8}" y="{y + 4}" text-anchor="end">{escape(name)}</text>')
        body.append(f'<line x1="{scale(lo):.1f}" x2="{scale(hi):.1f}" y1="{y}" y2="{y}" stroke="#333"/>')
        body.append(
            f'<rect x="{scale(q1):.1f}" y="{y - 10}" width="{max(scale(q3) - scale(q1), 1):.1f}" height="20" '
            f'fill="{c}" fill-opacity="0.35" stroke="{c}" stroke-width="2">'
            f"<title>{escape(name)}: median {median:.4g}, quartiles {q1:.4g} to {q3:.4g}, n = {len(values)}</title></rect>"
        )
        body.append(
            f'<line x1="{scale(median):.1f}" x2="{scale(median):.1f}" y1="{y - 10}" y2="{y + 10}" stroke="#000" stroke-width="2"/>'
        )
        for v in values[(values < lo) | (values > hi)]:
            body.append(f'<circle cx="{scale(v):.1f}" cy="{y}" r="3" fill="none" stroke="{c}"/>')
    return _svg(height, title, body)


def scatter_plot(
    title: str,
    x_label: str,
    y_label: str,
    points: Sequence[tuple[float, float, str, int]],
    labelled: bool = False,
) -> str:
    """Points (x, y, name, colour index); ``labelled`` writes each point's name beside it
    (one point per model, as Chang et al. 2009 Fig. 6)."""
    height = 340
    xs = Scale([p[0] for p in points], LEFT - 40, WIDTH - RIGHT - (60 if labelled else 0))
    ys = Scale([p[1] for p in points], height - BOTTOM, TOP)
    body = [f'<text x="{LEFT - 40}" y="16" font-weight="bold">{escape(title)}</text>']
    body += _x_axis(xs, height - BOTTOM, x_label, TOP)
    body += _y_axis(ys, LEFT - 40, y_label, xs.stop)
    for x, y, name, c in points:
        body.append(
            f'<circle cx="{xs(x):.1f}" cy="{ys(y):.1f}" r="{6 if labelled else 3.5}" fill="{colour(c)}" '
            f'fill-opacity="{1 if labelled else 0.7}" stroke="#000" stroke-width="0.5">'
            f"<title>{escape(name)}: {x:.4g}, {y:.4g}</title></circle>"
        )
        if labelled:
            body.append(f'<text x="{xs(x) + 9:.1f}" y="{ys(y) + 4:.1f}">{escape(name)}</text>')
    return _svg(height, title, body)
