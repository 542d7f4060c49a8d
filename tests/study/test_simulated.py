"""Whole studies driven through a live server on loopback by many simulated participants."""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest

from tealeaves.study import create_study, export_responses
from tealeaves.study.store import Store
from tealeaves.study.testing import LiveServer, simulate
from tealeaves.study.web.app import create_app

TOKEN = "admin-secret-token"


def oracle(study, skill):
    """Participants who find the intruder with probability ``skill[model]``, else pick another word."""
    by_words = {tuple(item.words): item for item in study.items}

    def policy(page, rng):
        item = by_words[tuple(page.labels)]
        wrong = [p for p in range(len(page.answers)) if p != item.intruder_position]
        answer = item.intruder_position if rng.random() < skill[item.model] else rng.choice(wrong)
        return answer, rng.choice(page.familiarity)

    return policy


def test_many_participants_complete_a_word_intrusion_study(models, db_url):
    # 20 items x 12 answers = 240 answers, 6 per participant: 40 participants fill it, 8 more find it full
    study = create_study(models, "word-intrusion", seed=5, annotators=12, items_per_participant=6)
    store = Store(db_url, rng=random.Random(1))
    store.ensure_study(study)
    skill = {"MODEL_ALPHA": 0.9, "MODEL_BETA": 0.3}
    with LiveServer(create_app(study, store, TOKEN, starts_per_client=0, live_per_client=0)) as server:
        runs = simulate(server.url, 48, policy=oracle(study, skill), seed=2, concurrency=16)
    outcomes = Counter(run.outcome for run in runs)
    assert set(outcomes) <= {"completed", "full"} and outcomes["completed"] >= 40, [r.error for r in runs if r.error]
    assert all(len(run.answered) == 6 for run in runs if run.outcome == "completed")
    assert {run.completion for run in runs if run.completion} == {study.completion_code}
    frame = export_responses(study, store)
    assert len(frame) == sum(len(run.answered) for run in runs) == 240 + frame["late"].sum()
    counted = frame[~frame["late"]]  # every item at its target with unflagged answers, the rest flagged
    assert Counter(counted["item_id"]) == {item.item_id: 12 for item in study.items}
    assert not frame.duplicated(["annotator", "item_id"]).any()
    # every answer a participant sent is stored exactly as sent
    sent = Counter((run.prolific_pid, answer, familiarity) for run in runs for _, answer, familiarity in run.answered)
    pid_of = {p["annotator"]: p["external_id"] for p in store.participants(study.study_id)}
    stored = Counter(zip(frame["annotator"].map(pid_of), frame["response"], frame["familiarity"]))
    assert stored == sent
    # model precision recovers the simulated skills (120 answers per model: 4 standard errors)
    precision = frame.groupby("model")["correct"].mean()
    for label, p in skill.items():
        assert abs(precision[label] - p) < 4 * (p * (1 - p) / 120) ** 0.5
    store.close()


def test_abandoned_sessions_release_their_items(models, tmp_path):
    study = create_study(
        models, "rating", seed=6, annotators=5, items_per_participant=10, checks=0, timeout_minutes=0.05
    )
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.ensure_study(study)
    with LiveServer(create_app(study, store, TOKEN, starts_per_client=0, live_per_client=0)) as server:
        quitters = simulate(server.url, 6, seed=3, abandon=1.0)
        assert {run.outcome for run in quitters} == {"abandoned"}
        time.sleep(3.5)  # past the 3 s timeout: their unanswered items go back to the pool
        finishers = simulate(server.url, 12, seed=4, pid_prefix="LATE")
    frame = export_responses(study, store)
    assert Counter(frame.loc[~frame["late"], "item_id"]) == {item.item_id: 5 for item in study.items}
    assert sum(run.outcome == "completed" for run in finishers) >= 8
    assert len(frame) == 100 + frame["late"].sum() == sum(len(run.answered) for run in quitters + finishers)
    store.close()


@pytest.mark.parametrize("task", ["topic-intrusion", "rating"])
def test_other_tasks_run_end_to_end(models, corpus, tmp_path, task):
    kwargs = {"corpus": corpus, "docs": 10} if task == "topic-intrusion" else {"checks": 4}
    study = create_study(models, task, seed=7, annotators=4, items_per_participant=4, **kwargs)
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    store.ensure_study(study)
    with LiveServer(create_app(study, store, TOKEN, starts_per_client=0, live_per_client=0)) as server:
        runs = simulate(server.url, 22, seed=5)  # 20 fill either study (80 answers, 4 each)
    assert all(run.outcome in ("completed", "full") for run in runs), [run.error for run in runs]
    frame = export_responses(study, store)
    regular = frame[~frame["is_check"] & ~frame["late"]]
    assert Counter(regular["item_id"]) == {item.item_id: 4 for item in study.items if not item.is_check}
    if task == "rating":
        completed = [run for run in runs if run.outcome == "completed"]
        assert all(len(run.answered) == 6 for run in completed)  # 4 items + 2 attention checks each
        assert set(frame.loc[frame["is_check"], "model"]) == {"check"}
    store.close()
