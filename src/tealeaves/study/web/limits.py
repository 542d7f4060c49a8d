"""What bounds a client: request sizes and deadlines, client addresses behind proxies, and the server's limits.

- :class:`BodyLimit` refuses request heads over :data:`MAX_HEAD_BYTES` (431), request bodies over
  :data:`MAX_BODY_BYTES` (413) and bodies that take over :data:`BODY_TIMEOUT` seconds to arrive
  (408); :class:`TimedH11Protocol` closes a connection whose request head takes over
  :data:`HEADER_TIMEOUT` seconds.
- Client addresses (:class:`ForwardedFor`): the TCP peer's, or, from a trusted proxy
  (:func:`trusted_proxies`), the first address in ``X-Forwarded-For`` from the right that is not
  itself a trusted proxy (each proxy appends the address it got the request from); an IPv6
  address counts as its /64 network (:func:`client_key`). Per address, new participants are
  bounded per hour (``starts_per_client``) and live ones at a time (``live_per_client``), and so
  are live participants whose ``PROLIFIC_PID`` s have the same
  :func:`~tealeaves.study.store.pid_class` (``live_per_pid_pattern``): the store counts them
  (:meth:`~tealeaves.study.store.Store.start`), with the defaults below. Addresses in the
  operator's lab networks (``lab_networks``) are bounded by neither per-address bound.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from tealeaves.errors import InputError

MAX_BODY_BYTES = 16 * 1024
"""Requests with a larger body are refused with 413 before they are read."""
MAX_HEAD_BYTES = 16 * 1024
"""Requests whose head (request line and headers) is larger are refused with 431."""
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
SAME_CLIENT_STARTS = 10
"""Starts through a trusted proxy, all from one client address, after which :class:`ProxyWatch` warns."""
logger = logging.getLogger("tealeaves.study")


class BodyLimit:
    """ASGI middleware: refuse request heads over :data:`MAX_HEAD_BYTES` with 431 (uvicorn bounds
    only a head that arrives in pieces), request bodies over ``limit`` bytes with 413, and bodies
    that take longer than ``timeout`` seconds to arrive with 408."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES, timeout: float | None = None):
        self.app = app
        self.limit = limit
        self.timeout = BODY_TIMEOUT if timeout is None else timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        line = len(scope["method"]) + len(scope.get("raw_path") or b"") + len(scope.get("query_string", b"")) + 12
        if line + sum(len(name) + len(value) + 4 for name, value in scope["headers"]) > MAX_HEAD_BYTES:
            response = Response("request header fields too large", status_code=431, media_type="text/plain")
            await response(scope, receive, send)
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


Network = ipaddress.IPv4Network | ipaddress.IPv6Network
WIDEST_TRUSTED = {4: 8, 6: 16}
"""The shortest prefix of a trusted network on the public internet, per IP version (private networks may be wider)."""
EVERYONE = "trusting every peer lets anyone choose their address, and a large share of the internet anyone there"


def networks(addresses: str | None, option: str) -> list[Network]:
    """Addresses or networks, comma-separated (an IPv4-mapped IPv6 network as its IPv4 network),
    for ``option``; refused when one is neither."""
    out: list[Network] = []
    for part in (addresses or "").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            network = ipaddress.ip_network(part, strict=False)
        except ValueError:
            raise InputError(
                f"{option} takes IP addresses or networks, got {part!r}" + (f" ({EVERYONE})" if part == "*" else "")
            ) from None
        out.append(_unmapped(network))
    return out


def _unmapped(network: Network) -> Network:
    """An IPv4-mapped IPv6 network (``::ffff:0:0/96`` and within) as the IPv4 network it maps."""
    mapped = ipaddress.IPv6Network("::ffff:0:0/96")
    if isinstance(network, ipaddress.IPv6Network) and network.subnet_of(mapped):
        first = network.network_address.ipv4_mapped
        assert first is not None
        return ipaddress.IPv4Network((first, network.prefixlen - 96))
    return network


def trusted_proxies(addresses: str | None) -> list[Network]:
    """The proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed: addresses or
    networks, comma-separated. Refused: one that is neither, ``*``, and everything equivalent to
    it (``0.0.0.0/0``, ``::/0``, ``::ffff:0:0/96``, networks that together cover every address of
    an IP version), and a network on the public internet wider than a /8 (IPv4) or /16 (IPv6):
    whoever can send from a trusted address chooses the address the app takes for theirs."""
    trusted = networks(addresses, "--forwarded-allow-ips")
    for version, widest in WIDEST_TRUSTED.items():
        mine = [net for net in trusted if net.version == version]
        wide = [net for net in mine if net.prefixlen < widest and not net.is_private]
        everything = ipaddress.ip_network("0.0.0.0/0" if version == 4 else "::/0")
        if wide or list(ipaddress.collapse_addresses(mine)) == [everything]:  # type: ignore[type-var]
            shown = ", ".join(str(net) for net in wide) or "every address"
            raise InputError(f"--forwarded-allow-ips refuses {shown}: {EVERYONE}; give the proxies' own addresses")
    return trusted


