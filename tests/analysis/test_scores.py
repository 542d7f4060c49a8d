"""Model precision and topic log odds against hand-computed values; per-topic and per-model scores."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tealeaves.analysis import check_export, human_scores, model_precision, select, topic_log_odds
from tealeaves.errors import EmptyResultError, InputError


def test_model_precision_hand_example():
    # Chang et al. 2009 Fig. 4: 7 of 8 subjects choose "taxi" as the intruder -> 87.5%
    chosen = ["taxi"] * 7 + ["senate"]
    assert model_precision(chosen, "taxi") == 0.875
    assert model_precision(["a", "b", "c", "d"], "e") == 0.0
    assert model_precision([5, 5, 2], [5, 4, 2]) == pytest.approx(2 / 3)  # per-subject intruder positions
    assert model_precision(["taxi", "senate"], ["taxi"]) == 0.5  # one intruder, in a list
    with pytest.raises(InputError, match=r"one per answer: 3 answers, got 2$"):  # NumPy's broadcast error before
        model_precision([5, 5, 2], [5, 4])


def test_topic_log_odds_hand_example():
    theta = np.array([0.5, 0.3, 0.15, 0.05])
    # subjects pick the true intruder (topic 3) twice, topic 1 once and topic 0 once
    expected = (0 + 0 + math.log(0.05 / 0.3) + math.log(0.05 / 0.5)) / 4
    assert topic_log_odds(theta, [3, 3, 1, 0], 3) == pytest.approx(expected)
    assert topic_log_odds({0: 0.5, 3: 0.05}, [3, 3], 3) == 0.0  # the upper bound
    assert topic_log_odds(theta, [0], 3) < 0


def test_topic_log_odds_refuses_zero_and_unknown_topics():
    with pytest.raises(InputError, match="strictly positive"):
        topic_log_odds([0.5, 0.0, 0.5], [1], 0)
    with pytest.raises(InputError, match="no θ̂"):
        topic_log_odds({0: 0.5}, [7], 0)
    with pytest.raises(EmptyResultError):
        model_precision([], "x")


def test_human_scores_per_topic_and_model(export_frame):
    kept = select(check_export(export_frame))
    scores = human_scores(kept)
    items = scores.per_item
    # brute force: MP of every topic is the share of correct answers of its 7 kept annotators
    for (model, topic), group in kept[kept["task"] == "word-intrusion"].groupby(["model", "topic"]):
        row = items[(items.task == "word-intrusion") & (items.model == model) & (items.item == topic)].iloc[0]
        assert row["score"] == pytest.approx(group["correct"].astype(bool).mean())
        assert row["n"] == 7  # a7 failed the attention check
    ti = kept[(kept["task"] == "topic-intrusion") & (kept["model"] == "good")]
    theta = {0: 0.5, 1: 0.3, 2: 0.15, 3: 0.05}
    expected = np.mean([math.log(0.05) - math.log(theta[int(c)]) for c in ti["response"]])
    got = items[(items.task == "topic-intrusion") & (items.model == "good")]["score"].iloc[0]
    assert got == pytest.approx(expected)
    models = scores.per_model.set_index(["task", "model"])
    assert models.loc[("rating", "good"), "mean"] > models.loc[("rating", "bad"), "mean"]
    assert models.loc[("word-intrusion", "good"), "items"] == 6


def test_topic_log_odds_follows_each_subjects_display_order(export_frame):
    frame = export_frame[export_frame["task"] == "topic-intrusion"].head(2).copy()
    frame["annotator"] = ["s1", "s2"]
    frame["model"] = "m"
    frame["doc_id"] = "d"
    # subject 2 saw the options in reverse order and chose position 0, i.e. topic 3 (the intruder)
    frame["option_topics"] = ["0 1 2 3", "3 2 1 0"]
    frame["option_theta"] = ["0.5 0.3 0.15 0.05", "0.05 0.15 0.3 0.5"]
    frame["response"] = [0, 0]
    scores = human_scores(select(check_export(frame), exclude_failed_checks=False)).per_item
    assert scores["score"].iloc[0] == pytest.approx((math.log(0.05 / 0.5) + 0.0) / 2)
