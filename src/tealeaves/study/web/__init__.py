"""The web app annotators use: FastAPI, pages rendered on the server (Jinja2), no build step.

One module per concern:

- :mod:`~tealeaves.study.web.app`: :func:`create_app`, the app built from the routers below;
- :mod:`~tealeaves.study.web.participant`: the participant's pages (consent, instructions, the
  questions, the model's answer, the completion code), ``/static/item.js`` and ``/healthz``;
- :mod:`~tealeaves.study.web.admin`: the sign-in routes and the admin's routes, all of which
  depend on the admin cookie;
- :mod:`~tealeaves.study.web.dependencies`: what routes declare they need (the study's context,
  the admin, the participant's session key and session, a question number);
- :mod:`~tealeaves.study.web.context`: :class:`StudyContext`, the study, store, limits and keys
  every request reads;
- :mod:`~tealeaves.study.web.security`: the admin token's hash, the signed admin and device
  cookies, the headers of every page;
- :mod:`~tealeaves.study.web.limits`: request sizes and deadlines, client addresses behind
  proxies, the per-address bounds and uvicorn's settings;
- :mod:`~tealeaves.study.web.forms`: what a form or an address may carry;
- :mod:`~tealeaves.study.web.pages` and :mod:`~tealeaves.study.web.handlers`: the templates,
  refusals and error pages;
- :mod:`~tealeaves.study.web.serving`: :func:`serve` (``tealeaves study serve``) and the app
  factory of its workers.

Pages are sent with ``Cache-Control: no-store`` and a Content-Security-Policy that allows
scripts from the app only (``/static/item.js``). Every malformed request gets a 4xx page a person
can read.
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.study.web.app import create_app
    from tealeaves.study.web.context import StudyContext
    from tealeaves.study.web.limits import server_options
    from tealeaves.study.web.security import admin_verifier
    from tealeaves.study.web.serving import app_from_environment, default_db, serve

__getattr__, __dir__ = attach(__name__, __file__, extra="study")

__all__ = [
    "StudyContext",
    "admin_verifier",
    "app_from_environment",
    "create_app",
    "default_db",
    "serve",
    "server_options",
]
