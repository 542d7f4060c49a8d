"""The study app in the hands of a lab (issue 39), each point driven through HTTP: several studies
on one PostgreSQL, cloud balancers and CDNs, squatters that follow ``/next``, shared networks and
slow readers, and the smaller points. Other client addresses come from binding the client socket
to 127.0.0.x (live servers) or from the test client's address; a "balancer" is a peer that sends
``X-Forwarded-For`` as the named product does.

Each test names the point of the issue it holds the app to; each fails on the app before it.
"""

from __future__ import annotations

import asyncio
import csv
import io
import math
import random
import re
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from tealeaves.errors import InputError, MissingDependencyError
from tealeaves.study import create_study, export_responses, write_responses
from tealeaves.study.store import pid_class
from tealeaves.study.testing import (
    LiveServer,
    TemporaryPostgres,
    free_port,
    parse_page,
    platform_id,
    unavailable,
)

from .test_deploy import TOKEN as SERVED_TOKEN
from .test_deploy import code_text, guesses, login, retry_after, served, start, token_of, walk

TOKEN = "lab-admin-token"
MINUTE = 60_000


def client(app, address="203.0.113.7", **headers):
    """A browser of its own (cookies) at a client address, through the app's test client."""
    return TestClient(app, follow_redirects=False, client=(address, 50000), headers=headers)


def answer_one(c, token, clock=None, seconds=0, root=""):
    """Open the question ``/next`` points to and answer it after ``seconds`` (of the fake ``clock``):
    True when a question was answered, False when there was none (wait, done, expired)."""
    r = c.get(f"{root}/s/{token}/next")
    if r.status_code != 303 or "/q/" not in r.headers["location"]:
        return False
    url = r.headers["location"]
    page, _ = parse_page(url, c.get(url).text)
    if clock is not None:
        clock.advance(seconds * 1000)
    form = {"answer": str(page.answers[0][0]), "rt_ms": str(seconds * 1000)}
    r = c.post(page.action, data={**form, **({"familiarity": "1"} if page.familiarity else {})})
    assert r.status_code == 303, r.text[:300]
    return True


