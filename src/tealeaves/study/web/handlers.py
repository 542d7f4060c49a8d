"""Every error as a page a person can read: refusals, the store's refusals, a busy database, bad input.

:func:`add_error_pages` installs one handler per kind of error, so that every malformed request
gets a 4xx page (and a database that does not answer a 503 with ``Retry-After``), never a bare
error or a traceback.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response

from tealeaves.errors import InputError
from tealeaves.study.store import StoreError
from tealeaves.study.web.pages import Refused, message, root

DB_RETRY_AFTER = 5
"""Seconds a participant is asked to wait when the database did not answer in time."""


async def store_error(request: Request, exc: StoreError) -> HTMLResponse:
    refused = message(
        request,
        "This page is not available",
        str(exc),
        exc.status,
        link=root(request) + "/",
        link_text="Back to the start",
    )
    if exc.retry_after is not None:
        refused.headers["Retry-After"] = str(exc.retry_after)
    return refused


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


async def client_gone(request: Request, exc: ClientDisconnect) -> Response:
    return Response(status_code=400)  # nobody is left to read it; no traceback in the log


async def input_error(request: Request, exc: InputError) -> HTMLResponse:
    return message(request, "This answer could not be saved", str(exc), 422)


async def validation_error(request: Request, exc: RequestValidationError) -> HTMLResponse:
    return message(request, "Malformed request", "This address or form is not one the study uses.", 422)


async def http_error(request: Request, exc: HTTPException) -> Response:
    if isinstance(exc, Refused):
        refused = message(request, exc.heading, exc.detail, exc.status_code)
        refused.headers.update(exc.headers or {})
        return refused
    headings = {404: "Page not found", 405: "Not available", 413: "Request too large"}
    return message(request, headings.get(exc.status_code, "Not available"), str(exc.detail), exc.status_code)


def add_error_pages(app: FastAPI) -> None:
    """Install the handlers above on ``app``."""
    app.add_exception_handler(StoreError, store_error)  # type: ignore[arg-type]
    app.add_exception_handler(SQLAlchemyError, database_error)  # type: ignore[arg-type]
    app.add_exception_handler(ClientDisconnect, client_gone)  # type: ignore[arg-type]
    app.add_exception_handler(InputError, input_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(HTTPException, http_error)  # type: ignore[arg-type]
