"""Writing an analysis to a folder: CSV and JSON tables, SVG and PNG figures, a manifest."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from tealeaves.analysis import figures
from tealeaves.analysis.replication import Hoyle2021Replication
from tealeaves.analysis.study_analysis import StudyAnalysis
from tealeaves.artifacts import atomic_folder, new_manifest, write_json


def _tables(result, folder: Path) -> list[str]:
    written = []
    for name in result.TABLES:
        table: pd.DataFrame = getattr(result, name)
        if table.empty:
            continue
        table.to_csv(folder / f"{name}.csv", index=False)
        written.append(f"{name}.csv")
    write_json(folder / "analysis.json", result.to_dict())
    return written


def write_replication(result: Hoyle2021Replication, out: str | os.PathLike[str], force: bool = False) -> Path:
    """Write the Hoyle 2021 replication (``correlations.csv``, ``regressions.csv``, ``fdr.csv``, ...).

    Besides one CSV per table, ``analysis.json``, the figures (the correlations with their
    intervals, the power curves, Fig. 2's per-topic boxes; SVG and PNG) and a manifest.

    Parameters
    ----------
    result : Hoyle2021Replication
        What :func:`replicate_hoyle2021` returned.
    out : str or path-like
        The folder to write (written whole or not at all).
    force : bool, optional
        Replace an existing folder.

    Returns
    -------
    pathlib.Path
        ``out``.
    """
    with atomic_folder(out, force=force) as tmp:
        tables = _tables(result, tmp)
        figs = tmp / "figures"
        figs.mkdir()
        corr = result.correlations.assign(label=lambda f: f["metric"] + " " + f["reference"])
        figures.save(
            figures.correlation_bars(
                corr, ["task", "dataset"], "label", "Spearman rho with 95% bootstrap CIs (Hoyle et al. 2021 Table 3)"
            ),
            figs,
            "correlations",
        )
        figures.save(figures.power_curves(result.power_curves, 0.9), figs, "power")
        figures.save(
            figures.model_boxplots(result.topic_scores, "panel", title="per-topic scores (Fig. 2)"), figs, "models"
        )
        write_json(tmp / "manifest.json", new_manifest("analysis-hoyle2021", settings=result.settings, tables=tables))
    return Path(out)


def write_study_analysis(result: StudyAnalysis, out: str | os.PathLike[str], force: bool = False) -> Path:
    """Write a study export's analysis (``scores.csv``, ``models.csv``, ``agreement.csv``, ...).

    One CSV per table that is not empty, ``analysis.json``, the figures (the human scores per
    model and, with metrics, the correlations; SVG and PNG) and a manifest.

    Parameters
    ----------
    result : StudyAnalysis
        What :func:`analyze_export` returned.
    out : str or path-like
        The folder to write (written whole or not at all).
    force : bool, optional
        Replace an existing folder.

    Returns
    -------
    pathlib.Path
        ``out``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from tealeaves.analysis import analyze_export, check_export, write_study_analysis
    >>> from tealeaves.study import EXPORT_COLUMNS
    >>> found = {"lda": "111 110 111 101", "nmf": "010 001 100 000"}  # per topic: annotators a1 a2 a3
    >>> rows = [
    ...     (f"a{i + 1}", model, topic, answer == "1")
    ...     for model, topics in found.items()
    ...     for topic, answers in enumerate(topics.split())
    ...     for i, answer in enumerate(answers)
    ... ]
    >>> frame = pd.DataFrame(rows, columns=["annotator", "model", "topic", "correct"])
    >>> frame = frame.assign(task="word-intrusion", item_id=frame.model + "-" + frame.topic.astype(str))
    >>> analysis = analyze_export(check_export(frame.reindex(columns=list(EXPORT_COLUMNS))))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = write_study_analysis(analysis, Path(folder) / "analysis")
    ...     written = sorted(path.relative_to(out).as_posix() for path in out.rglob("*"))
    >>> written  # doctest: +NORMALIZE_WHITESPACE
    ['agreement.csv', 'analysis.json', 'comparisons.csv', 'figures', 'figures/models.png', 'figures/models.svg',
     'manifest.json', 'models.csv', 'scores.csv']
    """
    with atomic_folder(out, force=force) as tmp:
        tables = _tables(result, tmp)
        figs = tmp / "figures"
        figs.mkdir()
        figures.save(figures.model_boxplots(result.scores, "task", title="human scores per model"), figs, "models")
        if not result.correlations.empty:
            corr = result.correlations.assign(label=result.correlations["metric"])
            figures.save(
                figures.correlation_bars(corr, ["task"], "label", "Spearman rho with 95% bootstrap CIs"),
                figs,
                "correlations",
            )
        write_json(tmp / "manifest.json", new_manifest("analysis-study", settings=result.settings, tables=tables))
    return Path(out)
