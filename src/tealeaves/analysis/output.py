"""Writing an analysis to a folder: CSV and JSON tables, SVG and PNG figures, a manifest."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from tealeaves.analysis import figures
from tealeaves.analysis.replication import Hoyle2021Replication
from tealeaves.analysis.study_analysis import StudyAnalysis
from tealeaves.analysis.validation_result import ValidationResult
from tealeaves.artifacts import atomic_folder, new_manifest, write_json
from tealeaves.extras import installed


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

    Examples
    --------
    The replication of :func:`replicate_hoyle2021`'s example, written:

    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> def model(other, k=34):  # a model's topics, its metrics per reference, its resampled answers
    ...     quality = rng.random(k)
    ...     metrics = {
    ...         f"{m}_{r}": (quality / 5 + rng.normal(0, 0.05, k)).tolist()
    ...         for m in ("c_npmi_10", "c_v")
    ...         for r in ("full", f"{other}_full", "train", "val")
    ...     }
    ...     for task, low, high in (("ratings", 1, 3), ("intrusion", 0, 1)):
    ...         good = rng.random((k, 6)) < quality[:, None]  # better topics, more good answers
    ...         metrics[f"{task}_scores_raw"] = np.where(good, high, low).tolist()
    ...         metrics[f"{task}_confidences_raw"] = (rng.random((k, 6)) < 0.8).tolist()  # familiar?
    ...     return {"topics": [[f"word{i}", f"term{i}"] for i in range(k)], "metrics": metrics}
    >>> data = {d: {m: model(o) for m in ("mallet", "dvae", "etm")} for d, o in (("nytimes", "wikitext"), ("wikitext", "nytimes"))}
    >>> folder = tempfile.TemporaryDirectory()  # a release of the shape of Hoyle et al.'s, made up
    >>> _ = (Path(folder.name) / "all_data.json").write_text(json.dumps(data))
    >>> for d in data:  # 4 respondents, each "answer,familiarity" for 6 topics
    ...     header = "," + ",".join(f"{d}_{m}_{k}" for m in ("mallet", "dvae") for k in range(3))
    ...     for task, answers, familiar in (("ratings", [1, 2, 3], 4), ("intrusion", [1, 6], 7)):
    ...         rows = [f"{r}," + ",".join(f'"{rng.choice(answers)},{familiar}"' for _ in range(6)) for r in range(4)]
    ...         _ = (Path(folder.name) / f"{d}_{task}.csv").write_text("\\n".join([header, *rows]) + "\\n")
    >>> from tealeaves.analysis import replicate_hoyle2021, write_replication
    >>> result = replicate_hoyle2021(folder.name, n_resamples=20, n_iter=20, n_sim=20, seed=0)
    >>> out = write_replication(result, Path(folder.name) / "replication")
    >>> sorted(path.relative_to(out).as_posix() for path in out.rglob("*"))  # doctest: +NORMALIZE_WHITESPACE
    ['agreement.csv', 'analysis.json', 'comparisons.csv', 'correlations.csv', 'fdr.csv', 'figures',
     'figures/correlations.png', 'figures/correlations.svg', 'figures/models.png', 'figures/models.svg',
     'figures/power.png', 'figures/power.svg', 'manifest.json', 'power.csv', 'power_curves.csv',
     'regressions.csv', 'scores.csv', 'topic_scores.csv']
    >>> folder.cleanup()
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


def write_validation(
    result: ValidationResult, out: str | os.PathLike[str], force: bool = False, parquet: bool = True
) -> Path:
    """Write the tables (CSV, and Parquet when ``parquet`` and pyarrow is installed: ``tealeaves[parquet]``),
    ``validation.json``, the figure and a manifest.

    Parameters
    ----------
    result : ValidationResult
        What :func:`validate` returned.
    out : str or path-like
        The folder to write (written whole or not at all).
    force : bool, optional
        Replace an existing folder.
    parquet : bool, optional
        Also write each table as Parquet, when pyarrow is installed.

    Returns
    -------
    pathlib.Path
        ``out``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from tealeaves.analysis import csv_judgments, validate
    >>> folder = tempfile.TemporaryDirectory()
    >>> keys = {"model": ["lda"] * 4 + ["nmf"] * 4, "topic": [0, 1, 2, 3] * 2}
    >>> human = Path(folder.name) / "ratings.csv"
    >>> pd.DataFrame({
    ...     **keys,
    ...     "words": ["tax budget", "war peace", "court law", "oil gas", "tax war", "law oil", "court gas", "peace oil"],
    ...     "mean": [2.8, 2.5, 2.2, 2.6, 1.4, 1.2, 1.9, 1.6],  # each topic's mean rating
    ... }).to_csv(human, index=False)
    >>> scores = Path(folder.name) / "scores.csv"
    >>> pd.DataFrame({
    ...     **keys,
    ...     "npmi": [0.14, 0.10, 0.05, 0.12, -0.02, -0.05, 0.03, 0.04],
    ...     "umass": [-1.1, -1.5, -1.2, -2.8, -2.0, -2.2, -1.4, -1.3],
    ... }).to_csv(scores, index=False)
    >>> result = validate(csv_judgments(human), [f"csv:{scores}"], n_resamples=200, seed=0)
    >>> from tealeaves.analysis import write_validation
    >>> out = write_validation(result, Path(folder.name) / "validation", parquet=False)
    >>> sorted(path.relative_to(out).as_posix() for path in out.rglob("*"))  # doctest: +NORMALIZE_WHITESPACE
    ['comparisons.csv', 'correlations.csv', 'figures', 'figures/leaderboard.png', 'figures/leaderboard.svg',
     'leaderboard.csv', 'manifest.json', 'topic_values.csv', 'validation.json']
    >>> folder.cleanup()
    """
    with atomic_folder(out, force=force) as tmp:
        tables = []
        for name in result.TABLES:
            table: pd.DataFrame = getattr(result, name)
            table.to_csv(tmp / f"{name}.csv", index=False)
            tables.append(f"{name}.csv")
            if parquet and installed("pyarrow"):
                table.to_parquet(tmp / f"{name}.parquet", index=False)
                tables.append(f"{name}.parquet")
        write_json(tmp / "validation.json", result.to_dict())
        figs = tmp / "figures"
        figs.mkdir()
        spearman = result.correlations[result.correlations["method"] == "spearman"].rename(
            columns={"estimate": "spearman"}
        )
        rank = {m: i for i, m in enumerate(result.leaderboard["metric"])}
        first = {h: i for i, h in enumerate(result.settings["human"])}
        spearman = spearman.assign(_h=spearman["human"].map(first), _m=spearman["metric"].map(rank))
        spearman = spearman.sort_values(["_h", "_m"])
        figure = figures.leaderboard_bars(
            spearman,
            "human",
            "metric",
            f"Spearman rho with people, {int(result.settings['confidence'] * 100)}% bootstrap CIs "
            "(the correlations table's uncertainty column says over what)",
        )
        written = [p.name for p in figures.save(figure, figs, "leaderboard")]
        write_json(
            tmp / "manifest.json",
            new_manifest("validation", settings=result.settings, tables=tables, figures=written),
        )
    return Path(out)
