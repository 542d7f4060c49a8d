"""The web app annotators use: FastAPI, pages rendered on the server (Jinja2), no build step.

Participant flow: consent (``/``) → instructions → one question per page with a progress
indicator → optionally the model's answer after each intrusion answer (Chang et al. 2009 §3)
→ completion page with the code, or a redirect to ``redirect_url?cc=CODE`` (Prolific).
``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` given in the study link are recorded.

A participant's session lives at ``/s/{token}/...``; the browser holds the session's secret
key in an HttpOnly cookie, and a request whose key does not match is refused (403). Question
pages carry only what :meth:`Item.public` gives (words, document, scale): the intruder, the
model and whether the item is an attention check never reach the browser before the answer
is stored. Pages are sent with ``Cache-Control: no-store``, so the back button reloads them:
an answered question sends the participant on, and a resubmitted answer is refused (409)
without changing anything.

Admin pages (``/admin``) need the admin token: ``Authorization: Bearer TOKEN``, or
``?token=TOKEN`` once (it is then kept in a cookie).
"""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tealeaves.errors import InputError
from tealeaves.study import texts
from tealeaves.study.design import DEFAULT_DB_FILE, Study
from tealeaves.study.exchange import (
    answer_labels,
    completion_url,
    export_responses,
    qualtrics_survey,
    responses_bytes,
)
from tealeaves.study.monitor import summary
from tealeaves.study.store import ANSWERED, RELEASED, Session, Store, StoreError

MAX_BODY_BYTES = 16 * 1024
"""Requests with a larger body are refused with 413 before they are read."""
MAX_FIELD_CHARS = 64
PLATFORM_FIELDS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
PLATFORM_VALUE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ANSWER_FIELDS = frozenset({"answer", "familiarity", "rt_ms"})

templates = Environment(loader=PackageLoader("tealeaves.study", "templates"), autoescape=select_autoescape())


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``limit`` bytes with 413."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            response = Response("request body too large", status_code=413, media_type="text/plain")
            await response(scope, receive, send)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise HTTPException(413, "request body too large")
            return message

        await self.app(scope, limited, send)


