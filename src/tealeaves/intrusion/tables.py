"""Rich tables of automated word-intrusion results, shared by the CLI and the demo."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table

from tealeaves.deprecation import moved_names
from tealeaves.intrusion.automated import WordIntrusionResult
from tealeaves.intrusion.features import ASSOCIATIONS

__getattr__ = moved_names(
    __name__,
    {name: f"tealeaves.intrusion.tables.wi_auto_{name}" for name in ("topics_table", "models_table")},
)
COLUMNS = [(f"wi_auto_{a}", f"WI-Auto-{a.upper()}") for a in ASSOCIATIONS] + [
    (f"baseline_{a}", f"baseline {a.upper()}") for a in ASSOCIATIONS
]


def wi_auto_topics_table(title: str, result: WordIntrusionResult) -> Table:
    """One row per topic: WI-Auto-PMI, WI-Auto-NPMI, both baselines and the topic's shown words."""
    per_topic = {f"wi_auto_{a}": result.wi_auto[a] for a in ASSOCIATIONS}
    per_topic |= {f"baseline_{a}": result.baseline[a] for a in ASSOCIATIONS}
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    for _, label in COLUMNS:
        table.add_column(label, justify="right")
    table.add_column("top words")
    for k, words in enumerate(result.topics):
        table.add_row(str(k), *(f"{per_topic[key][k]:.3f}" for key, _ in COLUMNS), " ".join(words))
    table.add_section()
    table.add_row("mean", *(f"{result.model_means[key]:.3f}" for key, _ in COLUMNS), "")
    return table


def wi_auto_models_table(title: str, results: Mapping[str, WordIntrusionResult]) -> Table:
    """One row per model: the model-level WI-Auto-PMI, WI-Auto-NPMI and baselines."""
    table = Table(title=title, title_justify="left")
    table.add_column("model")
    table.add_column("K", justify="right")
    for _, label in COLUMNS:
        table.add_column(label, justify="right")
    for name, result in results.items():
        table.add_row(name, str(len(result.per_topic)), *(f"{result.model_means[key]:.3f}" for key, _ in COLUMNS))
    return table