# --------------------------------------------------------------------------- 1. several studies on one PostgreSQL
def test_1_two_servers_on_one_postgresql_stay_within_its_connections_with_their_logins_in_parallel(models, tmp_path):
    try:
        database = TemporaryPostgres(durable=False, max_connections=60)  # 57 for non-superusers
    except MissingDependencyError as exc:
        unavailable(str(exc))
    database.start()
    try:
        folders = [tmp_path / name for name in ("a", "b", "c")]
        for seed, folder in enumerate(folders):
            create_study(models, "word-intrusion", folder, seed=seed + 1, annotators=2, items_per_participant=3)
        with served(folders[0], database.url) as (first, base_a), served(folders[1], database.url) as (_, base_b):
            # each claims 3 x 8 + 1 = 25 at start, before its pools fill: a third does not fit beside them
            third = subprocess.run(
                [sys.executable, "-m", "tealeaves.cli", "study", "serve", str(folders[2]), "--db", database.url,
                 "--workers", "3", "--port", str(free_port()), "--admin-token", TOKEN],
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            refusal = third.stdout + third.stderr
            assert third.returncode == 2 and "2 tealeaves servers claim 50" in refusal, refusal
            assert "raise max_connections" in refusal

            async def both():
                return await asyncio.gather(guesses(base_a, ["127.0.0.4"] * 100), guesses(base_b, ["127.0.0.5"] * 100))

            for replies in asyncio.run(both()):  # 200 logins at once, 6 workers: nobody told "too many clients"
                assert Counter(r.status_code for r in replies) == {403: 10, 429: 90}
            c = httpx.Client(base_url=base_a, follow_redirects=False, timeout=60)
            walk(c, token_of(start(c, PROLIFIC_PID=platform_id("pg", 1))))
            import psycopg

            with psycopg.connect(database.url) as conn:  # psql still gets in...
                assert conn.execute("SELECT 1").fetchone() == (1,)
            exported = subprocess.run(  # ...and so does the export
                [sys.executable, "-m", "tealeaves.cli", "study", "export", str(folders[0]), "--db", database.url,
                 "--out", str(tmp_path / "a.csv")], capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert exported.returncode == 0 and "3 responses" in exported.stdout, exported.stdout + exported.stderr
            # the admin token is gone from the main process's environment, not only from its workers'
            assert SERVED_TOKEN.encode() not in Path(f"/proc/{first.pid}/environ").read_bytes()
    finally:
        database.stop()


# --------------------------------------------------------------------------- 2. balancers and CDNs
GFE, LOAD_BALANCER, CLOUDFLARE_EDGE = "35.191.7.7", "203.0.113.80", "173.245.48.7"
GOOGLE = f"130.211.0.0/22,35.191.0.0/16,{LOAD_BALANCER}"  # Google's front ends, and the balancer's own address
CLOUDFLARE = "127.0.0.1,173.245.48.0/20,103.21.244.0/22,2400:cb00::/32"  # nginx here, Cloudflare's ranges


def through(app, peer, chain, proto="https"):
    """A browser behind the proxy at ``peer``, whose request reaches the app with ``X-Forwarded-For: chain``."""
    return client(app, peer, **{"X-Forwarded-For": chain, **({"X-Forwarded-Proto": proto} if proto else {})})


def admin_page(app):
    admin = client(app, "192.0.2.10")
    assert login(admin, TOKEN).status_code == 303
    return admin.get("/admin").text


@pytest.mark.parametrize(
    "trusted, peer, last",
    [(GOOGLE, GFE, f", {LOAD_BALANCER}"), (CLOUDFLARE, "127.0.0.1", f", {CLOUDFLARE_EDGE}")],
    ids=["google", "cloudflare-nginx"],
)
def test_2_balancers_and_cdns_as_the_guide_sets_them_give_each_client_their_own_address(make, trusted, peer, last):
    study, store, app = make({"forwarded_allow_ips": trusted, "require_pid": True}, topics_per_model=5)
    for n in range(10):  # Google: <what the client sent>, <client>, <balancer>; Cloudflare then nginx: <...>, <edge>
        c = through(app, peer, f"10.9.9.9, 198.51.100.{n + 1}{last}")
        r = start(c, PROLIFIC_PID=platform_id("balanced", n))
        assert token_of(r) and "secure" in r.headers["set-cookie"].lower()
    assert len({p["client_hash"] for p in store.participants(study.study_id)}) == 10
    assert "Warning" not in admin_page(app)


def test_2_a_trusted_set_that_misses_the_balancer_is_noticed_and_everyone_else_is_refused(make, caplog):
    _, _, app = make({"forwarded_allow_ips": "130.211.0.0/22,35.191.0.0/16", "require_pid": True})  # the old guide
    replies = [start(through(app, GFE, f"198.51.100.{n + 1}, {LOAD_BALANCER}"), PROLIFIC_PID=platform_id("g", n))
               for n in range(10)]  # fmt: skip
    assert [r.status_code for r in replies] == [303] * 5 + [429] * 5  # all of them are the balancer
    page = admin_page(app)
    assert f"the last 10 participants who started all came from {LOAD_BALANCER}" in page
    assert "--forwarded-allow-ips" in page and LOAD_BALANCER in caplog.text
    # a proxy without X-Forwarded-Proto: no cookie can be Secure, and the admin is told so
    r = start(through(app, GFE, f"198.51.100.77, {LOAD_BALANCER}", proto=None), PROLIFIC_PID="NOPROTO1")
    assert "secure" not in r.headers.get("set-cookie", "").lower() and "X-Forwarded-Proto" in admin_page(app)
    # a proxy left out of the trusted set (its header is ignored): said too
    through(app, "192.0.2.99", "198.51.100.5").get("/healthz")
    assert "requests from 192.0.2.99 carry X-Forwarded-For" in admin_page(app)


@pytest.mark.parametrize(
    "everyone", ["*", "0.0.0.0/0", "::/0", "0.0.0.0/1,128.0.0.0/1", "::ffff:0:0/96", "::/1,8000::/1", "64.0.0.0/2"]
)
def test_2_trusting_everyone_or_a_large_share_of_the_internet_is_refused(make, everyone):
    with pytest.raises(InputError, match="trusting every peer lets anyone choose their address"):
        make({"forwarded_allow_ips": everyone})


def test_2_proxies_networks_and_private_ranges_are_accepted(make):
    _, _, app = make({"forwarded_allow_ips": f"{CLOUDFLARE},10.0.0.0/8,fc00::/7,2600:2d00:1:b029::/64,{GOOGLE}"})
    c = through(app, "2600:2d00:1:b029::9", "2001:db8:1:2::3, 2600:2d00:1:b029::10")
    assert token_of(start(c))


# --------------------------------------------------------------------------- 3. squatters that follow /next
def test_3_squatters_following_next_hold_questions_for_the_answer_limit_in_all_not_per_question(make, clock):
    study, store, app = make(topics_per_model=4, annotators=1, items_per_participant=4)  # 8 items x 1 answer
    squatters = []
    for n in range(5):  # from 5 addresses, with ids of Prolific's shape: no per-address or id-class bound holds them
        c = client(app, f"198.51.100.{n + 1}")
        squatters.append((c, token_of(start(c, PROLIFIC_PID=platform_id("squat", n)))))
    honest = []
    for n in range(2):
        c = client(app, f"192.0.2.{n + 1}")
        honest.append({"c": c, "token": token_of(start(c, PROLIFIC_PID=platform_id("honest", n))), "page": None})
    finished, live_squatted = {}, []
    for minute in range(90):
        for c, token in squatters:  # every minute: /next, and open the question it points to; never answer
            r = c.get(f"/s/{token}/next")
            if r.status_code == 303 and "/q/" in r.headers["location"]:
                c.get(r.headers["location"])
        for n, person in enumerate(honest):  # each reads a question for 3 minutes, answers it and goes on
            if n in finished or (person["page"] is not None and minute - person["since"] < 3):
                continue
            if person["page"] is None:
                r = person["c"].get(f"/s/{person['token']}/next")
            else:
                data = {"answer": str(person["page"].answers[0][0]), "familiarity": "1"}
                r = person["c"].post(person["page"].action, data=data)
            person["page"] = None
            if r.status_code == 303 and "/q/" in r.headers["location"]:
                url = r.headers["location"]
                person["page"], person["since"] = parse_page(url, person["c"].get(url).text)[0], minute
            elif r.status_code == 303 and r.headers["location"].endswith("/done"):
                finished[n] = minute
                assert code_text(person["c"].get(r.headers["location"])) == study.completion_code
        live = sum(held for _, held in store.item_counts(study.study_id).values())
        live_squatted.append(live - sum(person["page"] is not None for person in honest))
        clock.advance(MINUTE)
    budget = max(int(study.settings["timeout_minutes"]), 20)  # --answer-minutes 20, or one lease if longer
    assert max(live_squatted[budget + 1 :]) == 0  # after their budget the squatters hold nothing, whatever they open
    assert sorted(finished.values())[-1] <= budget + 12  # 3 minutes a question once the squatters let go
    frame = export_responses(study, store)
    assert len(frame) == 8 and not frame["late"].any()
    c, token = squatters[0]
    assert "Your session has expired" in c.get(f"/s/{token}/next").text  # waiting did not keep them alive


# --------------------------------------------------------------------------- 4. shared networks
def hidden_fields(html):
    """The hidden fields of a page's form, as a browser would post them."""
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html))


