"""What the admin pages show while a study runs: progress, live scores per model, attention checks.

The live scores are quick looks, not the analysis (that is :mod:`tealeaves.analysis`, run on
the export); each task names its own (:attr:`~tealeaves.study.tasks.HumanTask.live_scores`), a
mean over the model's items with answers of each item's value:

- model precision (Chang et al. 2009, Eq. 1): for each item the share of answers that picked
  the intruder, MP = Σ_s 1(i_s = ω) / S (word and topic intrusion);
- topic log odds (Chang et al. 2009, Eq. 2): for each topic-intrusion item
  TLO = Σ_s (log θ̂_{d,j*} − log θ̂_{d,j_s}) / S;
- mean rating: each item's mean rating;
- familiar: the share of answers with familiarity 1 (Hoyle et al. 2021, Fig. 1).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tealeaves.study.design import Study
from tealeaves.study.store import Store
from tealeaves.study.tasks.base import mean
from tealeaves.study.tasks.registry import task_named


def summary(study: Study, store: Store) -> dict[str, Any]:
    """Progress and live scores of ``study`` (see the module docstring)."""
    counts = store.item_counts(study.study_id)
    responses = store.responses(study.study_id)
    participants = store.participants(study.study_id)
    target = int(study.settings["annotators"])
    by_item: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in responses:
        by_item[r["item_id"]].append(r)

    per_model: dict[str, dict[str, Any]] = {}
    for label in study.labels:
        per_model[label] = {"model": label, "n_items": 0, "answers": 0, "toward": 0, "scores": defaultdict(list)}
    familiar: dict[str, list[int]] = defaultdict(list)
    item_rows: list[dict[str, Any]] = []
    for item in study.items:
        answers, assigned = counts.get(item.item_id, (0, 0))
        item_rows.append(
            {
                "item_id": item.item_id,
                "model": item.model,
                "topic": item.topic,
                "answers": answers,
                "assigned": assigned,
                "target": 0 if item.is_check else target,
            }
        )
        if item.is_check:
            continue
        row = per_model[item.model]
        row["n_items"] += 1
        row["answers"] += answers
        row["toward"] += min(answers, target)
        got = by_item.get(item.item_id, [])
        familiar[item.model] += [int(r["familiarity"] == 1) for r in got if r["familiarity"] is not None]
        if not got:
            continue
        for name, value in task_named(item.task).live_values(item, got).items():
            row["scores"][name].append(value)

    score_names = list(task_named(study.task).live_scores)
    models = []
    for label, row in per_model.items():
        wanted = row["n_items"] * target
        entry = {
            "model": label,
            "n_items": row["n_items"],
            "answers": row["answers"],
            "share_done": row["toward"] / wanted if wanted else 0.0,
            "familiar": mean(familiar[label]),
        }
        for name in score_names:
            entry[name] = mean(row["scores"][name])
        models.append(entry)

    checks = [item for item in study.items if item.is_check]
    check_answers = [(r, study.item(r["item_id"])) for r in responses if study.item(r["item_id"]).is_check]
    regular = [row for row in item_rows if row["target"]]
    target_answers = len(regular) * target
    toward = sum(min(row["answers"], target) for row in regular)
    return {
        "study_id": study.study_id,
        "task": study.task,
        "n_items": len(study.items),
        "regular_items": len(regular),
        "checks": len(checks),
        "target": target,
        "target_answers": target_answers,
        "answers_toward_target": toward,
        "share_done": toward / target_answers if target_answers else 0.0,
        "items_complete": sum(row["answers"] >= target for row in regular),
        "participants": len(participants),
        "completed": sum(p["completed_ms"] is not None for p in participants),
        "responses": len(responses),
        "late": sum(bool(r["late"]) for r in responses),
        "models": models,
        "score_names": score_names,
        "score_note": (
            "Live means over items with answers; model precision is Chang et al.'s Eq. 1, topic log odds their "
            "Eq. 2. Run the analysis on the export for confidence intervals and tests."
        ),
        "check_answers": len(check_answers),
        "check_passed": sum(not item.fails_check(r["answer"]) for r, item in check_answers),
        "flagged": len({r["annotator"] for r, item in check_answers if item.fails_check(r["answer"])}),
        "item_rows": item_rows,
    }
