"""Serving a study folder: ``tealeaves study serve`` (:func:`serve`) runs the app with uvicorn.

With one worker the app is made here and handed to uvicorn; with several, uvicorn imports the app
factory :func:`app_from_environment` by its path in each worker, which reads the app's settings
(the admin token's PBKDF2 hash, never the token) from a private file. The uvicorn settings (the
path prefix, the request head's deadline) are :func:`~tealeaves.study.web.limits.server_options`.
On PostgreSQL the server claims its connection budget before it starts
(:meth:`~tealeaves.study.store.Store.claim_connections`), and its pools stay within it.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import secrets
import socket
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from tealeaves.errors import InputError, is_count
from tealeaves.study.design import DEFAULT_DB_FILE, Study
from tealeaves.study.store import (
    DEFAULT_ANSWER_MINUTES,
    DEFAULT_IDLE_MINUTES,
    RESUME,
    Store,
    claim_name,
    normalise_url,
)
from tealeaves.study.web.app import create_app, path_segments
from tealeaves.study.web.limits import (
    DEFAULT_LIVE_PER_CLIENT,
    DEFAULT_LIVE_PER_PID_PATTERN,
    DEFAULT_STARTS_PER_CLIENT,
    server_options,
)
from tealeaves.study.web.security import admin_verifier, check_admin_token

FACTORY = "tealeaves.study.web.serving:app_from_environment"
"""The app factory uvicorn imports in each worker (``uvicorn --factory``)."""
CONFIG_VARIABLE = "TEALEAVES_STUDY_SERVE"
"""With several workers: the path of a private (0600) file with the app's settings, never the token."""
TOKEN_VARIABLE = "TEALEAVES_ADMIN_TOKEN"
"""The admin token's environment variable; :func:`serve` erases it before anything starts."""
DB_HEADROOM = 5
"""PostgreSQL connections every server leaves free for others (psql, ``study export``)."""
MIN_POOL = 4
"""The fewest connections per server process to PostgreSQL."""
POOL_PER_WORKER = 8
"""Connections per server process to PostgreSQL when ``--max-connections`` is not given (plus one for the claim)."""
PROXY_WARNING = (
    "warning: no --forwarded-allow-ips: every client address is the TCP peer's. Behind nginx or a load "
    "balancer all participants then share the proxy's address, and the per-address limits hold per proxy; "
    "give the proxy's address to --forwarded-allow-ips (docs: Deploying a study)."
)


