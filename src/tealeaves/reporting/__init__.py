"""The HTML report of an evaluation run: one self-contained page with the papers' figures.

- :func:`report`: write ``report.html`` for a run of :func:`tealeaves.evaluate` (inline SVG
  figures, no network request, a strict Content-Security-Policy, printable, responsive);
- :func:`render`: the same page as a string;
- :class:`Report`: the path :func:`report` returns, which a notebook displays as the page.
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.reporting.html import Report, render, report

__getattr__, __dir__ = attach(__name__, __file__, extra="report")

__all__ = ["Report", "render", "report"]