def test_4_ten_people_from_one_network_are_told_when_a_place_frees_and_a_lab_gets_in(make, clock):
    study, _, app = make(topics_per_model=10, annotators=5, items_per_participant=3)
    people = [client(app, "198.51.100.9") for _ in range(10)]  # ten real-looking ids behind one NAT
    replies = [start(c, PROLIFIC_PID=platform_id("nat", n)) for n, c in enumerate(people)]
    assert [r.status_code for r in replies] == [303] * 5 + [429] * 5
    assert retry_after(replies[5]) <= 3 * 10 * 60  # before any answer: 3 questions of at most a lease each
    tokens = [token_of(r) for r in replies[:5]]
    for c, token in zip(people[:5], tokens):  # the five answer two questions each, in 40 s a question
        assert answer_one(c, token, clock, seconds=40) and answer_one(c, token, clock, seconds=40)
    waiting = start(people[5], PROLIFIC_PID=platform_id("nat", 5))
    assert 0 < retry_after(waiting) <= 40  # one question left at 40 s: not an hour
    assert "A place is expected to come free in about 40 seconds" in waiting.text
    assert re.search(r'<form method="post" action="/start" data-retry-after="40">', waiting.text)
    assert answer_one(people[0], tokens[0], clock, seconds=40)  # one of the five finishes...
    assert code_text(people[0].get(f"/s/{tokens[0]}/done")) == study.completion_code
    again = people[5].post("/start", data=hidden_fields(waiting.text))  # ...and the waiting page gets in
    assert token_of(again) and again.headers["location"].endswith("/instructions")

    _, _, lab_app = make({"lab_networks": "198.51.100.0/24"}, topics_per_model=10, annotators=5)
    lab = [start(client(lab_app, "198.51.100.9"), PROLIFIC_PID=platform_id("lab", n)) for n in range(10)]
    assert [r.status_code for r in lab] == [303] * 10  # the operator vouched for the lab's network
    outside = [start(client(lab_app, "192.0.2.8"), PROLIFIC_PID=platform_id("out", n)) for n in range(6)]
    assert [r.status_code for r in outside] == [303] * 5 + [429]  # everyone else keeps the bounds


