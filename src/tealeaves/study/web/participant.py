"""The participant's pages: consent, the instructions, one question per page, the model's answer, the code.

Participant flow: consent (``/``) → instructions → one question per page with a progress
indicator → optionally the model's answer after each answer to an item with a key (Chang et al.
2009 §3) → completion page with the code, or a redirect to ``redirect_url?cc=CODE`` (Prolific).
``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` given in the study link are recorded.

Questions are handed out one at a time, each under a short lease renewed by activity
(:meth:`~tealeaves.study.store.Store.advance`): a participant who starts and leaves holds at most
one question, and only for the lease. With ``require_pid`` (always when the study redirects to
Prolific) a start needs a ``PROLIFIC_PID``; new participants per client address are bounded
(:mod:`tealeaves.study.web.limits`); a start refused for that, and a participant for whom every
question is on someone else's screen, get a waiting page that says when a place or a question is
expected (``Retry-After``) and tries again by itself. A start with a known ``PROLIFIC_PID``
resumes that participant, and the consent form carries a nonce, so a lost reply or a double click
never makes a second participant or locks one out. The completion code is shown only when every
question handed to the participant, attention checks included, is answered; a participant with
answers back after the idle limit gets the code for partial completion when the server gives those.

A participant's session lives at ``/s/{token}/...``; the browser holds the session's key in an
HttpOnly cookie, and a request whose key does not match is refused (403: :data:`SessionKey
<tealeaves.study.web.dependencies.SessionKey>`). The key of a participant with a platform id or a
consent nonce is derived from it under the study secret, so every browser of that participant
holds the same key. Question pages carry only what :meth:`Item.public
<tealeaves.study.tasks.item.Item.public>` gives (what its task shows): the key, the model and whether
the item is an attention check never reach the browser before the answer is stored.
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from tealeaves.study import texts
from tealeaves.study.exchange import completion_url
from tealeaves.study.store import (
    ASSIGNED,
    DONE,
    EXPIRED,
    FULL,
    PARTIAL,
    QUESTION,
    AlreadyAnswered,
    Step,
    StoreError,
    TooManyStarts,
)
from tealeaves.study.tasks.registry import task_named
from tealeaves.study.web.context import StudyContext
from tealeaves.study.web.dependencies import Context, ParticipantSession, QuestionNumber, SessionKey
from tealeaves.study.web.forms import (
    ANSWER_FIELDS,
    NONCE_VALUE,
    START_FIELDS,
    integer_field,
    platform_ids,
    read_form,
)
from tealeaves.study.web.limits import client_key
from tealeaves.study.web.pages import ITEM_SCRIPT, TASK_TEMPLATE, Refused, go, message, needs_pid, page, root

router = APIRouter()


# --------------------------------------------------------------------------- consent
@router.get("/", response_class=HTMLResponse)
async def entry(request: Request, context: Context) -> Response:
    """The consent form, or back to the session this browser already has."""
    platform = platform_ids(dict(request.query_params), context.pid_check)
    resumed = await _resume(request, context, platform)
    if resumed is not None:
        return resumed
    if context.require_pid and "PROLIFIC_PID" not in platform:
        raise needs_pid()
    return page(
        request,
        "consent.html",
        consent=texts.blocks(context.settings["consent"]),
        platform=platform,
        nonce=secrets.token_urlsafe(16),
    )


async def _resume(request: Request, context: StudyContext, platform: dict[str, str]) -> Response | None:
    """Back to the session of this browser's cookie, unless the link names another participant."""
    held = context.from_cookie(request)
    if held is None:
        return None
    try:
        session = await run_in_threadpool(context.store.session, context.study, *held)
    except StoreError:
        return None
    if "PROLIFIC_PID" in platform and session.external_id != platform["PROLIFIC_PID"]:
        return None
    return go(request, f"/s/{held[0]}/next")


