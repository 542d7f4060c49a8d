"""The web app annotators use: FastAPI, pages rendered on the server (Jinja2), no build step.

Participant flow: consent (``/``) → instructions → one question per page with a progress
indicator → optionally the model's answer after each intrusion answer (Chang et al. 2009 §3)
→ completion page with the code, or a redirect to ``redirect_url?cc=CODE`` (Prolific).
``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` given in the study link are recorded.

Questions are handed out one at a time, each under a short lease renewed by activity
(:meth:`Store.advance`): a participant who starts and leaves holds at most one question, and
only for the lease. With ``require_pid`` (always when the study redirects to Prolific) a start
needs a ``PROLIFIC_PID``; new participants per client address are bounded
(``starts_per_client`` per hour). A start with a known ``PROLIFIC_PID`` resumes that
participant, and the consent form carries a nonce, so a lost reply or a double click never makes
a second participant or locks one out. The completion code is shown only when every question
handed to the participant, attention checks included, is answered.

A participant's session lives at ``/s/{token}/...``; the browser holds the session's key in an
HttpOnly cookie, and a request whose key does not match is refused (403). The key of a
participant with a platform id or a consent nonce is derived from it under the study secret,
so every browser of that participant holds the same key. Question pages carry only what
:meth:`Item.public` gives (words, document, scale): the intruder, the model and whether the
item is an attention check never reach the browser before the answer is stored. Pages are
sent with ``Cache-Control: no-store`` and a Content-Security-Policy that allows scripts from
the app only (``/static/item.js``). Every malformed request gets a 4xx page a person can read.

Client addresses: the TCP peer's, or, from a trusted proxy (``forwarded_allow_ips`` of
:func:`serve`), the last address in ``X-Forwarded-For`` that is not itself a trusted proxy; an
IPv6 address counts as its /64 network (:func:`client_key`). Per address, new participants are
bounded per hour (``starts_per_client``) and live ones at a time (``live_per_client``); refusals
are 429 with ``Retry-After``. A lease stops renewing ``answer_minutes`` after its question was
handed and participants without an answer for ``idle_minutes`` expire (:class:`Store`); the
admin may evict a participant (``POST /admin/evict``).

Admin pages (``/admin``): the admin token is taken in one place, the form at ``/admin/login``,
and traded for a cookie signed with HMAC-SHA256 (:func:`admin_verifier`, :class:`AdminCookie`);
the cookie never holds the token, and the app keeps only a PBKDF2 hash of it. Each login attempt
is counted *before* its token is checked, in the database (so across server processes), against
the client address, or, for a browser that signed in before and holds the device cookie
(:class:`DeviceCookie`), against that device: once :data:`ADMIN_LOGIN_FAILURES` wrong tokens were
counted within :data:`ADMIN_LOGIN_WINDOW` seconds, one attempt per ``admin_slow_lane`` seconds is
checked and the others are refused (429, ``Retry-After``) unchecked (:meth:`Store.admit_login`).
So a guesser who locks out a shared address (a proxy, a NAT) does not lock out the admin's own
browser, and a new browser of the admin gets in after at most ``admin_slow_lane`` seconds.
At most :data:`ADMIN_CHECKS_IN_FLIGHT` PBKDF2 checks run at once in a process (one more is kept
for devices).

Live participants whose ``PROLIFIC_PID`` s have the same :func:`~tealeaves.study.store.pid_class`
(the id with its digit runs replaced by ``#``: ``user1``, ``user2``, ...) are bounded too
(``live_per_pid_pattern``), so ids made up by counting, sent from many addresses, hold few questions.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import json
import os
import re
import secrets
import tempfile
import time
import warnings
from collections.abc import Awaitable, Callable
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal, overload
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from tealeaves.errors import InputError
from tealeaves.study import texts
from tealeaves.study.design import DEFAULT_DB_FILE, Study
from tealeaves.study.exchange import (
    answer_labels,
    completion_url,
    export_responses,
    participants_frame,
    qualtrics_survey,
    responses_bytes,
)
from tealeaves.study.monitor import summary
from tealeaves.study.schema import spreadsheet_safe
from tealeaves.study.store import (
    ANSWERED,
    ASSIGNED,
    DEFAULT_ANSWER_MINUTES,
    DEFAULT_IDLE_MINUTES,
    DONE,
    EXPIRED,
    FULL,
    QUESTION,
    AlreadyAnswered,
    Session,
    Step,
    Store,
    StoreError,
)

MAX_BODY_BYTES = 16 * 1024
"""Requests with a larger body are refused with 413 before they are read."""
MAX_FIELD_CHARS = 64
PLATFORM_FIELDS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
PLATFORM_VALUE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TOKEN_VALUE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
NONCE_VALUE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
ANSWER_FIELDS = frozenset({"answer", "familiarity", "rt_ms"})
START_FIELDS = frozenset({"consent", "nonce", *PLATFORM_FIELDS})
DEFAULT_STARTS_PER_CLIENT = 20
"""New participants one client address may start per hour (0: no bound)."""
PROLIFIC_PID_PATTERN = "[0-9a-f]{24}"
"""The shape of Prolific's participant ids (24 lower-case hex digits), for ``pid_pattern``."""
DEFAULT_LIVE_PER_CLIENT = 5
"""Participants one client address may have live at once: neither finished, expired nor evicted (0: no bound)."""
DEFAULT_LIVE_PER_PID_PATTERN = 3
"""Participants whose ids have the same :func:`~tealeaves.study.store.pid_class` that may be live at once (0: no bound)."""
ADMIN_COOKIE_HOURS = 12
ADMIN_DEVICE_DAYS = 90
ADMIN_KDF_ITERATIONS = 100_000
ADMIN_LOGIN_FAILURES = 10
"""Wrong admin tokens one client address (or device) may send per :data:`ADMIN_LOGIN_WINDOW` seconds."""
ADMIN_LOGIN_WINDOW = 900
ADMIN_SLOW_LANE = ADMIN_LOGIN_WINDOW / ADMIN_LOGIN_FAILURES
"""Seconds between the attempts checked from a locked-out address or device (90): a guesser who
keeps one locked out gets no more guesses than the lockout's bound, 10 per 15 minutes."""
ADMIN_CHECKS_IN_FLIGHT = 2
"""PBKDF2 checks of admin tokens running at once in a server process (plus one for device cookies)."""
ADMIN_CHECK_WAIT = 10.0
"""Seconds an admitted login attempt waits for a free check before it is refused as busy (503)."""
HEADER_TIMEOUT = 10.0
"""Seconds a connection may take to send a request's head (line and headers); then it is closed."""
BODY_TIMEOUT = 20.0
"""Seconds a request may take to send its body; then it is refused (408)."""
DB_RETRY_AFTER = 5