# --------------------------------------------------------------------------- 5. slow readers
PROLIFIC = "https://app.prolific.com/submissions/complete"


@pytest.mark.parametrize("after_idle", ["resume", "partial"])
def test_5_a_slow_reader_back_after_the_idle_limit_loses_no_paid_work(make, clock, after_idle):
    study, store, app = make(store_options={"after_idle": after_idle}, redirect_url=PROLIFIC, topics_per_model=5)
    c, pid = client(app), platform_id("slow", 1)
    token = token_of(start(c, PROLIFIC_PID=pid))
    assert answer_one(c, token, clock, seconds=30) and answer_one(c, token, clock, seconds=30)
    clock.advance(61 * MINUTE)  # two answers, then a pause past the idle limit (60 minutes)
    r, answered = walk(c, token)
    code = study.code_for(pid) if after_idle == "resume" else study.partial_code_for(pid)
    assert r.status_code == 303 and r.headers["location"] == f"{PROLIFIC}?cc={code}"
    assert answered == (1 if after_idle == "resume" else 0)  # the rest of the questions, or a partial code
    assert code != study.code_for(pid) or after_idle == "resume"
    frame = export_responses(study, store)
    completion = "full" if after_idle == "resume" else "partial"
    assert set(frame["completion"]) == {completion} and set(frame["completion_code"]) == {code}
    admin = client(app, "192.0.2.10")
    login(admin, TOKEN)
    listed = list(csv.DictReader(io.StringIO(admin.get("/admin/participants.csv").text)))
    assert [(row["completion"], row["completion_code"]) for row in listed] == [(completion, code)]


