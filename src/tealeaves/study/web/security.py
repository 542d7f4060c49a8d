"""The admin's credentials and the headers every page carries.

The admin token is taken in one place, the form at ``/admin/login`` (:mod:`tealeaves.study.web.admin`),
and traded for a cookie signed with HMAC-SHA256 (:class:`AdminCookie`); the cookie never holds the
token, and the app keeps only a PBKDF2 hash of it (:func:`admin_verifier`). A browser that signed
in holds a device cookie (:class:`DeviceCookie`), so that its login attempts are counted per device,
not per address. Each login attempt is counted *before* its token is checked, in the database (so
across server processes), against the client address or the device: once
:data:`ADMIN_LOGIN_FAILURES` wrong tokens were counted within :data:`ADMIN_LOGIN_WINDOW` seconds,
one attempt per ``admin_slow_lane`` seconds is checked and the others are refused (429,
``Retry-After``) unchecked (:meth:`~tealeaves.study.store.Store.admit_login`). So a guesser who
locks out a shared address (a proxy, a NAT) does not lock out the admin's own browser, and a new
browser of the admin gets in after at most ``admin_slow_lane`` seconds. At most
:data:`ADMIN_CHECKS_IN_FLIGHT` PBKDF2 checks run at once in a process (one more is kept for
devices).

Every response carries :func:`security_headers` (:class:`SecurityHeaders`): no caching, no
referrer, no framing, and a Content-Security-Policy that allows scripts from the app only.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import time
from urllib.parse import urlsplit

from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp

from tealeaves.errors import InputError
from tealeaves.study.design import Study

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


MIN_TOKEN_CHARACTERS = 12
MIN_TOKEN_BITS = 64
"""The least strength of an admin token one chooses (:func:`check_admin_token`): at 64 bits, the
slow lane's 960 guesses a day from each of the 65,536 /64 networks of an IPv6 /48 (63 million
a day) need 400,000 years for an even chance."""
CHARACTER_CLASSES = (("abcdefghijklmnopqrstuvwxyz", 26), ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 26), ("0123456789", 10))


def token_bits(token: str) -> float:
    """A generous estimate of a token's strength in bits: its length times log2 of the alphabet of
    the character classes it uses (lower case 26, upper case 26, digits 10, anything else 33)."""
    alphabet = sum(size for letters, size in CHARACTER_CLASSES if any(c in letters for c in token))
    alphabet += 33 if any(not any(c in letters for letters, _ in CHARACTER_CLASSES) for c in token) else 0
    return len(token) * math.log2(alphabet) if alphabet else 0.0


def check_admin_token(token: str) -> str:
    """Refuse a chosen admin token that is short, repetitive or weak: at least
    :data:`MIN_TOKEN_CHARACTERS` characters, at least 10 of them (or half, if fewer) different, and at least
    :data:`MIN_TOKEN_BITS` by :func:`token_bits` (14 random lower-case letters, 11 random letters
    and digits). This turns away the obviously guessable (``password``, ``studystudystudy1``, a
    date), not a phrase that merely looks long: choose a random token (``serve`` makes one of 144 bits)."""
    repetitive = len(set(token)) < min(10, len(token) / 2)
    if len(token) < MIN_TOKEN_CHARACTERS or repetitive or token_bits(token) < MIN_TOKEN_BITS:
        raise InputError(
            f"the admin token is too easy to guess: give at least {MIN_TOKEN_CHARACTERS} characters, at least 10 "
            f"of them different, mixing letters, digits and signs for {MIN_TOKEN_BITS} bits or more (this one: "
            f"{len(token)} characters, {token_bits(token):.0f} bits); a random one is best: "
            "python -c 'import secrets; print(secrets.token_urlsafe(18))'"
        )
    return token


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


def security_headers(redirect_url: str | None) -> dict[str, str]:
    """The headers of every response: no caching, no referrer, no sniffing, no framing, and a
    Content-Security-Policy allowing scripts from the app only and forms to the app (and to the
    origin of the study's ``redirect_url``)."""
    form_targets = "'self'" + (f" {_origin(redirect_url)}" if redirect_url else "")
    return {
        "Cache-Control": "no-store",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": (
            "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; img-src 'self'; "
            f"form-action {form_targets}; base-uri 'none'; frame-ancestors 'none'"
        ),
    }


class SecurityHeaders(BaseHTTPMiddleware):
    """Middleware: :func:`security_headers` on every response that does not set them itself."""

    def __init__(self, app: ASGIApp, headers: dict[str, str]):
        super().__init__(app)
        self.headers = headers

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        response = await call_next(request)
        for name, value in self.headers.items():
            response.headers.setdefault(name, value)
        return response


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
