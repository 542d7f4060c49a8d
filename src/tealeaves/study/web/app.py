"""The study's web app, built from its routers: the participant's pages, the admin's sign-in, the admin's pages.

:func:`create_app` checks its options into a :class:`~tealeaves.study.web.context.StudyContext`,
adds the middleware (from the inside out: :class:`~tealeaves.study.web.limits.BodyLimit`,
:class:`~tealeaves.study.web.security.SecurityHeaders`,
:class:`~tealeaves.study.web.limits.ForwardedFor` and :class:`OwnPortPaths`), the error pages
(:mod:`~tealeaves.study.web.handlers`) and the routers of :mod:`~tealeaves.study.web.participant`
and :mod:`~tealeaves.study.web.admin`. No API documentation is served (``/docs``,
``/openapi.json``: 404).
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from tealeaves.errors import InputError
from tealeaves.study.design import Study
from tealeaves.study.store import Store
from tealeaves.study.web import admin, participant
from tealeaves.study.web.context import StudyContext
from tealeaves.study.web.handlers import add_error_pages
from tealeaves.study.web.limits import (
    DEFAULT_LIVE_PER_CLIENT,
    DEFAULT_LIVE_PER_PID_PATTERN,
    DEFAULT_STARTS_PER_CLIENT,
    BodyLimit,
    ForwardedFor,
    networks,
    trusted_proxies,
)
from tealeaves.study.web.security import (
    ADMIN_SLOW_LANE,
    SecurityHeaders,
    admin_verifier,
    check_admin_token,
    security_headers,
)


class OwnPortPaths:
    """ASGI middleware: serve a request sent to the app's own port with the ``--root-path`` prefix in
    its path (a link the app printed or wrote, followed without the proxy that strips the prefix,
    e.g. through an SSH tunnel) as if it came through the proxy. uvicorn puts the prefix before
    every path, so such a path arrives with the prefix twice; one is removed."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        root = scope.get("root_path", "")
        if scope["type"] == "http" and root:
            path = scope["path"]
            if path == root + root or path.startswith(root + root + "/"):
                raw = scope.get("raw_path") or path.encode()
                scope = {**scope, "path": path[len(root) :], "raw_path": raw[len(root.encode()) :]}
        await self.app(scope, receive, send)


def path_segments() -> set[str]:
    """The first segments of the app's paths (``s``, ``admin``, ...): a ``--root-path`` must not start with one."""
    routers = (participant.router, admin.login, admin.router)
    return {route.path.split("/")[1] for router in routers for route in router.routes if hasattr(route, "path")} - {""}


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
    forwarded_allow_ips: str | None = None,
    lab_networks: str | None = None,
) -> FastAPI:
    """The study's web app over ``store`` (the study must be registered with :meth:`Store.ensure_study`).

    Parameters
    ----------
    study, store
    admin_token : str, optional
        The admin token (strong enough for :func:`~tealeaves.study.web.security.check_admin_token`);
        or give ``admin_hash``.
    admin_hash : str, optional
        :func:`~tealeaves.study.web.security.admin_verifier` of the token, so that the process
        never holds the token itself.
    require_pid : bool
        Refuse starts without a ``PROLIFIC_PID`` (always on when the study has a redirect URL).
    starts_per_client : int
        New participants one client address may start per hour (0: no bound).
    live_per_client : int
        Participants one client address may have live at once (0: no bound).
    pid_pattern : str, optional
        A regular expression every ``PROLIFIC_PID`` must match as a whole (Prolific's ids:
        :data:`~tealeaves.study.web.limits.PROLIFIC_PID_PATTERN`); made-up ids of another shape are refused.
    live_per_pid_pattern : int
        Participants whose ``PROLIFIC_PID`` s have the same :func:`~tealeaves.study.store.pid_class`
        that may be live at once (0: no bound).
    admin_slow_lane : float
        Seconds between the admin login attempts checked from a locked-out address or device.
    forwarded_allow_ips : str, optional
        The proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed, addresses or
        networks, comma-separated (:func:`~tealeaves.study.web.limits.trusted_proxies`).
    lab_networks : str, optional
        Client addresses or networks, comma-separated, whose participants are bounded by neither
        per-address bound (a lab, a university's NAT).
    """
    if (admin_token is None) == (admin_hash is None):
        raise InputError("give the admin token or its hash (admin_verifier), one of the two")
    context = StudyContext(
        study=study,
        store=store,
        verifier=admin_hash
        if admin_hash is not None
        else admin_verifier(study.study_id, check_admin_token(admin_token or "")),
        require_pid=require_pid,
        starts_per_client=starts_per_client,
        live_per_client=live_per_client,
        pid_pattern=pid_pattern,
        live_per_pid_pattern=live_per_pid_pattern,
        admin_slow_lane=admin_slow_lane,
        lab_networks=networks(lab_networks, "--lab-networks"),
    )
    trusted = trusted_proxies(forwarded_allow_ips)
    app = FastAPI(title=study.settings["title"], docs_url=None, redoc_url=None, openapi_url=None)
    app.state.context = context
    app.state.study, app.state.store = study, store
    app.add_middleware(BodyLimit)
    app.add_middleware(SecurityHeaders, headers=security_headers(context.redirect))
    app.add_middleware(ForwardedFor, trusted=trusted, watch=context.watch)
    app.add_middleware(OwnPortPaths)
    add_error_pages(app)
    app.include_router(participant.router)
    app.include_router(admin.login)
    app.include_router(admin.router)
    return app
