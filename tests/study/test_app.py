"""The web app through HTTP: the participant flow, Prolific, the admin pages, and every refusal."""

from __future__ import annotations

import random
import re

import pytest
from fastapi.testclient import TestClient

from tealeaves.study import create_study, export_responses
from tealeaves.study.store import Store
from tealeaves.study.testing import parse_page
from tealeaves.study.web.app import create_app

TOKEN = "admin-secret-token"


@pytest.fixture
def setup(models, tmp_path, clock):
    def make(task="word-intrusion", db=None, **kwargs):
        kwargs.setdefault("seed", 1)
        kwargs.setdefault("annotators", 3)
        kwargs.setdefault("items_per_participant", 3)
        study = create_study(models, task, **kwargs)
        store = Store(db or f"sqlite:///{tmp_path / 'r.sqlite'}", clock=clock, rng=random.Random(0))
        store.ensure_study(study)
        app = create_app(study, store, TOKEN)
        return study, store, app

    return make


def client(app):
    return TestClient(app, follow_redirects=False)


def start(c, **platform):
    r = c.get("/", params=platform)
    assert r.status_code == 200 and "I agree" in r.text
    nonce = re.search(r'name="nonce" value="([^"]+)"', r.text).group(1)
    r = c.post("/start", data={"consent": "yes", "nonce": nonce, **platform})
    assert r.status_code == 303
    return re.search(r"/s/([^/]+)/instructions", r.headers["location"]).group(1)


def first_question(c, token):
    """The address of the participant's next question (handed out now, not yet shown)."""
    r = c.get(f"/s/{token}/next")
    assert r.status_code == 303
    return r.headers["location"]


def answer_everything(c, token, data):
    """Open and answer every question the participant gets; returns the last address (``/done``)."""
    url = first_question(c, token)
    while "/q/" in url:
        assert c.get(url).status_code == 200
        assert c.post(url, data=data).status_code == 303
        url = first_question(c, token)
    return url


def snapshot(store, study):
    return [(r["item_id"], r["answer"], r["familiarity"]) for r in store.responses(study.study_id)], store.item_counts(
        study.study_id
    )


def test_a_whole_session_with_prolific_ids(setup, clock):
    study, store, app = setup(redirect_url="https://app.prolific.com/submissions/complete")
    c = client(app)
    token = start(c, PROLIFIC_PID="5f1d2a", STUDY_ID="st9", SESSION_ID="se7")
    assert "Instructions" in c.get(f"/s/{token}/instructions").text
    for n in range(3):
        url = first_question(c, token)
        page = c.get(url)
        assert page.status_code == 200 and f"Question {n + 1} of 3" in page.text
        assert page.headers["cache-control"] == "no-store"
        clock.advance(2000)
        r = c.post(url, data={"answer": "1", "familiarity": "2", "rt_ms": "1500"})
        assert r.status_code == 303 and r.headers["location"] == first_question(c, token)  # straight on
    url = first_question(c, token)
    assert url.endswith("/done")
    r = c.get(url)
    assert r.status_code == 303
    assert r.headers["location"] == f"https://app.prolific.com/submissions/complete?cc={study.code_for('5f1d2a')}"
    (participant,) = store.participants(study.study_id)
    assert (participant["external_id"], participant["prolific_study_id"], participant["prolific_session_id"]) == (
        "5f1d2a",
        "st9",
        "se7",
    )
    assert participant["completed_ms"] is not None and participant["answers"] == 3
    frame = export_responses(study, store)
    assert len(frame) == 3 and (frame["rt_ms"] == 1500).all() and (frame["familiarity"] == 2).all()
    assert "5f1d2a" not in frame.to_csv()  # the export carries only the hashed id
    # coming back to the study link resumes the finished session instead of starting another
    assert c.get("/").headers["location"].endswith(f"/s/{token}/next")


def test_completion_code_page_and_model_answer(setup):
    study, store, app = setup(show_answer=True)
    c = client(app)
    token = start(c)
    url = first_question(c, token)
    position = url.rsplit("/", 1)[1]
    assert c.get(f"/s/{token}/q/{position}/answer").status_code == 404  # not before answering
    item = study.item(store.session(study, token, c.cookies[f"tl_{study.study_id}"].split(":")[1]).slots[0].item_id)
    c.get(url)
    r = c.post(url, data={"answer": str(item.intruder_position), "familiarity": "1"})
    assert r.headers["location"].endswith(f"/q/{position}/answer")
    shown = c.get(r.headers["location"]).text
    assert item.intruder in shown and "The answer the computer program built into this question" in shown
    for _ in range(2):
        url = c.get(f"/s/{token}/next").headers["location"]
        c.get(url)
        c.post(url, data={"answer": "0", "familiarity": "1"})
    done = c.get(f"/s/{token}/done")
    assert done.status_code == 200 and study.completion_code in done.text


