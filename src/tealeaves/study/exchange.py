"""Responses in and out: the long-format export, Qualtrics ``.qsf`` surveys and Qualtrics CSV imports.

- :func:`export_responses` gives one row per stored response with the columns of
  :data:`tealeaves.study.schema.EXPORT_COLUMNS` and then the :data:`~tealeaves.study.schema.AUDIT_COLUMNS`; :func:`write_responses` writes it as CSV or
  Parquet, atomically. CSV cells that a spreadsheet would run as a formula (text starting
  with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) get a leading ``'``
  (:func:`spreadsheet_safe`); Parquet keeps the text as it is.
- :func:`qualtrics_survey` builds a Qualtrics survey (``.qsf``) with the same items for teams
  that must run their study on Qualtrics: one multiple-choice question per item (data export
  tag = item id), the answers in the study's display order (not re-shuffled, so the recorded
  intruder position stays right), the familiarity question as a second choice group as in
  Hoyle et al. 2021's surveys, each respondent shown a random subset of the items, and the
  Prolific ids captured as embedded data.
- :func:`import_qualtrics` reads a Qualtrics CSV export of that survey back into the same long
  format (choice values either as numbers, Qualtrics' "numeric values", or as choice text).
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pandas as pd

from tealeaves.errors import InputError
from tealeaves.extras import require
from tealeaves.study import texts
from tealeaves.study.design import Study
from tealeaves.study.schema import AUDIT_COLUMNS, EXPORT_COLUMNS, spreadsheet_safe
from tealeaves.study.store import Store, annotator_id
from tealeaves.study.tasks.item import Item
from tealeaves.study.tasks.registry import task_named

INT_COLUMNS = ("topic", "intruder_position", "response", "familiarity", "scale", "rt_ms")
BOOL_COLUMNS = ("correct", "is_check", "late")
"""Text a spreadsheet reads as a formula (OWASP, "CSV injection")."""


# --------------------------------------------------------------------------- long format
def item_columns(study: Study, item: Item) -> dict[str, Any]:
    """The export columns that describe the item (everything but the response): its task's
    :meth:`~tealeaves.study.tasks.HumanTask.export_columns`."""
    return {"study_id": study.study_id, "item_id": item.item_id, **task_named(item.task).export_columns(item)}


def iso_utc(ms: int | None) -> str | None:
    """Epoch milliseconds as ISO 8601 UTC text (None stays None)."""
    if ms is None:
        return None
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc).isoformat(timespec="milliseconds")


def long_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows (dicts with every export and audit column) as a frame with the columns' types."""
    frame = pd.DataFrame(rows, columns=[*EXPORT_COLUMNS, *AUDIT_COLUMNS])
    for name in INT_COLUMNS:
        frame[name] = frame[name].astype("Int64")
    frame["correct"] = frame["correct"].astype("boolean")
    frame["is_check"] = frame["is_check"].astype(bool)
    frame["late"] = frame["late"].astype("boolean")
    for name in frame.columns:
        if name not in INT_COLUMNS and name not in BOOL_COLUMNS:
            frame[name] = frame[name].astype("string")
    return frame


