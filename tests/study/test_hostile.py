"""The study app against hostile and unlucky participants (issue 11), driven through HTTP.

Each test names the point of the issue it holds the app to; each fails on the app before it.
"""

from __future__ import annotations

import base64
import csv
import hmac
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tealeaves.analysis import read_export
from tealeaves.errors import ArtifactError, InputError
from tealeaves.study import Study, create_study, export_responses, qualtrics_survey, write_responses
from tealeaves.study.store import Store
from tealeaves.study.testing import parse_page
from tealeaves.study.web.serving import serve

TOKEN = "hostile-admin-token"
ROOT = Path(__file__).resolve().parents[2]
ADMIN_PATHS = ["/admin", "/admin/progress.json", "/admin/export.csv", "/admin/export.parquet", "/admin/study.qsf",
               "/admin/participants.csv"]  # fmt: skip


def browser(app, address="203.0.113.7"):
    """A browser of its own (cookies) at a client address; server errors come back as responses."""
    return TestClient(app, follow_redirects=False, client=(address, 50000), raise_server_exceptions=False)


def consent_form(c, **platform):
    """Open the study link and fill the consent form as the page gives it (with its nonce, if any)."""
    r = c.get("/", params=platform)
    assert r.status_code == 200, r.text[:300]
    nonce = re.search(r'name="nonce" value="([^"]+)"', r.text)
    return {"consent": "yes", **platform, **({"nonce": nonce.group(1)} if nonce else {})}


def token_of(response):
    assert response.status_code == 303, response.text[:300]
    return re.search(r"/s/([^/]+)/", response.headers["location"]).group(1)


def start(c, **platform):
    return token_of(c.post("/start", data=consent_form(c, **platform)))


def walk(c, token, limit=100):
    """Answer every question the app gives (first choice, familiarity 1); the last page and the answers sent."""
    url, answered = f"/s/{token}/next", 0
    for _ in range(400):
        r = c.get(url)
        if r.status_code == 303:
            url = r.headers["location"]
            continue
        page, _ = parse_page(url, r.text)
        if page is None or answered == limit:
            return r, answered
        data = {"answer": str(page.answers[0][0]), **({"familiarity": "1"} if page.familiarity else {})}
        r = c.post(page.action, data=data)
        assert r.status_code == 303, r.text[:300]
        answered += 1
        url = r.headers["location"]
    raise AssertionError("no end in sight")


def show_first(c, token):
    """Open the first question (it is now on screen) and return its address."""
    r = c.get(f"/s/{token}/next")
    assert r.status_code == 303 and "/q/" in r.headers["location"], (r.status_code, r.text[:300])
    assert c.get(r.headers["location"]).status_code == 200
    return r.headers["location"]


def unflagged(store, study):
    counts = store.item_counts(study.study_id)
    return {item.item_id: counts.get(item.item_id, (0, 0))[0] for item in study.items if not item.is_check}


def code_text(r):
    return re.search(r'id="completion-code">([^<]+)<', r.text).group(1)


# --------------------------------------------------------------------------- 1. reservations
def test_1_anonymous_starts_that_never_answer_do_not_block_participants_with_an_id(make):
    study, store, app = make(topics_per_model=5)  # 10 items x 2 answers, 3 per participant
    squatters = []
    for n in range(50):  # each from its own address, each with a question on screen, none answering
        c = browser(app, f"198.51.100.{n + 1}")
        token = start(c)
        r = c.get(f"/s/{token}/next")
        if r.status_code == 303 and "/q/" in r.headers["location"]:
            assert c.get(r.headers["location"]).status_code == 200
            squatters.append((c, r.headers["location"]))
    assert len(squatters) == 20  # one question each, and no more than the 20 answers the items need
    n = 0
    while min(unflagged(store, study).values()) < 2:  # someone with an id keeps getting questions
        c = browser(app, f"192.0.2.{n + 1}")
        r, answered = walk(c, start(c, PROLIFIC_PID=f"PID{n:04d}"))
        assert answered == 3 and code_text(r) == study.completion_code, r.text[-400:]
        n += 1
    assert n == 7 and unflagged(store, study) == {item.item_id: 2 for item in study.items}
    for c, url in squatters:  # their answers are kept, flagged late, and change no count
        assert c.post(url, data={"answer": "0", "familiarity": "1"}).status_code == 303
    frame = export_responses(study, store)
    assert len(frame) == 7 * 3 + 20 and frame["late"].sum() == 20 + 1  # + 1: the 21st answer of 20 needed
    assert unflagged(store, study) == {item.item_id: 2 for item in study.items}


