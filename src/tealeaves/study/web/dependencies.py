"""The FastAPI dependencies of the routes: the study's context, the admin, the participant and their session.

A route declares what it needs and FastAPI resolves it, in the order declared, before the route
runs; a dependency that refuses raises :class:`~tealeaves.study.web.pages.Refused`, so the route
never runs:

- :data:`Context`: the app's :class:`~tealeaves.study.web.context.StudyContext`;
- :func:`require_admin`: a valid admin cookie, else 401 (every route of
  :data:`tealeaves.study.web.admin.router` depends on it);
- :data:`SessionKey`: the participant's session key from the cookie, which must belong to the
  session ``{token}`` of the address, else 403; :data:`ParticipantSession`: that session, from the
  store (refused by the store for an unknown or ended one);
- :data:`QuestionNumber`: the ``{position}`` of the address as a question number, else 404.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from tealeaves.study.store import Session
from tealeaves.study.web.context import StudyContext
from tealeaves.study.web.forms import TOKEN_VALUE, question_number
from tealeaves.study.web.pages import Refused, root


def study_context(request: Request) -> StudyContext:
    """The context of the app serving ``request``."""
    context: StudyContext = request.app.state.context
    return context


Context = Annotated[StudyContext, Depends(study_context)]


def require_admin(request: Request, context: Context) -> None:
    """Refuse (401) a request without a valid admin cookie (:class:`~tealeaves.study.web.security.AdminCookie`)."""
    if not context.admin_cookie.valid(request.cookies.get(context.admin_cookie_name, "")):
        raise Refused(
            401, "Sign in first", f"The admin pages need the admin token: sign in at {root(request)}/admin/login."
        )


def session_key(request: Request, token: str, context: Context) -> str:
    """The session key from the browser's cookie, which must belong to the session ``token``; else 403."""
    held = context.from_cookie(request)
    if not TOKEN_VALUE.match(token) or held is None or not hmac.compare_digest(held[0].encode(), token.encode()):
        raise Refused(
            403,
            "Not your session",
            "This page belongs to another participant's session, or your browser no longer has the "
            "cookie of this session. Open the study link again to continue.",
        )
    return held[1]


SessionKey = Annotated[str, Depends(session_key)]


async def participant_session(token: str, key: SessionKey, context: Context) -> Session:
    """The participant's session ``token``, opened with their key (the store refuses an unknown or ended one)."""
    return await run_in_threadpool(context.store.session, context.study, token, key)


ParticipantSession = Annotated[Session, Depends(participant_session)]
QuestionNumber = Annotated[int, Depends(question_number)]