def export_responses(study: Study, store: Store) -> pd.DataFrame:
    """Every stored response of ``study`` as one row: the :data:`EXPORT_COLUMNS`, then the :data:`AUDIT_COLUMNS`.

    ``completion_code`` is the code the annotator was shown when they finished, so that a code
    entered on the recruitment site can be checked against their answers; ``client``,
    ``started_at`` and ``finished_at`` (with ``rt_ms``, ``shown_at`` and ``answered_at``) show
    completions farmed by one person: many annotators from one client, each done in seconds.

    Parameters
    ----------
    study : Study
        The study (its items give the keys and words).
    store : Store
        The response store the web app wrote to.

    Returns
    -------
    pandas.DataFrame
        One row per response.

    Examples
    --------
    A two-question session run through the store as the web app runs it:

    >>> from tealeaves.study import create_study
    >>> lda = [
    ...     ["tax", "budget", "deficit", "spending", "revenue", "debt", "income", "fiscal", "cuts", "billion"],
    ...     ["war", "army", "troops", "peace", "military", "soldiers", "enemy", "battle", "forces", "navy"],
    ... ]
    >>> nmf = [
    ...     ["oil", "energy", "gas", "power", "fuel", "coal", "prices", "supply", "nuclear", "electricity"],
    ...     ["court", "law", "justice", "judges", "crime", "rights", "congress", "police", "prison", "legal"],
    ... ]
    >>> study = create_study({"lda": lda, "nmf": nmf}, "word-intrusion", seed=0, items_per_participant=2)
    >>> import random
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.study import Store
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = Store(str(Path(folder.name) / "responses.sqlite"), rng=random.Random(0))
    >>> store.ensure_study(study)
    >>> token, key = store.start(study, "participant-1")  # one participant finds both intruders
    >>> step = store.advance(study, token, key)
    >>> while step.kind == "question":
    ...     item = study.item(store.show(study, token, key, step.position).slot(step.position).item_id)
    ...     _, step = store.record(study, token, key, step.position, item.intruder_position, 1, 4000)
    >>> from tealeaves.study import export_responses
    >>> export = export_responses(study, store)
    >>> export[["item_id", "model", "words", "response", "correct"]]
      item_id model                                     words  response  correct
    0   q0004   nmf          gas supply coal crime fuel power         3     True
    1   q0002   lda  income military debt budget cuts revenue         1     True
    >>> store.close()
    >>> folder.cleanup()
    """
    rows = []
    for r in store.responses(study.study_id):
        item = study.item(r["item_id"])
        rows.append(
            {
                **item_columns(study, item),
                "annotator": r["annotator"],
                "response": r["answer"],
                "correct": r["correct"],
                "familiarity": r["familiarity"],
                "rt_ms": r["rt_ms"],
                "shown_at": iso_utc(r["shown_ms"]),
                "answered_at": iso_utc(r["answered_ms"]),
                "late": bool(r["late"]),
                "client": _client(r["client_hash"]),
                "started_at": iso_utc(r["created_ms"]),
                "finished_at": iso_utc(r["completed_ms"]),
                "answer_client": _client(r["answer_client_hash"]),
                "user_agent": r["user_agent"],
                **_completion(study, r),
            }
        )
    return long_frame(rows)


def _client(client_hash: str | None) -> str | None:
    return client_hash[:16] if client_hash else None


def _completion(study: Study, participant: dict[str, Any]) -> dict[str, str | None]:
    """``completion`` (full, partial or None) and the ``completion_code`` shown, of a participant row
    with ``completed_ms``, ``partial``, ``external_id`` and ``token``."""
    if participant["completed_ms"] is None:
        return {"completion": None, "completion_code": None}
    raw_id = participant["external_id"] or participant["token"]
    if participant["partial"]:
        return {"completion": "partial", "completion_code": study.partial_code_for(raw_id)}
    return {"completion": "full", "completion_code": study.code_for(raw_id)}


def participants_frame(study: Study, store: Store) -> pd.DataFrame:
    """Participants with their platform ids and the completion code each was shown (for paying them),
    whether they finished in full or in part (``completion``), their client (:data:`AUDIT_COLUMNS`),
    how many participants came from that client, and the seconds from consent to completion."""
    rows = store.participants(study.study_id)
    per_client: dict[str | None, int] = {}
    for row in rows:
        row["client"] = _client(row.pop("client_hash"))
        per_client[row["client"]] = per_client.get(row["client"], 0) + 1
    for row in rows:
        row.update(_completion(study, row))
        del row["token"], row["partial"]
        row["from_client"] = per_client[row["client"]] if row["client"] else None
        finished = row["completed_ms"] is not None
        row["seconds"] = (row["completed_ms"] - row["created_ms"]) / 1000 if finished else None
    return pd.DataFrame(rows)


