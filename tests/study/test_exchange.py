"""Exports carry exactly EXPORT_COLUMNS and the AUDIT_COLUMNS; a Qualtrics survey and its CSV export round-trip."""

from __future__ import annotations

import csv
import html
import json
import random

import pandas as pd
import pytest

from tealeaves.errors import InputError
from tealeaves.study import (
    AUDIT_COLUMNS,
    EXPORT_COLUMNS,
    create_study,
    export_responses,
    import_qualtrics,
    qualtrics_survey,
    write_qualtrics_survey,
    write_responses,
)
from tealeaves.study.store import Store, annotator_id


@pytest.fixture
def answered(models, corpus, tmp_path, clock):
    """A topic-intrusion study with three participants' answers stored."""
    study = create_study(
        models, "topic-intrusion", corpus=corpus, docs=4, seed=3, annotators=2, items_per_participant=3
    )
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}", clock=clock)
    store.ensure_study(study)
    for n in range(3):
        token, key = store.start(study, external_id=f"P{n}")
        while (step := store.advance(study, token, key)).kind == "question":
            store.show(study, token, key, step.position)
            clock.advance(1234)
            store.record(study, token, key, step.position, n % 4, None, None)
    yield study, store
    store.close()


def test_export_has_exactly_the_contract_columns_and_true_values(answered):
    study, store = answered
    frame = export_responses(study, store)
    assert list(frame.columns) == [*EXPORT_COLUMNS, *AUDIT_COLUMNS]
    assert len(frame) == 9
    for row in frame.itertuples():
        item = study.item(row.item_id)
        assert row.task == "topic-intrusion" and row.model == item.model and row.topic == item.topic
        assert row.words.split(" | ") == [" ".join(o) for o in item.options]
        assert [int(t) for t in row.option_topics.split()] == list(item.option_topics)
        assert [float(t) for t in row.option_theta.split()] == list(item.option_theta)
        assert row.intruder == str(item.topic) and row.intruder_position == item.intruder_position
        assert row.correct == (row.response == item.intruder_position)
        assert pd.isna(row.familiarity) and pd.isna(row.scale) and row.rt_ms == 1234 and not row.is_check
        assert row.doc_id == item.doc_id
        assert pd.Timestamp(row.answered_at) - pd.Timestamp(row.shown_at) == pd.Timedelta(milliseconds=1234)
        assert pd.isna(row.client) and pd.isna(row.finished_at)  # started in Python, never at /done
        assert pd.Timestamp(row.shown_at) >= pd.Timestamp(row.started_at)
    assert set(frame["annotator"]) == {annotator_id(study.study_id, f"P{n}") for n in range(3)}


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_export_files_round_trip(answered, tmp_path, suffix):
    study, store = answered
    frame = export_responses(study, store)
    path = write_responses(frame, tmp_path / f"out{suffix}")
    back = pd.read_csv(path, keep_default_na=False, dtype=str) if suffix == ".csv" else pd.read_parquet(path)
    assert list(back.columns) == [*EXPORT_COLUMNS, *AUDIT_COLUMNS] and len(back) == len(frame)
    if suffix == ".parquet":
        pd.testing.assert_frame_equal(back, frame)
    else:
        assert back["response"].tolist() == [str(v) for v in frame["response"]]
        assert back["familiarity"].tolist() == [""] * len(frame)
    with pytest.raises(InputError, match=r"\.csv or \.parquet"):
        write_responses(frame, tmp_path / "out.xlsx")


def qualtrics_csv(survey, path, respondents, rng, as_text=False, preview=None):
    """A CSV laid out as Qualtrics exports it (three header rows), answered at random from the .qsf alone."""
    questions = [e["Payload"] for e in survey["SurveyElements"] if e["Element"] == "SQ" and e["Payload"].get("Choices")]
    meta = ["StartDate", "EndDate", "Status", "Progress", "Finished", "RecordedDate", "ResponseId", "PROLIFIC_PID"]
    header = meta + [q["DataExportTag"] for q in questions]
    labels = ["Start Date", "End Date", "Response Type", "Progress", "Finished", "Recorded Date", "Response ID"]
    texts = [*labels, "PROLIFIC_PID"] + [q["QuestionText"] for q in questions]
    imports = [json.dumps({"ImportId": m.lower()}) for m in meta] + [
        json.dumps({"ImportId": q["QuestionID"]}) for q in questions
    ]
    truth = []
    rows = []
    for n in range(respondents):
        pid = f"PID{n:03d}"
        row = ["2024-03-01 10:00:00", "2024-03-01 10:12:00", "1" if n == preview else "0", "100", "1",
               "2024-03-01 10:12:05", f"R_{n:04d}", pid]  # fmt: skip
        for q in questions:
            if rng.random() < 0.5:
                row.append("")
                continue
            groups = q.get("ChoiceGroups")
            answer_ids = groups["cg_answer"]["ChoiceGroupOrder"] if groups else q["ChoiceOrder"]
            picked = [rng.choice(answer_ids)]
            if groups:
                picked.append(rng.choice(groups["cg_familiarity"]["ChoiceGroupOrder"]))
            if as_text:
                row.append(",".join(html.unescape(q["Choices"][str(c)]["Display"]) for c in picked))
            else:
                row.append(",".join(map(str, picked)))
            if n != preview:
                truth.append((pid, q["DataExportTag"], picked))
        rows.append(row)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerows([header, texts, imports, *rows])
    return truth


