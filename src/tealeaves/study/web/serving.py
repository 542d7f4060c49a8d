"""Serving a study folder: ``tealeaves study serve`` (:func:`serve`) runs the app with uvicorn.

With one worker the app is made here and handed to uvicorn; with several, uvicorn imports the app
factory :func:`app_from_environment` by its path in each worker, which reads the app's settings
(the admin token's PBKDF2 hash, never the token) from a private file. The uvicorn settings (the
trusted proxies, the request head's deadline) are :func:`~tealeaves.study.web.limits.server_options`.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from tealeaves.errors import InputError
from tealeaves.study.design import DEFAULT_DB_FILE, Study
from tealeaves.study.store import DEFAULT_ANSWER_MINUTES, DEFAULT_IDLE_MINUTES, Store
from tealeaves.study.web.app import create_app
from tealeaves.study.web.limits import (
    DEFAULT_LIVE_PER_CLIENT,
    DEFAULT_LIVE_PER_PID_PATTERN,
    DEFAULT_STARTS_PER_CLIENT,
    server_options,
)
from tealeaves.study.web.security import admin_verifier

FACTORY = "tealeaves.study.web.serving:app_from_environment"
"""The app factory uvicorn imports in each worker (``uvicorn --factory``)."""
CONFIG_VARIABLE = "TEALEAVES_STUDY_SERVE"
"""With several workers: the path of a private (0600) file with the app's settings, never the token."""
TOKEN_VARIABLE = "TEALEAVES_ADMIN_TOKEN"
"""The admin token's environment variable; :func:`serve` removes it before anything starts."""
DB_HEADROOM = 5
"""PostgreSQL connections :func:`serve` leaves free for others (psql, ``study export``)."""
MIN_POOL, MAX_POOL = 4, 20
"""Connections per server process to PostgreSQL: as many as fit, within these bounds."""
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
    forwarded_allow_ips: str | None = None,
    root_path: str = "",
    pid_pattern: str | None = None,
    live_per_pid_pattern: int = DEFAULT_LIVE_PER_PID_PATTERN,
) -> None:
    """Serve a study folder with uvicorn until interrupted (see :func:`create_app` and :class:`Store`).

    A token is made and printed only when none is given; a given one (``--admin-token`` or
    ``TEALEAVES_ADMIN_TOKEN``) is never printed, and the variable is removed from the environment
    before anything starts. With several workers, the workers read their settings (the token's
    PBKDF2 hash, not the token) from a private file removed at exit. ``forwarded_allow_ips``: the
    proxies trusted for the client's address and scheme (:func:`trusted_proxies`); without them a
    warning is printed. ``root_path``: the path prefix the proxy serves the app under. The admin
    login attempts counted in the store are forgotten at start (a restart lifts a lockout). On
    PostgreSQL each process keeps :data:`MIN_POOL` to :data:`MAX_POOL` connections, as many as
    ``max_connections`` allows for ``workers`` processes; too few is an error at start.
    """
    import uvicorn

    os.environ.pop(TOKEN_VARIABLE, None)  # read once by the caller; never inherited by the workers
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    uvicorn_options = server_options(forwarded_allow_ips, root_path)
    study = Study.load(study_path)
    db = db or default_db(study_path)
    store_options: dict[str, Any] = {"answer_minutes": answer_minutes, "idle_minutes": idle_minutes}
    store = Store(db, synchronous=synchronous, **store_options)
    store.ensure_study(study)
    if not store.is_sqlite:
        store_options["pool_size"] = _pool_size(store, workers)
        store.close()
        store = Store(db, synchronous=synchronous, **store_options)
    made = admin_token is None
    token = admin_token or secrets.token_urlsafe(18)
    verifier = admin_verifier(study.study_id, token)
    options: dict[str, Any] = {
        "require_pid": require_pid,
        "starts_per_client": starts_per_client,
        "live_per_client": live_per_client,
        "pid_pattern": pid_pattern,
        "live_per_pid_pattern": live_per_pid_pattern,
    }
    app = create_app(study, store, admin_hash=verifier, **options)  # checks the options before announcing
    store.clear_logins(study)
    base = f"http://{host if ':' not in host else f'[{host}]'}:{port}{root_path}"
    announce(f"study {study.study_id} ({study.task}, {len(study.items)} items), responses in {store.display_url}")
    announce(
        f"participants: {base}/   (Prolific: {base}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        f"&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}})"
    )
    announce(f"admin:        {base}/admin/login")
    if made:
        announce(f"admin token:  {token}   (made now: choose one with --admin-token or TEALEAVES_ADMIN_TOKEN)")
    if not uvicorn_options["proxy_headers"]:
        announce(PROXY_WARNING)
    _raise_descriptor_limit()
    run_options = {"host": host, "port": port, "log_level": log_level, **uvicorn_options}
    if workers == 1:
        uvicorn.run(app, **run_options)
        return
    store.close()
    folder = Path(tempfile.mkdtemp(prefix="tealeaves-serve-"))
    config = folder / "config.json"
    try:
        descriptor = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            settings = {"study": str(study_path), "db": db, "admin_hash": verifier, "synchronous": synchronous}
            json.dump({**settings, "store": store_options, "app": options}, handle)
        os.environ[CONFIG_VARIABLE] = str(config)
        uvicorn.run(FACTORY, factory=True, workers=workers, **run_options)
    finally:
        os.environ.pop(CONFIG_VARIABLE, None)
        config.unlink(missing_ok=True)
        folder.rmdir()


def _pool_size(store: Store, workers: int) -> int:
    """Connections per process: what PostgreSQL's ``max_connections`` leaves for ``workers``
    processes after the connections open now and :data:`DB_HEADROOM`, at most :data:`MAX_POOL`;
    an error when it is under :data:`MIN_POOL`."""
    limit, in_use = store.connection_budget()
    free = limit - in_use - DB_HEADROOM
    if free // workers < MIN_POOL:
        raise InputError(
            f"PostgreSQL allows {limit} connections (max_connections less superuser_reserved_connections) and "
            f"{in_use} are open: {workers} workers need {MIN_POOL} each plus {DB_HEADROOM} spare, "
            f"{in_use + MIN_POOL * workers + DB_HEADROOM} in all; raise max_connections in postgresql.conf "
            "or use fewer --workers"
        )
    return min(MAX_POOL, free // workers)


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
