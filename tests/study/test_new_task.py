"""A fourth human task, defined and registered here only, runs through everything: items, a saved study, the
web app over HTTP, the admin's live score, the export, Qualtrics, the analysis and its power analysis.

The task ("top word": which of four of a topic's top words is its most probable one?) touches no
file of tealeaves: what it is lives in its class, as each built-in task's does in its module.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import pytest
from fastapi.testclient import TestClient

from tealeaves.analysis import analyze_export, annotators_for_study, human_scores, read_export, select
from tealeaves.errors import InputError
from tealeaves.models import TopicModel, Topics, as_topics
from tealeaves.study import (
    AUDIT_COLUMNS,
    EXPORT_COLUMNS,
    Item,
    Study,
    TopicTask,
    create_study,
    export_responses,
    import_qualtrics,
    qualtrics_survey,
    register_task,
    task_names,
    write_responses,
)
from tealeaves.study.design import items_per_model
from tealeaves.study.monitor import summary
from tealeaves.study.tasks import ItemRequest, unregister_task
from tealeaves.study.tasks.base import found_share

TOKEN = "new-task-admin-token"
SHOWN = 4


class TopWord(TopicTask):
    """Four of a topic's top ten words, shuffled: which one is the topic's most probable word?"""

    name = "top-word"
    question = "Which of these words is the most typical of the group?"
    instructions = "Each group of words comes from a computer program. Pick the word most typical of the group."
    annotators = 3
    options = ("draws",)
    measure = "top word precision"
    live_scores = ("top word precision",)
    answer_column = "correct"
    template = '  <p class="hint" id="toy-hint">One of {{ view.words | length }} words is the most typical.</p>\n'

    def topic_items(
        self, label: str, model: TopicModel | Topics, selected: list[int], request: ItemRequest
    ) -> list[Item]:
        top = as_topics(model).top(10)
        items = []
        for k in selected:
            shown = [top[k][0], *request.task_rng.choice(top[k][1:], size=SHOWN - 1, replace=False)]
            order = request.task_rng.permutation(SHOWN)
            words = tuple(str(shown[i]) for i in order)
            position = int(np.flatnonzero(order == 0)[0])
            items.append(
                Item("", self.name, label, k, words=words, intruder=words[position], intruder_position=position)
            )
        return items

    def live_values(self, item: Item, responses: Sequence[dict[str, Any]]) -> dict[str, float | None]:
        return {"top word precision": found_share(responses)}

    def item_score(self, responses: pd.DataFrame) -> float:
        return float(responses["correct"].astype(bool).mean())


@pytest.fixture
def top_word():
    task = register_task(TopWord())
    yield task
    unregister_task(task.name)


def test_a_registered_task_runs_through_items_app_export_and_analysis(top_word, make, models, tmp_path):
    assert "top-word" in task_names()
    study, store, app = make(task="top-word", annotators=2, items_per_participant=4, out=tmp_path / "study")
    assert len(study.items) == 20 and {item.task for item in study.items} == {"top-word"}
    assert study.settings["instructions"] == top_word.instructions and study.settings["show_answer"] is False
    assert (study.settings["draws"], study.settings["protocol"], study.settings["scale"]) == (1, None, None)
    assert Study.load(tmp_path / "study").items == study.items  # items.jsonl reads back
    assert items_per_model(list(models.values()), "top-word", topics_per_model=7) == 7
    key = {item.item_id: item for item in study.items}

    # four participants answer over HTTP: two always right, two always on the first word
    for n in range(4):
        c = TestClient(app, follow_redirects=False)
        nonce = re.search(r'name="nonce" value="([^"]+)"', c.get("/").text).group(1)
        token = re.search(r"/s/([^/]+)/", c.post("/start", data={"consent": "yes", "nonce": nonce}).headers["location"])
        token = token.group(1)
        cookie = c.cookies[f"tl_{study.study_id}"].split(":")[1]
        while "/q/" in (url := c.get(f"/s/{token}/next").headers["location"]):
            page = c.get(url).text
            assert top_word.question in page and 'id="toy-hint">One of 4 words' in page
            item = key[store.session(study, token, cookie).slot(int(url.rsplit("/", 1)[1])).item_id]
            assert re.findall(r'name="answer" value="(\d+)"', page) == ["0", "1", "2", "3"]
            assert c.post(url, data={"answer": "4", "familiarity": "1"}).status_code == 422  # four words: 0-3
            answer = item.intruder_position if n < 2 else 0
            assert c.post(url, data={"answer": str(answer), "familiarity": "1"}).status_code == 303
        assert c.get(f"/s/{token}/done").status_code == 200

    admin = TestClient(app, follow_redirects=False)
    assert admin.post("/admin/login", data={"token": TOKEN}).status_code == 303
    live = admin.get("/admin/progress.json").json()
    assert live["score_names"] == ["top word precision"] and live["responses"] == 16
    assert live == summary(study, store)

    export = export_responses(study, store)
    assert list(export.columns) == [*EXPORT_COLUMNS, *AUDIT_COLUMNS] and set(export["task"]) == {"top-word"}
    for row in export.itertuples():
        assert row.words == " ".join(key[row.item_id].words) and row.correct == (row.response == row.intruder_position)
    assert admin.get("/admin/export.csv").status_code == 200

    survey = qualtrics_survey(study)
    questions = {e["Payload"]["DataExportTag"]: e["Payload"] for e in survey["SurveyElements"] if e["Element"] == "SQ"}
    item = study.items[0]
    assert questions[item.item_id]["QuestionDescription"] == top_word.question
    cell = f"{item.intruder_position + 1},{SHOWN + 1}"  # the key, and familiarity 1
    (tmp_path / "q.csv").write_text(f'ResponseId,{item.item_id}\nR_1,"{cell}"\n')
    (imported,) = import_qualtrics(study, tmp_path / "q.csv").itertuples()
    assert (imported.response, imported.correct, imported.familiarity) == (item.intruder_position, True, 1)

    responses = read_export(write_responses(export, tmp_path / "export.csv"))
    scores = human_scores(select(responses))
    assert set(scores.per_model["measure"]) == {"top word precision"}
    expected = export.assign(right=export["correct"].astype(float)).groupby(["model", "topic"])["right"].mean()
    got = scores.per_item.set_index(["model", "item"])["score"]
    assert np.allclose(got.sort_index().to_numpy(), expected.sort_index().to_numpy())
    analysis = analyze_export(responses, n_boot=20)
    assert set(analysis.agreement["task"]) == {"top-word"} and set(analysis.comparisons["task"]) == {"top-word"}

    size = annotators_for_study("top-word", 10, n_sim=40)  # sized as word intrusion
    assert size == annotators_for_study("word-intrusion", 10, n_sim=40)


def test_a_registered_task_is_refused_where_it_says_so(top_word, models):
    with pytest.raises(InputError, match="top-word studies take checks=0"):
        create_study(models, "top-word", checks=2)
    with pytest.raises(InputError, match="built-in task"):
        register_task(type("Rating", (TopWord,), {"name": "rating"})())
    unregister_task("top-word")
    with pytest.raises(InputError, match="task must be one of word-intrusion, topic-intrusion, rating, got"):
        create_study(models, "top-word")


def test_a_task_template_is_escaped_like_every_page(make):
    class Shown(TopWord):
        name = "top-word-shown"
        template = '  <p id="first">{{ view.words[0] }}</p>\n'

    task = register_task(Shown())
    try:
        topics = {"m": [[f"<i>w{k}{j}</i>" for j in range(10)] for k in range(3)]}
        _, _, app = make(task=task.name, source=topics, annotators=1, items_per_participant=1)
        c = TestClient(app, follow_redirects=False)
        nonce = re.search(r'name="nonce" value="([^"]+)"', c.get("/").text).group(1)
        location = c.post("/start", data={"consent": "yes", "nonce": nonce}).headers["location"]
        token = re.search(r"/s/([^/]+)/", location).group(1)
        page = c.get(c.get(f"/s/{token}/next").headers["location"]).text
        assert re.search(r'<p id="first">&lt;i&gt;w\d+&lt;/i&gt;</p>', page) and "<i>" not in page
    finally:
        unregister_task(task.name)
