"""The response store on SQLite and PostgreSQL: assignment, release, replay refusal, concurrency."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from sqlalchemy import text

from tealeaves.errors import ArtifactError
from tealeaves.study import SCHEMA_VERSION, create_study
from tealeaves.study.store import ANSWERED, RELEASED, AlreadyAnswered, AlreadyStarted, Store, UnknownSession, WrongKey


@pytest.fixture(scope="module")
def study(models):
    # 20 items, 3 answers each, 4 items per participant: 60 answers fill the study (15 participants)
    return create_study(models, "word-intrusion", seed=3, annotators=3, items_per_participant=4)


def answer_all(store, study, token, key):
    session = store.session(study, token, key)
    for slot in session.slots:
        if slot.status != ANSWERED:
            store.show(study, token, key, slot.position)
            store.record(study, token, key, slot.position, 0, 1, None)


def test_participants_fill_every_item_to_its_target_and_no_further(store_factory, study):
    store = store_factory()
    store.ensure_study(study)
    tokens = []
    for n in range(15):
        token, key = store.start(study, external_id=f"P{n}")
        tokens.append(token)
        session = store.session(study, token, key)
        assert len(session.slots) == 4 and len({s.item_id for s in session.slots}) == 4
        answer_all(store, study, token, key)
    counts = store.item_counts(study.study_id)
    assert {item.item_id: counts[item.item_id][0] for item in study.items} == {i.item_id: 3 for i in study.items}
    token, key = store.start(study, external_id="late")
    assert store.session(study, token, key).slots == ()  # the study is full
    responses = store.responses(study.study_id)
    assert len(responses) == 60 and len({(r["token"], r["item_id"]) for r in responses}) == 60


def test_items_furthest_below_target_come_first(store_factory, study):
    store = store_factory()
    store.ensure_study(study)
    first, key = store.start(study)
    held = {s.item_id for s in store.session(study, first, key).slots}
    second, key2 = store.start(study)
    # with 20 items all 3 below target, the first participant's 4 now need only 2: nobody else gets them
    assert held.isdisjoint(s.item_id for s in store.session(study, second, key2).slots)


def test_stale_items_are_released_and_taken_back_when_still_needed(store_factory, study, clock):
    store = store_factory()
    store.ensure_study(study)
    idle, idle_key = store.start(study)
    store.show(study, idle, idle_key, 1)
    held = [s.item_id for s in store.session(study, idle, idle_key).slots]
    clock.advance(int(study.settings["timeout_minutes"] * 60_000) + 1)
    store.start(study)  # any new assignment releases the questions of inactive participants
    assert all(s.status == RELEASED for s in store.session(study, idle, idle_key).slots)
    store.record(study, idle, idle_key, 1, 2, 1, None)  # a late answer is stored, never lost
    # back again: the released questions are still below target (3), so the participant takes them back
    session = store.refill(study, idle, idle_key)
    assert [s.item_id for s in session.slots] == held
    assert [s.status for s in session.slots] == [ANSWERED, "assigned", "assigned", "assigned"]


def test_released_items_go_to_others_and_the_returning_participant_gets_the_rest(models, store_factory, clock):
    study = create_study(models, "word-intrusion", seed=3, annotators=1, items_per_participant=4)
    store = store_factory()
    store.ensure_study(study)
    idle, idle_key = store.start(study)
    held = {s.item_id for s in store.session(study, idle, idle_key).slots}
    clock.advance(int(study.settings["timeout_minutes"] * 60_000) + 1)
    others = [store.start(study) for _ in range(4)]  # 16 of the 20 items, some of the 4 released ones among them
    taken = {s.item_id for token, key in others for s in store.session(study, token, key).slots}
    assert len(taken) == 16
    session = store.refill(study, idle, idle_key)
    mine = {s.item_id for s in session.slots if s.status == "assigned"}
    everything = {item.item_id for item in study.items}
    assert len(mine) == 4 and mine.isdisjoint(taken) and mine | taken == everything
    assert mine & held == held - taken  # its own released items nobody took, plus fresh ones


def test_a_late_answer_to_a_reassigned_item_is_kept(models, store_factory, clock):
    study = create_study(models, "word-intrusion", seed=3, annotators=1, items_per_participant=4)
    store = store_factory()
    store.ensure_study(study)
    idle, idle_key = store.start(study)
    first = store.session(study, idle, idle_key).slots[0].item_id
    clock.advance(int(study.settings["timeout_minutes"] * 60_000) + 1)
    for _ in range(5):  # all 20 items go to others, the idle participant's among them
        store.start(study)
    assert store.refill(study, idle, idle_key).pending is None  # nothing left to give back
    store.record(study, idle, idle_key, 1, 0, 1, None)
    assert Counter(r["item_id"] for r in store.responses(study.study_id)) == {first: 1}
    assert store.item_counts(study.study_id)[first] == (1, 1)  # one answer, and the other holder's assignment


def test_replayed_answers_and_foreign_sessions_change_nothing(store_factory, study):
    store = store_factory()
    store.ensure_study(study)
    token, key = store.start(study, external_id="A")
    store.show(study, token, key, 1)
    store.record(study, token, key, 1, 3, 2, 1500)
    with pytest.raises(AlreadyAnswered):
        store.record(study, token, key, 1, 4, 1, 1500)
    with pytest.raises(WrongKey):
        store.record(study, token, "not-the-key", 2, 0, 1, None)
    with pytest.raises(UnknownSession):
        store.record(study, "no-such-token", key, 2, 0, 1, None)
    with pytest.raises(UnknownSession):
        store.record(study, token, key, 99, 0, 1, None)
    with pytest.raises(AlreadyStarted):
        store.start(study, external_id="A")
    (only,) = store.responses(study.study_id)
    assert only["answer"] == 3 and only["familiarity"] == 2


def test_response_time_is_the_browsers_when_plausible(store_factory, study, clock):
    store = store_factory()
    store.ensure_study(study)
    token, key = store.start(study)
    store.show(study, token, key, 1)
    store.show(study, token, key, 2)
    clock.advance(5000)
    store.show(study, token, key, 1)  # a reload does not restart the clock
    store.record(study, token, key, 1, 0, 1, 4200)
    store.record(study, token, key, 2, 0, 1, 999_999)  # implausible: longer than the page was out
    rts = [r["rt_ms"] for r in store.responses(study.study_id)]
    assert rts == [4200, 5000]


def test_concurrent_participants_never_overfill_an_item(store_factory, study):
    store = store_factory()
    store.ensure_study(study)
    errors = []

    def participant(n):
        try:
            token, key = store.start(study, external_id=f"C{n}")
            answer_all(store, study, token, key)
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=participant, args=(n,)) for n in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    answers = Counter(r["item_id"] for r in store.responses(study.study_id))
    assert answers == {item.item_id: 3 for item in study.items}


def test_schema_version_and_study_identity_are_checked(store_factory, study, models, db_url):
    store = store_factory()
    store.ensure_study(study)
    store.ensure_study(study)  # idempotent
    other = create_study(models, "word-intrusion", seed=3, annotators=4, items_per_participant=4)
    tampered = type(study)(study.study_id, study.task, other.items, other.settings, study.models)
    with pytest.raises(ArtifactError, match="different version"):
        store.ensure_study(tampered)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE meta SET value = :v WHERE key = 'schema_version'"), {"v": str(SCHEMA_VERSION + 1)})
    with pytest.raises(ArtifactError, match="schema version"):
        Store(db_url)
