"""Figures of the analysis (matplotlib, written as SVG and PNG): model boxplots, correlations, power, leaderboards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tealeaves.errors import MissingDependencyError


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - matplotlib is a dependency
        raise MissingDependencyError("figures need matplotlib: pip install matplotlib") from exc
    return plt


def save(fig, folder: Path, name: str) -> list[Path]:
    """Write ``fig`` as ``name.svg`` and ``name.png`` into ``folder``; close it."""
    plt = _pyplot()
    paths = [folder / f"{name}.svg", folder / f"{name}.png"]
    fig.savefig(paths[0], bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight", dpi=150)
    plt.close(fig)
    return paths


def model_boxplots(scores: pd.DataFrame, panel: str, value: str = "score", title: str = ""):
    """One box per model in each panel (Hoyle et al. 2021 Fig. 2): ``scores`` has model, panel, value."""
    plt = _pyplot()
    panels = list(dict.fromkeys(scores[panel]))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 3.2), squeeze=False)
    for ax, name in zip(axes[0], panels):
        part = scores[scores[panel] == name]
        models = list(dict.fromkeys(part["model"]))
        ax.boxplot([part.loc[part["model"] == m, value].to_numpy() for m in models], tick_labels=models)
        ax.set_title(str(name), fontsize=9)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def correlation_bars(table: pd.DataFrame, row: list[str], label: str, title: str = ""):
    """Correlations with their bootstrap intervals, one panel per ``row`` group (Table 3 as a plot)."""
    plt = _pyplot()
    groups = list(table.groupby(row, sort=False))
    fig, axes = plt.subplots(1, len(groups), figsize=(3.4 * len(groups), 3.4), squeeze=False, sharey=True)
    for ax, (name, part) in zip(axes[0], groups):
        x = np.arange(len(part))
        est = part["spearman"].to_numpy()
        err = np.vstack([est - part["ci_low"].to_numpy(), part["ci_high"].to_numpy() - est])
        colors = [
            "tab:orange" if b else ("tab:blue" if o else "tab:gray")
            for b, o in zip(part["best"], part["overlaps_best"])
        ]
        ax.bar(x, est, yerr=err, color=colors, capsize=2)
        ax.set_xticks(x, part[label], rotation=60, fontsize=7)
        ax.set_title(" ".join(map(str, name if isinstance(name, tuple) else (name,))), fontsize=9)
    axes[0][0].set_ylabel("Spearman rho")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def leaderboard_bars(table: pd.DataFrame, panel: str, label: str, title: str = ""):
    """Horizontal bars of Spearman with intervals, one row per ``label`` (first on top), one panel per ``panel``.

    ``table`` has ``spearman``, ``ci_low``, ``ci_high``, ``best`` and ``overlaps_best``; every
    panel lists the labels in the order of their first appearance.
    """
    plt = _pyplot()
    labels = list(dict.fromkeys(table[label]))
    groups = list(table.groupby(panel, sort=False))
    height = 1.8 + 0.28 * len(labels)
    fig, axes = plt.subplots(
        1, len(groups), figsize=(2.6 * len(groups) + 2.6, height), squeeze=False, sharey=True, sharex=True
    )
    y = np.arange(len(labels))
    for ax, (name, part) in zip(axes[0], groups):
        part = part.set_index(label).reindex(labels)
        est = part["spearman"].to_numpy(dtype=float)
        err = np.vstack([est - part["ci_low"].to_numpy(dtype=float), part["ci_high"].to_numpy(dtype=float) - est])
        colors = [
            "tab:orange" if _flag(b) else ("tab:blue" if _flag(o) else "tab:gray")
            for b, o in zip(part["best"], part["overlaps_best"])
        ]
        ax.barh(y, np.nan_to_num(est), xerr=np.nan_to_num(err), color=colors, capsize=2)
        ax.axvline(0, color="black", linewidth=0.6)
        ax.set_title(str(name), fontsize=9)
        ax.set_xlabel("Spearman rho", fontsize=8)
    axes[0][0].set_yticks(y, labels, fontsize=7)
    axes[0][0].invert_yaxis()
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def _flag(value) -> bool:
    """A table's True (numpy or Python), False for False and for a missing value."""
    return bool(value) if pd.notna(value) else False


def power_curves(curves: pd.DataFrame, target: float):
    """Simulated power against annotators per topic, one line per task."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    for task, part in curves.groupby("task"):
        ax.plot(part["annotators"], part["power"], marker=".", label=task)
    ax.axhline(target, color="gray", linestyle="--", linewidth=1)
    ax.set_xlabel("annotators per topic")
    ax.set_ylabel("power")
    ax.legend()
    fig.tight_layout()
    return fig
