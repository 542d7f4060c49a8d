"""Rich tables of coherence results, shared by the CLI and the demo."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table

from tealeaves.coherence.redundancy import DiversityResult
from tealeaves.coherence.result import CoherenceResult
from tealeaves.console import value_cell
from tealeaves.topic_means import interval_label, mean_interval


def topn_label(result: CoherenceResult) -> str:
    """The top words scored, as a title says it: ``top 10``, ``top 5/10/15/20``, or for whole word lists
    their length (``top 10``, ``all 3-10 words``)."""
    lengths = sorted({len(words) for words in result.topics})
    whole = f"top {lengths[0]}" if len(lengths) == 1 else f"all {lengths[0]}-{lengths[-1]} words"
    return "top " + "/".join(str(n) for n in result.topn) if None not in result.topn else whole


def topics_scores_table(title: str, results: Mapping[str, CoherenceResult], words: int = 10) -> Table:
    """One row per topic, one column per result (all for the same topics), then the words."""
    first = next(iter(results.values()))
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    for name in results:
        table.add_column(name, justify="right")
    table.add_column("top words")
    for k, topic in enumerate(first.topics):
        table.add_row(str(k), *(f"{r.per_topic[k]:.3f}" for r in results.values()), " ".join(topic[:words]))
    table.add_section()
    means = (mean_interval(r.per_topic, r.value_bounds()) for r in results.values())
    table.add_row("mean", *means, _mean_note(first))
    return table


def _mean_note(result: CoherenceResult) -> str:
    """What the mean row's interval is (:func:`tealeaves.results.interval_label`: 95% CI, bootstrap-t or t over
    the scored topics), and how many topics were not scored (NaN), where some were not."""
    unscored = len(result.unscored)
    label = interval_label(result.per_topic, "scored topics" if unscored else "topics", result.value_bounds())
    return f"{label}; {unscored} not scored" if unscored else label


def diversity_table(title: str, result: DiversityResult) -> Table:
    """The diversity measures, Hoyle et al.'s redundancy filters and the shared-word diagnostic
    (:meth:`DiversityResult.measures`: the names the result's display shows)."""
    table = Table(title=title, title_justify="left", show_header=False)
    table.add_column("measure", style="bold")
    table.add_column("value", justify="right")
    for name, value in result.measures().items():
        table.add_row(name, value_cell(value, ".3f"))
    return table
