"""What a request may carry: posted forms, the recruitment platform's ids and numbers from the address.

Every value is checked before anything reads it; whatever does not fit is refused with a 4xx page
a person can read (:class:`~tealeaves.study.web.pages.Refused`).
"""

from __future__ import annotations

import re
from typing import Literal, overload

from starlette.requests import Request

from tealeaves.study.web.pages import Refused

MAX_FIELD_CHARS = 64
PLATFORM_FIELDS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
PLATFORM_VALUE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TOKEN_VALUE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
NONCE_VALUE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
ANSWER_FIELDS = frozenset({"answer", "familiarity", "rt_ms"})
START_FIELDS = frozenset({"consent", "nonce", *PLATFORM_FIELDS})


async def read_form(request: Request, allowed: set[str] | frozenset[str]) -> dict[str, str]:
    """The posted form, refused (4xx) if it has unknown, repeated, oversized or file fields."""
    form = await request.form(max_files=0, max_fields=len(allowed) + 1, max_part_size=1024)
    out: dict[str, str] = {}
    for name, value in form.multi_items():
        if name not in allowed or name in out or not isinstance(value, str) or len(value) > MAX_FIELD_CHARS:
            raise Refused(422, "Malformed request", f"the field {name[:32]!r} is unexpected, repeated or too long")
        out[name] = value
    return out


def platform_ids(fields: dict[str, str], pid_pattern: re.Pattern[str] | None = None) -> dict[str, str]:
    """The recruitment platform's ids from the link (Prolific), checked: letters, digits, _ and -,
    and a ``PROLIFIC_PID`` must match ``pid_pattern`` when one is given."""
    out = {}
    for name in PLATFORM_FIELDS:
        value = (fields.get(name) or "").strip()
        if not value:
            continue
        if not PLATFORM_VALUE.match(value):
            raise Refused(400, "Invalid link", f"{name} must be 1-64 letters, digits, '_' or '-'.")
        if name == "PROLIFIC_PID" and pid_pattern is not None and not pid_pattern.fullmatch(value):
            raise Refused(400, "Invalid link", "This participant id is not one the recruitment site gives.")
        out[name] = value
    return out


def question_number(position: str) -> int:
    """A question number from the address: 1-6 ASCII digits, else a 404 page."""
    if not position.isascii() or not position.isdigit() or len(position) > 6:
        raise Refused(404, "Page not found", "This session has no such question.")
    return int(position)


@overload
def integer_field(text: str | None, name: str, digits: int, required: Literal[True]) -> int: ...
@overload
def integer_field(text: str | None, name: str, digits: int, required: bool = False) -> int | None: ...
def integer_field(text: str | None, name: str, digits: int, required: bool = False) -> int | None:
    """A form field's whole number of at most ``digits`` ASCII digits (None when empty and not ``required``)."""
    if text is None or text == "":
        if required:
            raise Refused(422, "Please choose an answer", f"the field {name} is missing")
        return None
    if not text.isdigit() or not text.isascii() or len(text) > digits:
        raise Refused(422, "Malformed request", f"the field {name} must be a whole number")
    return int(text)