@router.post("/start")
async def start(request: Request, context: Context) -> Response:
    """Consent given: a new participant (or the one this platform id or nonce already made)."""
    form = await read_form(request, START_FIELDS)
    if form.get("consent") != "yes":
        raise Refused(422, "Consent is needed", "The study starts only after you agree to take part.")
    platform = platform_ids(form, context.pid_check)
    nonce = form.get("nonce") or None
    if nonce is not None and not NONCE_VALUE.match(nonce):
        raise Refused(400, "Malformed request", "The consent form was changed; open the study link again.")
    resumed = await _resume(request, context, platform)
    if resumed is not None:
        return resumed
    pid = platform.get("PROLIFIC_PID")
    if context.require_pid and pid is None:
        raise needs_pid()
    key = context.session_key("pid", pid) if pid else context.session_key("nonce", nonce) if nonce else None
    lab = context.in_lab(request)
    if request.client is not None and not lab:
        context.watch.started(client_key(request.client.host), context.hop(request))
    try:
        token, key = await run_in_threadpool(
            lambda: context.store.start(
                context.study,
                pid,
                platform.get("STUDY_ID"),
                platform.get("SESSION_ID"),
                key=key,
                nonce=None if pid else nonce,
                client=context.client_hash(request),
                starts_per_client=0 if lab else context.starts_per_client,
                live_per_client=0 if lab else context.live_per_client,
                live_per_pid_class=context.live_per_pid_pattern,
            )
        )
    except TooManyStarts as refused:
        seconds = refused.retry_after or WAIT_RETRY
        form = {**platform, **({"nonce": nonce} if nonce else {})}
        text = f"Sorry: {refused}."
        return _waiting(request, "Please wait for a place", text, "place", seconds, 429, form)
    response = go(request, f"/s/{token}/instructions")
    response.set_cookie(
        context.session_cookie,
        f"{token}:{key}",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        max_age=7 * 86400,
    )
    return response


@router.post("/decline", response_class=HTMLResponse)
async def decline(request: Request) -> Response:
    """Consent refused: nothing is recorded."""
    await read_form(request, START_FIELDS)
    return message(
        request,
        "Thank you",
        "You chose not to take part; nothing was recorded. If you came from a recruitment site, "
        "please return the study there. You can close this page.",
    )


# --------------------------------------------------------------------------- waiting
WAIT_RETRY = 60
"""Seconds a waiting page waits at most before it tries again by itself (it says when a place is expected)."""


def about(seconds: int) -> str:
    """A wait in words: ``about 40 seconds``, ``about 3 minutes``, ``about 2 hours``."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= 1.5 * size:
            return f"about {round(seconds / size)} {unit}s"
    return f"about {max(1, seconds)} seconds"


def _waiting(
    request: Request,
    heading: str,
    text: str,
    awaited: str,
    seconds: int,
    status: int = 200,
    form: dict[str, str] | None = None,
) -> HTMLResponse:
    """A waiting page that says when the ``awaited`` (a place, a question) is expected to come free
    (also as ``Retry-After``) and tries again by itself within :data:`WAIT_RETRY` seconds: the start
    again (``form``: its fields), or the page's own address."""
    retry = max(1, min(seconds, WAIT_RETRY))
    response = page(
        request,
        "wait.html",
        status,
        heading=heading,
        message=text,
        awaited=awaited,
        when=about(seconds),
        platform=form,
        link=f"{root(request)}{request.url.path.removeprefix(root(request))}",
        retry=retry,
        every=about(retry).removeprefix("about "),
    )
    response.headers["Retry-After"] = str(seconds)
    return response


# --------------------------------------------------------------------------- the session
def _step(request: Request, token: str, step: Step) -> Response:
    """The page of the participant's next step: a question, the end, or a page saying why not."""
    if step.kind == QUESTION:
        return go(request, f"/s/{token}/q/{step.position}")
    if step.kind in (DONE, PARTIAL):
        return go(request, f"/s/{token}/done")
    if step.kind == FULL:
        return _full(request)
    if step.kind == EXPIRED:
        return message(
            request,
            "Your session has expired",
            "You answered no question for a long time, so your place went to others. If you came from a "
            "recruitment site, please return the study there.",
        )
    return _waiting(
        request,
        "Please wait a moment",
        "Every question that still needs answers is on another participant's screen right now; they come "
        "free when others answer them or leave.",
        "question",
        step.wait_s or WAIT_RETRY,
    )


def _full(request: Request) -> HTMLResponse:
    return message(
        request,
        "The study is full",
        "Every question already has all the answers it needs, so there is nothing left for you to do. "
        "If you came from a recruitment site, please return the study there. Thank you for your interest.",
    )


@router.get("/s/{token}", response_class=HTMLResponse)
async def session_root(request: Request, token: str, session: ParticipantSession) -> Response:
    return go(request, f"/s/{token}/next")


@router.get("/s/{token}/instructions", response_class=HTMLResponse)
async def instructions(request: Request, token: str, session: ParticipantSession, context: Context) -> Response:
    if not session.slots and await run_in_threadpool(context.filled):
        return _full(request)  # say so before the instructions, not after them
    return page(
        request,
        "instructions.html",
        token=token,
        total=context.quota,
        instructions=texts.blocks(context.settings["instructions"]),
        corpus_description=texts.blocks(context.settings.get("corpus_description") or ""),
    )