@pytest.mark.parametrize("task", ["word-intrusion", "rating", "topic-intrusion"])
@pytest.mark.parametrize("as_text", [False, True])
def test_qualtrics_survey_and_export_round_trip(models, corpus, tmp_path, task, as_text):
    kwargs = {"corpus": corpus, "docs": 5} if task == "topic-intrusion" else {}
    study = create_study(models, task, seed=9, redirect_url="https://app.prolific.com/submissions/complete", **kwargs)
    path = write_qualtrics_survey(study, tmp_path / "survey.qsf")
    survey = json.loads(path.read_text())
    questions = {e["Payload"]["DataExportTag"]: e["Payload"] for e in survey["SurveyElements"] if e["Element"] == "SQ"}
    assert set(questions) == {i.item_id for i in study.items} | {"intro"}
    for item in study.items:
        q = questions[item.item_id]
        shown = [html.unescape(q["Choices"][str(c)]["Display"]) for c in q["ChoiceOrder"]]
        if task == "word-intrusion":
            assert shown[:6] == list(item.words)  # the study's display order, not re-shuffled
        assert q["Randomization"]["Type"] == "None" and "MODEL_" not in json.dumps(q)
    (options,) = [e["Payload"] for e in survey["SurveyElements"] if e["Element"] == "SO"]
    assert options["EOSRedirectURL"].endswith(f"?cc={study.completion_code}")
    (blocks,) = [e["Payload"] for e in survey["SurveyElements"] if e["Element"] == "BL"]
    per = study.settings["items_per_participant"] + study.settings["checks_per_participant"]
    assert blocks[2]["Options"]["Randomization"]["Advanced"]["TotalRandSubset"] == per
    flow = json.dumps([e for e in survey["SurveyElements"] if e["Element"] == "FL"])
    assert all(name in flow for name in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID"))

    truth = qualtrics_csv(survey, tmp_path / "export.csv", 12, random.Random(1), as_text=as_text, preview=3)
    frame = import_qualtrics(study, tmp_path / "export.csv", timezone="America/New_York")
    assert list(frame.columns) == [*EXPORT_COLUMNS, *AUDIT_COLUMNS] and len(frame) == len(truth)
    for row, (pid, item_id, picked) in zip(frame.itertuples(), truth):
        item = study.item(item_id)
        assert row.item_id == item_id and row.annotator == annotator_id(study.study_id, pid)
        expected = picked[0] if task == "rating" else picked[0] - 1
        assert row.response == expected
        assert (pd.isna(row.familiarity) and len(picked) == 1) or row.familiarity == picked[1] - item.n_options
        assert row.correct is pd.NA or row.correct == (expected == item.intruder_position)
        assert row.answered_at == "2024-03-01T15:12:05.000+00:00"  # 10:12:05 in New York is 15:12:05 UTC
        assert pd.isna(row.rt_ms) and pd.isna(row.shown_at)


def test_qualtrics_import_refuses_what_it_cannot_read(models, tmp_path):
    study = create_study(models, "rating", seed=9)
    (tmp_path / "other.csv").write_text("ResponseId,Q1\nR_1,1\n")
    with pytest.raises(InputError, match="no column named after an item"):
        import_qualtrics(study, tmp_path / "other.csv")
    item = study.items[0]
    (tmp_path / "bad.csv").write_text(f'ResponseId,{item.item_id}\nR_1,"2,9"\n')
    with pytest.raises(InputError, match="does not fit"):
        import_qualtrics(study, tmp_path / "bad.csv")
    with pytest.raises(InputError, match="time zone"):
        import_qualtrics(study, tmp_path / "bad.csv", timezone="Mars/Olympus")


def test_qualtrics_survey_is_plain_json(models):
    survey = qualtrics_survey(create_study(models, "word-intrusion", seed=1))
    json.dumps(survey)  # serialisable as it is
    assert survey["SurveyEntry"]["SurveyLanguage"] == "EN"


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_analysis_reads_the_export(models, tmp_path, clock, suffix):
    analysis = pytest.importorskip("tealeaves.analysis", reason="the analysis package is not there yet")
    study = create_study(models, "rating", seed=4, annotators=2, items_per_participant=5, checks=2)
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}", clock=clock)
    store.ensure_study(study)
    for n in range(4):
        token, key = store.start(study, external_id=f"P{n}")
        while (step := store.advance(study, token, key)).kind == "question":
            store.show(study, token, key, step.position)
            store.record(study, token, key, step.position, 3 if n == 0 else 1, 1, None)  # P0 rates checks 3 of 3
    path = write_responses(export_responses(study, store), tmp_path / f"export{suffix}")
    store.close()
    frame = analysis.read_export(path)
    assert len(frame) == 4 * 7 and frame["is_check"].sum() == 4 * 2
    failed = analysis.failed_checks(frame).set_index("annotator")["failed"]
    assert failed[annotator_id(study.study_id, "P0")] == 2 and failed.sum() == 2