def create_app(study: Study, store: Store, admin_token: str) -> FastAPI:
    """The study's web app over ``store`` (the study must be registered with :meth:`Store.ensure_study`)."""
    if len(admin_token) < 8:
        raise InputError("the admin token must have at least 8 characters")
    settings = study.settings
    cookie = f"tl_{study.study_id}"
    admin_cookie = f"tl_admin_{study.study_id}"
    app = FastAPI(title=settings["title"], docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(BodyLimit)
    app.state.study, app.state.store = study, store
    redirect = settings.get("redirect_url")
    form_targets = "'self'" + (f" {_origin(redirect)}" if redirect else "")
    security_headers = {
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": (
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self'; "
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
        html = templates.get_template(name).render(root=request.scope.get("root_path", ""), **context)
        return HTMLResponse(html, status_code=status)

    def message(request: Request, heading: str, text: str, status: int = 200, **link: str) -> HTMLResponse:
        return page(request, "message.html", status, heading=heading, message=text, **link)

    def go(request: Request, path: str) -> RedirectResponse:
        return RedirectResponse(request.scope.get("root_path", "") + path, status_code=303)

    def credentials(request: Request, token: str) -> str:
        """The session key from the cookie, which must belong to ``token``; else 403."""
        value = request.cookies.get(cookie, "")
        owner, _, key = value.partition(":")
        if not key or not secrets.compare_digest(owner, token):
            raise _Refused(403, "Not your session", "This page belongs to another participant's session.")
        return key

    @app.exception_handler(StoreError)
    async def store_error(request: Request, exc: StoreError) -> HTMLResponse:
        return message(
            request,
            "This page is not available",
            str(exc),
            exc.status,
            link=_root(request) + "/",
            link_text="Back to the start",
        )

    @app.exception_handler(InputError)
    async def input_error(request: Request, exc: InputError) -> HTMLResponse:
        return message(request, "This answer could not be saved", str(exc), 422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if isinstance(exc, _Refused):
            return message(request, exc.heading, exc.detail, exc.status_code)
        if exc.status_code in (401, 403) and request.url.path.startswith(_root(request) + "/admin"):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)
        return message(request, "Not available", str(exc.detail), exc.status_code)

    # ----------------------------------------------------------------- participants
    @app.get("/", response_class=HTMLResponse)
    async def entry(request: Request) -> Response:
        platform = _platform(dict(request.query_params))
        resumed = await _resume(request)
        if resumed is not None:
            return resumed
        return page(request, "consent.html", consent=texts.blocks(settings["consent"]), platform=platform)

    async def _resume(request: Request) -> Response | None:
        owner, _, key = request.cookies.get(cookie, "").partition(":")
        if not owner or not key:
            return None
        try:
            await run_in_threadpool(store.session, study, owner, key)
        except StoreError:
            return None
        return go(request, f"/s/{owner}/next")

    @app.post("/start")
    async def start(request: Request) -> Response:
        form = await _form(request, {"consent", *PLATFORM_FIELDS})
        if form.get("consent") != "yes":
            raise _Refused(422, "Consent is needed", "The study starts only after you agree to take part.")
        platform = _platform(form)
        resumed = await _resume(request)
        if resumed is not None:
            return resumed
        token, key = await run_in_threadpool(
            store.start, study, platform.get("PROLIFIC_PID"), platform.get("STUDY_ID"), platform.get("SESSION_ID")
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
        await _form(request, {"consent", *PLATFORM_FIELDS})
        return message(
            request,
            "Thank you",
            "You chose not to take part; nothing was recorded. If you came from a recruitment site, "
            "please return the study there. You can close this page.",
        )

    async def _session(request: Request, token: str) -> tuple[Session, str]:
        key = credentials(request, token)
        return await run_in_threadpool(store.session, study, token, key), key

    @app.get("/s/{token}", response_class=HTMLResponse)
    async def session_root(request: Request, token: str) -> Response:
        await _session(request, token)
        return go(request, f"/s/{token}/next")

    @app.get("/s/{token}/instructions", response_class=HTMLResponse)
    async def instructions(request: Request, token: str) -> Response:
        session, _ = await _session(request, token)
        total = sum(s.status != RELEASED for s in session.slots)
        if total == 0:
            return _full(request)
        return page(
            request,
            "instructions.html",
            token=token,
            total=total,
            instructions=texts.blocks(settings["instructions"]),
            corpus_description=texts.blocks(settings.get("corpus_description") or ""),
        )

    @app.get("/s/{token}/next")
    async def next_question(request: Request, token: str) -> Response:
        session, key = await _session(request, token)
        if session.completed_ms is None and any(s.status == RELEASED for s in session.slots):
            session = await run_in_threadpool(store.refill, study, token, key)
        if session.pending is not None:
            return go(request, f"/s/{token}/q/{session.pending.position}")
        if session.answered:
            return go(request, f"/s/{token}/done")
        return _full(request)

    def _full(request: Request) -> HTMLResponse:
        return message(
            request,
            "The study is full",
            "Every question already has all the answers it needs, so there is nothing left for you to do. "
            "If you came from a recruitment site, please return the study there. Thank you for your interest.",
        )

    def _numbering(session: Session, position: int) -> tuple[int, int]:
        live = [s for s in session.slots if s.status != RELEASED or s.position == position]
        return next(n for n, s in enumerate(live, 1) if s.position == position), len(live)

    @app.get("/s/{token}/q/{position}", response_class=HTMLResponse)
    async def question(request: Request, token: str, position: int) -> Response:
        key = credentials(request, token)
        session = await run_in_threadpool(store.show, study, token, key, position)
        slot = session.slot(position)
        if slot.status == ANSWERED:
            return go(request, f"/s/{token}/next")
        item = study.item(slot.item_id)
        number, total = _numbering(session, position)
        return page(
            request,
            "item.html",
            token=token,
            position=position,
            number=number,
            total=total,
            view=item.public(),
            question=texts.QUESTIONS[item.task],
            answers=answer_labels(item),
            familiarity=list(texts.FAMILIARITY.items()),
        )

    @app.post("/s/{token}/q/{position}")
    async def answer(request: Request, token: str, position: int) -> Response:
        key = credentials(request, token)
        form = await _form(request, ANSWER_FIELDS)
        value = _integer(form.get("answer"), "answer", digits=2, required=True)
        familiarity = _integer(form.get("familiarity"), "familiarity", digits=1)
        rt_ms = _integer(form.get("rt_ms"), "rt_ms", digits=9)
        slot, following = await run_in_threadpool(store.record, study, token, key, position, value, familiarity, rt_ms)
        if settings.get("show_answer") and study.item(slot.item_id).intruder_position is not None:
            return go(request, f"/s/{token}/q/{position}/answer")
        return go(request, f"/s/{token}/q/{following}" if following is not None else f"/s/{token}/done")

    @app.get("/s/{token}/q/{position}/answer", response_class=HTMLResponse)
    async def model_answer(request: Request, token: str, position: int) -> Response:
        session, _ = await _session(request, token)
        slot = session.slot(position)
        item = study.item(slot.item_id)
        if not settings.get("show_answer") or slot.status != ANSWERED or item.intruder_position is None:
            raise _Refused(404, "Not available", "There is no answer to show for this question (yet).")
        labels = dict(answer_labels(item))
        number, total = _numbering(session, position)
        return page(
            request,
            "answer.html",
            token=token,
            number=number,
            total=total,
            chosen=labels[slot.answer],
            key=labels[item.intruder_position],
            label=texts.ANSWER_LABEL,
        )

    @app.get("/s/{token}/done", response_class=HTMLResponse)
    async def done(request: Request, token: str) -> Response:
        session, key = await _session(request, token)
        if session.pending is not None:
            return go(request, f"/s/{token}/next")
        session = await run_in_threadpool(store.complete, study, token, key)
        if not session.answered:
            return _full(request)
        code = settings["completion_code"]
        if redirect:
            return RedirectResponse(completion_url(redirect, code), status_code=303)
        return page(request, "done.html", answered=session.answered, code=code, redirect=None)

    @app.get("/healthz")
    async def health() -> dict[str, Any]:
        return {"ok": True, "study_id": study.study_id, "task": study.task}

    # ----------------------------------------------------------------- admin
    def require_admin(request: Request) -> None:
        header = request.headers.get("authorization", "")
        supplied = (
            request.query_params.get("token")
            or (header[7:] if header.lower().startswith("bearer ") else "")
            or request.cookies.get(admin_cookie, "")
        )
        if not supplied:
            raise HTTPException(401, "the admin pages need the admin token (Authorization: Bearer TOKEN or ?token=)")
        if not secrets.compare_digest(supplied.encode(), admin_token.encode()):
            raise HTTPException(403, "wrong admin token")

    @app.get("/admin", response_class=HTMLResponse)
    async def admin(request: Request) -> Response:
        require_admin(request)
        if "token" in request.query_params:  # keep the token out of the address bar and history
            response = go(request, "/admin")
            response.set_cookie(
                admin_cookie, admin_token, httponly=True, samesite="strict", secure=request.url.scheme == "https"
            )
            return response
        data = await run_in_threadpool(summary, study, store)
        return page(request, "admin.html", summary=data, wide=True)

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
        rows = await run_in_threadpool(store.participants, study.study_id)
        return Response(pd.DataFrame(rows).to_csv(index=False), media_type="text/csv; charset=utf-8")

    return app


class _Refused(HTTPException):
    """A refusal rendered as a page with a heading."""

    def __init__(self, status: int, heading: str, detail: str):
        super().__init__(status, detail)
        self.heading = heading


def _root(request: Request) -> str:
    return str(request.scope.get("root_path", ""))


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _platform(fields: dict[str, str]) -> dict[str, str]:
    """The recruitment platform's ids from the link (Prolific), checked: letters, digits, _ and -."""
    out = {}
    for name in PLATFORM_FIELDS:
        value = (fields.get(name) or "").strip()
        if not value:
            continue
        if not PLATFORM_VALUE.match(value):
            raise _Refused(400, "Invalid link", f"{name} must be 1-64 letters, digits, '_' or '-'.")
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


def _integer(text: str | None, name: str, digits: int, required: bool = False) -> int | None:
    if text is None or text == "":
        if required:
            raise _Refused(422, "Please choose an answer", f"the field {name} is missing")
        return None
    if not text.isdigit() or not text.isascii() or len(text) > digits:
        raise _Refused(422, "Malformed request", f"the field {name} must be a whole number")
    return int(text)


# --------------------------------------------------------------------------- serving
ENVIRONMENT_VARIABLE = "TEALEAVES_STUDY_SERVE"


def app_from_environment() -> FastAPI:
    """App factory for ``uvicorn --factory`` with several workers (settings in an environment variable)."""
    config = json.loads(os.environ[ENVIRONMENT_VARIABLE])
    study = Study.load(config["study"])
    return create_app(study, Store(config["db"]), config["admin_token"])


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
) -> None:
    """Serve a study folder with uvicorn until interrupted (see :func:`create_app`)."""
    import uvicorn

    study = Study.load(study_path)
    db = db or default_db(study_path)
    store = Store(db)
    store.ensure_study(study)
    token = admin_token or secrets.token_urlsafe(18)
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    base = f"http://{host if ':' not in host else f'[{host}]'}:{port}"
    announce(f"study {study.study_id} ({study.task}, {len(study.items)} items), responses in {store.display_url}")
    announce(
        f"participants: {base}/   (Prolific: {base}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        f"&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}})"
    )
    announce(f"admin:        {base}/admin?token={token}")
    if workers == 1:
        uvicorn.run(create_app(study, store, token), host=host, port=port, log_level=log_level)
        return
    store.close()
    os.environ[ENVIRONMENT_VARIABLE] = json.dumps({"study": str(study_path), "db": db, "admin_token": token})
    uvicorn.run(
        "tealeaves.study.app:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
    )