@router.get("/s/{token}/next")
async def next_question(request: Request, token: str, key: SessionKey, context: Context) -> Response:
    return _step(request, token, await run_in_threadpool(context.store.advance, context.study, token, key))


@router.get("/s/{token}/q/{position}", response_class=HTMLResponse)
async def question(request: Request, token: str, key: SessionKey, number: QuestionNumber, context: Context) -> Response:
    """The question's page: what the item's task shows, the answers, and the familiarity question."""
    session = await run_in_threadpool(context.store.show, context.study, token, key, number)
    slot = session.slot(number)
    if slot.status != ASSIGNED:  # answered, or released to someone else: the next step decides
        return go(request, f"/s/{token}/next")
    item = context.study.item(slot.item_id)
    task = task_named(item.task)
    shown, total = context.numbering(session, number)
    return page(
        request,
        "item.html",
        token=token,
        position=number,
        number=shown,
        total=total,
        view=item.public(),
        task_template=TASK_TEMPLATE.format(name=task.name),
        choice_class=task.choice_class,
        question=task.question,
        answers=task.answer_labels(item),
        familiarity=list(texts.FAMILIARITY.items()),
    )


@router.post("/s/{token}/q/{position}")
async def answer(request: Request, token: str, key: SessionKey, number: QuestionNumber, context: Context) -> Response:
    """Store the answer; on to the model's answer, the next question or the next step."""
    form = await read_form(request, ANSWER_FIELDS)
    value = integer_field(form.get("answer"), "answer", digits=2, required=True)
    familiarity = integer_field(form.get("familiarity"), "familiarity", digits=1)
    rt_ms = integer_field(form.get("rt_ms"), "rt_ms", digits=9)
    store, study = context.store, context.study
    sender = {"client": context.client_hash(request), "user_agent": request.headers.get("user-agent")}
    try:
        slot, step = await run_in_threadpool(
            lambda: store.record(study, token, key, number, value, familiarity, rt_ms, **sender)
        )
    except AlreadyAnswered:  # a double click or a resent form: the first answer is kept, go on
        return go(request, f"/s/{token}/next")
    if context.settings.get("show_answer") and study.item(slot.item_id).intruder_position is not None:
        return go(request, f"/s/{token}/q/{number}/answer")
    if step.kind in (QUESTION, DONE):  # straight on; a page to wait or a full study comes from /next
        return _step(request, token, step)
    return go(request, f"/s/{token}/next")


@router.get("/s/{token}/q/{position}/answer", response_class=HTMLResponse)
async def model_answer(
    request: Request, token: str, session: ParticipantSession, number: QuestionNumber, context: Context
) -> Response:
    """The answer the item's key gives, after the participant's (when the study shows it)."""
    slot = session.slot(number)
    item = context.study.item(slot.item_id)
    if not context.settings.get("show_answer") or slot.answer is None or item.intruder_position is None:
        raise Refused(404, "Not available", "There is no answer to show for this question (yet).")
    labels = dict(task_named(item.task).answer_labels(item))
    shown, total = context.numbering(session, number)
    return page(
        request,
        "answer.html",
        token=token,
        number=shown,
        total=total,
        chosen=labels[slot.answer],
        key=labels[item.intruder_position],
        label=texts.ANSWER_LABEL,
    )


@router.get("/s/{token}/done", response_class=HTMLResponse)
async def done(request: Request, token: str, key: SessionKey, context: Context) -> Response:
    """The completion code, or the redirect to the recruitment site with it, once every question is
    answered; the code for partial completion to a participant the store finished in part."""
    step, session = await run_in_threadpool(context.store.complete, context.study, token, key)
    if step.kind not in (DONE, PARTIAL):
        return _step(request, token, step)
    raw_id = session.external_id or session.token
    code = context.study.partial_code_for(raw_id) if session.partial else context.study.code_for(raw_id)
    if context.redirect:
        return RedirectResponse(completion_url(context.redirect, code), status_code=303)
    return page(request, "done.html", answered=session.answered, code=code, redirect=None, partial=session.partial)


# --------------------------------------------------------------------------- assets and health
@router.get("/static/item.js")
async def item_script() -> Response:
    return Response(ITEM_SCRIPT, media_type="text/javascript", headers={"Cache-Control": "max-age=3600"})


@router.get("/healthz")
async def health(context: Context) -> dict[str, Any]:
    return {"ok": True, "study_id": context.study.study_id, "task": context.study.task}
