"""Trying a study out before real people take it: simulated participants, a live server, a throwaway PostgreSQL.

- :func:`simulate` sends simulated participants through a running study over HTTP, as a
  browser would (consent, instructions, each question page, the answer form, the completion
  page), concurrently; each answers with a policy you give (random by default). With
  ``retry_s`` they also behave as a browser does when the server is down or a reply is lost:
  they send the same request again, with the same cookie and participant id. The test suite,
  ``benchmarks/study_load.py`` and ``benchmarks/study_chaos.py`` use it; use it to pilot a
  deployment.
- :class:`LiveServer` runs a study app with uvicorn on loopback in a background thread, with the
  settings of ``tealeaves study serve`` (:func:`tealeaves.study.web.limits.server_options`).
- :class:`TemporaryPostgres` starts a PostgreSQL server in a temporary folder on loopback
  (Debian's ``postgresql`` binaries: ``initdb`` and ``pg_ctl``, or those in
  ``$TEALEAVES_POSTGRES_BINDIR``; as the ``postgres`` user when run as root, since ``initdb``
  refuses root) and removes it afterwards.
- :func:`unavailable` skips a test whose system program is missing, or fails it when ``CI=true``.

``httpx`` is needed for :func:`simulate` (``pip install 'tealeaves[test]'``).
"""

from __future__ import annotations

import asyncio
import glob
import hashlib
import os
import pwd
import random
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from tealeaves.errors import MissingDependencyError, TealeavesError


# --------------------------------------------------------------------------- pages
@dataclass
class ItemPage:
    """A question page as a participant sees it: the answer choices, in display order."""

    url: str
    action: str
    answers: list[tuple[int, str]]
    familiarity: list[int]
    text: str

    @property
    def labels(self) -> list[str]:
        return [label for _, label in self.answers]


class _PageParser(HTMLParser):
    """Collects the item form's radio choices with their label text, links and the completion code."""

    def __init__(self) -> None:
        super().__init__()
        self.action: str | None = None
        self.radios: list[tuple[str, str]] = []
        self.labels: list[str] = []
        self.links: list[str] = []
        self.code: str | None = None
        self._in_label = False
        self._label_text: list[str] = []
        self._in_code = False
        self._in_key = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("id") == "item":
            self.action = a.get("action")
        elif tag == "label":
            self._in_label, self._label_text = True, []
        elif tag == "input" and a.get("type") == "radio":
            self.radios.append((a.get("name", ""), a.get("value", "")))
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"])
        elif a.get("id") == "completion-code":
            self._in_code = True
        elif tag == "span" and "key" in a.get("class", "").split():
            self._in_key = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "label" and self._in_label:
            self._in_label = False
            self.labels.append(" ".join("".join(self._label_text).split()))
        elif tag == "span":
            self._in_key = False
        elif tag == "p":
            self._in_code = False

    def handle_data(self, data: str) -> None:
        if self._in_label and not self._in_key:
            self._label_text.append(data)
        if self._in_code:
            self.code = (self.code or "") + data.strip()


def parse_page(url: str, html: str) -> tuple[ItemPage | None, _PageParser]:
    """Parse a page; the :class:`ItemPage` when it is a question page."""
    parser = _PageParser()
    parser.feed(html)
    if parser.action is None:
        return None, parser
    answers = [(int(value), label) for (name, value), label in zip(parser.radios, parser.labels) if name == "answer"]
    familiarity = [int(value) for name, value in parser.radios if name == "familiarity"]
    return ItemPage(url, parser.action, answers, familiarity, html), parser


Policy = Callable[[ItemPage, random.Random], tuple[int, int | None]]


def random_answers(page: ItemPage, rng: random.Random) -> tuple[int, int | None]:
    """Answer at random; familiarity at random when asked."""
    answer = rng.choice(page.answers)[0]
    return answer, (rng.choice(page.familiarity) if page.familiarity else None)


# --------------------------------------------------------------------------- participants
@dataclass
class ParticipantRun:
    """What one simulated participant did and saw."""

    prolific_pid: str | None
    token: str | None = None
    outcome: str = "started"  # completed, full, abandoned or error
    answered: list[tuple[int, int, int | None]] = field(default_factory=list)  # (position, answer, familiarity)
    pages: list[ItemPage] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    completion: str | None = None
    error: str | None = None
    retries: int = 0