def write_responses(frame: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a long-format frame as ``.csv`` or ``.parquet`` (by extension), atomically.

    CSV text cells that a spreadsheet would run as a formula get a leading ``'``
    (:func:`~tealeaves.study.schema.spreadsheet_safe`), which
    :func:`tealeaves.analysis.read_export` removes again.

    Parameters
    ----------
    frame : pandas.DataFrame
        Responses in the long format (:func:`export_responses`, :func:`import_qualtrics`).
    path : str or path-like
        A ``.csv`` or ``.parquet`` file (Parquet needs ``tealeaves[parquet]``).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    InputError
        For another file extension.

    Examples
    --------
    >>> from tealeaves.study import create_study
    >>> lda = [
    ...     ["tax", "budget", "deficit", "spending", "revenue", "debt", "income", "fiscal", "cuts", "billion"],
    ...     ["war", "army", "troops", "peace", "military", "soldiers", "enemy", "battle", "forces", "navy"],
    ... ]
    >>> nmf = [
    ...     ["oil", "energy", "gas", "power", "fuel", "coal", "prices", "supply", "nuclear", "electricity"],
    ...     ["court", "law", "justice", "judges", "crime", "rights", "congress", "police", "prison", "legal"],
    ... ]
    >>> study = create_study({"lda": lda, "nmf": nmf}, "word-intrusion", seed=0, items_per_participant=2)
    >>> import random
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.study import Store
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = Store(str(Path(folder.name) / "responses.sqlite"), rng=random.Random(0))
    >>> store.ensure_study(study)
    >>> token, key = store.start(study, "participant-1")  # one participant finds both intruders
    >>> step = store.advance(study, token, key)
    >>> while step.kind == "question":
    ...     item = study.item(store.show(study, token, key, step.position).slot(step.position).item_id)
    ...     _, step = store.record(study, token, key, step.position, item.intruder_position, 1, 4000)
    >>> from tealeaves.analysis import read_export
    >>> from tealeaves.study import export_responses, write_responses
    >>> path = write_responses(export_responses(study, store), Path(folder.name) / "export.csv")
    >>> read_export(path)[["item_id", "response", "correct"]]
      item_id  response  correct
    0   q0004       3.0     True
    1   q0002       1.0     True
    >>> store.close()
    >>> folder.cleanup()
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise InputError(f"cannot write responses to {path}: use a .csv or .parquet file name")
    if suffix == ".parquet":
        require("parquet", "pyarrow", what="a Parquet export")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        if suffix == ".csv":
            spreadsheet_safe(frame).to_csv(tmp, index=False)
        else:
            frame.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def responses_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """A long-format frame as CSV (:func:`spreadsheet_safe`) or Parquet bytes (for downloads)."""
    if fmt == "csv":
        return spreadsheet_safe(frame).to_csv(index=False).encode("utf-8")
    require("parquet", "pyarrow", what="a Parquet export")
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


# --------------------------------------------------------------------------- Qualtrics survey
SURVEY_ID = "SV_tealeaves"
INTRO_BLOCK, ITEMS_BLOCK = "BL_intro", "BL_items"
PLATFORM_FIELDS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")


def answer_labels(item: Item) -> list[tuple[int, str]]:
    """``(value, label)`` of each answer in display order: positions (intrusion) or ratings, highest
    first (the task's :meth:`~tealeaves.study.tasks.HumanTask.answer_labels`)."""
    return task_named(item.task).answer_labels(item)


def qualtrics_choices(item: Item) -> tuple[dict[str, dict[str, str]], list[int], list[int]]:
    """Choices of an item's question: ``(choices, answer ids, familiarity ids)``.

    Answer choice ids are ``position + 1`` (intrusion) or the rating itself (the task's
    :meth:`~tealeaves.study.tasks.HumanTask.choice_id`); familiarity choices follow them
    (``n + 1 .. n + 3``), as in Hoyle et al.'s released surveys.
    """
    task = task_named(item.task)
    choices: dict[str, dict[str, str]] = {}
    answer_ids = []
    for value, label in task.answer_labels(item):
        choice = task.choice_id(value)
        choices[str(choice)] = {"Display": html.escape(label)}
        answer_ids.append(choice)
    familiarity_ids = []
    if item.familiarity:
        for level, label in texts.FAMILIARITY.items():
            choice = item.n_options + level
            choices[str(choice)] = {"Display": html.escape(label)}
            familiarity_ids.append(choice)
    return choices, answer_ids, familiarity_ids


def _paragraphs_html(text: str) -> str:
    out = []
    for kind, parts in texts.blocks(text):
        if kind == "ul":
            out.append("<ul>" + "".join(f"<li>{html.escape(p)}</li>" for p in parts) + "</ul>")
        else:
            out.append(f"<p>{html.escape(parts[0])}</p>")
    return "".join(out)


def _question(qid: str, item: Item) -> dict[str, Any]:
    choices, answer_ids, familiarity_ids = qualtrics_choices(item)
    task = task_named(item.task)
    payload: dict[str, Any] = {
        "QuestionText": task.qualtrics_text(item),
        "DataExportTag": item.item_id,
        "QuestionType": "MC",
        "Selector": "MAVR" if familiarity_ids else "SAVR",
        "SubSelector": "TX",
        "Configuration": {"QuestionDescriptionOption": "UseText"},
        "QuestionDescription": task.question,
        "Choices": choices,
        "ChoiceOrder": answer_ids + familiarity_ids,
        "Randomization": {"Advanced": None, "Type": "None", "TotalRandSubset": ""},
        "Validation": {"Settings": {"ForceResponse": "ON", "ForceResponseType": "ON", "Type": "None"}},
        "Language": [],
        "NextChoiceId": max(int(c) for c in choices) + 1,
        "NextAnswerId": 1,
        "QuestionID": qid,
        "DataVisibility": {"Private": False, "Hidden": False},
    }
    if familiarity_ids:
        payload["Validation"]["Settings"].update({"Type": "MinChoices", "MinChoices": "2", "MaxChoices": "2"})
        payload["ChoiceGroups"] = {
            "cg_answer": {
                "GroupLabel": "Answer",
                "Options": {"HideTitle": False, "Selection": "SAWithinGroup"},
                "Randomization": {"Type": "None"},
                "ChoiceGroupOrder": answer_ids,
            },
            "cg_familiarity": {
                "GroupLabel": "How familiar were these words?",
                "Options": {"HideTitle": False, "Selection": "SAWithinGroup"},
                "Randomization": {"Type": "None"},
                "ChoiceGroupOrder": familiarity_ids,
            },
        }
        payload["ChoiceGroupOrder"] = ["cg_answer", "cg_familiarity"]
    return _element("SQ", qid, task.question, payload)


def _element(kind: str, primary: str, secondary: str | None, payload: Any) -> dict[str, Any]:
    return {
        "SurveyID": SURVEY_ID,
        "Element": kind,
        "PrimaryAttribute": primary,
        "SecondaryAttribute": secondary,
        "TertiaryAttribute": None,
        "Payload": payload,
    }


def qualtrics_survey(study: Study) -> dict[str, Any]:
    """The study as a Qualtrics survey definition (the JSON of a ``.qsf`` file).

    Each respondent sees ``items_per_participant + checks_per_participant`` questions drawn
    at random by Qualtrics (its "randomly present X of the questions"); unlike the web app,
    Qualtrics cannot steer questions towards those furthest below their target, nor
    guarantee each respondent an attention check.

    Parameters
    ----------
    study : Study
        The study.

    Returns
    -------
    dict
        ``SurveyEntry`` and ``SurveyElements``: the blocks, the flow, the options, the
        introduction and one question per item (its data export tag the item id).

    Examples
    --------
    >>> from tealeaves.study import create_study
    >>> lda = [
    ...     ["tax", "budget", "deficit", "spending", "revenue", "debt", "income", "fiscal", "cuts", "billion"],
    ...     ["war", "army", "troops", "peace", "military", "soldiers", "enemy", "battle", "forces", "navy"],
    ... ]
    >>> nmf = [
    ...     ["oil", "energy", "gas", "power", "fuel", "coal", "prices", "supply", "nuclear", "electricity"],
    ...     ["court", "law", "justice", "judges", "crime", "rights", "congress", "police", "prison", "legal"],
    ... ]
    >>> from tealeaves.study import qualtrics_survey
    >>> study = create_study({"lda": lda, "nmf": nmf}, "word-intrusion", seed=0)
    >>> survey = qualtrics_survey(study)
    >>> [element["PrimaryAttribute"] for element in survey["SurveyElements"]]  # QID1 introduces
    ['Survey Blocks', 'Survey Flow', 'Survey Options', 'Survey Question Count', 'QID1', 'QID2', 'QID3', 'QID4', 'QID5']
    """
    settings = study.settings
    intro_text = (
        f"<h2>{html.escape(settings['title'])}</h2>"
        + _paragraphs_html(settings["consent"])
        + "<h3>Instructions</h3>"
        + _paragraphs_html(settings["instructions"])
        + _paragraphs_html(settings.get("corpus_description") or "")
    )
    intro = _element(
        "SQ",
        "QID1",
        "Introduction",
        {
            "QuestionText": intro_text,
            "DataExportTag": "intro",
            "QuestionType": "DB",
            "Selector": "TB",
            "Configuration": {"QuestionDescriptionOption": "UseText"},
            "QuestionDescription": "Introduction",
            "ChoiceOrder": [],
            "Validation": {"Settings": {"Type": "None"}},
            "Language": [],
            "QuestionID": "QID1",
            "DataVisibility": {"Private": False, "Hidden": False},
        },
    )
    questions = [_question(f"QID{n + 2}", item) for n, item in enumerate(study.items)]
    shown = int(settings["items_per_participant"]) + int(settings.get("checks_per_participant") or 0)
    blocks = _element(
        "BL",
        "Survey Blocks",
        None,
        [
            {
                "Type": "Default",
                "Description": "Introduction",
                "ID": INTRO_BLOCK,
                "BlockElements": [{"Type": "Question", "QuestionID": "QID1"}],
            },
            {"Type": "Trash", "Description": "Trash / Unused Questions", "ID": "BL_trash"},
            {
                "Type": "Standard",
                "SubType": "",
                "Description": "Items",
                "ID": ITEMS_BLOCK,
                "BlockElements": [{"Type": "Question", "QuestionID": q["PrimaryAttribute"]} for q in questions],
                "Options": {
                    "BlockLocking": "false",
                    "RandomizeQuestions": "RandomWithOnlyX",
                    "Randomization": {"Advanced": {"QuestionsPerPage": 1, "TotalRandSubset": shown}},
                },
            },
        ],
    )
    flow = _element(
        "FL",
        "Survey Flow",
        None,
        {
            "Type": "Root",
            "FlowID": "FL_1",
            "Flow": [
                {
                    "Type": "EmbeddedData",
                    "FlowID": "FL_2",
                    "EmbeddedData": [
                        {"Description": name, "Type": "Recipient", "Field": name, "VariableType": "String"}
                        for name in PLATFORM_FIELDS
                    ],
                },
                {"Type": "Block", "ID": INTRO_BLOCK, "FlowID": "FL_3"},
                {"Type": "Standard", "ID": ITEMS_BLOCK, "FlowID": "FL_4"},
            ],
            "Properties": {"Count": 4},
        },
    )
    redirect = settings.get("redirect_url")
    options = _element(
        "SO",
        "Survey Options",
        None,
        {
            "BackButton": "false",
            "SaveAndContinue": "true",
            "SurveyProtection": "PublicSurvey",
            "BallotBoxStuffingPrevention": "true",
            "NoIndex": "Yes",
            "ProgressBarDisplay": "Text",
            "PartialData": "+1 week",
            "SurveyTitle": html.escape(settings["title"]),
            "SurveyTermination": "Redirect" if redirect else "DefaultMessage",
            "EOSRedirectURL": completion_url(redirect, study.completion_code) if redirect else "",
            "EOSMessage": "" if redirect else f"Your completion code is {html.escape(study.completion_code)}",
        },
    )
    elements = [
        blocks,
        flow,
        options,
        _element("QC", "Survey Question Count", str(len(questions) + 1), None),
        intro,
        *questions,
    ]
    return {
        "SurveyEntry": {
            "SurveyID": SURVEY_ID,
            "SurveyName": html.escape(f"{settings['title']} ({study.study_id})"),
            "SurveyDescription": None,
            "SurveyLanguage": "EN",
            "SurveyStatus": "Inactive",
        },
        "SurveyElements": elements,
    }


def write_qualtrics_survey(study: Study, path: str | os.PathLike[str]) -> Path:
    """Write :func:`qualtrics_survey` as a ``.qsf`` file (atomically).

    Parameters
    ----------
    study : Study
        The study.
    path : str or path-like
        The file, ending in ``.qsf`` (Qualtrics' "Import survey").

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    InputError
        When ``path`` does not end in ``.qsf``.

    Examples
    --------
    >>> from tealeaves.study import create_study
    >>> lda = [
    ...     ["tax", "budget", "deficit", "spending", "revenue", "debt", "income", "fiscal", "cuts", "billion"],
    ...     ["war", "army", "troops", "peace", "military", "soldiers", "enemy", "battle", "forces", "navy"],
    ... ]
    >>> nmf = [
    ...     ["oil", "energy", "gas", "power", "fuel", "coal", "prices", "supply", "nuclear", "electricity"],
    ...     ["court", "law", "justice", "judges", "crime", "rights", "congress", "police", "prison", "legal"],
    ... ]
    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.study import write_qualtrics_survey
    >>> study = create_study({"lda": lda, "nmf": nmf}, "word-intrusion", seed=0)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_qualtrics_survey(study, Path(folder) / "survey.qsf")
    ...     survey = json.loads(path.read_text())
    >>> len(survey["SurveyElements"])
    9
    """
    path = Path(path)
    if path.suffix.lower() != ".qsf":
        raise InputError(f"a Qualtrics survey file must end in .qsf, got {path}")
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(json.dumps(qualtrics_survey(study), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def completion_url(redirect_url: str, code: str) -> str:
    """``redirect_url`` with ``cc=CODE`` appended (Prolific's completion link)."""
    return f"{redirect_url}{'&' if '?' in redirect_url else '?'}cc={quote(code)}"


# --------------------------------------------------------------------------- Qualtrics CSV
def import_qualtrics(
    study: Study, path: str | os.PathLike[str], timezone: str = "UTC", include_previews: bool = False
) -> pd.DataFrame:
    """Read a Qualtrics CSV export of :func:`qualtrics_survey` into the long format.

    Parameters
    ----------
    study : Study
        The study the survey was made from (its items give the keys and words).
    path : path
        The CSV from Qualtrics' "Data & Analysis > Export data > CSV", with either "numeric
        values" or "choice text". Its three header rows (column names, question texts,
        import ids) are recognised; item columns are named by item id.
    timezone : str
        The time zone of the export's times (Qualtrics uses the account's); converted to UTC.
    include_previews : bool
        Keep responses recorded in survey preview mode.

    Notes
    -----
    The annotator id is the hash of ``PROLIFIC_PID`` when present, else of Qualtrics'
    ``ResponseId``. Qualtrics records no time per question, so ``rt_ms`` and ``shown_at`` are
    empty; ``answered_at`` is the response's ``RecordedDate`` (or ``EndDate``), ``started_at`` its
    ``StartDate``, ``finished_at`` its ``EndDate`` when ``Finished``; ``client`` is empty.

    Returns
    -------
    pandas.DataFrame
        One row per answered item: the :data:`EXPORT_COLUMNS`, then the :data:`AUDIT_COLUMNS`.

    Raises
    ------
    InputError
        For an unknown time zone, an unreadable or empty file, no column named after an
        item, a response without an id, or an answer that does not fit its item.

    Examples
    --------
    A Qualtrics export with numeric values: item ``q0001`` shows six words, so its choices 1-6
    are the positions and 7-9 the familiarity levels; ``5,7`` is position 4 (the intruder),
    familiar with the terms.

    >>> from tealeaves.study import create_study
    >>> lda = [
    ...     ["tax", "budget", "deficit", "spending", "revenue", "debt", "income", "fiscal", "cuts", "billion"],
    ...     ["war", "army", "troops", "peace", "military", "soldiers", "enemy", "battle", "forces", "navy"],
    ... ]
    >>> nmf = [
    ...     ["oil", "energy", "gas", "power", "fuel", "coal", "prices", "supply", "nuclear", "electricity"],
    ...     ["court", "law", "justice", "judges", "crime", "rights", "congress", "police", "prison", "legal"],
    ... ]
    >>> import tempfile
    >>> from pathlib import Path
    >>> from tealeaves.study import import_qualtrics
    >>> study = create_study({"lda": lda, "nmf": nmf}, "word-intrusion", seed=0)
    >>> study.items[0].words, study.items[0].intruder_position
    (('justice', 'law', 'prison', 'rights', 'prices', 'judges'), 4)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "qualtrics.csv"
    ...     _ = path.write_text(
    ...         "ResponseId,Finished,StartDate,EndDate,q0001,q0002\\n"
    ...         'R_1,1,2024-05-01 10:00:00,2024-05-01 10:05:00,"5,7","2,8"\\n'
    ...     )
    ...     responses = import_qualtrics(study, path)
    >>> responses[["item_id", "model", "response", "correct", "familiarity", "answered_at"]]
      item_id model  response  correct  familiarity                    answered_at
    0   q0001   nmf         4     True            1  2024-05-01T10:05:00.000+00:00
    1   q0002   lda         1     True            2  2024-05-01T10:05:00.000+00:00
    """
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise InputError(f"unknown time zone {timezone!r}; use an IANA name such as UTC or America/New_York") from None
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            records = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"cannot read the Qualtrics export {path}: {exc}") from exc
    if not records:
        raise InputError(f"the Qualtrics export {path} is empty")
    header = records[0]
    item_columns_present = [name for name in header if study.has_item(name)]
    if not item_columns_present:
        raise InputError(
            f"{path} has no column named after an item of study {study.study_id}; "
            "export the survey made by `tealeaves study export --format qsf` from this study"
        )
    rows = []
    for record in records[1:]:
        data = dict(zip(header, record))
        if _is_header_row(data):
            continue
        if not include_previews and data.get("Status", "").strip() in ("1", "Survey Preview"):
            continue
        raw_id = (data.get("PROLIFIC_PID") or "").strip() or (data.get("ResponseId") or "").strip()
        if not raw_id:
            raise InputError(f"{path}: a response has neither PROLIFIC_PID nor ResponseId")
        answered_at = _qualtrics_time(data.get("RecordedDate") or data.get("EndDate") or "", zone, path)
        started_at = _qualtrics_time(data.get("StartDate") or "", zone, path)
        finished = (data.get("Finished") or "").strip() in ("1", "True", "true")
        finished_at = _qualtrics_time(data.get("EndDate") or "", zone, path) if finished else None
        for item_id in item_columns_present:
            cell = (data.get(item_id) or "").strip()
            if not cell:
                continue
            item = study.item(item_id)
            answer, familiarity = _parse_cell(item, cell, path)
            rows.append(
                {
                    **item_columns(study, item),
                    "annotator": annotator_id(study.study_id, raw_id),
                    "response": answer,
                    "correct": item.is_correct(answer),
                    "familiarity": familiarity,
                    "rt_ms": None,
                    "shown_at": None,
                    "answered_at": answered_at,
                    "late": False,
                    "completion_code": None,
                    "client": None,
                    "started_at": started_at,
                    "finished_at": finished_at,
                    "completion": "full" if finished else None,
                    "answer_client": None,
                    "user_agent": None,
                }
            )
    return long_frame(rows)


def _is_header_row(data: dict[str, str]) -> bool:
    """Qualtrics' second and third header rows: question texts and ``{"ImportId": ...}``."""
    values = [v.strip() for v in data.values()]
    return any(v.startswith('{"ImportId"') for v in values) or data.get("ResponseId", "").strip() == "Response ID"


def _qualtrics_time(text: str, zone: ZoneInfo, path: str | os.PathLike[str]) -> str | None:
    text = text.strip()
    if not text:
        return None
    try:
        stamp = dt.datetime.fromisoformat(text)
    except ValueError:
        raise InputError(f"{path}: cannot read the date {text!r}") from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=zone)
    return stamp.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds")


def _parse_cell(item: Item, cell: str, path: str | os.PathLike[str]) -> tuple[int, int | None]:
    """A cell's answer (0-based position or rating) and familiarity (1-3 or None)."""
    choices, answer_ids, familiarity_ids = qualtrics_choices(item)
    parts = [p.strip() for p in cell.split(",")]
    if all(p.isdigit() for p in parts):
        chosen = [int(p) for p in parts]
    else:  # choice text: match the whole cell against every combination of an answer and a familiarity
        text_of = {int(c): html.unescape(v["Display"]) for c, v in choices.items()}
        combos = {
            ",".join(text_of[c] for c in combo): list(combo)
            for combo in (
                [(a, f) for a in answer_ids for f in familiarity_ids] if familiarity_ids else [(a,) for a in answer_ids]
            )
        }
        if cell not in combos:
            raise InputError(f"{path}: item {item.item_id}: cannot match the answer {cell!r} to the item's choices")
        chosen = combos[cell]
    answers = [c for c in chosen if c in answer_ids]
    levels = [c for c in chosen if c in familiarity_ids]
    if len(answers) != 1 or len(levels) != (1 if familiarity_ids else 0) or len(chosen) != len(answers) + len(levels):
        raise InputError(f"{path}: item {item.item_id}: the answer {cell!r} does not fit the item's choices")
    task = task_named(item.task)
    answer = next(value for value, _ in task.answer_labels(item) if task.choice_id(value) == answers[0])
    familiarity = levels[0] - item.n_options if levels else None
    return answer, familiarity