def test_1_a_study_can_require_a_participant_id(make):
    for options, kwargs in (({"require_pid": True}, {}), ({}, {"redirect_url": "https://app.prolific.com/x"})):
        study, store, app = make(options, **kwargs)
        c = browser(app)
        r = c.get("/")
        assert r.status_code == 400 and "link on the recruitment site" in r.text and "<h1>" in r.text
        assert c.post("/start", data={"consent": "yes"}).status_code == 400
        assert store.participants(study.study_id) == []
        assert start(c, PROLIFIC_PID="abc123")


def test_1_starts_per_client_address_are_bounded(make, clock):
    study, store, app = make({"starts_per_client": 3})
    crowd = browser(app, "198.51.100.9")
    for n in range(3):
        crowd.cookies.clear()
        start(crowd, PROLIFIC_PID=f"NAT{n}")
    crowd.cookies.clear()
    refused = crowd.post("/start", data=consent_form(crowd))
    assert refused.status_code == 429 and "too many people" in refused.text
    crowd.cookies.clear()
    assert start(crowd, PROLIFIC_PID="NAT1")  # a participant resuming is no new start
    assert start(browser(app, "198.51.100.10"))  # another address
    clock.advance(3_600_001)  # an hour later the address may start others again
    crowd.cookies.clear()
    assert start(crowd)
    assert len(store.participants(study.study_id)) == 5


# --------------------------------------------------------------------------- 2. completion codes
def test_2_the_completion_code_is_secret_random_and_kept_apart_from_the_items(models, tmp_path):
    made = [create_study(models, "rating", tmp_path / name, seed=0, checks=2) for name in ("a", "b")]
    assert made[0].study_id == made[1].study_id  # the same seed gives the same study...
    assert made[0].completion_code != made[1].completion_code  # ...and a new code
    for name, study in zip(("a", "b"), made):
        folder = tmp_path / name
        assert re.fullmatch(r"TL[A-Z2-7]{10}", study.completion_code)
        for seedable in ("items.jsonl", "manifest.json"):
            assert study.completion_code not in (folder / seedable).read_text()
        assert (folder / "secrets.json").stat().st_mode & 0o777 == 0o600
        assert Study.load(folder).completion_code == study.completion_code
        assert study.completion_code not in json.dumps(study.settings)
    (tmp_path / "a" / "secrets.json").unlink()
    with pytest.raises(ArtifactError, match=r"secrets\.json"):
        Study.load(tmp_path / "a")


def test_2_per_participant_codes_are_hmacs_of_the_id_verifiable_in_the_export(make):
    study, store, app = make(per_participant_codes=True)
    codes = {}
    for pid in ("5f1d2a9b", "60aa0c11"):
        c = browser(app)
        r, _ = walk(c, start(c, PROLIFIC_PID=pid))
        codes[pid] = code_text(r)
    secret = bytes.fromhex(study.secrets["secret"])
    for pid, code in codes.items():
        mac = hmac.new(secret, f"code:{pid}".encode(), "sha256").digest()
        assert code == "TL" + base64.b32encode(mac).decode()[:10] != study.completion_code
    frame = export_responses(study, store)
    pid_of = {p["annotator"]: p["external_id"] for p in store.participants(study.study_id)}
    assert {(pid_of[a], code) for a, code in zip(frame["annotator"], frame["completion_code"])} == set(codes.items())
    admin = browser(app)
    admin.post("/admin/login", data={"token": TOKEN})
    listed = list(csv.DictReader(io.StringIO(admin.get("/admin/participants.csv").text)))
    assert {row["external_id"]: row["completion_code"] for row in listed} == codes


def test_2_the_code_needs_every_question_answered_checks_included(make):
    study, store, app = make(task="rating", checks=2, checks_per_participant=2, annotators=3)
    c = browser(app)
    token = start(c, PROLIFIC_PID="quick")
    for _ in range(5):  # 3 items + 2 attention checks
        r = c.get(f"/s/{token}/done")
        assert r.status_code == 303 and "/q/" in r.headers["location"] and study.completion_code not in r.text
        walk(c, token, limit=1)
    r, _ = walk(c, token)
    assert code_text(r) == study.completion_code
    session = store.session(study, token, c.cookies[f"tl_{study.study_id}"].split(":")[1])
    assert session.answered == 5 and sum(study.item(s.item_id).is_check for s in session.slots) == 2


