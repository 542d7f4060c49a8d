"""The admin's pages: signing in at ``/admin/login``, and everything else under ``/admin`` behind it.

:data:`login` holds the two routes anyone may reach, the sign-in form and its check (see
:mod:`tealeaves.study.web.security` for how attempts are counted and tokens checked); every route
of :data:`router` depends on :func:`~tealeaves.study.web.dependencies.require_admin`, so none of
them runs for a request without a valid admin cookie (401): the progress page, its numbers as
JSON, evicting a participant, the exports and the Qualtrics survey.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import re

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from tealeaves.study.exchange import export_responses, participants_frame, qualtrics_survey, responses_bytes
from tealeaves.study.monitor import summary
from tealeaves.study.schema import spreadsheet_safe
from tealeaves.study.web.dependencies import Context, require_admin
from tealeaves.study.web.forms import read_form
from tealeaves.study.web.pages import Refused, go, message, page, root
from tealeaves.study.web.security import (
    ADMIN_CHECK_WAIT,
    ADMIN_COOKIE_HOURS,
    ADMIN_LOGIN_FAILURES,
    ADMIN_LOGIN_WINDOW,
    admin_verifier,
)

login = APIRouter()
"""The sign-in routes, open to anyone."""
router = APIRouter(dependencies=[Depends(require_admin)])
"""The admin routes: every one needs the admin cookie."""


# --------------------------------------------------------------------------- signing in
@login.get("/admin/login", response_class=HTMLResponse)
async def admin_login_form(request: Request) -> Response:
    if request.query_params:
        raise Refused(400, "Not here", "Give the admin token in the form, never in the address.")
    return page(request, "admin_login.html", hours=ADMIN_COOKIE_HOURS)


@login.post("/admin/login")
async def admin_login(request: Request, context: Context) -> Response:
    """Check the token (counted first, then checked when the address or device may try) and set the cookies."""
    supplied = (await read_form(request, {"token"})).get("token", "")
    device = context.device_cookie.device(request.cookies.get(context.device_cookie_name, ""))
    kind = "device" if device else "client"
    source = f"device:{device}" if device else f"client:{context.client_hash(request)}"
    store, study, slow_lane = context.store, context.study, context.admin_slow_lane
    attempt, wait = await run_in_threadpool(
        lambda: store.admit_login(
            study, source, limit=ADMIN_LOGIN_FAILURES, window_s=ADMIN_LOGIN_WINDOW, slow_lane_s=slow_lane
        )
    )  # counted (committed) before it is checked
    if attempt is None:
        raise Refused(
            429,
            "Too many wrong admin tokens",
            f"This {'browser' if device else 'address'} sent {ADMIN_LOGIN_FAILURES} wrong admin tokens in "
            f"{ADMIN_LOGIN_WINDOW // 60} minutes. While that lasts one token is checked every "
            f"{slow_lane:g} seconds: try again in {wait} seconds.",
            headers={"Retry-After": str(wait)},
        )
    try:
        await asyncio.wait_for(context.checks[kind].acquire(), ADMIN_CHECK_WAIT)
    except asyncio.TimeoutError:  # (not the builtin TimeoutError before Python 3.11)
        await run_in_threadpool(store.forgive_login, attempt, False)
        raise Refused(
            503, "Busy", "Too many sign-ins are being checked; try again shortly.", {"Retry-After": "5"}
        ) from None
    try:
        given = await run_in_threadpool(admin_verifier, study.study_id, supplied) if len(supplied) >= 8 else ""
    finally:
        context.checks[kind].release()
    if not hmac.compare_digest(given.encode(), context.verifier.encode()):
        raise Refused(403, "Wrong admin token", "That is not the admin token of this study.")
    await run_in_threadpool(store.forgive_login, attempt)
    response = go(request, "/admin")
    for name, cookie, path in (
        (context.device_cookie_name, context.device_cookie, "/admin/login"),
        (context.admin_cookie_name, context.admin_cookie, "/admin"),
    ):
        response.set_cookie(
            name,
            cookie.issue(),
            max_age=cookie.seconds,
            path=root(request) + path,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
    return response


# --------------------------------------------------------------------------- behind the cookie
@router.get("/admin", response_class=HTMLResponse)
async def admin(request: Request, context: Context) -> Response:
    """Progress per item and model, live scores, attention checks, the exports, and what this server
    process saw that says the trusted proxies are set wrong."""
    data = await run_in_threadpool(summary, context.study, context.store)
    return page(request, "admin.html", summary=data, wide=True, notices=list(context.watch.notices.values()))


@router.post("/admin/evict")
async def admin_evict(request: Request, context: Context) -> Response:
    """End a live participant's session: their question is free again, their answers are kept."""
    annotator = (await read_form(request, {"annotator"})).get("annotator", "").strip()
    if not re.fullmatch(r"[0-9a-f]{16}", annotator):
        raise Refused(422, "Malformed request", "Give the participant's annotator id (16 hex digits).")
    if not await run_in_threadpool(context.store.evict, context.study, annotator):
        raise Refused(404, "No such participant", f"No live participant has the annotator id {annotator}.")
    return message(
        request,
        "Participant evicted",
        f"The session of {annotator} is ended: their question is free again, their answers are kept.",
        link=root(request) + "/admin",
        link_text="Back to the admin page",
    )


@router.get("/admin/progress.json")
async def admin_progress(context: Context) -> Response:
    return JSONResponse(await run_in_threadpool(summary, context.study, context.store))


@router.get("/admin/export.{fmt}")
async def admin_export(fmt: str, context: Context) -> Response:
    """The responses as ``export.csv`` or ``export.parquet``."""
    if fmt not in ("csv", "parquet"):
        raise HTTPException(404, "exports are export.csv and export.parquet")
    frame = await run_in_threadpool(export_responses, context.study, context.store)
    media = "text/csv; charset=utf-8" if fmt == "csv" else "application/vnd.apache.parquet"
    return Response(
        responses_bytes(frame, fmt),
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="{context.study.study_id}-responses.{fmt}"'},
    )


@router.get("/admin/study.qsf")
async def admin_qsf(context: Context) -> Response:
    """The study as a Qualtrics survey."""
    return Response(
        json.dumps(qualtrics_survey(context.study), indent=2, ensure_ascii=False),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{context.study.study_id}.qsf"'},
    )


@router.get("/admin/participants.csv")
async def admin_participants(context: Context) -> Response:
    """Participants with their platform ids and codes, for paying them."""
    frame = await run_in_threadpool(participants_frame, context.study, context.store)
    return Response(spreadsheet_safe(frame).to_csv(index=False), media_type="text/csv; charset=utf-8")
