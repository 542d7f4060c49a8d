"""The study app deployed for real (issue 24), each point driven through HTTP against a live server
on loopback; other client addresses come from binding the client socket to 127.0.0.x, and a
"balancer" is a client at 127.0.0.2 that sends ``X-Forwarded-For`` and ``X-Forwarded-Proto``.

Each test names the point of the issue it holds the app to; each fails on the app before it.
"""

from __future__ import annotations

import asyncio
import csv
import io
import ipaddress
import logging
import os
import random
import re
import socket
import string
import subprocess
import sys
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

import tealeaves.study.web.admin as study_admin
import tealeaves.study.web.limits as study_limits
from tealeaves.errors import MissingDependencyError
from tealeaves.study import create_study, export_responses
from tealeaves.study.store import Store, pid_class
from tealeaves.study.testing import LiveServer, TemporaryPostgres, free_port, parse_page, platform_id, unavailable
from tealeaves.study.web.limits import PROLIFIC_PID_PATTERN, ForwardedFor, TimedH11Protocol
from tealeaves.study.web.security import ADMIN_CHECKS_IN_FLIGHT, ADMIN_LOGIN_FAILURES, ADMIN_SLOW_LANE
from tealeaves.study.web.serving import PROXY_WARNING, default_db, serve

TOKEN = "deploy-admin-token"
BALANCER = "127.0.0.2"


def browser(server, address="127.0.0.1", forwarded=None, https=False):
    """A browser of its own (cookies) connecting from ``address``; through the balancer with ``forwarded``."""
    headers = {}
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
        headers["X-Forwarded-Proto"] = "https" if https else "http"
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, transport=transport, headers=headers, follow_redirects=False, timeout=60)


def start(c, root="", **platform):
    """Consent as the page asks (its nonce included); the start's response."""
    r = c.get("/", params=platform)
    assert r.status_code == 200, r.text[:300]
    nonce = re.search(r'name="nonce" value="([^"]+)"', r.text)
    action = re.search(r'<form[^>]*action="([^"]*/start)"', r.text).group(1)
    assert action == f"{root}/start"
    form = {"consent": "yes", **platform, **({"nonce": nonce.group(1)} if nonce else {})}
    return c.post("/start", data=form)


def token_of(response, root=""):
    assert response.status_code == 303, response.text[:300]
    location = response.headers["location"]
    assert location.startswith(f"{root}/s/"), location
    return location.split("/")[len(root.split("/")) + 1]


def walk(c, token, limit=100, root=""):
    """Answer the questions the app gives (first choice, familiarity 1): the last page and the answers sent."""
    url, answered = f"/s/{token}/next", 0
    for _ in range(400):
        r = c.get(url)
        if r.status_code == 303:
            if r.headers["location"].startswith("https://"):  # to the recruitment site, with the code
                return r, answered
            url = r.headers["location"].removeprefix(root)
            continue
        page, _ = parse_page(url, r.text)
        if page is None or answered == limit:
            return r, answered
        r = c.post(page.action.removeprefix(root), data={"answer": str(page.answers[0][0]), "familiarity": "1"})
        assert r.status_code == 303, r.text[:300]
        answered += 1
        url = r.headers["location"].removeprefix(root)
    raise AssertionError("no end in sight")


def code_text(r):
    return re.search(r'id="completion-code">([^<]+)<', r.text).group(1)


def login(c, token=TOKEN):
    return c.post("/admin/login", data={"token": token})


def retry_after(r):
    assert r.status_code == 429, (r.status_code, r.text[:200])
    return int(r.headers["Retry-After"])


