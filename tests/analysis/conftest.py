"""A small synthetic study export in the long format of tealeaves.study.schema.EXPORT_COLUMNS."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tealeaves.study.schema import EXPORT_COLUMNS


def response(**fields) -> dict:
    row = dict.fromkeys(EXPORT_COLUMNS, "")
    row.update(study_id="s1", shown_at="2024-01-01T00:00:00Z", answered_at="2024-01-01T00:00:05Z", rt_ms=5000)
    row["is_check"] = False
    row.update(fields)
    return row


def make_export(seed: int = 0) -> pd.DataFrame:
    """Two models, 6 topics each, 8 annotators: word intrusion, ratings, topic intrusion, checks.

    Model "good" has intruder-finding probability 0.9 and mostly 3-ratings, "bad" 0.3 and 1-2s.
    Annotator a7 rates the attention check "very related" (fails it). Familiarity: a0 is
    unfamiliar (2) everywhere.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for a in range(8):
        annotator = f"a{a}"
        familiarity = 2 if a == 0 else 1
        for model, p, rating_p in (("good", 0.9, [0.05, 0.15, 0.8]), ("bad", 0.3, [0.5, 0.4, 0.1])):
            for topic in range(6):
                found = bool(rng.random() < p)
                rows.append(
                    response(
                        annotator=annotator,
                        item_id=f"wi-{model}-{topic}",
                        task="word-intrusion",
                        model=model,
                        topic=topic,
                        words="a b c d e f",
                        intruder="f",
                        intruder_position=5,
                        response=5 if found else 0,
                        correct=found,
                        familiarity=familiarity,
                    )
                )
                rows.append(
                    response(
                        annotator=annotator,
                        item_id=f"r-{model}-{topic}",
                        task="rating",
                        model=model,
                        topic=topic,
                        words="a b c",
                        response=int(rng.choice([1, 2, 3], p=rating_p)),
                        familiarity=familiarity,
                        scale=3,
                    )
                )
            # topic intrusion on one document per model: options 0..3 with theta, true intruder topic 3
            chosen = int(rng.choice(4, p=[0.1, 0.1, 0.1, 0.7] if model == "good" else [0.3, 0.3, 0.2, 0.2]))
            rows.append(
                response(
                    annotator=annotator,
                    item_id=f"ti-{model}",
                    task="topic-intrusion",
                    model=model,
                    topic=3,
                    doc_id=f"d-{model}",
                    words="w | x | y | z",
                    option_topics="0 1 2 3",
                    option_theta="0.5 0.3 0.15 0.05",
                    intruder=3,
                    intruder_position=3,
                    response=chosen,
                    correct=chosen == 3,
                    familiarity=familiarity,
                )
            )
        rows.append(
            response(
                annotator=annotator,
                item_id="check-1",
                task="rating",
                model="check",
                topic="",
                words="x y z",
                response=3 if a == 7 else 1,
                familiarity=1,
                scale=3,
                is_check=True,
            )
        )
    return pd.DataFrame(rows, columns=list(EXPORT_COLUMNS))


@pytest.fixture
def export_frame() -> pd.DataFrame:
    return make_export()


@pytest.fixture
def export_csv(tmp_path, export_frame):
    path = tmp_path / "export.csv"
    export_frame.to_csv(path, index=False)
    return path