def within(host: str, nets: list[Network]) -> bool:
    """Whether the address ``host`` (an IPv4-mapped IPv6 address as its IPv4 address) is in one of ``nets``."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in net for net in nets)


@dataclass(frozen=True)
class Hop:
    """How a request reached the app: its TCP ``peer``, whether the peer is a trusted proxy, and
    whether the request carried ``X-Forwarded-For`` and ``X-Forwarded-Proto`` (kept by
    :class:`ForwardedFor` in the request's state as ``hop``)."""

    peer: str
    trusted: bool
    forwarded: bool
    proto: bool


class ForwardedFor:
    """ASGI middleware: the client's address and scheme from a trusted proxy's headers.

    From a peer in ``trusted`` the client is the first address of ``X-Forwarded-For`` from the
    right that is not itself trusted (every proxy appends the address it got the request from, so
    the entries left of it are whatever the client sent), or the leftmost when all are; the scheme
    is ``X-Forwarded-Proto``'s. From any other peer both headers are ignored. Every request's
    :class:`Hop` is kept in its state, and ``watch`` (when given) is told of it.
    """

    def __init__(self, app: ASGIApp, trusted: list[Network], watch: ProxyWatch | None = None):
        self.app = app
        self.trusted = trusted
        self.watch = watch

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope.get("client"):
            await self.app(scope, receive, send)
            return
        peer, port = scope["client"][0], scope["client"][1]
        chain: list[str] = []
        proto = None
        for name, value in scope["headers"]:
            if name == b"x-forwarded-for":
                chain += [entry.strip() for entry in value.decode("latin-1").split(",") if entry.strip()]
            elif name == b"x-forwarded-proto":
                proto = value.decode("latin-1").split(",")[0].strip().lower()
        hop = Hop(peer, within(peer, self.trusted), bool(chain), proto is not None)
        if hop.trusted:
            hosts = [_host(entry) for entry in chain]
            client = next(
                (host for host in reversed(hosts) if not within(host, self.trusted)), hosts[0] if hosts else peer
            )
            scope["client"] = (client, port if client == peer else 0)
            if proto in ("http", "https"):
                scope["scheme"] = proto
        scope.setdefault("state", {})["hop"] = hop
        if self.watch is not None:
            self.watch.seen(hop)
        await self.app(scope, receive, send)


class ProxyWatch:
    """Signs, in the requests one server process sees, that the trusted proxies are set wrong: each
    is logged once (logger ``tealeaves.study``) and kept in :attr:`notices` for the admin page.

    - ``untrusted``: a peer that is not a trusted proxy sends ``X-Forwarded-For`` (a proxy left out
      of ``--forwarded-allow-ips``, or a client sending the header itself);
    - ``proto``: a trusted proxy sends ``X-Forwarded-For`` but no ``X-Forwarded-Proto``, so HTTPS is
      not recognised and no cookie is marked ``Secure``;
    - ``same``: the last ``starts`` starts through a trusted proxy all came from one client address
      (a proxy between the clients and the trusted ones is missing: a cloud balancer's own
      address, a CDN).
    """

    def __init__(self, starts: int = SAME_CLIENT_STARTS):
        self.recent: deque[str | None] = deque(maxlen=starts)
        self.notices: dict[str, str] = {}

    def _notice(self, kind: str, text: str) -> None:
        if kind not in self.notices:
            self.notices[kind] = text
            logger.warning("warning: %s", text)

    def seen(self, hop: Hop) -> None:
        """A request arrived over ``hop``."""
        if hop.forwarded and not hop.trusted:
            self._notice(
                "untrusted",
                f"requests from {hop.peer} carry X-Forwarded-For, which the app ignores: {hop.peer} is not in "
                "--forwarded-allow-ips. If it is your proxy, every participant behind it shares its address and its "
                "limits: add it (if it is not, someone sends the header themselves).",
            )
        if hop.trusted and hop.forwarded and not hop.proto:
            self._notice(
                "proto",
                f"the proxy at {hop.peer} sends X-Forwarded-For without X-Forwarded-Proto, so the app cannot tell "
                "HTTPS requests and marks no cookie Secure: have it send X-Forwarded-Proto "
                "(nginx: proxy_set_header X-Forwarded-Proto $scheme).",
            )

    def started(self, client: str, hop: Hop | None) -> None:
        """A participant started (or was refused) from ``client``, over ``hop``."""
        self.recent.append(client if hop is not None and hop.trusted and hop.forwarded else None)
        if len(self.recent) == self.recent.maxlen and None not in self.recent and len(set(self.recent)) == 1:
            self._notice(
                "same",
                f"the last {len(self.recent)} participants who started all came from {client} through a trusted "
                "proxy. A proxy between them and the trusted ones (a cloud load balancer's own address, a CDN's "
                "ranges) is probably missing from --forwarded-allow-ips, so that everyone shares that address and "
                "its limits (see Deploying a study). If they do share it (a lab), give it to --lab-networks.",
            )


def _host(entry: str) -> str:
    """The address of an ``X-Forwarded-For`` entry: ``addr``, ``v4:port``, ``[v6]`` or ``[v6]:port``."""
    if entry.startswith("["):
        return entry[1 : entry.find("]")] if "]" in entry else entry
    if entry.count(":") == 1:
        return entry.split(":", 1)[0]
    return entry


def server_options(root_path: str = "") -> dict[str, Any]:
    """uvicorn settings of the study server: no proxy headers (the app reads them itself,
    :class:`ForwardedFor`), the path prefix under which the proxy serves the app, the head
    deadline (:class:`TimedH11Protocol`), a 5 s keep-alive and a 16 KiB limit on a request's head
    that arrives in pieces (:class:`BodyLimit` bounds a whole one)."""
    if root_path and (not root_path.startswith("/") or root_path.endswith("/")):
        raise InputError(f"--root-path must start with / and not end with one, got {root_path!r}")
    return {
        "proxy_headers": False,
        "root_path": root_path,
        "http": TimedH11Protocol,
        "timeout_keep_alive": 5,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "server_header": False,
    }