async def run_participant(
    client: Any,
    base_url: str,
    policy: Policy = random_answers,
    rng: random.Random | None = None,
    prolific_pid: str | None = None,
    abandon_after: int | None = None,
    max_steps: int = 1000,
    retry_s: float = 0.0,
    wait_s: float = 0.5,
) -> ParticipantRun:
    """One participant from the study link to the completion page (``client``: an ``httpx.AsyncClient``).

    With ``retry_s`` > 0 a request that gets no reply or a 5xx is sent again (the same
    request, cookies and participant id: a browser's reload) until ``retry_s`` seconds have
    passed since the first try. A resubmitted answer that an earlier try stored (its reply was
    lost) is redirected to the next step like the first; it counts as sent once. On the "please wait" page the
    participant waits ``wait_s`` seconds and tries again.
    """
    import httpx

    rng = rng or random.Random()
    run = ParticipantRun(prolific_pid)
    platform = {"PROLIFIC_PID": prolific_pid, "STUDY_ID": "sim-study", "SESSION_ID": f"sim-{prolific_pid}"}
    params = urlencode(platform) if prolific_pid else ""

    async def send(method: str, url: str, **kwargs: Any) -> tuple[Any, bool]:
        deadline, retried = time.monotonic() + retry_s, False
        while True:
            try:
                response = await client.request(method, url, **kwargs)
                if response.status_code < 500 or time.monotonic() > deadline:
                    return response, retried
            except httpx.TransportError:  # no reply: connection refused or reset, timeout
                if time.monotonic() > deadline:
                    raise
            retried = True
            run.retries += 1
            await asyncio.sleep(0.1 + 0.2 * rng.random())

    try:
        r, _ = await send("GET", f"{base_url}/" + (f"?{params}" if params else ""))
        _expect(r, 200, "consent page")
        nonce = re.search(r'name="nonce" value="([^"]+)"', r.text)
        form = {"consent": "yes", **(platform if prolific_pid else {}), **({"nonce": nonce.group(1)} if nonce else {})}
        r, _ = await send("POST", f"{base_url}/start", data=form)
        _expect(r, 303, "consent")
        match = re.search(r"/s/([^/]+)/", r.headers["location"])
        if not match:
            raise TealeavesError(f"unexpected redirect after consent: {r.headers['location']}")
        run.token = match.group(1)
        url = f"{base_url}/s/{run.token}/next"
        for _ in range(max_steps):
            r, _ = await send("GET", url)
            if r.status_code == 303:
                url = _absolute(base_url, r.headers["location"])
                continue
            _expect(r, 200, url)
            page, parser = parse_page(url, r.text)
            if page is None:
                if parser.code is not None:
                    run.outcome, run.completion = "completed", parser.code
                    return run
                if "The study is full" in r.text:
                    run.outcome = "full"
                    return run
                if 'id="wait"' in r.text:
                    await asyncio.sleep(wait_s)
                follow = [link for link in parser.links if link.endswith("/next")]
                if not follow:
                    raise TealeavesError(f"a page with no question and no way on: {url}")
                url = _absolute(base_url, follow[0])
                continue
            if abandon_after is not None and len(run.answered) >= abandon_after:
                run.outcome = "abandoned"
                return run
            run.pages.append(page)
            answer, familiarity = policy(page, rng)
            data = {"answer": str(answer), "rt_ms": str(rng.randint(800, 9000))}
            if familiarity is not None:
                data["familiarity"] = str(familiarity)
            started = time.perf_counter()
            r, _ = await send("POST", _absolute(base_url, page.action), data=data)
            run.latencies_ms.append((time.perf_counter() - started) * 1000)
            _expect(r, 303, f"answer at {page.action}")
            url = _absolute(base_url, r.headers["location"])
            position = int(page.action.rstrip("/").rsplit("/", 1)[1])
            run.answered.append((position, answer, familiarity))
        raise TealeavesError(f"participant did not finish in {max_steps} pages")
    except Exception as exc:  # a simulated participant reports, never raises
        run.outcome, run.error = "error", f"{type(exc).__name__}: {exc}"
        return run


def _expect(response: Any, status: int, what: str) -> None:
    if response.status_code != status:
        raise TealeavesError(f"{what}: expected HTTP {status}, got {response.status_code}: {response.text[:200]}")


def _absolute(base_url: str, location: str) -> str:
    if location.startswith(("http://", "https://")):
        return location
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}{location}"


def platform_id(prefix: str, n: int) -> str:
    """A participant id of Prolific's shape (24 lower-case hex digits) for simulated participant ``n``:
    the first 24 hex digits of SHA-256 of ``prefix:n``, so random-looking but reproducible."""
    return hashlib.sha256(f"{prefix}:{n}".encode()).hexdigest()[:24]