def test_5_waiting_for_a_question_is_not_idling(make, models, clock):
    source = {"M": models["MODEL_ALPHA"]}
    study, _, app = make(store_options={"idle_minutes": 5}, source=source, topics_per_model=2, annotators=1,
                         items_per_participant=2)  # fmt: skip
    waiter, holder = client(app), client(app, "192.0.2.2")
    token = token_of(start(waiter, PROLIFIC_PID="WAITER01"))
    assert "/q/" in waiter.get(f"/s/{token}/next").headers["location"]  # one question for the waiter...
    other = token_of(start(holder, PROLIFIC_PID="HOLDER01"))
    held = holder.get(holder.get(f"/s/{other}/next").headers["location"])  # ...the other on the holder's screen
    assert answer_one(waiter, token, clock, seconds=20)
    for minute in range(8):  # the waiter waits 8 minutes, past the idle limit of 5, on the waiting page
        r = waiter.get(f"/s/{token}/next")
        assert r.status_code == 200 and 'id="wait"' in r.text, r.text[-300:]
        assert int(r.headers["Retry-After"]) <= 10 * 60 - minute * 60  # when the holder's lease runs out
        clock.advance(MINUTE)
    page, _ = parse_page(r.url, held.text)
    assert holder.post(page.action, data={"answer": "0", "familiarity": "1"}).status_code == 303
    r, answered = walk(waiter, token)  # not expired: the waiting was not idling
    assert answered == 1 and code_text(r) == study.completion_code


# --------------------------------------------------------------------------- 6. the smaller points
def object_id(seconds, process, counter):
    """A MongoDB ObjectId, the shape of Prolific's participant ids: 4 bytes of creation time (seconds),
    5 bytes drawn once per server process, 3 bytes of the process's counter (one step per id)."""
    return f"{seconds:08x}{process:010x}{counter % 2**24:06x}"


def test_6_participant_id_classes_of_object_ids_collide_as_the_guide_says():
    rng = random.Random(39)
    since, until = 1546300800, 1748736000  # accounts made from 2019-01-01 to 2025-06-01
    n = 200_000  # participants of the whole platform: made at any time, by any process
    classes = Counter(pid_class(object_id(rng.randrange(since, until), rng.getrandbits(40), rng.getrandbits(24)))
                      for _ in range(n))  # fmt: skip
    pairs = sum(math.comb(k, 2) for k in classes.values()) / math.comb(n, 2)
    assert 2.5e-7 < pairs < 6e-7  # 4 x 10^-7: three times the uniform model's 1.4 x 10^-7
    consecutive = 0  # two ids one after the other: same second, same process, counter + 1
    for _ in range(20_000):
        seconds, process, counter = rng.randrange(since, until), rng.getrandbits(40), rng.getrandbits(24)
        consecutive += pid_class(object_id(seconds, process, counter)) == pid_class(
            object_id(seconds, process, counter + 1)
        )
    assert 0.53 < consecutive / 20_000 < 0.60  # about 56%: ids made one after the other share a class
    biggest = Counter()  # a lab makes 10 accounts within 10 minutes, on a platform of 8 processes making 1 id/s each
    for _ in range(5000):
        made, processes = rng.randrange(since, until), [(rng.getrandbits(40), rng.getrandbits(24)) for _ in range(8)]
        ids = []
        for _ in range(10):
            second = rng.randrange(600)
            process, counter = rng.choice(processes)
            ids.append(object_id(made + second, process, counter + second + rng.randrange(3)))
        biggest[max(Counter(pid_class(pid) for pid in ids).values())] += 1
    assert 300 < sum(k for size, k in biggest.items() if size >= 2) < 900  # 1 lab in 8 has two ids in one class
    assert sum(k for size, k in biggest.items() if size >= 4) <= 5  # 4 in one (the 4th refused): under 1 in 1,000


