"""The long-format export of human study responses: the contract between ``study`` and ``analysis``.

One row per response. :data:`EXPORT_COLUMNS` names every column in order with its meaning;
CSV and Parquet exports carry these columns, and the analysis reads them back. After them come
the :data:`AUDIT_COLUMNS`, what an operator needs to tell one person's many completions from many
people's (the analysis ignores them).
Option positions are 0-based in display order. Familiarity follows Hoyle et al. 2021 Fig. 1:
1 = familiar with most of the terms, 2 = not familiar but can answer confidently,
3 = not familiar and cannot answer confidently (their released files code these 4/5/6 for
ratings and 7/8/9 for intrusion).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tealeaves.study.tasks.registry import BUILTIN_TASKS

if TYPE_CHECKING:
    import pandas as pd

TASKS = tuple(BUILTIN_TASKS)
"""The tasks tealeaves ships: word intrusion and topic intrusion (Chang et al. 2009) and topic
ratings (Newman et al. 2010; Hoyle et al. 2021), the ``task`` of every item and export row; a
registered task (:func:`~tealeaves.study.tasks.task_names`) may be one too."""

EXPORT_COLUMNS: dict[str, str] = {
    "study_id": "the study's id",
    "annotator": "hashed annotator id (never the raw Prolific id)",
    "item_id": "the item's id within the study",
    "task": "word-intrusion, topic-intrusion or rating",
    "model": "the model's label in the study (never shown to annotators)",
    "topic": "topic index in its model (word intrusion, rating); the true intruder topic (topic intrusion)",
    "doc_id": "document id (topic intrusion), empty otherwise",
    "words": "shown words in display order, space-separated; topic intrusion: the options' words, ' | '-separated",
    "option_topics": "topic intrusion: topic index of each option in display order, space-separated; empty otherwise",
    "option_theta": "topic intrusion: the model's θ̂_d of each option in display order, space-separated",
    "intruder": "the intruder word (word intrusion) or intruder topic index (topic intrusion); empty for ratings",
    "intruder_position": "0-based display position of the intruder; empty for ratings",
    "response": "chosen 0-based position (intrusion) or the rating given (1..scale)",
    "correct": "whether the intruder was chosen (intrusion); empty for ratings",
    "familiarity": "1, 2 or 3 (see the module docstring); empty when not asked",
    "scale": "rating scale (3 or 5); empty for intrusion",
    "rt_ms": "milliseconds from showing the item to the answer",
    "is_check": "whether the item is a synthetic attention check",
    "shown_at": "ISO 8601 UTC time the item was shown",
    "answered_at": "ISO 8601 UTC time the answer was stored",
    "late": "whether the answer came after its question was released to someone else (kept, but not counted "
    "toward the item's target)",
    "completion_code": "the completion code shown to this annotator (their own code with per-participant codes, "
    "else the study's; the code for partial completion when `completion` is partial); empty when they did not finish",
}
"""The columns of a study export, in order, each with its meaning: one row per response, the
contract between :func:`~tealeaves.study.export_responses` and :func:`tealeaves.analysis.read_export`."""

AUDIT_COLUMNS: dict[str, str] = {
    "client": "hash of the participant's client address (IPv6: its /64) under the study secret, 16 hex digits: "
    "the same for every participant from one address; empty when unknown",
    "started_at": "ISO 8601 UTC time the participant gave consent",
    "finished_at": "ISO 8601 UTC time the participant reached the completion code; empty when they did not finish",
    "completion": "full (every question answered), partial (came back after the idle limit and was given the code "
    "for partial completion) or empty (did not finish)",
    "answer_client": "hash of the client address this answer came from, as `client` (which is the address the "
    "participant started from); empty when unknown",
    "user_agent": "the browser's User-Agent header with this answer, cut to 256 characters; empty when unknown",
}
"""The columns an export has after the :data:`EXPORT_COLUMNS`, each with its meaning: what tells one
person's many completions from many people's (the analysis ignores them)."""

# CSV exports are safe to open in a spreadsheet: a text cell that would start a formula gets a
# leading apostrophe (OWASP's advice against CSV injection), which the analysis removes again.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose text cells starting like a formula (:data:`FORMULA_START`) get a leading ``'``.

    A spreadsheet shows such a cell as text, without the ``'``; a cell that already starts
    with ``'`` gets one too, so that it also shows as written and :func:`spreadsheet_text`
    restores every cell exactly.
    """
    return _map_text_cells(frame, _neutralised)


def spreadsheet_text(frame: pd.DataFrame) -> pd.DataFrame:
    """The inverse of :func:`spreadsheet_safe`: the text cells as they were before it."""
    return _map_text_cells(frame, _restored)


def _map_text_cells(frame: pd.DataFrame, func: Callable[[Any], Any]) -> pd.DataFrame:
    import pandas as pd

    out = frame.copy()
    for name in out.columns:
        column = out[name]
        if pd.api.types.is_string_dtype(column):
            out[name] = column.map(func, na_action="ignore").astype(column.dtype)
    return out


ESCAPED_START = (*FORMULA_START, "'")


def _neutralised(value: Any) -> Any:
    return "'" + value if isinstance(value, str) and value.startswith(ESCAPED_START) else value


def _restored(value: Any) -> Any:
    return value[1:] if isinstance(value, str) and value[:1] == "'" and value[1:].startswith(ESCAPED_START) else value
