"""What every request of one study's app reads: the study, its store, the app's settings and keys.

:func:`~tealeaves.study.web.app.create_app` checks its options and keeps them in one
:class:`StudyContext` (``app.state.context``); the routes get it, and what they derive from it, as
FastAPI dependencies (:mod:`tealeaves.study.web.dependencies`).
"""

from __future__ import annotations

import asyncio
import base64
import re
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from tealeaves.errors import InputError
from tealeaves.study.design import Study
from tealeaves.study.store import ANSWERED, Session, Store
from tealeaves.study.web.forms import TOKEN_VALUE
from tealeaves.study.web.limits import Hop, Network, ProxyWatch, client_key, within
from tealeaves.study.web.security import ADMIN_CHECKS_IN_FLIGHT, AdminCookie, DeviceCookie


@dataclass
class StudyContext:
    """One study's app: the study and store, the participant limits and the admin's keys.

    Attributes
    ----------
    study, store
        The study and its response store.
    verifier : str
        :func:`~tealeaves.study.web.security.admin_verifier` of the admin token.
    require_pid : bool
        Starts need a ``PROLIFIC_PID`` (always when the study redirects to a recruitment site).
    starts_per_client, live_per_client, live_per_pid_pattern : int
        The bounds of :func:`~tealeaves.study.web.app.create_app` (0: no bound).
    pid_pattern : str or None
        A regular expression every ``PROLIFIC_PID`` must match as a whole (compiled: ``pid_check``).
    admin_slow_lane : float
        Seconds between the admin login attempts checked from a locked-out address or device.
    lab_networks : list of networks
        Client networks the operator vouches for (a lab, a university NAT): their participants are
        bounded by neither per-address bound.
    watch : ProxyWatch
        What this process saw that says the trusted proxies are set wrong (the admin page shows it).
    admin_cookie, device_cookie
        The admin's session and device cookies.
    checks : dict of str to asyncio.Semaphore
        The PBKDF2 checks of admin tokens that may run at once, for addresses and for devices.
    """

    study: Study
    store: Store
    verifier: str
    require_pid: bool
    starts_per_client: int
    live_per_client: int
    pid_pattern: str | None
    live_per_pid_pattern: int
    admin_slow_lane: float
    lab_networks: list[Network] = field(default_factory=list)
    watch: ProxyWatch = field(default_factory=ProxyWatch)
    pid_check: re.Pattern[str] | None = field(init=False)
    admin_cookie: AdminCookie = field(init=False)
    device_cookie: DeviceCookie = field(init=False)
    checks: dict[str, asyncio.Semaphore] = field(init=False)

    def __post_init__(self) -> None:
        if min(self.starts_per_client, self.live_per_client, self.live_per_pid_pattern) < 0:
            raise InputError(
                "starts and live participants per client address and live ones per id pattern must be 0 (no bound) "
                f"or more, got {self.starts_per_client}, {self.live_per_client} and {self.live_per_pid_pattern}"
            )
        if not self.admin_slow_lane > 0:
            raise InputError(
                f"the admin login's slow lane must be a positive number of seconds, got {self.admin_slow_lane}"
            )
        try:
            self.pid_check = re.compile(self.pid_pattern) if self.pid_pattern else None
        except re.error as exc:
            raise InputError(
                f"the participant id pattern {self.pid_pattern!r} is not a regular expression: {exc}"
            ) from None
        self.require_pid = bool(self.require_pid or self.redirect)
        self.admin_cookie = AdminCookie(self.study, self.verifier)
        self.device_cookie = DeviceCookie(self.study, self.verifier)
        self.checks = {"client": asyncio.Semaphore(ADMIN_CHECKS_IN_FLIGHT), "device": asyncio.Semaphore(1)}

    # ----------------------------------------------------------------- the study's settings
    @property
    def settings(self) -> dict[str, Any]:
        return self.study.settings

    @property
    def redirect(self) -> str | None:
        """Where a participant who finished is sent (``?cc=CODE`` appended), if anywhere."""
        return self.settings.get("redirect_url")

    @property
    def quota(self) -> int:
        """Questions each participant answers, attention checks included."""
        return int(self.settings["items_per_participant"]) + int(self.settings["checks_per_participant"])

    # ----------------------------------------------------------------- cookies and keys
    @property
    def session_cookie(self) -> str:
        """The name of the participant's cookie: ``TOKEN:KEY`` of their session."""
        return f"tl_{self.study.study_id}"

    @property
    def admin_cookie_name(self) -> str:
        return f"tl_admin_{self.study.study_id}"

    @property
    def device_cookie_name(self) -> str:
        return f"tl_admin_device_{self.study.study_id}"

    def session_key(self, kind: str, value: str) -> str:
        """The session key of a participant named by a platform id or a consent nonce."""
        return base64.urlsafe_b64encode(self.study.derive(f"session-key:{kind}", value)).decode("ascii").rstrip("=")

    def client_hash(self, request: Request) -> str | None:
        """The client's address (:func:`~tealeaves.study.web.limits.client_key`) hashed under the study secret."""
        return self.study.derive("client", client_key(request.client.host)).hex()[:32] if request.client else None

    def in_lab(self, request: Request) -> bool:
        """Whether the client's address is in one of the :attr:`lab_networks`."""
        return request.client is not None and within(request.client.host, self.lab_networks)

    @staticmethod
    def hop(request: Request) -> Hop | None:
        """How the request reached the app (:class:`~tealeaves.study.web.limits.ForwardedFor`)."""
        hop: Hop | None = request.scope.get("state", {}).get("hop")
        return hop

    def from_cookie(self, request: Request) -> tuple[str, str] | None:
        """The session token and key the browser's cookie holds, if it holds a well-formed one."""
        owner, _, key = request.cookies.get(self.session_cookie, "").partition(":")
        if not TOKEN_VALUE.match(owner) or not TOKEN_VALUE.match(key):
            return None
        return owner, key

    # ----------------------------------------------------------------- progress
    def filled(self) -> bool:
        """Whether every item has its target of unflagged answers (a newcomer gets nothing)."""
        counts = self.store.item_counts(self.study.study_id)
        target = int(self.settings["annotators"])
        return all(counts.get(item.item_id, (0, 0))[0] >= target for item in self.study.items if not item.is_check)

    def numbering(self, session: Session, position: int) -> tuple[int, int]:
        """This question's number (answered before it, plus one) and the participant's number of questions."""
        number = sum(s.status == ANSWERED and s.position != position for s in session.slots)
        return number + 1, max(self.quota, number + 1)
