"""Reading study exports (long format, one row per response) and selecting the responses to analyse.

The columns are those of :data:`tealeaves.study.schema.EXPORT_COLUMNS`, the contract between the
study package and the analysis; CSV and Parquet exports are read. :func:`select` applies the two
filters of Hoyle et al. 2021: attention-check exclusion (annotators who fail the synthetic
poor-quality topics, §5 and footnote 14) and familiarity filtering (Appendix A.7: keep only the
responses whose annotator said they are familiar with most of the terms, familiarity 1).
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pandas as pd

from tealeaves.errors import EmptyResultError, InputError, describe, is_real
from tealeaves.extras import require
from tealeaves.study.schema import EXPORT_COLUMNS, spreadsheet_text
from tealeaves.study.tasks.registry import task_named, task_names

NUMERIC = ("topic", "intruder_position", "response", "familiarity", "scale", "rt_ms")


def _as_bool(values: pd.Series, column: str) -> pd.Series:
    mapping = {
        "true": True,
        "1": True,
        "1.0": True,
        "false": False,
        "0": False,
        "0.0": False,
        "": np.nan,
        "nan": np.nan,
    }
    out = values.map(lambda v: v if isinstance(v, bool) or pd.isna(v) else mapping.get(str(v).strip().lower(), "bad"))
    bad = out.astype(object) == "bad"
    if bad.any():
        raise InputError(f"column {column!r} must hold true/false, got {values[bad].iloc[0]!r}")
    return out


def read_csv_table(path: Path, what: str, **options) -> pd.DataFrame:
    """The CSV file ``path`` (plain or gzip-compressed) as a frame, read by :func:`pandas.read_csv` with
    ``options``; a file that is not UTF-8 text or not CSV is refused in one line that says how to fix it.

    Parameters
    ----------
    path : Path
        A CSV file.
    what : str
        What the file is, for the message ("human judgments file").
    **options
        Passed to :func:`pandas.read_csv`.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InputError
        For bytes that are not UTF-8 (a spreadsheet saved as "Unicode text" or in Latin-1), an empty
        file or rows that do not parse.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.analysis.responses import read_csv_table
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "ratings.csv"
    ...     _ = path.write_bytes("topic,words,score\\n0,café tax,3\\n".encode("utf-16"))
    ...     read_csv_table(path, "human judgments file")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: human judgments file .../ratings.csv is not UTF-8 text (line 1, byte 0xff); save it as "CSV UTF-8" (a spreadsheet's Save As) and pass that file
    """
    try:
        return pd.read_csv(path, **options)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{what} {path} is not UTF-8 text ({_first_bad_byte(path, exc)}); "
            'save it as "CSV UTF-8" (a spreadsheet\'s Save As) and pass that file'
        ) from None
    except (pd.errors.EmptyDataError, pd.errors.ParserError) as exc:
        raise InputError(
            f"{what} {path} is not a CSV table ({str(exc).strip()}); write a header row, then one row per line"
        ) from None


def _first_bad_byte(path: Path, error: UnicodeDecodeError) -> str:
    """Where the file's first byte that is not UTF-8 lies: ``line 2, byte 0xe9`` (the line found in the whole file)."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as found:
        line = data.count(b"\n", 0, found.start) + 1
        return f"line {line}, byte 0x{data[found.start]:02x}"
    return f"byte 0x{error.object[error.start]:02x}"


def read_export(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a study export (``.csv``, ``.csv.gz`` or ``.parquet``) and check its columns and values.

    Parameters
    ----------
    path : str or path-like
        The export file, as ``tealeaves study export`` writes it (CSV cells written
        formula-safe, with a leading ``'``, are read back as they were).

    Returns
    -------
    pandas.DataFrame
        Exactly the :data:`~tealeaves.study.EXPORT_COLUMNS`, numbers as numbers and
        ``correct`` / ``is_check`` as booleans (:func:`check_export`).

    Raises
    ------
    InputError
        When the file is missing or unreadable, or its columns or values are not an export's.

    Examples
    --------
    >>> import pandas as pd
    >>> from tealeaves.analysis import check_export
    >>> from tealeaves.study import EXPORT_COLUMNS
    >>> rows = [  # annotator, model, topic, whether they found the intruder
    ...     ("a1", "lda", 0, True), ("a1", "lda", 1, True), ("a1", "nmf", 0, False), ("a1", "nmf", 1, True),
    ...     ("a2", "lda", 0, True), ("a2", "lda", 1, False), ("a2", "nmf", 0, False), ("a2", "nmf", 1, False),
    ... ]
    >>> frame = pd.DataFrame(rows, columns=["annotator", "model", "topic", "correct"])
    >>> frame = frame.assign(task="word-intrusion", item_id=frame.model + "-" + frame.topic.astype(str))
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.analysis import read_export
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "export.csv"
    ...     frame.reindex(columns=list(EXPORT_COLUMNS)).to_csv(path, index=False)
    ...     export = read_export(path)
    >>> export.shape
    (8, 22)
    >>> export[["annotator", "model", "topic", "correct"]].head(2)
      annotator model  topic  correct
    0        a1   lda    0.0     True
    1        a1   lda    1.0     True
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"study export {path} does not exist or is not a file")
    name = path.name.lower()
    try:
        if name.endswith(".parquet"):
            require("parquet", "pyarrow", what="reading a Parquet export")
            frame = pd.read_parquet(path)
        elif name.endswith((".csv", ".csv.gz")):
            # cells written formula-safe by `study export` (a leading ') are read as they were
            frame = spreadsheet_text(
                read_csv_table(path, "study export", dtype=str, keep_default_na=False, na_values=[""])
            )
        else:
            raise InputError(f"cannot read {path}: a study export is a .csv, .csv.gz or .parquet file")
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"cannot read study export {path}: {exc}") from exc
    return check_export(frame, source=str(path))


def responses_frame(frame: object, source: str) -> pd.DataFrame:
    """``frame`` if it is a DataFrame; a refusal saying how to read one otherwise (a path is the common slip)."""
    if not isinstance(frame, pd.DataFrame):
        raise InputError(
            f"{source} must be the responses as a DataFrame (read_export(PATH) reads a study export), "
            f"got {describe(frame)}"
        )
    return frame


def check_export(frame: pd.DataFrame, source: str = "export") -> pd.DataFrame:
    """Validate and type a long-format responses frame (see :func:`read_export`).

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per response, with at least the :data:`~tealeaves.study.EXPORT_COLUMNS`
        (others are dropped).
    source : str, optional
        What the frame came from, for error messages.

    Returns
    -------
    pandas.DataFrame
        A copy with exactly the export columns: numeric columns as float, ``correct`` and
        ``is_check`` as booleans, ids as text.

    Raises
    ------
    InputError
        For a missing column, a value of the wrong type, an unknown task, a rating without a
        response or a word-intrusion answer without ``correct``.
    EmptyResultError
        When the frame has no row.

    Examples
    --------
    A frame with only the columns that matter here, the others added empty:

    >>> import pandas as pd
    >>> from tealeaves.analysis import check_export
    >>> from tealeaves.study import EXPORT_COLUMNS
    >>> rows = [  # annotator, model, topic, whether they found the intruder
    ...     ("a1", "lda", 0, True), ("a1", "lda", 1, True), ("a1", "nmf", 0, False), ("a1", "nmf", 1, True),
    ...     ("a2", "lda", 0, True), ("a2", "lda", 1, False), ("a2", "nmf", 0, False), ("a2", "nmf", 1, False),
    ... ]
    >>> frame = pd.DataFrame(rows, columns=["annotator", "model", "topic", "correct"])
    >>> frame = frame.assign(task="word-intrusion", item_id=frame.model + "-" + frame.topic.astype(str))
    >>> export = check_export(frame.reindex(columns=list(EXPORT_COLUMNS)))
    >>> export.dtypes[["topic", "correct", "is_check"]].tolist()
    [dtype('float64'), dtype('bool'), dtype('bool')]
    >>> check_export(frame)
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: export lacks the study export columns [...]; export it with `tealeaves study export`
    """
    missing = [c for c in EXPORT_COLUMNS if c not in responses_frame(frame, source).columns]
    if missing:
        raise InputError(f"{source} lacks the study export columns {missing}; export it with `tealeaves study export`")
    if frame.empty:
        raise EmptyResultError(f"{source} holds no responses")
    out = frame[list(EXPORT_COLUMNS)].copy()
    for column in NUMERIC:
        converted = pd.to_numeric(out[column], errors="coerce")
        bad = converted.isna() & out[column].notna() & (out[column].astype(str).str.strip() != "")
        if bad.any():
            raise InputError(f"{source}: column {column!r} must be numeric, got {out[column][bad].iloc[0]!r}")
        out[column] = converted.astype(np.float64)
    out["correct"] = _as_bool(out["correct"], "correct")
    out["is_check"] = _as_bool(out["is_check"], "is_check").astype(object).fillna(False).astype(bool)
    unknown = sorted(set(out["task"]) - set(task_names()))
    if unknown:
        raise InputError(f"{source}: unknown task(s) {unknown}; expected {task_names()}")
    for column in ("annotator", "item_id", "model"):
        out[column] = out[column].astype(str)
    for task in map(task_named, sorted(set(out["task"]))):
        if task.answer_column is not None and out.loc[out["task"] == task.name, task.answer_column].isna().any():
            raise InputError(f"{source}: a {task.name} row has no {task.answer_column!r} value")
    return out


def failed_checks(responses: pd.DataFrame) -> pd.DataFrame:
    """Per annotator: attention-check items answered and failed.

    A synthetic poor-quality topic (Hoyle et al. 2021, footnote 14) of a task with ordinal answers
    (ratings: :attr:`~tealeaves.study.tasks.HumanTask.answer_level`) is failed when it is rated in
    the top category of its scale ("very related"); a check of another task (intrusion) is failed
    when it is answered wrong (the intruder is missed).

    Parameters
    ----------
    responses : pandas.DataFrame
        A checked export (:func:`read_export`, :func:`check_export`).

    Returns
    -------
    pandas.DataFrame
        One row per annotator who answered a check: ``annotator``, ``checks``, ``failed``
        (empty without checks).

    Examples
    --------
    >>> import pandas as pd
    >>> from tealeaves.analysis import check_export
    >>> from tealeaves.study import EXPORT_COLUMNS
    >>> rows = [  # annotator, model, topic, whether they found the intruder
    ...     ("a1", "lda", 0, True), ("a1", "lda", 1, True), ("a1", "nmf", 0, False), ("a1", "nmf", 1, True),
    ...     ("a2", "lda", 0, True), ("a2", "lda", 1, False), ("a2", "nmf", 0, False), ("a2", "nmf", 1, False),
    ... ]
    >>> frame = pd.DataFrame(rows, columns=["annotator", "model", "topic", "correct"])
    >>> frame = frame.assign(task="word-intrusion", item_id=frame.model + "-" + frame.topic.astype(str))
    >>> checks = pd.DataFrame(  # a poor synthetic topic, rated 3 ("very related") by a2
    ...     {"annotator": ["a1", "a2"], "item_id": "check", "model": "check", "task": "rating",
    ...      "response": [1, 3], "scale": 3, "is_check": True}
    ... )
    >>> export = check_export(pd.concat([frame, checks]).reindex(columns=list(EXPORT_COLUMNS)))
    >>> from tealeaves.analysis import failed_checks
    >>> failed_checks(export)
      annotator  checks  failed
    0        a1       1       0
    1        a2       1       1
    """
    responses = responses_frame(responses, "failed_checks' responses")
    checks = responses[responses["is_check"]]
    if checks.empty:
        return pd.DataFrame(columns=["annotator", "checks", "failed"])
    ordinal = checks["task"].map(lambda task: task_named(task).answer_level == "ordinal").astype(bool)
    failed = np.where(ordinal, checks["response"] >= checks["scale"], checks["correct"].eq(False))
    return (
        checks.assign(failed=failed.astype(bool))
        .groupby("annotator")["failed"]
        .agg(checks="count", failed="sum")
        .reset_index()
    )


def select(
    responses: pd.DataFrame,
    exclude_failed_checks: bool = True,
    max_failed_share: float = 0.0,
    familiar_only: bool = False,
) -> pd.DataFrame:
    """The responses to analyse: no attention-check items, optional exclusion and filtering.

    Parameters
    ----------
    responses : pandas.DataFrame
        A checked export (:func:`read_export`, :func:`check_export`).
    exclude_failed_checks : bool, optional
        Drop every response of annotators whose share of failed attention checks exceeds
        ``max_failed_share`` (see :func:`failed_checks`).
    max_failed_share : float, optional
        The share of failed checks, in [0, 1], an annotator may have and still be kept.
    familiar_only : bool, optional
        Keep only responses with familiarity 1 (familiar with most of the terms), Hoyle et
        al. 2021 Appendix A.7.

    Returns
    -------
    pandas.DataFrame
        The responses kept, without the check items. The applied filters and what they
        removed are recorded in ``result.attrs["filters"]``.

    Raises
    ------
    EmptyResultError
        When no response is left.

    Examples
    --------
    Annotator a2 failed the attention check: their four answers are dropped with it.

    >>> import pandas as pd
    >>> from tealeaves.analysis import check_export
    >>> from tealeaves.study import EXPORT_COLUMNS
    >>> rows = [  # annotator, model, topic, whether they found the intruder
    ...     ("a1", "lda", 0, True), ("a1", "lda", 1, True), ("a1", "nmf", 0, False), ("a1", "nmf", 1, True),
    ...     ("a2", "lda", 0, True), ("a2", "lda", 1, False), ("a2", "nmf", 0, False), ("a2", "nmf", 1, False),
    ... ]
    >>> frame = pd.DataFrame(rows, columns=["annotator", "model", "topic", "correct"])
    >>> frame = frame.assign(task="word-intrusion", item_id=frame.model + "-" + frame.topic.astype(str))
    >>> checks = pd.DataFrame(  # a poor synthetic topic, rated 3 ("very related") by a2
    ...     {"annotator": ["a1", "a2"], "item_id": "check", "model": "check", "task": "rating",
    ...      "response": [1, 3], "scale": 3, "is_check": True}
    ... )
    >>> export = check_export(pd.concat([frame, checks]).reindex(columns=list(EXPORT_COLUMNS)))
    >>> from tealeaves.analysis import select
    >>> kept = select(export)
    >>> sorted(set(kept["annotator"])), len(kept)
    (['a1'], 4)
    >>> kept.attrs["filters"]["excluded_annotators"]
    1
    >>> len(select(export, exclude_failed_checks=False))
    8
    """
    responses = responses_frame(responses, "select's responses")
    if not (is_real(max_failed_share) and 0.0 <= max_failed_share <= 1.0):
        raise InputError(f"max_failed_share must lie in [0, 1], got {max_failed_share!r}")
    excluded: list[str] = []
    if exclude_failed_checks:
        table = failed_checks(responses)
        if not table.empty:
            share = table["failed"] / table["checks"]
            excluded = sorted(table.loc[share > max_failed_share, "annotator"])
    kept = responses[~responses["is_check"] & ~responses["annotator"].isin(excluded)]
    before = len(kept)
    if familiar_only:
        kept = kept[kept["familiarity"] == 1]
    if kept.empty:
        raise EmptyResultError("no responses are left after excluding attention checks and filtering")
    kept = kept.copy()
    kept.attrs["filters"] = {
        "exclude_failed_checks": exclude_failed_checks,
        "max_failed_share": max_failed_share,
        "excluded_annotators": len(excluded),
        "familiar_only": familiar_only,
        "unfamiliar_responses_removed": before - len(kept),
    }
    return kept
