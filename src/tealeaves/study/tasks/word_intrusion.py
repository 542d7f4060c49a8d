"""Word intrusion (Chang et al. 2009 §3.1): a topic's words plus one intruder, shuffled; find the intruder.

The sets come from :func:`tealeaves.intrusion.intruder_sets` (Chang's top 5 or Hoyle et al.
2021's 5 of the top 10; the one generator shared with automated word intrusion). The answers are
the words' display positions, the key the intruder's; an item's score is its model precision
(:func:`model_precision`, Chang et al.'s Eq. 1), and a study is sized as Hoyle et al.'s
intrusion task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.errors import EmptyResultError, InputError
from tealeaves.intrusion import intruder_sets
from tealeaves.models import TopicModel, Topics
from tealeaves.study.tasks.base import ItemRequest, TopicTask, found_share
from tealeaves.study.tasks.item import Item

if TYPE_CHECKING:
    import pandas as pd

QUESTION = "Which word does not belong with the others?"

INSTRUCTIONS = """\
A computer program has grouped words that it thinks belong together. We mixed one word \
that does not belong into each group. Your task is to find it.

For each group, pick the word whose meaning is least like that of the other words. If \
several words seem out of place, pick the one that seems most out of place.

Judge the words by what they mean, not by how they are spelled or pronounced, nor by \
their grammar. For example, in "banana, cherry, hammer, mango, plum, lemon" the odd one \
out is "hammer": all the other words are fruit. Sometimes the answer is less obvious: in \
"keyboard, mouse, monitor, printer, sofa, scanner" the odd one out is "sofa".

Then tell us how familiar the words were to you. It is fine not to know every word."""


def word_intrusion_items(
    label: str,
    topics: TopicModel | Topics | Sequence[Sequence[str]],
    selected: Sequence[int],
    protocol: str,
    draws: int,
    familiarity: bool,
    seed: int,
) -> list[Item]:
    """Word-intrusion items for the ``selected`` topics of one model (Chang et al. 2009 §3.1).

    The sets come from :func:`tealeaves.intrusion.intruder_sets` with ``protocol`` ("chang":
    the top 5 words; "hoyle": 5 of the top 10) and ``draws`` independent sets per topic; the
    intruder has low probability in the topic (outside its top 50) and high probability in
    another topic of the same model (within that topic's top 10).
    """
    sets = intruder_sets(topics, draws=draws, protocol=protocol, seed=seed)  # type: ignore[arg-type]
    keep = set(selected)
    return [
        Item(
            item_id="",
            task=TASK.name,
            model=label,
            topic=s.topic,
            words=s.words,
            intruder=s.intruder,
            intruder_position=s.intruder_position,
            familiarity=familiarity,
            source=(
                ("draw", s.draw),
                ("high_rank_used", s.high_rank_used),
                ("intruder_topic", s.intruder_topic),
                ("protocol", protocol),
            ),
        )
        for s in sets
        if s.topic in keep
    ]


def model_precision(chosen, intruder) -> float:
    """Model precision of one topic (Chang et al. 2009, eq. 1).

    Parameters
    ----------
    chosen : array-like
        The word (or position) each subject selected, one per subject.
    intruder : str, int or array-like
        The true intruder word (or position) :math:`\\omega_k`, or one per subject when
        subjects saw differently shuffled sets.

    Returns
    -------
    float
        :math:`\\sum_s 1(i_{k,s} = \\omega_k) / S`.

    Raises
    ------
    EmptyResultError
        Without any answer.
    InputError
        For intruders that are neither one nor one per answer.

    Examples
    --------
    Three of four subjects picked the intruder "apple":

    >>> from tealeaves.analysis import model_precision
    >>> model_precision(["apple", "apple", "tax", "apple"], "apple")
    0.75
    """
    chosen, truth = np.asarray(chosen), np.asarray(intruder)
    if chosen.size == 0:
        raise EmptyResultError("model precision needs at least one subject's answer")
    if truth.size != 1 and truth.shape != chosen.shape:  # NumPy's "operands could not be broadcast together"
        raise InputError(
            f"intruder must be one word (or position), or one per answer: {chosen.size} answers, got {truth.size}"
        )
    return float(np.mean(chosen == truth))


class WordIntrusion(TopicTask):
    """Word intrusion: see the module docstring."""

    name = "word-intrusion"
    question = QUESTION
    instructions = INSTRUCTIONS
    annotators = 26
    options = ("protocol", "draws")
    measure = "model precision"
    live_scores = ("model precision",)
    answer_column = "correct"
    answer_level = "nominal"
    sized_as = "word-intrusion"

    def topic_items(
        self, label: str, model: TopicModel | Topics, selected: list[int], request: ItemRequest
    ) -> list[Item]:
        seed = int(request.task_rng.integers(2**63 - 1))
        return word_intrusion_items(label, model, selected, request.protocol, request.draws, request.familiarity, seed)

    def live_values(self, item: Item, responses: Sequence[dict[str, Any]]) -> dict[str, float | None]:
        return {"model precision": found_share(responses)}

    def item_score(self, responses: pd.DataFrame) -> float:
        return model_precision(responses["correct"].astype(bool), True)


TASK = WordIntrusion()
