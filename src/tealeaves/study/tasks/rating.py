"""Ratings (Newman et al. 2010; Hoyle et al. 2021 §5, Fig. 4): a topic's 10 most probable words, rated for relatedness.

The words are shown in rank order and rated on a 3- or 5-point scale (the labels of
:data:`tealeaves.study.texts.RATING_LABELS`, highest first); an answer is the rating itself,
1..scale, and has no key. An item's score is its mean rating; a ratings study has synthetic
attention checks by default (:func:`tealeaves.study.items.check_items`, failed when rated at the
top of the scale) and is sized as Hoyle et al.'s ratings task.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tealeaves.models import TopicModel, Topics, as_topics
from tealeaves.study import texts
from tealeaves.study.tasks.base import ItemRequest, TopicTask, mean
from tealeaves.study.tasks.item import RATING_WORDS, Item

if TYPE_CHECKING:
    import pandas as pd

QUESTION = "How related are these words to each other?"

INSTRUCTIONS = """\
A computer program has grouped words that it thinks belong together. For each group, rate \
how related the words are to each other.

A helpful question to ask yourself is: "what is this group of words about?" If you can \
answer easily, the words are probably closely related.

- Very related: most of the words clearly belong together and it would be easy to say \
how, as in "violin, cello, viola, bow, strings, orchestra" (string instruments).
- Somewhat related: the words are loosely connected, but a few are vague, generic or \
unrelated, as in "phone, screen, new, charger, model, battery".
- Not very related: the words share no obvious connection and it would be hard to say \
what they have in common, as in "river, stapler, jazz, onion, passport".

Then tell us how familiar the words were to you. It is fine not to know every word."""


def rating_items(label: str, topics: Topics, selected: Sequence[int], scale: int, familiarity: bool) -> list[Item]:
    """Rating items: each selected topic's 10 most probable words in rank order (Hoyle et al. Fig. 4)."""
    top = topics.top(RATING_WORDS)
    return [
        Item(item_id="", task=TASK.name, model=label, topic=k, words=top[k], scale=scale, familiarity=familiarity)
        for k in selected
    ]


class Rating(TopicTask):
    """Ratings: see the module docstring."""

    name = "rating"
    question = QUESTION
    instructions = INSTRUCTIONS
    annotators = 15
    checks = 8
    has_key = False
    options = ("scale",)
    measure = "mean rating"
    live_scores = ("mean rating",)
    answer_column = "response"
    answer_level = "ordinal"
    sized_as = "rating"
    template = '  <p class="wordlist" id="words">{{ view.words | join(", ") }}</p>\n'
    choice_class = ""

    def topic_items(
        self, label: str, model: TopicModel | Topics, selected: list[int], request: ItemRequest
    ) -> list[Item]:
        return rating_items(label, as_topics(model), selected, request.scale, request.familiarity)

    def n_options(self, item: Item) -> int:
        return int(item.scale or 0)

    def answers(self, item: Item) -> list[int]:
        """The ratings ``1 .. scale``."""
        return list(range(1, self.n_options(item) + 1))

    def answer_labels(self, item: Item) -> list[tuple[int, str]]:
        """The scale's labels, highest rating first."""
        return list(texts.RATING_LABELS[int(item.scale or 3)].items())

    def choice_id(self, answer: int) -> int:
        """The rating itself."""
        return answer

    def qualtrics_text(self, item: Item) -> str:
        return super().qualtrics_text(item) + f"<br><br><strong>{html.escape(', '.join(item.words))}</strong>"

    def live_values(self, item: Item, responses: Sequence[dict[str, Any]]) -> dict[str, float | None]:
        return {"mean rating": mean([r["answer"] for r in responses])}

    def item_score(self, responses: pd.DataFrame) -> float:
        return float(responses["response"].astype(float).mean())


TASK = Rating()