templates = Environment(loader=PackageLoader("tealeaves.study", "templates"), autoescape=select_autoescape())
ITEM_SCRIPT = files("tealeaves.study").joinpath("static/item.js").read_bytes()


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``limit`` bytes with 413, and bodies that take
    longer than ``timeout`` seconds to arrive with 408."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES, timeout: float | None = None):
        self.app = app
        self.limit = limit
        self.timeout = BODY_TIMEOUT if timeout is None else timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or len(length) > 12 or int(length) > self.limit):
            response = Response("request body too large", status_code=413, media_type="text/plain")
            await response(scope, receive, send)
            return
        received, complete = 0, False
        deadline = time.monotonic() + self.timeout

        async def limited() -> Message:
            nonlocal received, complete
            if complete:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                raise HTTPException(408, "the request's body did not arrive in time") from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                complete = not message.get("more_body", False)
                if received > self.limit:
                    raise HTTPException(413, "request body too large")
            return message

        await self.app(scope, limited, send)


# --------------------------------------------------------------------------- admin credentials
def admin_verifier(study_id: str, token: str) -> str:
    """What the app keeps of the admin token: PBKDF2-HMAC-SHA256 of it, salted with the study id
    (:data:`ADMIN_KDF_ITERATIONS` rounds), hex. It checks a token without holding it."""
    if len(token) < 8:
        raise InputError("the admin token must have at least 8 characters")
    salt = f"tealeaves-admin:{study_id}".encode()
    return hashlib.pbkdf2_hmac("sha256", token.encode("utf-8"), salt, ADMIN_KDF_ITERATIONS).hex()


class DeviceCookie:
    """The admin's device cookie, set by a successful login: ``DEVICE.EXPIRES.MAC`` (HMAC-SHA256
    under a key derived from the study secret and the admin verifier). Login attempts that carry a
    valid one are counted per device, not per address (OWASP's "device cookies")."""

    def __init__(self, study: Study, verifier: str, days: float = ADMIN_DEVICE_DAYS):
        self.key = study.derive("admin-device", verifier)
        self.seconds = int(days * 86400)

    def _mac(self, device: str, expires: str) -> str:
        return hmac.new(self.key, f"device:{device}:{expires}".encode(), "sha256").hexdigest()

    def issue(self) -> str:
        device, expires = secrets.token_hex(8), str(int(time.time()) + self.seconds)
        return f"{device}.{expires}.{self._mac(device, expires)}"

    def device(self, value: str) -> str | None:
        """The device id of a valid, unexpired cookie value, else None."""
        device, _, rest = value.partition(".")
        expires, _, mac = rest.partition(".")
        if not (device.isascii() and device.isalnum() and len(device) == 16) or not expires.isdigit():
            return None
        if len(expires) > 12 or not mac.isascii() or int(expires) <= time.time():
            return None
        return device if hmac.compare_digest(mac.encode(), self._mac(device, expires).encode()) else None


class AdminCookie:
    """The admin session cookie: ``EXPIRES.MAC``, MAC = HMAC-SHA256 of ``admin:EXPIRES`` under a key
    derived from the study secret and the admin verifier (a new token or study secret voids it)."""

    def __init__(self, study: Study, verifier: str, hours: float = ADMIN_COOKIE_HOURS):
        self.key = study.derive("admin-cookie", verifier)
        self.seconds = int(hours * 3600)

    def _mac(self, expires: str) -> str:
        return hmac.new(self.key, f"admin:{expires}".encode(), "sha256").hexdigest()

    def issue(self) -> str:
        expires = str(int(time.time()) + self.seconds)
        return f"{expires}.{self._mac(expires)}"

    def valid(self, value: str) -> bool:
        expires, _, mac = value.partition(".")
        if not expires.isascii() or not expires.isdigit() or len(expires) > 12 or not mac.isascii():
            return False
        return hmac.compare_digest(mac.encode(), self._mac(expires).encode()) and int(expires) > time.time()