# --------------------------------------------------------------------------- 3. /done
def test_3_done_after_one_answer_and_a_release_gives_no_code(make, clock):
    study, store, app = make(topics_per_model=3, annotators=1, items_per_participant=4)  # 6 items x 1
    idle = browser(app)
    token = start(idle, PROLIFIC_PID="idle")
    walk(idle, token, limit=1)
    show_first(idle, token)  # the second question is on screen, then the participant leaves
    clock.advance(int(study.settings["timeout_minutes"] * 60_000) + 1)
    other = browser(app, "192.0.2.1")
    walk(other, start(other, PROLIFIC_PID="other"))
    assert sum(unflagged(store, study).values()) == 5  # 1 + 4: only the first answer of idle counts
    r = idle.get(f"/s/{token}/done")
    assert r.status_code == 303 and "/q/" in r.headers["location"] and study.completion_code not in r.text
    r, answered = walk(idle, token)
    assert answered == 3 and code_text(r) == study.completion_code
    frame = export_responses(study, store)
    assert frame.groupby("late").size().to_dict() == {False: 6, True: 2}  # idle's last two came after the items filled
    assert unflagged(store, study) == {item.item_id: 1 for item in study.items}


# --------------------------------------------------------------------------- 4. lost replies, double clicks
def test_4_a_start_with_a_known_participant_id_resumes_the_session(make):
    study, store, app = make()
    first = browser(app)
    token = start(first, PROLIFIC_PID="lostreply")
    walk(first, token, limit=1)
    again = browser(app)  # the reply to /start was lost: the same person, no cookie
    assert start(again, PROLIFIC_PID="lostreply") == token
    r, answered = walk(again, token)
    assert answered == 2 and code_text(r) == study.completion_code
    assert first.get(f"/s/{token}/done").status_code == 200  # the first browser still works
    assert len(store.participants(study.study_id)) == 1


def test_4_a_double_click_on_consent_makes_one_participant(make):
    study, store, app = make()
    c = browser(app)
    form = consent_form(c)
    first = token_of(c.post("/start", data=form))
    c.cookies.clear()  # the second click left before the first reply set the cookie
    second = c.post("/start", data=form)
    assert token_of(second) == first
    assert walk(c, first)[1] == 3  # the cookie of the second reply is the session's
    assert len(store.participants(study.study_id)) == 1


# --------------------------------------------------------------------------- 5. malformed requests
def test_5_malformed_requests_get_a_4xx_page_never_a_server_error(make):
    study, _, app = make()
    c = browser(app)
    token = start(c)
    show_first(c, token)
    cookie = f"tl_{study.study_id}"
    huge = "99999999999999999999"
    raw = lambda value: {b"cookie": f"{cookie}={value}".encode()}  # noqa: E731 - a header as the browser sends it
    cases = [
        ("GET", f"/s/{token}/q/{huge}", {}),
        ("POST", f"/s/{token}/q/{huge}", {"data": {"answer": "1", "familiarity": "1"}}),
        ("GET", f"/s/{token}/q/{huge}/answer", {}),
        ("GET", f"/s/{token}/q/-1", {}),
        ("GET", f"/s/{token}/q/1.5", {}),
        ("GET", f"/s/{token}/q/%00", {}),
        ("GET", "/s/%C3%A9/next", {"headers": raw("tl_x:y")}),
        ("GET", "/s/%C3%A9/next", {"headers": raw("\u00e9:\u00e9")}),
        ("GET", f"/s/{token}/next", {"headers": raw(f"{token}:\u00e9\u00e9")}),
        ("POST", "/start", {"data": {"consent": "yes", "nonce": "\u00e9" * 20}}),
        ("POST", "/start", {"data": {"consent": "yes", "PROLIFIC_PID": "\u00e9"}}),
        ("POST", "/start", {"files": {"consent": ("a.txt", b"yes")}}),
        ("POST", "/start", {"content": b"--x\r\n", "headers": {"content-type": "multipart/form-data; boundary=x"}}),
        ("GET", "/?PROLIFIC_PID=%FF%FE", {}),
        ("GET", "/admin/export.csv", {"headers": {b"cookie": f"tl_admin_{study.study_id}=9999999999.\u00e9".encode()}}),
        ("POST", "/admin/login", {"data": {"token": "\u00e9" * 12}}),
        ("GET", "/admin/login?token=" + TOKEN, {}),
        ("GET", "/no/such/page", {}),
    ]
    for method, url, kwargs in cases:
        r = c.request(method, url, **kwargs)
        assert 400 <= r.status_code < 500, (method, url, r.status_code, r.text[:200])
        assert r.headers["content-type"].startswith("text/html") and "<h1>" in r.text, (method, url, r.text[:200])
    assert walk(c, token)[1] == 3  # the session is intact


