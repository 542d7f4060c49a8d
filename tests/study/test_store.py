"""The response store on SQLite and PostgreSQL: lazy hand-out, leases, replay refusal, concurrency."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from sqlalchemy import text

from tealeaves.errors import ArtifactError
from tealeaves.study import SCHEMA_VERSION, create_study
from tealeaves.study.store import (
    ANSWERED,
    DONE,
    FULL,
    QUESTION,
    RELEASED,
    WAIT,
    AlreadyAnswered,
    NotShown,
    Store,
    UnknownSession,
    WrongKey,
)


@pytest.fixture(scope="module")
def study(models):
    # 20 items, 3 answers each, 4 items per participant: 60 answers fill the study (15 participants)
    return create_study(models, "word-intrusion", seed=3, annotators=3, items_per_participant=4)


def lease_ms(study):
    return int(study.settings["timeout_minutes"] * 60_000)


def answer_all(store, study, token, key):
    """Take and answer questions until the participant is done or the study full; returns that step."""
    while (step := store.advance(study, token, key)).kind in (QUESTION, WAIT):
        if step.kind == WAIT:  # every item still needed is on others' screens: try again soon
            time.sleep(0.01)
            continue
        store.show(study, token, key, step.position)
        store.record(study, token, key, step.position, 0, 1, None)
    return step


def unflagged(store, study):
    return {item_id: answered for item_id, (answered, _) in store.item_counts(study.study_id).items()}


def test_participants_fill_every_item_to_its_target_and_no_further(store_factory, study):
    store = store_factory()
    store.ensure_study(study)
    for n in range(15):
        token, key = store.start(study, external_id=f"P{n}")
        assert store.session(study, token, key).slots == ()  # nothing is handed out before it is asked for
        assert answer_all(store, study, token, key).kind == DONE
        session = store.session(study, token, key)
        assert [s.status for s in session.slots] == [ANSWERED] * 4 and len({s.item_id for s in session.slots}) == 4
    assert unflagged(store, study) == {item.item_id: 3 for item in study.items}
    token, key = store.start(study, external_id="late")
    assert store.advance(study, token, key).kind == FULL and store.session(study, token, key).slots == ()
    responses = store.responses(study.study_id)
    assert len(responses) == 60 and not any(r["late"] for r in responses)
    assert len({(r["token"], r["item_id"]) for r in responses}) == 60


def test_items_furthest_below_target_come_first(store_factory, study):
    store = store_factory()
    store.ensure_study(study)
    held = []
    for _ in range(20):  # every item is 3 below target; each one handed out is then only 2 below
        token, key = store.start(study)
        position = store.advance(study, token, key).position
        held.append(store.session(study, token, key).slot(position).item_id)
    assert sorted(held) == sorted(item.item_id for item in study.items)


def test_an_expired_lease_is_kept_while_the_item_has_room(store_factory, study, clock):
    store = store_factory()
    store.ensure_study(study)
    idle, idle_key = store.start(study)
    first = store.advance(study, idle, idle_key)
    store.show(study, idle, idle_key, first.position)
    clock.advance(lease_ms(study) + 1)
    for n in range(3):  # others come and go; the item still has room for the idle participant's answer
        answer_all(store, study, *store.start(study, external_id=f"O{n}"))
    assert store.advance(study, idle, idle_key) == first  # back: the same question, its lease renewed
    store.record(study, idle, idle_key, first.position, 2, 1, None)
    assert not store.responses(study.study_id)[-1]["late"]


def test_a_released_question_goes_to_others_and_the_late_answer_is_kept_flagged(models, store_factory, clock):
    study = create_study(models, "word-intrusion", seed=3, annotators=1, items_per_participant=4)
    store = store_factory()
    store.ensure_study(study)
    idle, idle_key = store.start(study)
    step = store.advance(study, idle, idle_key)
    store.show(study, idle, idle_key, step.position)
    mine = store.session(study, idle, idle_key).slot(step.position).item_id
    clock.advance(lease_ms(study) + 1)
    for n in range(5):  # all 20 items go to others, the idle participant's among them
        assert answer_all(store, study, *store.start(study, external_id=f"O{n}")).kind == DONE
    assert unflagged(store, study) == {item.item_id: 1 for item in study.items}
    store.record(study, idle, idle_key, step.position, 0, 1, None)  # the late answer is stored, never lost
    late = [r for r in store.responses(study.study_id) if r["late"]]
    assert [(r["token"], r["item_id"]) for r in late] == [(idle, mine)]
    assert unflagged(store, study) == {item.item_id: 1 for item in study.items}


def test_an_expired_lease_whose_item_filled_is_released_and_another_question_comes(models, store_factory, clock):
    study = create_study(models, "word-intrusion", seed=3, annotators=1, items_per_participant=2)
    store = store_factory()
    store.ensure_study(study)
    idle, idle_key = store.start(study)
    step = store.advance(study, idle, idle_key)
    store.show(study, idle, idle_key, step.position)
    mine = store.session(study, idle, idle_key).slot(step.position).item_id
    clock.advance(lease_ms(study) + 1)
    n = 0
    while unflagged(store, study).get(mine, 0) == 0:  # others come until one of them answered that item
        answer_all(store, study, *store.start(study, external_id=f"O{n}"))
        n += 1
    assert sum(unflagged(store, study).values()) == 2 * n < 20
    again = store.advance(study, idle, idle_key)
    assert again.kind == QUESTION and again.position != step.position
    assert store.session(study, idle, idle_key).slot(step.position).status == RELEASED


def test_replayed_answers_unshown_questions_and_foreign_sessions_change_nothing(store_factory, study):
    store = store_factory()
    store.ensure_study(study)
    token, key = store.start(study, external_id="A")
    step = store.advance(study, token, key)
    with pytest.raises(NotShown):
        store.record(study, token, key, step.position, 3, 2, 1500)
    store.show(study, token, key, step.position)
    store.record(study, token, key, step.position, 3, 2, 1500)
    with pytest.raises(AlreadyAnswered):
        store.record(study, token, key, step.position, 4, 1, 1500)
    with pytest.raises(WrongKey):
        store.record(study, token, "not-the-key", 2, 0, 1, None)
    with pytest.raises(UnknownSession):
        store.record(study, "no-such-token", key, 2, 0, 1, None)
    with pytest.raises(UnknownSession):
        store.record(study, token, key, 99, 0, 1, None)
    assert store.start(study, external_id="A", key=key) == (token, key)  # the same id resumes, never a second one
    (only,) = store.responses(study.study_id)
    assert only["answer"] == 3 and only["familiarity"] == 2
    assert len(store.participants(study.study_id)) == 1


def test_response_time_is_the_browsers_when_plausible(store_factory, study, clock):
    store = store_factory()
    store.ensure_study(study)
    token, key = store.start(study)
    for rt in (4200, 999_999):  # the second is implausible: longer than the page was out
        step = store.advance(study, token, key)
        store.show(study, token, key, step.position)
        clock.advance(5000)
        store.show(study, token, key, step.position)  # a reload does not restart the clock
        store.record(study, token, key, step.position, 0, 1, rt)
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
    rows = store.responses(study.study_id)
    assert Counter(r["item_id"] for r in rows if not r["late"]) == {item.item_id: 3 for item in study.items}
    assert Counter(r["token"] for r in rows) == Counter({token: 4 for token in {r["token"] for r in rows}})


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


def test_a_version_2_store_is_upgraded_with_last_answers_id_classes_and_idle_clocks(
    store_factory, study, clock, db_url
):
    store = store_factory()
    store.ensure_study(study)
    token, key = store.start(study, external_id="OLD1")
    store.start(study, external_id="Old22")
    step = store.advance(study, token, key)
    store.show(study, token, key, step.position)
    clock.advance(5000)
    store.record(study, token, key, step.position, 0, 1, None)
    answered_ms = clock.now
    with store.engine.begin() as conn:  # the store as schema version 2 left it
        conn.execute(text("DROP INDEX ix_participant_pid_class"))
        for column in ("last_answer_ms", "evicted_ms", "pid_class", "idle_from_ms", "held_ms", "partial"):
            conn.execute(text(f"ALTER TABLE participant DROP COLUMN {column}"))
        for column in ("client_hash", "user_agent"):
            conn.execute(text(f"ALTER TABLE response DROP COLUMN {column}"))
        conn.execute(text("DROP TABLE admin_login"))
        conn.execute(text("UPDATE meta SET value = '2' WHERE key = 'schema_version'"))
    store.close()
    upgraded = store_factory()
    with upgraded.engine.connect() as conn:
        assert conn.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar() == str(SCHEMA_VERSION)
        assert conn.execute(text("SELECT pid_class FROM participant ORDER BY id")).scalars().all() == ["old#"] * 2
        idle = conn.execute(text("SELECT idle_from_ms, created_ms, held_ms FROM participant ORDER BY id")).all()
        assert [tuple(row) for row in idle] == [(answered_ms, idle[0][1], 0), (idle[1][1], idle[1][1], 0)]
    row, _ = upgraded.participants(study.study_id)
    assert row["last_answer_ms"] == answered_ms and row["evicted_ms"] is None
    assert upgraded.advance(study, token, key).kind == QUESTION  # the session goes on
    assert upgraded.admit_login(study, "client:x", limit=1, window_s=60, slow_lane_s=60)[0] is not None


def test_minutes_out_of_range_or_nan_are_refused_by_name(models, tmp_path):
    """A lease, answer or idle limit of 0 or NaN minutes: NaN passed "<= 0" and made every clock comparison false."""
    import math

    from tealeaves.errors import InputError
    from tealeaves.study.store import Store

    for minutes in (0.0, math.nan, math.inf):
        with pytest.raises(InputError, match=rf"^a study needs timeout_minutes > 0 and finite, got {minutes}$"):
            create_study(models, "rating", timeout_minutes=minutes)
        for name in ("answer_minutes", "idle_minutes"):
            with pytest.raises(InputError, match=rf"^the study server needs {name} > 0 and finite, got {minutes}$"):
                Store(f"sqlite:///{tmp_path / 'r.sqlite'}", **{name: minutes})


def test_numpy_integers_make_the_same_study_as_python_ones(models, tmp_path):
    """A scale, draws or topics_per_model given as NumPy integers (from an array, a DataFrame) were written into
    the settings as they were: "Object of type int64 is not JSON serializable", after the items were drawn."""
    import numpy as np

    for task, options in (("rating", {"scale": 5, "topics_per_model": 4}), ("word-intrusion", {"draws": 2})):
        plain = create_study(models, task, checks=0, out=tmp_path / f"{task}-plain", **options)
        numpy = {name: np.int64(value) for name, value in options.items()}
        made = create_study(models, task, checks=0, out=tmp_path / f"{task}-numpy", **numpy)
        assert made.study_id == plain.study_id and made.settings == plain.settings