def test_question_pages_never_reveal_the_key(setup, models, corpus):
    templates_static: dict[str, list[str]] = {}
    for task, kwargs in [
        ("word-intrusion", {}),
        ("topic-intrusion", {"corpus": corpus, "docs": 5}),
        ("rating", {"checks": 3, "checks_per_participant": 2}),
    ]:
        study, store, app = setup(task, **kwargs)
        c = client(app)
        token = start(c)
        key = c.cookies[f"tl_{study.study_id}"].split(":")[1]
        while "/q/" in (url := first_question(c, token)):
            position = int(url.rsplit("/", 1)[1])
            item = study.item(store.session(study, token, key).slot(position).item_id)
            html = c.get(url).text
            page, _ = parse_page("", html)
            labels = [label for _, label in page.answers]
            if task == "word-intrusion":
                assert labels == list(item.words)
            elif task == "topic-intrusion":
                assert labels == [", ".join(o) for o in item.options] and item.doc_snippet in html
            else:
                assert [v for v, _ in page.answers] == list(range(item.scale, 0, -1))
                assert ", ".join(item.words) in html
            static = re.findall(r"<style>.*</style>|<script>.*</script>", html, flags=re.S)
            assert static == templates_static.setdefault("blocks", static)  # the same CSS and script on every page
            lowered = re.sub(r"<style>.*</style>|<script>.*</script>", "", html, flags=re.S).lower()
            for secret in (
                "model_alpha",
                "model_beta",
                item.item_id,
                "intruder",
                "check",
                "expected",
                "correct",
                "topic",
            ):
                assert secret not in lowered
            if item.intruder_position is not None:  # answer values are display positions, nothing more
                assert [v for v, _ in page.answers] == list(range(item.n_options))
            answer = {"answer": str(page.answers[0][0]), **({"familiarity": "1"} if page.familiarity else {})}
            assert c.post(url, data=answer).status_code == 303
        store.close()
        # nothing else a participant can reach reveals it either
        assert set(c.get("/healthz").json()) == {"ok", "study_id", "task"}
        for path in (
            "/admin",
            "/admin/progress.json",
            "/admin/export.csv",
            "/admin/study.qsf",
            "/docs",
            "/openapi.json",
        ):
            assert c.get(path).status_code in (401, 404)


@pytest.mark.parametrize("path", ["/admin", "/admin/progress.json", "/admin/export.csv", "/admin/export.parquet",
                                  "/admin/study.qsf", "/admin/participants.csv"])  # fmt: skip
def test_admin_routes_need_the_token(setup, path):
    _, _, app = setup()
    c = client(app)
    assert c.get(path).status_code == 401
    assert c.post("/admin/login", data={"token": "wrong-token-123"}).status_code == 403
    assert c.get(path).status_code == 401
    assert c.post("/admin/login", data={"token": TOKEN}).status_code == 303
    assert c.get(path).status_code == 200


def test_admin_pages_show_progress_and_live_scores(setup):
    _, _, app = setup("rating", checks=2, checks_per_participant=1)
    for _ in range(4):
        c = client(app)
        answer_everything(c, start(c), {"answer": "3", "familiarity": "1"})
    admin = client(app)
    r = admin.post("/admin/login", data={"token": TOKEN})
    assert r.status_code == 303 and r.headers["location"] == "/admin"  # the token traded for a signed cookie
    page = admin.get("/admin").text
    assert "MODEL_ALPHA" in page and "mean rating" in page and "3.000" in page
    progress = admin.get("/admin/progress.json").json()
    assert progress["responses"] == 16 and progress["participants"] == 4 and progress["check_answers"] == 4
    assert progress["check_passed"] == 0 and progress["flagged"] == 4  # rated a synthetic topic 3 of 3
    assert {m["model"]: m["mean rating"] for m in progress["models"]} == {"MODEL_ALPHA": 3.0, "MODEL_BETA": 3.0}


