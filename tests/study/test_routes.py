"""Every route of the study app and the dependency that guards it: a route added without its guard fails here.

The table below is the whole app. Each route's guards are read from FastAPI's dependency tree
(what runs before the route), checked to run first, and then probed over HTTP: without the admin
cookie every admin route answers 401, without the session cookie every session route answers 403,
and neither request reaches the store.
"""

from __future__ import annotations

import re

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from tealeaves.study.web.dependencies import require_admin, session_key

TOKEN = "routes-admin-token"
ADMIN, SESSION = require_admin, session_key
GUARDS = {
    ("GET", "/"): None,
    ("POST", "/start"): None,
    ("POST", "/decline"): None,
    ("GET", "/static/item.js"): None,
    ("GET", "/healthz"): None,
    ("GET", "/admin/login"): None,
    ("POST", "/admin/login"): None,
    ("GET", "/s/{token}"): SESSION,
    ("GET", "/s/{token}/instructions"): SESSION,
    ("GET", "/s/{token}/next"): SESSION,
    ("GET", "/s/{token}/q/{position}"): SESSION,
    ("POST", "/s/{token}/q/{position}"): SESSION,
    ("GET", "/s/{token}/q/{position}/answer"): SESSION,
    ("GET", "/s/{token}/done"): SESSION,
    ("GET", "/admin"): ADMIN,
    ("POST", "/admin/evict"): ADMIN,
    ("GET", "/admin/progress.json"): ADMIN,
    ("GET", "/admin/export.{fmt}"): ADMIN,
    ("GET", "/admin/study.qsf"): ADMIN,
    ("GET", "/admin/participants.csv"): ADMIN,
}


def closure(dependant) -> list:
    """Every dependency a route runs, depth first, in the order FastAPI runs them."""
    out = []
    for sub in dependant.dependencies:
        out += closure(sub)
        out.append(sub.call)
    return out


def routes(app) -> dict[tuple[str, str], APIRoute]:
    """Every route as FastAPI serves it: with the dependencies of the routers that include it."""
    try:
        from fastapi.routing import iter_route_contexts  # FastAPI 0.16x: included routers stay routers
    except ImportError:  # older FastAPI copies the included routes, their routers' dependencies first
        served = list(app.routes)
    else:
        served = list(iter_route_contexts(app.routes))
    originals = [getattr(route, "original_route", route) for route in served]
    assert all(isinstance(route, APIRoute) for route in originals), originals  # no mounts, no docs
    return {(method, route.path): route for route in served for method in route.methods}


def test_every_route_is_in_the_table_with_its_guard_running_first(make):
    _, _, app = make()
    table = routes(app)
    assert set(table) == set(GUARDS)
    for key, route in table.items():
        called = closure(route.dependant)
        guards = {guard for guard in (ADMIN, SESSION) if guard in called}
        assert guards == ({GUARDS[key]} if GUARDS[key] else set()), key
        if GUARDS[key] is not None:  # before anything else that refuses or reads (context lookups aside)
            assert next(c for c in called if c.__name__ != "study_context") is GUARDS[key], key


def test_every_admin_route_refuses_without_the_cookie_and_every_session_route_without_the_key(make):
    study, store, app = make()
    c = TestClient(app, follow_redirects=False)
    for (method, path), guard in GUARDS.items():
        if guard is None:
            continue
        url = re.sub(r"\{token\}", "AAAAAAAAAAAAAAAAAAAAAA", path).replace("{position}", "1").replace("{fmt}", "csv")
        reply = c.request(method, url, data={"annotator": "0123456789abcdef", "answer": "1"})
        assert reply.status_code == (401 if guard is ADMIN else 403), (method, url, reply.text[:200])
    assert store.participants(study.study_id) == [] and store.responses(study.study_id) == []


@pytest.mark.parametrize("path", ["/admin", "/admin/progress.json", "/admin/export.csv", "/admin/participants.csv"])
def test_a_forged_or_expired_admin_cookie_is_refused(make, path):
    study, _, app = make()
    c = TestClient(app, follow_redirects=False)
    name = f"tl_admin_{study.study_id}"
    for value in ("1.abc", "99999999999.0000", f"{'1' * 10}.{'0' * 64}", "", "x" * 100):
        c.cookies.set(name, value)
        assert c.get(path).status_code == 401, value