# --------------------------------------------------------------------------- the app
def create_app(
    study: Study,
    store: Store,
    admin_token: str | None = None,
    *,
    admin_hash: str | None = None,
    require_pid: bool = False,
    starts_per_client: int = DEFAULT_STARTS_PER_CLIENT,
    live_per_client: int = DEFAULT_LIVE_PER_CLIENT,
    pid_pattern: str | None = None,
    live_per_pid_pattern: int = DEFAULT_LIVE_PER_PID_PATTERN,
    admin_slow_lane: float = ADMIN_SLOW_LANE,
) -> FastAPI:
    """The study's web app over ``store`` (the study must be registered with :meth:`Store.ensure_study`).

    Parameters
    ----------
    study, store
    admin_token : str, optional
        The admin token (at least 8 characters); or give ``admin_hash``.
    admin_hash : str, optional
        :func:`admin_verifier` of the token, so that the process never holds the token itself.
    require_pid : bool
        Refuse starts without a ``PROLIFIC_PID`` (always on when the study has a redirect URL).
    starts_per_client : int
        New participants one client address may start per hour (0: no bound).
    live_per_client : int
        Participants one client address may have live at once (0: no bound).
    pid_pattern : str, optional
        A regular expression every ``PROLIFIC_PID`` must match as a whole (Prolific's ids:
        :data:`PROLIFIC_PID_PATTERN`); made-up ids of another shape are refused.
    live_per_pid_pattern : int
        Participants whose ``PROLIFIC_PID`` s have the same :func:`~tealeaves.study.store.pid_class`
        that may be live at once (0: no bound).
    admin_slow_lane : float
        Seconds between the admin login attempts checked from a locked-out address or device.
    """
    if (admin_token is None) == (admin_hash is None):
        raise InputError("give the admin token or its hash (admin_verifier), one of the two")
    verifier = admin_hash if admin_hash is not None else admin_verifier(study.study_id, admin_token or "")
    if min(starts_per_client, live_per_client, live_per_pid_pattern) < 0:
        raise InputError(
            f"starts and live participants per client address and live ones per id pattern must be 0 (no bound) "
            f"or more, got {starts_per_client}, {live_per_client} and {live_per_pid_pattern}"
        )
    if not admin_slow_lane > 0:
        raise InputError(f"the admin login's slow lane must be a positive number of seconds, got {admin_slow_lane}")
    try:
        pid_check = re.compile(pid_pattern) if pid_pattern else None
    except re.error as exc:
        raise InputError(f"the participant id pattern {pid_pattern!r} is not a regular expression: {exc}") from None
    settings = study.settings
    redirect = settings.get("redirect_url")
    require_pid = bool(require_pid or redirect)
    quota = int(settings["items_per_participant"]) + int(settings["checks_per_participant"])
    cookie = f"tl_{study.study_id}"
    admin_cookie_name = f"tl_admin_{study.study_id}"
    device_cookie_name = f"tl_admin_device_{study.study_id}"
    admin_cookie = AdminCookie(study, verifier)
    device_cookie = DeviceCookie(study, verifier)
    checks = {"client": asyncio.Semaphore(ADMIN_CHECKS_IN_FLIGHT), "device": asyncio.Semaphore(1)}
    app = FastAPI(title=settings["title"], docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(BodyLimit)
    app.state.study, app.state.store = study, store
    form_targets = "'self'" + (f" {_origin(redirect)}" if redirect else "")
    security_headers = {
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": (
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; img-src 'self'; "
            f"form-action {form_targets}; base-uri 'none'; frame-ancestors 'none'"
        ),
    }

    @app.middleware("http")
    async def add_headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        for name, value in security_headers.items():
            response.headers.setdefault(name, value)
        return response

    # ----------------------------------------------------------------- rendering helpers
    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("title", settings["title"])
        html = templates.get_template(name).render(root=_root(request), **context)
        return HTMLResponse(html, status_code=status)

    def message(request: Request, heading: str, text: str, status: int = 200, **link: str) -> HTMLResponse:
        return page(request, "message.html", status, heading=heading, message=text, **link)

    def go(request: Request, path: str) -> RedirectResponse:
        return RedirectResponse(_root(request) + path, status_code=303)

    def session_key(kind: str, value: str) -> str:
        """The session key of a participant named by a platform id or a consent nonce."""
        return base64.urlsafe_b64encode(study.derive(f"session-key:{kind}", value)).decode("ascii").rstrip("=")

    def client_hash(request: Request) -> str | None:
        return study.derive("client", client_key(request.client.host)).hex()[:32] if request.client else None

    def from_cookie(request: Request) -> tuple[str, str] | None:
        owner, _, key = request.cookies.get(cookie, "").partition(":")
        if not TOKEN_VALUE.match(owner) or not TOKEN_VALUE.match(key):
            return None
        return owner, key

    def credentials(request: Request, token: str) -> str:
        """The session key from the cookie, which must belong to ``token``; else 403."""
        held = from_cookie(request)
        if not TOKEN_VALUE.match(token) or held is None or not hmac.compare_digest(held[0].encode(), token.encode()):
            raise _Refused(
                403,
                "Not your session",
                "This page belongs to another participant's session, or your browser no longer has the "
                "cookie of this session. Open the study link again to continue.",
            )
        return held[1]

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> HTMLResponse:
        refused = message(
            request,
            "This page is not available",
            str(exc),
            exc.status,
            link=_root(request) + "/",
            link_text="Back to the start",
        )
        if exc.retry_after is not None:
            refused.headers["Retry-After"] = str(exc.retry_after)
        return refused

    @app.exception_handler(SQLAlchemyError)
    async def database_error(request: Request, exc: SQLAlchemyError) -> HTMLResponse:
        busy = message(
            request,
            "The study is busy",
            "The study's database did not answer in time. Nothing you sent was lost: please try again in a "
            "few seconds (reloading this page is safe).",
            503,
        )
        busy.headers["Retry-After"] = str(DB_RETRY_AFTER)
        return busy

    @app.exception_handler(ClientDisconnect)
    async def client_gone(request: Request, exc: ClientDisconnect) -> Response:
        return Response(status_code=400)  # nobody is left to read it; no traceback in the log

    @app.exception_handler(InputError)
    async def input_error(request: Request, exc: InputError) -> HTMLResponse:
        return message(request, "This answer could not be saved", str(exc), 422)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> HTMLResponse:
        return message(request, "Malformed request", "This address or form is not one the study uses.", 422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if isinstance(exc, _Refused):
            refused = message(request, exc.heading, exc.detail, exc.status_code)
            refused.headers.update(exc.headers or {})
            return refused
        headings = {404: "Page not found", 405: "Not available", 413: "Request too large"}
        return message(request, headings.get(exc.status_code, "Not available"), str(exc.detail), exc.status_code)

    # ----------------------------------------------------------------- participants
    @app.get("/", response_class=HTMLResponse)
    async def entry(request: Request) -> Response:
        platform = _platform(dict(request.query_params), pid_check)
        resumed = await _resume(request, platform)
        if resumed is not None:
            return resumed
        if require_pid and "PROLIFIC_PID" not in platform:
            raise _needs_pid()
        return page(
            request,
            "consent.html",
            consent=texts.blocks(settings["consent"]),
            platform=platform,
            nonce=secrets.token_urlsafe(16),
        )

    async def _resume(request: Request, platform: dict[str, str]) -> Response | None:
        """Back to the session of this browser's cookie, unless the link names another participant."""
        held = from_cookie(request)
        if held is None:
            return None
        try:
            session = await run_in_threadpool(store.session, study, *held)
        except StoreError:
            return None
        if "PROLIFIC_PID" in platform and session.external_id != platform["PROLIFIC_PID"]:
            return None
        return go(request, f"/s/{held[0]}/next")

    @app.post("/start")
    async def start(request: Request) -> Response:
        form = await _form(request, START_FIELDS)
        if form.get("consent") != "yes":
            raise _Refused(422, "Consent is needed", "The study starts only after you agree to take part.")
        platform = _platform(form, pid_check)
        nonce = form.get("nonce") or None
        if nonce is not None and not NONCE_VALUE.match(nonce):
            raise _Refused(400, "Malformed request", "The consent form was changed; open the study link again.")
        resumed = await _resume(request, platform)
        if resumed is not None:
            return resumed
        pid = platform.get("PROLIFIC_PID")
        if require_pid and pid is None:
            raise _needs_pid()
        key = session_key("pid", pid) if pid else session_key("nonce", nonce) if nonce else None
        token, key = await run_in_threadpool(
            lambda: store.start(
                study,
                pid,
                platform.get("STUDY_ID"),
                platform.get("SESSION_ID"),
                key=key,
                nonce=None if pid else nonce,
                client=client_hash(request),
                starts_per_client=starts_per_client,
                live_per_client=live_per_client,
                live_per_pid_class=live_per_pid_pattern,
            )
        )
        response = go(request, f"/s/{token}/instructions")
        response.set_cookie(
            cookie,
            f"{token}:{key}",
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
            max_age=7 * 86400,
        )
        return response

    @app.post("/decline", response_class=HTMLResponse)
    async def decline(request: Request) -> Response:
        await _form(request, START_FIELDS)
        return message(
            request,
            "Thank you",
            "You chose not to take part; nothing was recorded. If you came from a recruitment site, "
            "please return the study there. You can close this page.",
        )

    async def _session(request: Request, token: str) -> tuple[Session, str]:
        key = credentials(request, token)
        return await run_in_threadpool(store.session, study, token, key), key

    def _step(request: Request, token: str, step: Step) -> Response:
        if step.kind == QUESTION:
            return go(request, f"/s/{token}/q/{step.position}")
        if step.kind == DONE:
            return go(request, f"/s/{token}/done")
        if step.kind == FULL:
            return _full(request)
        if step.kind == EXPIRED:
            return message(
                request,
                "Your session has expired",
                "You answered no question for a long time, so your place went to others. The answers you gave "
                "are kept. If you came from a recruitment site, please return the study there.",
            )
        return page(
            request,
            "message.html",
            heading="Please wait a moment",
            message="Every question that still needs answers is on another participant's screen right now. "
            "Questions come free when others answer them or leave; please try again in a minute.",
            link=f"{_root(request)}/s/{token}/next",
            link_text="Try again",
            marker="wait",
        )

    @app.get("/s/{token}", response_class=HTMLResponse)
    async def session_root(request: Request, token: str) -> Response:
        await _session(request, token)
        return go(request, f"/s/{token}/next")

    @app.get("/s/{token}/instructions", response_class=HTMLResponse)
    async def instructions(request: Request, token: str) -> Response:
        session, _ = await _session(request, token)
        if not session.slots and await run_in_threadpool(_filled):
            return _full(request)  # say so before the instructions, not after them
        return page(
            request,
            "instructions.html",
            token=token,
            total=quota,
            instructions=texts.blocks(settings["instructions"]),
            corpus_description=texts.blocks(settings.get("corpus_description") or ""),
        )

    @app.get("/s/{token}/next")
    async def next_question(request: Request, token: str) -> Response:
        key = credentials(request, token)
        return _step(request, token, await run_in_threadpool(store.advance, study, token, key))

    def _filled() -> bool:
        """Whether every item has its target of unflagged answers (a newcomer gets nothing)."""
        counts = store.item_counts(study.study_id)
        target = int(settings["annotators"])
        return all(counts.get(item.item_id, (0, 0))[0] >= target for item in study.items if not item.is_check)

    def _full(request: Request) -> HTMLResponse:
        return message(
            request,
            "The study is full",
            "Every question already has all the answers it needs, so there is nothing left for you to do. "
            "If you came from a recruitment site, please return the study there. Thank you for your interest.",
        )

    def _numbering(session: Session, position: int) -> tuple[int, int]:
        """This question's number (answered before it, plus one) and the participant's number of questions."""
        number = sum(s.status == ANSWERED and s.position != position for s in session.slots)
        return number + 1, max(quota, number + 1)

    @app.get("/s/{token}/q/{position}", response_class=HTMLResponse)
    async def question(request: Request, token: str, position: str) -> Response:
        key = credentials(request, token)
        number = _position(position)
        session = await run_in_threadpool(store.show, study, token, key, number)
        slot = session.slot(number)
        if slot.status != ASSIGNED:  # answered, or released to someone else: the next step decides
            return go(request, f"/s/{token}/next")
        item = study.item(slot.item_id)
        shown, total = _numbering(session, number)
        return page(
            request,
            "item.html",
            token=token,
            position=number,
            number=shown,
            total=total,
            view=item.public(),
            question=texts.QUESTIONS[item.task],
            answers=answer_labels(item),
            familiarity=list(texts.FAMILIARITY.items()),
        )

    @app.post("/s/{token}/q/{position}")
    async def answer(request: Request, token: str, position: str) -> Response:
        key = credentials(request, token)
        number = _position(position)
        form = await _form(request, ANSWER_FIELDS)
        value = _integer(form.get("answer"), "answer", digits=2, required=True)
        familiarity = _integer(form.get("familiarity"), "familiarity", digits=1)
        rt_ms = _integer(form.get("rt_ms"), "rt_ms", digits=9)
        try:
            slot, step = await run_in_threadpool(store.record, study, token, key, number, value, familiarity, rt_ms)
        except AlreadyAnswered:  # a double click or a resent form: the first answer is kept, go on
            return go(request, f"/s/{token}/next")
        if settings.get("show_answer") and study.item(slot.item_id).intruder_position is not None:
            return go(request, f"/s/{token}/q/{number}/answer")
        if step.kind in (QUESTION, DONE):  # straight on; a page to wait or a full study comes from /next
            return _step(request, token, step)
        return go(request, f"/s/{token}/next")

    @app.get("/s/{token}/q/{position}/answer", response_class=HTMLResponse)
    async def model_answer(request: Request, token: str, position: str) -> Response:
        session, _ = await _session(request, token)
        number = _position(position)
        slot = session.slot(number)
        item = study.item(slot.item_id)
        if not settings.get("show_answer") or slot.answer is None or item.intruder_position is None:
            raise _Refused(404, "Not available", "There is no answer to show for this question (yet).")
        labels = dict(answer_labels(item))
        shown, total = _numbering(session, number)
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

    @app.get("/s/{token}/done", response_class=HTMLResponse)
    async def done(request: Request, token: str) -> Response:
        key = credentials(request, token)
        step, session = await run_in_threadpool(store.complete, study, token, key)
        if step.kind != DONE:
            return _step(request, token, step)
        code = study.code_for(session.external_id or session.token)
        if redirect:
            return RedirectResponse(completion_url(redirect, code), status_code=303)
        return page(request, "done.html", answered=session.answered, code=code, redirect=None)

    @app.get("/static/item.js")
    async def item_script() -> Response:
        return Response(ITEM_SCRIPT, media_type="text/javascript", headers={"Cache-Control": "max-age=3600"})

    @app.get("/healthz")
    async def health() -> dict[str, Any]:
        return {"ok": True, "study_id": study.study_id, "task": study.task}

    # ----------------------------------------------------------------- admin
    def require_admin(request: Request) -> None:
        if not admin_cookie.valid(request.cookies.get(admin_cookie_name, "")):
            raise _Refused(
                401, "Sign in first", f"The admin pages need the admin token: sign in at {_root(request)}/admin/login."
            )

    @app.get("/admin/login", response_class=HTMLResponse)
    async def admin_login_form(request: Request) -> Response:
        if request.query_params:
            raise _Refused(400, "Not here", "Give the admin token in the form, never in the address.")
        return page(request, "admin_login.html", hours=ADMIN_COOKIE_HOURS)

    @app.post("/admin/login")
    async def admin_login(request: Request) -> Response:
        supplied = (await _form(request, {"token"})).get("token", "")
        device = device_cookie.device(request.cookies.get(device_cookie_name, ""))
        kind = "device" if device else "client"
        source = f"device:{device}" if device else f"client:{client_hash(request)}"
        attempt, wait = await run_in_threadpool(
            lambda: store.admit_login(
                study, source, limit=ADMIN_LOGIN_FAILURES, window_s=ADMIN_LOGIN_WINDOW, slow_lane_s=admin_slow_lane
            )
        )  # counted (committed) before it is checked
        if attempt is None:
            raise _Refused(
                429,
                "Too many wrong admin tokens",
                f"This {'browser' if device else 'address'} sent {ADMIN_LOGIN_FAILURES} wrong admin tokens in "
                f"{ADMIN_LOGIN_WINDOW // 60} minutes. While that lasts one token is checked every "
                f"{admin_slow_lane:g} seconds: try again in {wait} seconds.",
                headers={"Retry-After": str(wait)},
            )
        try:
            await asyncio.wait_for(checks[kind].acquire(), ADMIN_CHECK_WAIT)
        except asyncio.TimeoutError:  # (not the builtin TimeoutError before Python 3.11)
            await run_in_threadpool(store.forgive_login, attempt, False)
            raise _Refused(
                503, "Busy", "Too many sign-ins are being checked; try again shortly.", {"Retry-After": "5"}
            ) from None
        try:
            given = await run_in_threadpool(admin_verifier, study.study_id, supplied) if len(supplied) >= 8 else ""
        finally:
            checks[kind].release()
        if not hmac.compare_digest(given.encode(), verifier.encode()):
            raise _Refused(403, "Wrong admin token", "That is not the admin token of this study.")
        await run_in_threadpool(store.forgive_login, attempt)
        response = go(request, "/admin")
        for name, cookie, path in (
            (device_cookie_name, device_cookie, "/admin/login"),
            (admin_cookie_name, admin_cookie, "/admin"),
        ):
            response.set_cookie(
                name,
                cookie.issue(),
                max_age=cookie.seconds,
                path=_root(request) + path,
                httponly=True,
                samesite="strict",
                secure=request.url.scheme == "https",
            )
        return response

    @app.get("/admin", response_class=HTMLResponse)
    async def admin(request: Request) -> Response:
        require_admin(request)
        data = await run_in_threadpool(summary, study, store)
        return page(request, "admin.html", summary=data, wide=True)

    @app.post("/admin/evict")
    async def admin_evict(request: Request) -> Response:
        require_admin(request)
        annotator = (await _form(request, {"annotator"})).get("annotator", "").strip()
        if not re.fullmatch(r"[0-9a-f]{16}", annotator):
            raise _Refused(422, "Malformed request", "Give the participant's annotator id (16 hex digits).")
        if not await run_in_threadpool(store.evict, study, annotator):
            raise _Refused(404, "No such participant", f"No live participant has the annotator id {annotator}.")
        return message(
            request,
            "Participant evicted",
            f"The session of {annotator} is ended: their question is free again, their answers are kept.",
            link=_root(request) + "/admin",
            link_text="Back to the admin page",
        )

    @app.get("/admin/progress.json")
    async def admin_progress(request: Request) -> Response:
        require_admin(request)
        return JSONResponse(await run_in_threadpool(summary, study, store))

    @app.get("/admin/export.{fmt}")
    async def admin_export(request: Request, fmt: str) -> Response:
        require_admin(request)
        if fmt not in ("csv", "parquet"):
            raise HTTPException(404, "exports are export.csv and export.parquet")
        frame = await run_in_threadpool(export_responses, study, store)
        media = "text/csv; charset=utf-8" if fmt == "csv" else "application/vnd.apache.parquet"
        return Response(
            responses_bytes(frame, fmt),
            media_type=media,
            headers={"Content-Disposition": f'attachment; filename="{study.study_id}-responses.{fmt}"'},
        )

    @app.get("/admin/study.qsf")
    async def admin_qsf(request: Request) -> Response:
        require_admin(request)
        return Response(
            json.dumps(qualtrics_survey(study), indent=2, ensure_ascii=False),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{study.study_id}.qsf"'},
        )

    @app.get("/admin/participants.csv")
    async def admin_participants(request: Request) -> Response:
        require_admin(request)
        frame = await run_in_threadpool(participants_frame, study, store)
        return Response(spreadsheet_safe(frame).to_csv(index=False), media_type="text/csv; charset=utf-8")

    return app


class _Refused(HTTPException):
    """A refusal rendered as a page with a heading."""

    def __init__(self, status: int, heading: str, detail: str, headers: dict[str, str] | None = None):
        super().__init__(status, detail, headers)
        self.heading = heading


def _needs_pid() -> _Refused:
    return _Refused(
        400,
        "Please use the link from the recruitment site",
        "This study needs your participant id, which the link on the recruitment site (Prolific) carries. "
        "Open the study from that link.",
    )


def client_key(host: str) -> str:
    """What the per-address limits count: the address, or for IPv6 its /64 network (one
    subscriber's share; an IPv4-mapped IPv6 address counts as the IPv4 address)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _root(request: Request) -> str:
    return str(request.scope.get("root_path", ""))


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _position(text: str) -> int:
    """A question number from the address: 1-6 ASCII digits, else a 404 page."""
    if not text.isascii() or not text.isdigit() or len(text) > 6:
        raise _Refused(404, "Page not found", "This session has no such question.")
    return int(text)


def _platform(fields: dict[str, str], pid_pattern: re.Pattern[str] | None = None) -> dict[str, str]:
    """The recruitment platform's ids from the link (Prolific), checked: letters, digits, _ and -,
    and a ``PROLIFIC_PID`` must match ``pid_pattern`` when one is given."""
    out = {}
    for name in PLATFORM_FIELDS:
        value = (fields.get(name) or "").strip()
        if not value:
            continue
        if not PLATFORM_VALUE.match(value):
            raise _Refused(400, "Invalid link", f"{name} must be 1-64 letters, digits, '_' or '-'.")
        if name == "PROLIFIC_PID" and pid_pattern is not None and not pid_pattern.fullmatch(value):
            raise _Refused(400, "Invalid link", "This participant id is not one the recruitment site gives.")
        out[name] = value
    return out


async def _form(request: Request, allowed: set[str] | frozenset[str]) -> dict[str, str]:
    """The posted form, refused (4xx) if it has unknown, repeated, oversized or file fields."""
    form = await request.form(max_files=0, max_fields=len(allowed) + 1, max_part_size=1024)
    out: dict[str, str] = {}
    for name, value in form.multi_items():
        if name not in allowed or name in out or not isinstance(value, str) or len(value) > MAX_FIELD_CHARS:
            raise _Refused(422, "Malformed request", f"the field {name[:32]!r} is unexpected, repeated or too long")
        out[name] = value
    return out


@overload
def _integer(text: str | None, name: str, digits: int, required: Literal[True]) -> int: ...
@overload
def _integer(text: str | None, name: str, digits: int, required: bool = False) -> int | None: ...
def _integer(text: str | None, name: str, digits: int, required: bool = False) -> int | None:
    if text is None or text == "":
        if required:
            raise _Refused(422, "Please choose an answer", f"the field {name} is missing")
        return None
    if not text.isdigit() or not text.isascii() or len(text) > digits:
        raise _Refused(422, "Malformed request", f"the field {name} must be a whole number")
    return int(text)


# --------------------------------------------------------------------------- serving
CONFIG_VARIABLE = "TEALEAVES_STUDY_SERVE"
"""With several workers: the path of a private (0600) file with the app's settings, never the token."""
TOKEN_VARIABLE = "TEALEAVES_ADMIN_TOKEN"
"""The admin token's environment variable; :func:`serve` removes it before anything starts."""
DB_HEADROOM = 5
"""PostgreSQL connections :func:`serve` leaves free for others (psql, ``study export``)."""
MIN_POOL, MAX_POOL = 4, 20
"""Connections per server process to PostgreSQL: as many as fit, within these bounds."""
PROXY_WARNING = (
    "warning: no --forwarded-allow-ips: every client address is the TCP peer's. Behind nginx or a load "
    "balancer all participants then share the proxy's address, and the per-address limits hold per proxy; "
    "give the proxy's address to --forwarded-allow-ips (docs: Deploying a study)."
)


class TimedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request's head: a connection that has
    not sent a complete request line and headers :attr:`head_timeout` seconds after it opened (or
    after its last response) is closed, so slow partial requests cannot hold every descriptor."""

    head_timeout = HEADER_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        waiting_after = self.cycle
        self._head_timer = self.loop.call_later(self.head_timeout, self._head_late, waiting_after)

    def _head_late(self, waiting_after: object) -> None:
        if self.cycle is waiting_after and not self.transport.is_closing():  # no new request has begun
            self.transport.close()

    def on_response_complete(self) -> None:
        self._head_timer.cancel()
        self._arm()
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_timer.cancel()
        super().connection_lost(exc)


def trusted_proxies(addresses: str | None) -> list[str]:
    """The proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed: addresses or
    networks, comma-separated; refused when one is neither (``*`` included: trusting every peer
    lets anyone choose their address)."""
    out = []
    for part in (addresses or "").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            out.append(str(ipaddress.ip_network(part, strict=False)))
        except ValueError:
            raise InputError(
                f"--forwarded-allow-ips takes the proxies' IP addresses or networks, got {part!r}"
                + (" (trusting every peer lets anyone choose their address)" if part == "*" else "")
            ) from None
    return out


def server_options(forwarded_allow_ips: str | None = None, root_path: str = "") -> dict[str, Any]:
    """uvicorn settings of the study server: the trusted proxies (none by default), the path
    prefix under which the proxy serves the app, the head deadline (:class:`TimedH11Protocol`), a
    5 s keep-alive and a 16 KiB limit on a request's head."""
    if root_path and (not root_path.startswith("/") or root_path.endswith("/")):
        raise InputError(f"--root-path must start with / and not end with one, got {root_path!r}")
    trusted = trusted_proxies(forwarded_allow_ips)
    return {
        "proxy_headers": bool(trusted),
        "forwarded_allow_ips": trusted or None,
        "root_path": root_path,
        "http": TimedH11Protocol,
        "timeout_keep_alive": 5,
        "h11_max_incomplete_event_size": 16 * 1024,
        "server_header": False,
    }


def app_from_environment() -> FastAPI:
    """App factory for ``uvicorn --factory`` with several workers (settings in the file :data:`CONFIG_VARIABLE` names)."""
    config = json.loads(Path(os.environ[CONFIG_VARIABLE]).read_text(encoding="utf-8"))
    study = Study.load(config["study"])
    store = Store(config["db"], synchronous=config["synchronous"], **config["store"])
    return create_app(study, store, admin_hash=config["admin_hash"], **config["app"])


def default_db(study_path: str | os.PathLike[str]) -> str:
    """The default response store: ``responses.sqlite`` in the study folder."""
    return f"sqlite:///{Path(study_path).resolve() / DEFAULT_DB_FILE}"


def serve(
    study_path: str | os.PathLike[str],
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    admin_token: str | None = None,
    workers: int = 1,
    log_level: str = "warning",
    announce: Callable[[str], None] = print,
    require_pid: bool = False,
    starts_per_client: int = DEFAULT_STARTS_PER_CLIENT,
    synchronous: str = "full",
    *,
    live_per_client: int = DEFAULT_LIVE_PER_CLIENT,
    answer_minutes: float = DEFAULT_ANSWER_MINUTES,
    idle_minutes: float = DEFAULT_IDLE_MINUTES,
    forwarded_allow_ips: str | None = None,
    root_path: str = "",
    pid_pattern: str | None = None,
    live_per_pid_pattern: int = DEFAULT_LIVE_PER_PID_PATTERN,
) -> None:
    """Serve a study folder with uvicorn until interrupted (see :func:`create_app` and :class:`Store`).

    A token is made and printed only when none is given; a given one (``--admin-token`` or
    ``TEALEAVES_ADMIN_TOKEN``) is never printed, and the variable is removed from the environment
    before anything starts. With several workers, the workers read their settings (the token's
    PBKDF2 hash, not the token) from a private file removed at exit. ``forwarded_allow_ips``: the
    proxies trusted for the client's address and scheme (:func:`trusted_proxies`); without them a
    warning is printed. ``root_path``: the path prefix the proxy serves the app under. The admin
    login attempts counted in the store are forgotten at start (a restart lifts a lockout). On
    PostgreSQL each process keeps :data:`MIN_POOL` to :data:`MAX_POOL` connections, as many as
    ``max_connections`` allows for ``workers`` processes; too few is an error at start.
    """
    import uvicorn

    os.environ.pop(TOKEN_VARIABLE, None)  # read once by the caller; never inherited by the workers
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    uvicorn_options = server_options(forwarded_allow_ips, root_path)
    study = Study.load(study_path)
    db = db or default_db(study_path)
    store_options: dict[str, Any] = {"answer_minutes": answer_minutes, "idle_minutes": idle_minutes}
    store = Store(db, synchronous=synchronous, **store_options)
    store.ensure_study(study)
    if not store.is_sqlite:
        store_options["pool_size"] = _pool_size(store, workers)
        store.close()
        store = Store(db, synchronous=synchronous, **store_options)
    made = admin_token is None
    token = admin_token or secrets.token_urlsafe(18)
    verifier = admin_verifier(study.study_id, token)
    options: dict[str, Any] = {
        "require_pid": require_pid,
        "starts_per_client": starts_per_client,
        "live_per_client": live_per_client,
        "pid_pattern": pid_pattern,
        "live_per_pid_pattern": live_per_pid_pattern,
    }
    app = create_app(study, store, admin_hash=verifier, **options)  # checks the options before announcing
    store.clear_logins(study)
    base = f"http://{host if ':' not in host else f'[{host}]'}:{port}{root_path}"
    announce(f"study {study.study_id} ({study.task}, {len(study.items)} items), responses in {store.display_url}")
    announce(
        f"participants: {base}/   (Prolific: {base}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        f"&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}})"
    )
    announce(f"admin:        {base}/admin/login")
    if made:
        announce(f"admin token:  {token}   (made now: choose one with --admin-token or TEALEAVES_ADMIN_TOKEN)")
    if not uvicorn_options["proxy_headers"]:
        announce(PROXY_WARNING)
    _raise_descriptor_limit()
    run_options = {"host": host, "port": port, "log_level": log_level, **uvicorn_options}
    if workers == 1:
        uvicorn.run(app, **run_options)
        return
    store.close()
    folder = Path(tempfile.mkdtemp(prefix="tealeaves-serve-"))
    config = folder / "config.json"
    try:
        descriptor = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            settings = {"study": str(study_path), "db": db, "admin_hash": verifier, "synchronous": synchronous}
            json.dump({**settings, "store": store_options, "app": options}, handle)
        os.environ[CONFIG_VARIABLE] = str(config)
        uvicorn.run("tealeaves.study.app:app_from_environment", factory=True, workers=workers, **run_options)
    finally:
        os.environ.pop(CONFIG_VARIABLE, None)
        config.unlink(missing_ok=True)
        folder.rmdir()


def _pool_size(store: Store, workers: int) -> int:
    """Connections per process: what PostgreSQL's ``max_connections`` leaves for ``workers``
    processes after the connections open now and :data:`DB_HEADROOM`, at most :data:`MAX_POOL`;
    an error when it is under :data:`MIN_POOL`."""
    limit, in_use = store.connection_budget()
    free = limit - in_use - DB_HEADROOM
    if free // workers < MIN_POOL:
        raise InputError(
            f"PostgreSQL allows {limit} connections (max_connections less superuser_reserved_connections) and "
            f"{in_use} are open: {workers} workers need {MIN_POOL} each plus {DB_HEADROOM} spare, "
            f"{in_use + MIN_POOL * workers + DB_HEADROOM} in all; raise max_connections in postgresql.conf "
            "or use fewer --workers"
        )
    return min(MAX_POOL, free // workers)


def _raise_descriptor_limit() -> None:
    """Raise the soft limit on open files to the hard limit: each connection holds a descriptor."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Unix
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError) as exc:  # pragma: no cover - depends on the system
            warnings.warn(f"could not raise the open-file limit from {soft}: {exc}", stacklevel=2)