def app_from_environment() -> FastAPI:
    """App factory for ``uvicorn --factory`` with several workers (settings in the file :data:`CONFIG_VARIABLE` names)."""
    config = json.loads(Path(os.environ[CONFIG_VARIABLE]).read_text(encoding="utf-8"))
    study = Study.load(config["study"])
    store = Store(config["db"], synchronous=config["synchronous"], **config["store"])
    return create_app(study, store, admin_hash=config["admin_hash"], **config["app"])


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
    require_pid: bool = False,
    starts_per_client: int = DEFAULT_STARTS_PER_CLIENT,
    synchronous: str = "full",
    *,
    live_per_client: int = DEFAULT_LIVE_PER_CLIENT,
    answer_minutes: float = DEFAULT_ANSWER_MINUTES,
    idle_minutes: float = DEFAULT_IDLE_MINUTES,
    after_idle: str = RESUME,
    forwarded_allow_ips: str | None = None,
    lab_networks: str | None = None,
    root_path: str = "",
    pid_pattern: str | None = None,
    live_per_pid_pattern: int = DEFAULT_LIVE_PER_PID_PATTERN,
    max_connections: int | None = None,
) -> None:
    """Serve a study folder with uvicorn until interrupted (see :func:`create_app` and :class:`Store`).

    A token is made and printed only when none is given; a given one (``--admin-token`` or
    ``TEALEAVES_ADMIN_TOKEN``) must be strong enough (:func:`check_admin_token`), is never printed,
    and the variable is erased from the environment, the process's own copy included
    (:func:`forget_variable`), before anything starts. With several workers, the workers read
    their settings (the token's PBKDF2 hash, not the token) from a private file removed at exit.
    ``forwarded_allow_ips``: the proxies trusted for the client's address and scheme
    (:func:`~tealeaves.study.web.limits.trusted_proxies`); without them a warning is printed.
    ``lab_networks``: client networks exempt from the per-address bounds. ``root_path``: the path
    prefix the proxy serves the app under; the links printed carry it and work on the app's own
    port too. The admin login attempts counted in the store are forgotten at start (a restart
    lifts a lockout). On PostgreSQL the server opens at most ``max_connections`` connections, all
    its processes together (default: :data:`POOL_PER_WORKER` per worker and one for the claim),
    and refuses to start unless ``max_connections`` of the database holds them besides every other
    server's claim and the connections open (:meth:`Store.claim_connections`).
    """
    import uvicorn

    forget_variable(TOKEN_VARIABLE)  # read once by the caller; never inherited by the workers
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    check_address(host, port)
    uvicorn_options = server_options(root_path)
    _check_root_path(root_path)
    study = Study.load(study_path)
    db = db or default_db(study_path)
    store_options: dict[str, Any] = {
        "answer_minutes": answer_minutes,
        "idle_minutes": idle_minutes,
        "after_idle": after_idle,
    }
    made = admin_token is None
    token = secrets.token_urlsafe(18) if admin_token is None else check_admin_token(admin_token)
    verifier = admin_verifier(study.study_id, token)
    options: dict[str, Any] = {
        "require_pid": require_pid,
        "starts_per_client": starts_per_client,
        "live_per_client": live_per_client,
        "pid_pattern": pid_pattern,
        "live_per_pid_pattern": live_per_pid_pattern,
        "forwarded_allow_ips": forwarded_allow_ips,
        "lab_networks": lab_networks,
    }
    postgres = not normalise_url(db).startswith("sqlite")
    budget = max_connections if max_connections is not None else POOL_PER_WORKER * workers + 1
    if postgres:
        store_options |= {"pool_size": _pool_size(budget, workers), "application_name": claim_name(budget)}
    store = Store(db, synchronous=synchronous, **store_options)
    claim = None
    try:
        if postgres:
            claim = store.claim_connections(budget, DB_HEADROOM)
        store.ensure_study(study)
        app = create_app(study, store, admin_hash=verifier, **options)  # checks the options before announcing
        store.clear_logins(study)
        _announce(announce, study, store, host, port, root_path, token if made else None)
        if not forwarded_allow_ips:
            announce(PROXY_WARNING)
        _raise_descriptor_limit()
        run_options = {"host": host, "port": port, "log_level": log_level, **uvicorn_options}
        if workers == 1:
            uvicorn.run(app, **run_options)
            return
        store.close()
        _run_workers(
            {"study": str(study_path), "db": db, "admin_hash": verifier, "synchronous": synchronous},
            store_options,
            options,
            workers,
            run_options,
        )
    finally:
        store.close()
        if claim is not None:
            claim.close()


def check_address(host: str, port: int) -> None:
    """Refuse, before anything is printed, an address the server cannot listen on: a port outside 0-65535, a
    host that names no address, an address that is not this machine's, or a port another server holds.
    uvicorn reported them after the banner and the admin token, as a traceback (OverflowError) or an
    ``ERROR:`` line with exit code 1 or 3. A probe socket binds the address as uvicorn does
    (``SO_REUSEADDR``) and closes it."""
    if not is_count(port, minimum=0) or port > 65535:
        raise InputError(f"port must be a whole number from 0 to 65535, got {port!r}")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise InputError(
            f"cannot serve on host {host!r}: {exc.strerror}; give an address of this machine (127.0.0.1 for this "
            "machine alone, 0.0.0.0 for every network it is on)"
        ) from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            fix = (
                "another server listens there: choose another --port, or stop that server"
                if exc.errno == errno.EADDRINUSE
                else "give an address of this machine (127.0.0.1, 0.0.0.0), or a port above 1023"
            )
            raise InputError(f"cannot serve on {host}:{port}: {exc.strerror}; {fix}") from None


