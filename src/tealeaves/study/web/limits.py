"""What bounds a client: request sizes and deadlines, client addresses behind proxies, and the server's limits.

- :class:`BodyLimit` refuses request bodies over :data:`MAX_BODY_BYTES` (413) and bodies that take
  over :data:`BODY_TIMEOUT` seconds to arrive (408); :class:`TimedH11Protocol` closes a connection
  whose request head takes over :data:`HEADER_TIMEOUT` seconds.
- Client addresses: the TCP peer's, or, from a trusted proxy (:func:`trusted_proxies`, which
  :func:`server_options` hands to uvicorn), the last address in ``X-Forwarded-For`` that is not
  itself a trusted proxy; an IPv6 address counts as its /64 network (:func:`client_key`). Per
  address, new participants are bounded per hour (``starts_per_client``) and live ones at a time
  (``live_per_client``), and so are live participants whose ``PROLIFIC_PID`` s have the same
  :func:`~tealeaves.study.store.pid_class` (``live_per_pid_pattern``): the store counts them
  (:meth:`~tealeaves.study.store.Store.start`), with the defaults below.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from typing import Any

from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from tealeaves.errors import InputError

MAX_BODY_BYTES = 16 * 1024
"""Requests with a larger body are refused with 413 before they are read."""
HEADER_TIMEOUT = 10.0
"""Seconds a connection may take to send a request's head (line and headers); then it is closed."""
BODY_TIMEOUT = 20.0
"""Seconds a request may take to send its body; then it is refused (408)."""
DEFAULT_STARTS_PER_CLIENT = 20
"""New participants one client address may start per hour (0: no bound)."""
DEFAULT_LIVE_PER_CLIENT = 5
"""Participants one client address may have live at once: neither finished, expired nor evicted (0: no bound)."""
DEFAULT_LIVE_PER_PID_PATTERN = 3
"""Participants whose ids have the same :func:`~tealeaves.study.store.pid_class` that may be live at once (0: no bound)."""
PROLIFIC_PID_PATTERN = "[0-9a-f]{24}"
"""The shape of Prolific's participant ids (24 lower-case hex digits), for ``pid_pattern``."""


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