# --------------------------------------------------------------------------- 6. the admin token
def test_6_the_admin_token_is_taken_in_one_place_and_traded_for_a_signed_cookie(make):
    study, _, app = make()
    c = browser(app)
    for path in ADMIN_PATHS:
        assert c.get(path, params={"token": TOKEN}).status_code == 401
        assert c.get(path, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 401
    assert c.post("/admin/login", data={"token": "not-the-admin-token"}).status_code == 403
    r = c.post("/admin/login", data={"token": TOKEN})
    assert r.status_code == 303 and r.headers["location"] == "/admin"
    value = c.cookies[f"tl_admin_{study.study_id}"]
    assert TOKEN not in value and re.fullmatch(r"\d+\.[0-9a-f]{64}", value)
    assert all(c.get(path).status_code == 200 for path in ADMIN_PATHS)
    expires, mac = value.split(".")
    for forged in (f"{int(expires) + 10**6}.{mac}", f"{expires}.{'0' * 64}", f"{int(expires) - 10**6}.{mac}"):
        c.cookies.set(f"tl_admin_{study.study_id}", forged)
        assert c.get("/admin/export.csv").status_code == 401
    other_study, _, other_app = make(seed=2)  # the same token, another study secret: its cookie is no key here
    o = browser(other_app)
    o.post("/admin/login", data={"token": TOKEN})
    c.cookies.set(f"tl_admin_{study.study_id}", o.cookies[f"tl_admin_{other_study.study_id}"])
    assert c.get("/admin").status_code == 401


def test_6_guessing_the_admin_token_is_bounded_per_client_address(make, clock):
    from tealeaves.study.web.security import ADMIN_LOGIN_FAILURES, ADMIN_LOGIN_WINDOW, ADMIN_SLOW_LANE

    _, _, app = make()
    second = 1000
    guesser, owner = browser(app), browser(app, address="198.51.100.4")
    for i in range(ADMIN_LOGIN_FAILURES):
        clock.advance(second)
        assert guesser.post("/admin/login", data={"token": f"guess-number-{i}"}).status_code == 403
    refused = guesser.post("/admin/login", data={"token": TOKEN})  # even the right token, from there
    assert refused.status_code == 429 and "Too many wrong admin tokens" in refused.text
    assert int(refused.headers["Retry-After"]) == ADMIN_SLOW_LANE  # the slow lane's next check
    assert guesser.get("/admin").status_code == 401
    assert owner.post("/admin/login", data={"token": TOKEN}).status_code == 303  # other addresses are not locked out
    clock.advance(int(ADMIN_SLOW_LANE - 1) * second)
    assert guesser.post("/admin/login", data={"token": TOKEN}).status_code == 429
    clock.advance(second)
    assert guesser.post("/admin/login", data={"token": "guess-once-more"}).status_code == 403  # checked, counted
    assert guesser.post("/admin/login", data={"token": TOKEN}).status_code == 429  # the next check in 90 s
    clock.advance(ADMIN_LOGIN_WINDOW * second)  # every wrong token is a window old
    assert guesser.post("/admin/login", data={"token": TOKEN}).status_code == 303


def test_6_serve_never_prints_a_token_it_did_not_make_nor_puts_it_in_the_environment(models, tmp_path, monkeypatch):
    import uvicorn

    folder = tmp_path / "study"
    create_study(models, "word-intrusion", folder, seed=1, annotators=2, items_per_participant=3)
    seen = {}

    def fake_run(app, **kwargs):
        seen["environment"] = dict(os.environ)
        if kwargs.get("factory"):
            path = os.environ["TEALEAVES_STUDY_SERVE"]
            seen["file"] = Path(path).read_text()
            seen["mode"] = Path(path).stat().st_mode & 0o777
            app = __import__("tealeaves.study.web.serving", fromlist=["x"]).app_from_environment()
        seen["app"] = app

    monkeypatch.setattr(uvicorn, "run", fake_run)
    for workers in (1, 3):
        lines = []
        serve(folder, admin_token=TOKEN, workers=workers, announce=lines.append)
        printed = "\n".join(lines)
        assert TOKEN not in printed and "/admin/login" in printed
        assert not any(TOKEN in value for value in seen["environment"].values())
        if workers > 1:
            assert TOKEN not in seen["file"] and seen["mode"] == 0o600
        c = browser(seen["app"])
        assert c.post("/admin/login", data={"token": TOKEN}).status_code == 303
    lines = []
    serve(folder, announce=lines.append)  # a token it made is printed, once
    made = re.search(r"admin token:\s+(\S+)", "\n".join(lines)).group(1)
    assert browser(seen["app"]).post("/admin/login", data={"token": made}).status_code == 303


# --------------------------------------------------------------------------- 7. data quality
def test_7_an_answer_to_a_question_never_shown_is_refused(make):
    study, store, app = make()
    c = browser(app)
    token = start(c)
    r = c.get(f"/s/{token}/next")  # the address of the first question, which was never opened
    url = r.headers["location"]
    refused = c.post(url, data={"answer": "1", "familiarity": "1"})
    assert refused.status_code == 409 and "not shown" in refused.text
    assert store.responses(study.study_id) == []
    assert c.get(url).status_code == 200 and c.post(url, data={"answer": "1", "familiarity": "1"}).status_code == 303


def test_7_a_late_answer_is_kept_flagged_and_the_item_reaches_its_target_unflagged(make, models, clock):
    study, store, app = make(source={"M": models["MODEL_ALPHA"]}, topics_per_model=1, annotators=1,
                             items_per_participant=1)  # fmt: skip
    slow, quick = browser(app), browser(app, "192.0.2.2")
    slow_url = show_first(slow, start(slow))
    clock.advance(int(study.settings["timeout_minutes"] * 60_000) + 1)
    walk(quick, start(quick))
    assert slow.post(slow_url, data={"answer": "2", "familiarity": "1"}).status_code == 303
    frame = export_responses(study, store)
    assert list(frame["late"]) == [False, True] and list(frame["response"]) == [0, 2]
    assert unflagged(store, study) == {study.items[0].item_id: 1}
    written = write_responses(frame, Path(store.url.split("///")[1]).with_name("x.csv"))
    assert list(csv.DictReader(written.open()))[1]["late"] == "True"


def test_7_leases_expiring_at_random_still_fill_every_item_exactly(models, store_factory, clock):
    study = create_study(models, "word-intrusion", seed=4, annotators=3, items_per_participant=4)
    store = store_factory(seed=5)
    store.ensure_study(study)
    rng = random.Random(6)
    lease = int(study.settings["timeout_minutes"] * 60_000)
    people, answered = [], Counter()
    for _ in range(5000):
        if min(unflagged(store, study).values()) == 3:
            break
        if len(people) < 40 and rng.random() < 0.3:
            people.append(store.start(study, external_id=f"R{len(people)}" if rng.random() < 0.5 else None))
        if not people:
            continue
        token, key = rng.choice(people)
        step = store.advance(study, token, key)
        if step.kind == "question":
            store.show(study, token, key, step.position)
            if rng.random() < 0.3:
                clock.advance(rng.randint(0, 2 * lease))  # wanders off, maybe past the lease, then answers
            store.record(study, token, key, step.position, 0, 1, None)
            answered[token] += 1
        clock.advance(rng.randint(0, 20_000))
    rows = store.responses(study.study_id)
    assert len(rows) == sum(answered.values())
    assert Counter(r["item_id"] for r in rows if not r["late"]) == {item.item_id: 3 for item in study.items}
    assert len({(r["token"], r["item_id"]) for r in rows}) == len(rows)


# --------------------------------------------------------------------------- 8. hardening
def test_8_exports_neutralise_formulas_and_the_qualtrics_title_is_escaped(make, tmp_path):
    words = [["=HYPERLINK(\"http://evil\")", "+cmd", "-2+3", "@SUM(A1)", "plain", "tab", "words", "here", "and",
              "more"]] * 2  # fmt: skip
    title = '<img src=x onerror=alert(1)> & "quotes"'
    study, store, app = make(task="rating", source={"=evil": words[:1], "@other": words[1:]}, checks=0,
                             annotators=1, items_per_participant=2, title=title)  # fmt: skip
    c = browser(app)
    walk(c, start(c))
    frame = export_responses(study, store)
    assert frame["words"].str.startswith("=HYPERLINK").all()  # Parquet and the frame keep the text
    admin = browser(app)
    admin.post("/admin/login", data={"token": TOKEN})
    for text in (admin.get("/admin/export.csv").text, write_responses(frame, tmp_path / "r.csv").read_text()):
        cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
        assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@")]
        assert '\'=HYPERLINK("http://evil") +cmd -2+3 @SUM(A1) plain tab words here and more' in cells
        assert "'=evil" in cells and "'@other" in cells
    # the analysis reads the neutralised CSV back exactly, a cell that starts with ' included
    frame.loc[0, "model"] = "'quoted"
    written = write_responses(frame, tmp_path / "r.csv")
    assert "''quoted" in written.read_text()
    back = read_export(written)
    assert back["words"].tolist() == frame["words"].tolist() and back["model"].tolist() == frame["model"].tolist()
    survey = qualtrics_survey(study)
    options = next(e["Payload"] for e in survey["SurveyElements"] if e["Element"] == "SO")
    for text in (survey["SurveyEntry"]["SurveyName"], options["SurveyTitle"]):
        assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;" in text


def test_8_no_inline_script_and_a_policy_that_forbids_them(make):
    _, _, app = make(task="word-intrusion", show_answer=True)
    c = browser(app)
    token = start(c)
    pages = [c.get("/"), c.get(f"/s/{token}/instructions"), c.get(show_first(c, token))]
    for r in pages:
        policy = dict(part.strip().split(" ", 1) for part in r.headers["content-security-policy"].split(";"))
        assert policy["script-src"] == "'self'"
        assert not re.search(r"<script(?![^>]*\bsrc=)", r.text) and not re.search(r"\son[a-z]+=", r.text)
    assert '<script src="/static/item.js" defer></script>' in pages[-1].text
    script = c.get("/static/item.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "rt_ms" in script.text and "keydown" in script.text


def test_8_sqlite_is_synchronous_full_unless_asked_for_normal(tmp_path):
    levels = {}
    for name in ("full", "normal"):
        store = Store(f"sqlite:///{tmp_path / f'{name}.sqlite'}", synchronous=name)
        with store.engine.connect() as conn:
            levels[name] = conn.exec_driver_sql("PRAGMA synchronous").scalar()
        store.close()
    default = Store(f"sqlite:///{tmp_path / 'default.sqlite'}")
    with default.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    default.close()
    assert levels == {"full": 2, "normal": 1}
    with pytest.raises(InputError, match="synchronous must be one of full, normal"):
        Store(f"sqlite:///{tmp_path / 'x.sqlite'}", synchronous="off")


# --------------------------------------------------------------------------- 9. tests that cannot quietly skip
def test_9_system_deps_exits_non_zero_when_it_cannot_install(tmp_path):
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "ls", "id"):
        (tools / tool).symlink_to(shutil.which(tool))
    env = {"PATH": str(tools), "TEALEAVES_CHROMIUM": str(tmp_path / "no-chromium")}
    result = subprocess.run(
        [str(tools / "bash"), str(ROOT / "scripts" / "system-deps.sh")], env=env, capture_output=True, text=True
    )
    assert result.returncode != 0 and "chromium" in result.stderr, (result.returncode, result.stderr)


@pytest.mark.parametrize(
    "target, variable",
    [
        ("tests/study/test_browser.py", "TEALEAVES_CHROMIUM"),
        ("tests/study/test_store.py::test_schema_version_and_study_identity_are_checked", "TEALEAVES_POSTGRES_BINDIR"),
    ],
)
def test_9_with_ci_a_missing_browser_or_postgresql_fails_instead_of_skipping(tmp_path, target, variable):
    outcomes = {}
    for ci in ("true", ""):
        env = {**os.environ, "CI": ci, variable: str(tmp_path / "missing")}
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", target],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        outcomes[ci] = (result.returncode, result.stdout.strip().splitlines()[-1])
    code, summary = outcomes["true"]  # a fixture that fails makes an error, a test body a failure: no skip
    assert code == 1 and ("failed" in summary or "error" in summary) and "skipped" not in summary, summary
    assert outcomes[""][0] == 0 and "skipped" in outcomes[""][1], outcomes