def test_refusals_change_nothing(setup):
    study, store, app = setup()
    a, b = client(app), client(app)
    token_a, token_b = start(a), start(b)
    url = first_question(a, token_a)
    a.get(url)
    assert a.post(url, data={"answer": "2", "familiarity": "1"}).status_code == 303
    position = url.rsplit("/", 1)[1]
    nxt = first_question(a, token_a)
    a.get(nxt)
    before = snapshot(store, study)
    cases = [
        (a.post(url, data={"answer": "3", "familiarity": "1"}), 303),  # replayed submission: on to /next
        (b.post(nxt, data={"answer": "1", "familiarity": "1"}), 403),  # another participant's session
        (b.get(nxt), 403),
        (client(app).get(nxt), 403),  # no cookie at all
        (a.post(f"/s/{token_a}/q/999", data={"answer": "1", "familiarity": "1"}), 404),  # unknown item
        (a.get(f"/s/{token_a}/q/999"), 404),
        (a.get("/s/not-a-session/next"), 403),
        (a.post(nxt, data={"answer": "1", "familiarity": "1", "x": "1"}), 422),  # unknown field
        (a.post(nxt, data={"answer": "abc", "familiarity": "1"}), 422),
        (a.post(nxt, data={"answer": "-1", "familiarity": "1"}), 422),
        (a.post(nxt, data={"answer": "6", "familiarity": "1"}), 422),  # six words: positions 0-5
        (a.post(nxt, data={"answer": "١", "familiarity": "1"}), 422),  # a non-ASCII digit
        (a.post(nxt, data={"answer": "1"}), 422),  # familiarity missing
        (a.post(nxt, data={"answer": "1", "familiarity": "4"}), 422),
        (a.post(nxt, data={"answer": "1", "familiarity": "1", "rt_ms": "fast"}), 422),
        (a.post(nxt, data=[("answer", "1"), ("answer", "2"), ("familiarity", "1")]), 422),  # repeated field
        (a.post(nxt, data={"answer": "1" * 100, "familiarity": "1"}), 422),  # oversized field
        (a.post(nxt, content=b"answer=1&familiarity=1&pad=" + b"x" * 20_000,
                headers={"content-type": "application/x-www-form-urlencoded"}), 413),  # oversized body
        (a.post(nxt, json={"answer": 1, "familiarity": 1}), 422),  # not a form
        (a.post(f"/s/{token_a}/q/{position}/answer"), 405),
        (a.get(f"/s/{token_b}/done"), 403),
        (a.get("/", params={"PROLIFIC_PID": "<script>"}), 400),
        (client(app).post("/start", data={"consent": "no"}), 422),
    ]  # fmt: skip
    for response, status in cases:
        assert response.status_code == status, (
            response.request.method,
            response.request.content[:80],
            response.text[:300],
        )
    assert snapshot(store, study) == before
    assert len(store.participants(study.study_id)) == 2


def test_reload_and_back_never_lose_or_duplicate(setup):
    study, store, app = setup()
    c = client(app)
    token = start(c)
    first = first_question(c, token)
    c.get(first)
    c.get(first)  # reload
    second = c.post(first, data={"answer": "0", "familiarity": "1"}).headers["location"]
    assert second != first and second == first_question(c, token)
    back = c.get(first)  # the back button: an answered question sends the participant on
    assert back.status_code == 303 and back.headers["location"].endswith("/next")
    assert c.get(back.headers["location"]).headers["location"] == second
    again = c.post(first, data={"answer": "4", "familiarity": "3"})  # a double click: on to the next step
    assert again.status_code == 303 and again.headers["location"].endswith("/next")
    assert [(r["answer"], r["familiarity"]) for r in store.responses(study.study_id)] == [(0, 1)]


def test_one_platform_id_one_session_and_declining_records_nothing(setup):
    study, store, app = setup()
    token = start(client(app), PROLIFIC_PID="abc123")
    r = client(app).post("/start", data={"consent": "yes", "PROLIFIC_PID": "abc123"})
    assert r.status_code == 303 and r.headers["location"] == f"/s/{token}/instructions"  # resumed
    r = client(app).post("/decline", data={"PROLIFIC_PID": "zzz"})
    assert r.status_code == 200 and "nothing was recorded" in r.text
    assert [p["external_id"] for p in store.participants(study.study_id)] == ["abc123"]


def test_a_full_study_says_so_and_gives_no_code(setup):
    study, _, app = setup(annotators=1, items_per_participant=20)
    c = client(app)
    answer_everything(c, start(c), {"answer": "0", "familiarity": "1"})
    late = client(app)
    token = start(late)
    for page in (late.get(f"/s/{token}/instructions"), late.get(f"/s/{token}/next")):
        assert "The study is full" in page.text and study.completion_code not in page.text
    assert late.get(f"/s/{token}/done").text.count(study.completion_code) == 0