def _announce(
    announce: Callable[[str], None], study: Study, store: Store, host: str, port: int, root_path: str, token: str | None
) -> None:
    """Print where the study is served: links on the app's own port, with the ``root_path`` they carry
    behind the proxy (the app serves them on its own port too), and a token made now."""
    base = f"http://{host if ':' not in host else f'[{host}]'}:{port}{root_path}"
    announce(f"study {study.study_id} ({study.task}, {len(study.items)} items), responses in {store.display_url}")
    announce(
        f"participants: {base}/   (Prolific: {base}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        f"&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}})"
    )
    announce(f"admin:        {base}/admin/login")
    if root_path:
        announce(f"behind the proxy the same paths follow its own address: https://YOUR-HOST{root_path}/")
    if token is not None:
        announce(f"admin token:  {token}   (made now: choose one with --admin-token or TEALEAVES_ADMIN_TOKEN)")


def _run_workers(
    settings: dict[str, Any], store_options: dict[str, Any], options: dict[str, Any], workers: int, run: dict[str, Any]
) -> None:
    """uvicorn with ``workers`` processes, each making the app from a private settings file."""
    import uvicorn

    folder = Path(tempfile.mkdtemp(prefix="tealeaves-serve-"))
    config = folder / "config.json"
    try:
        descriptor = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump({**settings, "store": store_options, "app": options}, handle)
        os.environ[CONFIG_VARIABLE] = str(config)
        uvicorn.run(FACTORY, factory=True, workers=workers, **run)
    finally:
        os.environ.pop(CONFIG_VARIABLE, None)
        config.unlink(missing_ok=True)
        folder.rmdir()


def _pool_size(budget: int, workers: int) -> int:
    """Connections per process: the budget, less the claim's connection, shared by the ``workers``;
    an error when that is under :data:`MIN_POOL`."""
    if (budget - 1) // workers < MIN_POOL:
        raise InputError(
            f"--max-connections {budget} is too few for {workers} workers: each needs {MIN_POOL} connections, "
            f"and the server one more, {MIN_POOL * workers + 1} in all"
        )
    return (budget - 1) // workers


def _check_root_path(root_path: str) -> None:
    """Refuse a ``root_path`` whose first segment is one of the app's own (``/s``, ``/admin``, ...):
    its paths could not be told from the app's on the app's own port."""
    if root_path and root_path.split("/")[1] in path_segments():
        raise InputError(
            f"--root-path {root_path} begins like the app's own paths ({', '.join(sorted(path_segments()))}); "
            "choose another prefix, e.g. /study"
        )


def forget_variable(name: str) -> None:
    """Remove the environment variable ``name``, and erase its value where the process's environment
    began (what ``/proc/PID/environ`` shows, which removing alone leaves): the admin token must not
    stay readable in the main process's environment."""
    if name not in os.environ:
        return
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None)
            entries = ctypes.POINTER(ctypes.c_void_p).in_dll(libc, "environ")
            prefix = f"{name}=".encode()
            index = 0
            while entries[index]:
                address = entries[index]
                text = ctypes.string_at(address)
                if text.startswith(prefix):
                    ctypes.memset(address + len(prefix), 0, len(text) - len(prefix))
                index += 1
        except (OSError, ValueError, AttributeError) as exc:  # pragma: no cover - depends on the C library
            warnings.warn(f"could not erase {name} from the process's environment: {exc}", stacklevel=2)
    os.environ.pop(name, None)


def _raise_descriptor_limit() -> None:
    """Raise the soft limit on open files to the hard limit: each connection holds a descriptor."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Unix
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError) as exc:  # pragma: no cover - depends on the system
            warnings.warn(f"could not raise the open-file limit from {soft}: {exc}", stacklevel=2)