def simulate(
    base_url: str,
    participants: int,
    policy: Policy = random_answers,
    seed: int = 0,
    concurrency: int | None = None,
    abandon: float = 0.0,
    prolific: bool = True,
    pid_prefix: str = "SIM",
    timeout_s: float = 120.0,
    retry_s: float = 0.0,
    addresses: list[str] | None = None,
) -> list[ParticipantRun]:
    """Run ``participants`` simulated participants against ``base_url``, ``concurrency`` at a time.

    Each has its own cookies (its own browser). A share ``abandon`` of them stop after
    answering a random number of questions. With ``prolific`` each arrives with a
    ``PROLIFIC_PID`` of Prolific's shape (:func:`platform_id` of ``pid_prefix`` and 1, 2, ...), so that
    the bound on live participants per id class takes them for the people they stand for.
    ``retry_s``: see :func:`run_participant`.
    ``addresses``: participant ``n`` connects from ``addresses[n % len(addresses)]`` (e.g.
    loopback addresses ``127.0.0.x``, so that the per-address limits apply as to people).
    """
    try:
        import httpx
    except ImportError:  # pragma: no cover - depends on the environment
        raise MissingDependencyError("simulated participants need httpx: pip install httpx") from None
    master = random.Random(seed)
    plans = []
    for n in range(participants):
        rng = random.Random(master.getrandbits(64))
        quits = rng.random() < abandon
        plans.append((platform_id(pid_prefix, n + 1) if prolific else None, rng, rng.randint(0, 5) if quits else None))
    limit = asyncio.Semaphore(concurrency or participants or 1)

    async def one(n: int, pid: str | None, rng: random.Random, abandon_after: int | None) -> ParticipantRun:
        async with limit:
            limits = httpx.Limits(max_connections=2, max_keepalive_connections=2)
            local = addresses[n % len(addresses)] if addresses else None
            transport = httpx.AsyncHTTPTransport(limits=limits, local_address=local)
            async with httpx.AsyncClient(timeout=timeout_s, follow_redirects=False, transport=transport) as client:
                return await run_participant(client, base_url, policy, rng, pid, abandon_after, retry_s=retry_s)

    async def everyone() -> list[ParticipantRun]:
        return list(await asyncio.gather(*(one(n, *plan) for n, plan in enumerate(plans))))

    return asyncio.run(everyone())


# --------------------------------------------------------------------------- servers
def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """Serve an ASGI app with uvicorn on loopback in a background thread (a context manager);
    ``options`` are those of :func:`tealeaves.study.web.limits.server_options` (``root_path``; the
    trusted proxies are the app's, :func:`~tealeaves.study.web.app.create_app`)."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int | None = None, **options: Any):
        import uvicorn

        from tealeaves.study.web.limits import server_options

        self.host, self.port = host, port or free_port(host)
        config = uvicorn.Config(
            app, host=self.host, port=self.port, log_level="warning", lifespan="off", **server_options(**options)
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise TealeavesError(f"the test server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


def unavailable(reason: str) -> None:
    """Skip the current test because a system program is missing, or fail it when ``CI=true``
    (on CI a test that cannot run is a failure, never a quiet skip)."""
    import pytest

    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: this test must run on CI)", pytrace=False)
    pytest.skip(reason)


def postgres_bindir() -> Path | None:
    """Folder with ``initdb`` and ``pg_ctl``: ``$TEALEAVES_POSTGRES_BINDIR`` when set, else Debian's
    newest ``/usr/lib/postgresql/*/bin``, else PATH."""
    chosen = os.environ.get("TEALEAVES_POSTGRES_BINDIR")
    if chosen is not None:
        return Path(chosen) if (Path(chosen) / "initdb").is_file() else None
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


class TemporaryPostgres:
    """A PostgreSQL server in a temporary folder on 127.0.0.1, for tests and benchmarks.

    Use as a context manager; :attr:`url` is ``postgresql://tealeaves@127.0.0.1:PORT/tealeaves``
    (trust authentication, loopback only). ``durable=False`` turns off fsync for speed (tests).
    """

    def __init__(self, durable: bool = True, max_connections: int = 200):
        bindir = postgres_bindir()
        if bindir is None:
            raise MissingDependencyError(
                "PostgreSQL is not installed (no initdb); run scripts/system-deps.sh or apt-get install postgresql"
            )
        self.bindir = bindir
        self.durable = durable
        self.max_connections = max_connections
        self.port = free_port()
        self.folder: Path | None = None
        self.user: str | None = None
        if os.geteuid() == 0:  # initdb refuses to run as root
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                raise MissingDependencyError("running as root needs the 'postgres' system user to run initdb") from None
            self.user = "postgres"

    @property
    def url(self) -> str:
        return f"postgresql://tealeaves@127.0.0.1:{self.port}/tealeaves"

    def _run(self, *args: str) -> None:
        result = subprocess.run(
            [str(self.bindir / args[0]), *args[1:]], user=self.user, capture_output=True, text=True, timeout=120
        )
        if result.returncode != 0:
            raise TealeavesError(f"{args[0]} failed: {result.stderr.strip() or result.stdout.strip()}")

    def start(self) -> str:
        self.folder = Path(tempfile.mkdtemp(prefix="tealeaves-pg-"))
        if self.user:
            shutil.chown(self.folder, user=self.user)
        data = self.folder / "data"
        self._run("initdb", "-D", str(data), "-A", "trust", "-U", "tealeaves", "-E", "UTF8", "--no-sync")
        options = [
            "-c listen_addresses=127.0.0.1",
            f"-p {self.port}",
            f"-k {self.folder}",
            f"-c max_connections={self.max_connections}",
        ]
        if not self.durable:
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        self._run("pg_ctl", "-D", str(data), "-l", str(self.folder / "server.log"), "-w", "-t", "60",
                  "-o", " ".join(options), "start")  # fmt: skip
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "tealeaves", "tealeaves")
        return self.url

    def stop(self) -> None:
        if self.folder is None:
            return
        try:
            self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> TemporaryPostgres:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