def test_6_a_weak_admin_token_is_refused(make, models, tmp_path):
    study, store, _ = make()
    from tealeaves.study.web.app import create_app
    from tealeaves.study.web.serving import serve

    for weak in ("password", "password1234", "studystudystudy1", "aaaaaaaaaaaaaaaaaaaaa", "2024-05-01"):
        with pytest.raises(InputError, match="too easy to guess"):
            create_app(study, store, weak)
    folder = tmp_path / "weak"
    create_study(models, "word-intrusion", folder, seed=1, annotators=2, items_per_participant=3)
    with pytest.raises(InputError, match="too easy to guess"):
        serve(folder, admin_token="12345678")
    assert create_app(study, store, "Kq7-vN2p-Zt9x")  # 13 characters of four kinds: 85 bits


def test_6_the_head_limit_holds_for_a_head_sent_at_once(make):
    _, _, app = make()
    with LiveServer(app) as server:
        replies = []
        for size in (15_000, 70_000):
            with socket.create_connection((server.host, server.port), timeout=10) as sock:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * size + b"\r\n\r\n")
                replies.append(sock.recv(100))
    assert replies[0].startswith(b"HTTP/1.1 200") and replies[1].startswith(b"HTTP/1.1 431")


def test_6_each_answer_records_its_address_and_browser_and_the_analysis_reads_the_export(make, tmp_path):
    from tealeaves.analysis import read_export
    from tealeaves.study.schema import EXPORT_COLUMNS

    study, store, app = make()
    at_home = client(app, "203.0.113.7", **{"User-Agent": "Mozilla/5.0 (X11; Linux) Firefox/128.0"})
    token = token_of(start(at_home, PROLIFIC_PID="MOVER001"))
    assert answer_one(at_home, token)
    on_phone = client(app, "198.51.100.20", **{"User-Agent": "Mozilla/5.0 (iPhone) Mobile Safari/604.1"})
    assert token_of(start(on_phone, PROLIFIC_PID="MOVER001")) == token  # the same participant, another network
    r, answered = walk(on_phone, token)
    assert answered == 2 and code_text(r) == study.completion_code
    frame = export_responses(study, store)
    assert frame["client"].nunique() == 1 and frame["answer_client"].nunique() == 2  # where it started, each answer
    assert list(frame["user_agent"].str.contains("iPhone")) == [False, True, True]
    assert list(frame.columns[-3:]) == ["completion", "answer_client", "user_agent"]
    back = read_export(write_responses(frame, tmp_path / "export.csv"))
    assert list(back.columns) == list(EXPORT_COLUMNS) and len(back) == 3


def test_6_the_links_serve_prints_work_on_its_own_port_with_a_root_path(make, models, tmp_path, monkeypatch):
    from tealeaves.study.web.serving import serve

    folder = tmp_path / "rooted"
    study = create_study(models, "word-intrusion", folder, seed=1, annotators=2, items_per_participant=3)
    lines = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: lines.append(app))
    serve(folder, admin_token=TOKEN, announce=lines.append, root_path="/study", port=8123)
    printed = "\n".join(line for line in lines if isinstance(line, str))
    participants = re.search(r"participants: http://127\.0\.0\.1:8123(\S+)", printed).group(1)
    admin = re.search(r"admin: +http://127\.0\.0\.1:8123(\S+)", printed).group(1)
    assert participants == "/study/" and admin == "/study/admin/login"
    with LiveServer(lines[-1], root_path="/study") as server:  # the app's own port, no proxy in front
        c = httpx.Client(base_url=server.url, follow_redirects=False, timeout=30)
        consent = c.get(participants, params={"PROLIFIC_PID": "ROOTED01"})
        assert consent.status_code == 200 and 'action="/study/start"' in consent.text
        r = c.post("/study/start", data={"consent": "yes", "PROLIFIC_PID": "ROOTED01", **hidden_fields(consent.text)})
        token = token_of(r, root="/study")
        r, answered = walk(c, token)
        assert answered == 3 and code_text(r) == study.code_for("ROOTED01")
        assert c.get(admin).status_code == 200 and login(c, TOKEN).headers["location"] == "/study/admin"
    with pytest.raises(InputError, match="root-path /s begins like the app's own paths"):
        serve(folder, admin_token=TOKEN, announce=lines.append, root_path="/s")