@contextmanager
def served(folder, db, workers=3, *options):
    """``tealeaves study serve FOLDER --db DB --workers N [OPTIONS]`` with the admin token in the environment:
    the process and the base URL, once ``/healthz`` answers; the output when it stops in ``process.output``."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tealeaves.cli", "study", "serve", str(folder), "--port", str(port),
         "--db", db, "--workers", str(workers), *options],
        env={**os.environ, "TEALEAVES_ADMIN_TOKEN": TOKEN}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        yield process, base
    finally:
        process.terminate()
        process.output = process.communicate(timeout=60)[0]


async def guesses(url, addresses):
    """One wrong admin token from each of ``addresses`` at once: the replies."""

    async def one(n, address):
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(base_url=url, transport=transport, timeout=120) as c:
            return await c.post("/admin/login", data={"token": f"concurrent-guess-{n}"})

    return await asyncio.gather(*(one(n, address) for n, address in enumerate(addresses)))


# --------------------------------------------------------------------------- 1. behind a proxy
def test_1_behind_a_trusted_balancer_participants_and_the_admin_keep_their_own_addresses(make):
    study, store, app = make({"forwarded_allow_ips": BALANCER}, topics_per_model=5)
    with LiveServer(app, root_path="/study") as server:
        for n in range(25):  # each with their own address; a header the client made up is ignored
            c = browser(server, BALANCER, forwarded=f"10.6.6.6, 198.51.100.{n + 1}", https=True)
            r = start(c, root="/study", PROLIFIC_PID=platform_id("balancer", n))
            assert token_of(r, root="/study")
            assert "secure" in r.headers["set-cookie"].lower()  # HTTPS as the balancer saw it
        guesser = browser(server, BALANCER, forwarded="203.0.113.66", https=True)
        assert [login(guesser, f"wrong-guess-{i}").status_code for i in range(10)] == [403] * 10
        assert 0 < retry_after(login(guesser)) <= ADMIN_SLOW_LANE  # locked out, right token or not
        admin = browser(server, BALANCER, forwarded="192.0.2.10", https=True)
        signed_in = login(admin)
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "/study/admin"
        assert all("secure" in value.lower() for value in signed_in.headers.get_list("set-cookie"))
        # a peer that is not the balancer cannot choose its address: its header is ignored
        direct = browser(server, "127.0.0.3", forwarded="192.0.2.10")
        assert [login(direct, f"wrong-guess-{i}").status_code for i in range(11)] == [403] * 10 + [429]
        assert login(browser(server, BALANCER, forwarded="192.0.2.10")).status_code == 303
        # IPv6: the limits count the /64
        for n in range(5):
            c = browser(server, BALANCER, forwarded=f"2001:db8:5:6::{n + 1}")
            assert token_of(start(c, root="/study"), root="/study")
        assert retry_after(start(browser(server, BALANCER, forwarded="2001:db8:5:6:ffff::1"), root="/study")) > 0
        assert token_of(start(browser(server, BALANCER, forwarded="2001:db8:5:7::1"), root="/study"), root="/study")
    assert len(store.participants(study.study_id)) == 25 + 5 + 1


def test_1_without_the_proxy_setting_the_limits_hold_per_balancer_and_serve_warns(make, models, tmp_path, monkeypatch):
    study, _, app = make(topics_per_model=5)
    with LiveServer(app) as server:
        admin = browser(server, BALANCER, forwarded="192.0.2.10")
        assert login(admin).status_code == 303  # the admin signed in once from this browser
        crowd = [browser(server, BALANCER, forwarded=f"198.51.100.{n + 1}", https=True) for n in range(6)]
        started = [start(c, PROLIFIC_PID=platform_id("nat", n)) for n, c in enumerate(crowd)]
        assert [r.status_code for r in started] == [303] * 5 + [429]  # 5 live participants per address
        assert "secure" not in started[0].headers["set-cookie"].lower()  # an untrusted peer says nothing
        assert 0 < retry_after(started[-1]) <= 3600
        guesser = browser(server, BALANCER, forwarded="203.0.113.66")
        statuses = [login(guesser, f"wrong-guess-{i}").status_code for i in range(11)]
        assert statuses == [403] * 10 + [429]
        assert retry_after(login(browser(server, BALANCER))) > 0  # the balancer's address is locked out...
        admin.cookies.delete(f"tl_admin_{study.study_id}")
        assert login(admin).status_code == 303  # ...but not the admin's browser, which holds a device cookie
        assert admin.get("/admin").status_code == 200
        assert [login(admin, f"typo-{i}").status_code for i in range(11)] == [403] * 10 + [429]  # counted per device

    lines = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: lines.append({"app": app, **kwargs}))
    folder = tmp_path / "served"
    served_study = create_study(models, "word-intrusion", folder, seed=1, annotators=2, items_per_participant=3)
    store = Store(default_db(folder))
    store.ensure_study(served_study)

    def attempt():
        return store.admit_login(served_study, "client:x", limit=ADMIN_LOGIN_FAILURES, window_s=900, slow_lane_s=90)

    assert all(attempt()[0] is not None for _ in range(ADMIN_LOGIN_FAILURES)) and attempt()[0] is None
    serve(folder, admin_token=TOKEN, announce=lines.append)
    assert attempt()[0] is not None  # a restart lifts a lockout
    store.close()
    assert PROXY_WARNING in lines and not lines[-1]["proxy_headers"]
    serve(folder, admin_token=TOKEN, announce=lines.append, forwarded_allow_ips="10.0.0.0/8", root_path="/study")
    trusted = [m.kwargs["trusted"] for m in lines[-1]["app"].user_middleware if m.cls is ForwardedFor]
    assert trusted == [[ipaddress.ip_network("10.0.0.0/8")]] and lines[-1]["root_path"] == "/study"
    assert lines.count(PROXY_WARNING) == 1


def test_1_concurrent_wrong_tokens_are_counted_before_they_are_checked(make, monkeypatch):
    checking, most, lock = [0], [0], threading.Lock()
    verify = study_admin.admin_verifier

    def counted(study_id, token):
        with lock:
            checking[0] += 1
            most[0] = max(most[0], checking[0])
        try:
            return verify(study_id, token)
        finally:
            with lock:
                checking[0] -= 1

    monkeypatch.setattr(study_admin, "admin_verifier", counted)
    _, _, app = make()
    with LiveServer(app) as server:
        replies = asyncio.run(guesses(server.url, ["127.0.0.4"] * 100))
        assert Counter(r.status_code for r in replies) == {403: 10, 429: 90}
        assert all(int(r.headers["Retry-After"]) == ADMIN_SLOW_LANE for r in replies if r.status_code == 429)
        assert most[0] <= ADMIN_CHECKS_IN_FLIGHT
        spread = asyncio.run(guesses(server.url, [f"127.0.1.{n % 10 + 1}" for n in range(20)]))
        assert Counter(r.status_code for r in spread) == {403: 20}  # 2 per address: all checked...
        assert most[0] <= ADMIN_CHECKS_IN_FLIGHT  # ...never more than 2 at once


def test_1_a_new_admin_browser_gets_in_through_the_slow_lane_of_a_locked_out_address(make, clock):
    lane = 30
    _, _, app = make({"admin_slow_lane": lane})
    with LiveServer(app) as server:
        guesser, checked = browser(server, "127.0.0.4"), []
        for second in range(0, 1800, 10):  # a wrong token every 10 s for half an hour
            r = login(guesser, f"wrong-guess-{second}")
            if r.status_code == 403:
                checked.append(second)
            else:
                assert 0 < retry_after(r) <= lane
            clock.advance(10_000)
        locked = checked[ADMIN_LOGIN_FAILURES - 1]
        assert checked[:ADMIN_LOGIN_FAILURES] == list(range(0, locked + 10, 10))
        # then one check per slow-lane interval, each counted: the lockout never lifts
        assert checked[ADMIN_LOGIN_FAILURES:] == list(range(locked + lane, 1800, lane))
        assert login(guesser, "wrong-guess-at-1800").status_code == 403  # the guesser took this slot
        admin = browser(server, "127.0.0.4")  # a new browser of the admin, no device cookie, same address
        wait = retry_after(login(admin))
        assert wait == lane
        clock.advance(wait * 1000)
        signed_in = login(admin)
        assert signed_in.status_code == 303 and admin.get("/admin").status_code == 200
        assert retry_after(login(guesser, "wrong-guess-after")) > 0  # (the admin's right token was not counted)


def test_1_wrong_tokens_are_counted_in_the_database_across_three_workers(models, tmp_path, db_url):
    folder = tmp_path / "study"
    create_study(models, "word-intrusion", folder, seed=1, annotators=2, items_per_participant=3)
    with served(folder, db_url) as (_, base):
        replies = asyncio.run(guesses(base, ["127.0.0.4"] * 100))
        statuses = Counter(r.status_code for r in replies)
        assert statuses == {403: ADMIN_LOGIN_FAILURES, 429: 100 - ADMIN_LOGIN_FAILURES}, statuses
        server = SimpleNamespace(url=base)
        assert 0 < retry_after(login(browser(server, "127.0.0.4"))) <= ADMIN_SLOW_LANE
        assert login(browser(server, "127.0.0.5")).status_code == 303


# --------------------------------------------------------------------------- 2. squatters
def test_2_squatting_fake_pid_sessions_do_not_starve_a_real_participant(make, clock):
    study, _, app = make({"require_pid": True}, topics_per_model=5)  # 10 items x 2 answers, 3 each
    minute = 60_000
    with LiveServer(app) as server:
        # from one address, 5 live sessions at most; the real participant finishes at once
        # made-up ids of the platform's shape (ids made up by counting are bounded per class, below)
        squat = [start(browser(server, "127.0.0.5"), PROLIFIC_PID=platform_id("fake", n)) for n in range(18)]
        assert [r.status_code for r in squat] == [303] * 5 + [429] * 13
        assert all(0 < retry_after(r) <= 3600 for r in squat[5:])
        real = browser(server, "127.0.0.6")
        r, answered = walk(real, token_of(start(real, PROLIFIC_PID="REAL01")))
        assert answered == 3 and code_text(r) == study.code_for("REAL01")

        # from 18 addresses they take every open question, and reload it every minute
        second = browser(server, "127.0.0.7")
        token = token_of(start(second, PROLIFIC_PID="REAL02"))
        walk(second, token, limit=2)  # the third question is on screen; then the participant steps away
        squatters = [browser(server, f"127.0.0.{n + 10}") for n in range(18)]
        tokens = [token_of(start(c, PROLIFIC_PID=platform_id("fake", n + 20))) for n, c in enumerate(squatters)]

        def squat():
            held = 0
            for c, held_token in zip(squatters, tokens):
                r = c.get(f"/s/{held_token}/next")
                if r.status_code == 303 and "/q/" in r.headers["location"]:
                    held += c.get(r.headers["location"]).status_code == 200
            return held

        assert squat() == 14  # 20 answers wanted: 5 given, 1 on the real participant's screen
        for _ in range(11):  # 11 minutes later the real participant's lease has run out
            clock.advance(minute)
            squat()
        waited = 0
        while 'id="wait"' in (r := second.get(f"/s/{token}/next")).text:
            clock.advance(minute)
            squat()
            waited += 1
            assert waited <= 12, "the squatters' leases never ran out"
        assert waited >= 5  # the real participant had to wait: every open question was held
        r, answered = walk(second, token)
        assert answered == 1 and code_text(r) == study.code_for("REAL02")

        # after an hour without an answer the squatters expire: their questions are free, they get no other
        clock.advance(61 * minute)
        r = squatters[0].get(f"/s/{tokens[0]}/next")
        assert r.status_code == 200 and "Your session has expired" in r.text
        assert token_of(start(browser(server, "127.0.0.5"), PROLIFIC_PID=platform_id("fake", 99)))  # none live


def test_2_ids_made_up_by_counting_hold_few_live_sessions_from_any_number_of_addresses(make):
    assert pid_class("user1") == pid_class("USER22") == "user#" and pid_class("AAAA0417") == "aaaa#"
    rng = random.Random(24)
    prolific = ["".join(rng.choice("0123456789abcdef") for _ in range(24)) for _ in range(40)]
    mturk = ["A" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(rng.randint(12, 14) - 1))
             for _ in range(20)]  # fmt: skip
    assert len({pid_class(pid) for pid in prolific + mturk}) == 60
    _, _, app = make({"require_pid": True, "forwarded_allow_ips": BALANCER}, topics_per_model=5)
    addresses = (f"198.51.{n // 250}.{n % 250 + 1}" for n in range(1000))

    with LiveServer(app) as server:

        def begin(pid):  # each from an address of its own, through the balancer
            return start(browser(server, BALANCER, forwarded=next(addresses)), PROLIFIC_PID=pid)

        bound = study_limits.DEFAULT_LIVE_PER_PID_PATTERN
        for made_up in ([f"user{n}" for n in range(1, 13)], [f"AAAA{n:04d}" for n in range(1, 13)]):
            replies = [begin(pid) for pid in made_up]
            assert [r.status_code for r in replies] == [303] * bound + [429] * (12 - bound)
            assert all("ids like yours" in r.text and 0 < retry_after(r) <= 3600 for r in replies[bound:])
        assert begin("User99").status_code == 429
        assert [begin(pid).status_code for pid in prolific + mturk] == [303] * 60  # random ids are people
        farmer = browser(server, BALANCER, forwarded="203.0.113.5")
        r, answered = walk(farmer, token_of(start(farmer, PROLIFIC_PID="user1")))  # a known id resumes
        assert answered == 3 and "completion-code" in r.text
        assert begin("user13").status_code == 303  # user1 finished: a place in the class is free
        assert begin("user14").status_code == 429


def test_2_made_up_ids_of_another_shape_than_the_platforms_are_refused(make):
    study, store, app = make({"pid_pattern": PROLIFIC_PID_PATTERN})
    with LiveServer(app) as server:
        c = browser(server)
        r = c.get("/", params={"PROLIFIC_PID": "FAKE01"})
        assert r.status_code == 400 and "not one the recruitment site gives" in r.text
        assert c.post("/start", data={"consent": "yes", "PROLIFIC_PID": "FAKE01"}).status_code == 400
        assert token_of(start(c, PROLIFIC_PID="5f1d2a9b" * 3))
    assert [p["external_id"] for p in store.participants(study.study_id)] == ["5f1d2a9b" * 3]


def test_2_an_admin_evicts_a_participant(make, models):
    study, _, app = make(source={"M": models["MODEL_ALPHA"]}, topics_per_model=1, annotators=1,
                             items_per_participant=1)  # fmt: skip
    with LiveServer(app) as server:
        squatter = browser(server, "127.0.0.5")
        token = token_of(start(squatter, PROLIFIC_PID="SQUAT1"))
        assert "/q/" in squatter.get(f"/s/{token}/next").headers["location"]
        waiting = browser(server, "127.0.0.6")
        other = token_of(start(waiting, PROLIFIC_PID="REAL01"))
        assert 'id="wait"' in waiting.get(f"/s/{other}/next").text
        admin = browser(server, "127.0.0.9")
        login(admin)
        listed = list(csv.DictReader(io.StringIO(admin.get("/admin/participants.csv").text)))
        annotator = next(row["annotator"] for row in listed if row["external_id"] == "SQUAT1")
        assert browser(server).post("/admin/evict", data={"annotator": annotator}).status_code == 401
        evicted = admin.post("/admin/evict", data={"annotator": annotator})
        assert evicted.status_code == 200 and "Participant evicted" in evicted.text
        assert admin.post("/admin/evict", data={"annotator": annotator}).status_code == 404
        r, answered = walk(waiting, other)
        assert answered == 1 and code_text(r) == study.completion_code
        refused = squatter.get(f"/s/{token}/next")
        assert refused.status_code == 403 and "ended your session" in refused.text
        assert start(browser(server, "127.0.0.5"), PROLIFIC_PID="SQUAT1").status_code == 403


# --------------------------------------------------------------------------- 3. farmed completions
def test_3_completions_farmed_from_one_address_are_visible_in_the_export(make):
    study, _, app = make(redirect_url="https://app.prolific.com/submissions/complete", topics_per_model=5)
    assert study.settings["per_participant_codes"]  # the default with Prolific
    with LiveServer(app) as server:
        codes = {}
        for n in range(5):  # one person, five made-up ids, each done in a moment
            c = browser(server, "127.0.0.5")
            r, _ = walk(c, token_of(start(c, PROLIFIC_PID=f"FARM{n}")))
            codes[f"FARM{n}"] = r.headers["location"].rsplit("cc=", 1)[1]
        honest = browser(server, "127.0.0.6")
        walk(honest, token_of(start(honest, PROLIFIC_PID="HONEST")))
        admin = browser(server, "127.0.0.9")
        login(admin)
        export = list(csv.DictReader(io.StringIO(admin.get("/admin/export.csv").text)))
        listed = list(csv.DictReader(io.StringIO(admin.get("/admin/participants.csv").text)))
    assert codes == {pid: study.code_for(pid) for pid in codes} and len(set(codes.values())) == 5
    by_client = {}
    for row in export:
        by_client.setdefault(row["client"], set()).add(row["annotator"])
        assert row["started_at"] <= row["shown_at"] <= row["answered_at"] <= row["finished_at"]
    assert sorted(len(annotators) for annotators in by_client.values()) == [1, 5]
    farmed = [row for row in listed if row["external_id"].startswith("FARM")]
    assert {row["from_client"] for row in farmed} == {"5"} and all(float(row["seconds"]) < 60 for row in farmed)
    assert {row["completion_code"] for row in farmed} == set(codes.values())


# --------------------------------------------------------------------------- 4. PostgreSQL and workers
@pytest.fixture
def small_postgres():
    """A PostgreSQL server with the default max_connections = 100."""
    try:
        server = TemporaryPostgres(durable=False, max_connections=100)
    except MissingDependencyError as exc:
        unavailable(str(exc))
    server.start()
    yield server
    server.stop()


def test_4_three_workers_on_postgresql_answer_200_concurrent_requests_without_a_500(models, tmp_path, small_postgres):
    folder = tmp_path / "study"
    study = create_study(models, "word-intrusion", folder, seed=1, annotators=20, items_per_participant=3)
    too_many = subprocess.run(
        [sys.executable, "-m", "tealeaves.cli", "study", "serve", str(folder), "--db", small_postgres.url,
         "--workers", "30"], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert too_many.returncode == 2 and "raise max_connections" in too_many.stdout + too_many.stderr
    with served(folder, small_postgres.url) as (process, base):
        children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
        assert len(children) >= 3
        for pid in children:  # the token was read once and never handed down to the workers
            assert TOKEN.encode() not in Path(f"/proc/{pid}/environ").read_bytes()

        async def crowd():
            async def one(n):
                transport = httpx.AsyncHTTPTransport(local_address=f"127.0.2.{n % 200 + 1}")
                async with httpx.AsyncClient(base_url=base, transport=transport, timeout=120) as c:
                    r = await c.post("/start", data={"consent": "yes", "PROLIFIC_PID": platform_id("load", n)})
                    if r.status_code != 303:
                        return r, r
                    return r, await c.get(r.headers["location"].replace("/instructions", "/next"))

            return await asyncio.gather(*(one(n) for n in range(200)))

        replies = asyncio.run(crowd())
        statuses = Counter(r.status_code for pair in replies for r in pair)
        assert set(statuses) <= {303, 503}, statuses  # no 500: at worst "busy, reload" when the pool waits 30 s
        assert statuses[303] >= 380 and all(
            r.headers["Retry-After"] for pair in replies for r in pair if r.status_code == 503
        )
        small_postgres.stop()  # the database goes away: a page a person can read, not a bare 500
        first, then = next(pair for pair in replies if pair[1].status_code == 303)
        r = httpx.get(f"{base}{then.headers['location']}", cookies=first.cookies)
        assert r.status_code == 503 and "The study is busy" in r.text and r.headers["Retry-After"]
    assert "Traceback" not in process.output and TOKEN not in process.output
    assert study.study_id in process.output


# --------------------------------------------------------------------------- 5. slow, broken and repeated requests
def test_5_disconnects_and_slow_requests_are_handled_quietly(make, monkeypatch):
    monkeypatch.setattr(TimedH11Protocol, "head_timeout", 1.0)
    monkeypatch.setattr(study_limits, "BODY_TIMEOUT", 1.0)
    _, _, app = make()
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    try:
        with LiveServer(app) as server:  # (uvicorn sets up its loggers when the server is made)
            logging.getLogger("uvicorn.error").addHandler(handler)
            for _ in range(20):  # a body cut off: the client went away
                with socket.create_connection((server.host, server.port)) as sock:
                    sock.sendall(b"POST /start HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded"
                                 b"\r\nContent-Length: 100\r\n\r\nconsent=ye")  # fmt: skip
            slow_heads = []
            for _ in range(30):  # a request's head that never ends
                sock = socket.create_connection((server.host, server.port), timeout=5)
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
                slow_heads.append(sock)
            slow_body = socket.create_connection((server.host, server.port), timeout=5)
            slow_body.sendall(b"POST /start HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded"
                              b"\r\nContent-Length: 100\r\n\r\nconsent=ye")  # fmt: skip
            assert httpx.get(f"{server.url}/healthz").status_code == 200
            for sock in slow_heads:
                assert sock.recv(100) == b""  # closed by the server after the head timeout
                sock.close()
            assert slow_body.recv(100).startswith(b"HTTP/1.1 408")
            slow_body.close()
            assert httpx.get(f"{server.url}/healthz").status_code == 200
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert not [r for r in records if r.levelno >= logging.ERROR], [r.getMessage() for r in records]


def test_5_a_double_click_on_next_goes_on_to_the_next_question(make):
    study, store, app = make()
    with LiveServer(app) as server:
        c = browser(server)
        token = token_of(start(c))
        url = c.get(f"/s/{token}/next").headers["location"]
        assert c.get(url).status_code == 200
        cookies = dict(c.cookies)
        results = [None, None]

        def click(n):
            with browser(server) as twin:
                twin.cookies.update(cookies)
                results[n] = twin.post(url, data={"answer": str(n), "familiarity": "1"})

        threads = [threading.Thread(target=click, args=(n,)) for n in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [r.status_code for r in results] == [303, 303], [r.text[:200] for r in results]
        assert all("/s/" in r.headers["location"] for r in results)
        assert len(export_responses(study, store)) == 1
