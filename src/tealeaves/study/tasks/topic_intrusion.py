"""Topic intrusion (Chang et al. 2009 §3.2): a document with four topics; find the topic that does not fit it.

A document's title and snippet are shown with four topics of their 8 most probable words: the
document's three most probable topics under θ̂_d and one intruder drawn uniformly from its
low-probability topics, shuffled. The answers are the topics' display positions, the key the
intruder's; an item is a document (the same documents for every model), scored by its topic log
odds (:func:`topic_log_odds`, Chang et al.'s Eq. 2). A study is sized as word intrusion (answers
right or wrong).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyResultError, InputError, as_numbers
from tealeaves.models import TopicModel
from tealeaves.study.tasks.base import HumanTask, ItemRequest, found_share, mean, model_record
from tealeaves.study.tasks.item import Item

if TYPE_CHECKING:
    import pandas as pd

TOPIC_INTRUSION_WORDS = 8
"""Words shown per topic in topic intrusion (Chang et al. 2009 §3.2)."""
TOPIC_INTRUSION_OPTIONS = 4
"""Three most probable topics plus one intruder (Chang et al. 2009 §3.2)."""

QUESTION = "Which group of words does not belong with this document?"

INSTRUCTIONS = """\
A computer program has described documents by groups of words, each group standing for a \
theme it found in the collection. For each document you will see its title and its \
opening lines, followed by four groups of words. Three of the groups are the themes the \
program thinks the document is about; one group was added and does not fit the document.

Read the title and the text, then pick the group of words that belongs least with the \
document. Judge the words by their meaning, not by their spelling or grammar."""


def topic_intrusion_items(
    label: str,
    model: TopicModel,
    docs: Sequence[int],
    theta: np.ndarray,
    corpus: Corpus,
    low_share: float,
    familiarity: bool,
    rng: np.random.Generator,
) -> list[Item]:
    """Topic-intrusion items for documents ``docs`` of ``corpus`` (Chang et al. 2009 §3.2).

    For document d with point estimate θ̂_d (row of ``theta``), the options are the three
    topics with the largest θ̂_{d,k} and one intruder drawn uniformly from the
    ``ceil(low_share * K)`` least probable topics (never one of the three); each option shows
    its topic's 8 most probable words, and the four options are shuffled.
    """
    k = model.k
    if k < TOPIC_INTRUSION_OPTIONS:
        raise InputError(f"topic intrusion needs models with at least 4 topics; {label!r} has {k}")
    if not 0 < low_share <= 1:
        raise InputError(f"the intruder's low-probability share must be in (0, 1], got {low_share}")
    top = model.top_words(TOPIC_INTRUSION_WORDS)
    n_low = max(1, math.ceil(low_share * k))
    items = []
    for row, d in enumerate(docs):
        order = np.argsort(-theta[row], kind="stable")
        likely = [int(t) for t in order[:3]]
        pool = [int(t) for t in order[max(3, k - n_low) :]]
        intruder = pool[int(rng.integers(len(pool)))]
        shown = [*likely, intruder]
        perm = rng.permutation(TOPIC_INTRUSION_OPTIONS)
        option_topics = tuple(shown[i] for i in perm)
        items.append(
            Item(
                item_id="",
                task=TASK.name,
                model=label,
                topic=intruder,
                options=tuple(tuple(top[t]) for t in option_topics),
                option_topics=option_topics,
                option_theta=tuple(float(theta[row, t]) for t in option_topics),
                doc_id=corpus.ids[d],
                doc_title=corpus.titles[d],
                doc_snippet=corpus.snippets[d],
                intruder=str(intruder),
                intruder_position=int(np.flatnonzero(perm == 3)[0]),
                familiarity=familiarity,
                source=(("doc_index", int(d)), ("intruder_pool", len(pool))),
            )
        )
    return items


def shown_documents(corpus: Corpus, n_docs: int, rng: np.random.Generator) -> list[int]:
    """``n_docs`` documents drawn without replacement among those with tokens and a snippet, in order."""
    lengths = corpus.doc_lengths()
    eligible = [d for d in range(len(corpus)) if lengths[d] > 0 and corpus.snippets[d].strip()]
    if not eligible:
        raise InputError("no document of the corpus has both tokens and a snippet to show; prepare it from raw texts")
    if n_docs > len(eligible):
        raise InputError(f"asked for {n_docs} documents but only {len(eligible)} have a snippet and tokens")
    return sorted(int(d) for d in rng.choice(eligible, size=n_docs, replace=False))


def topic_log_odds(theta, chosen, intruder) -> float:
    """Topic log odds of one document (Chang et al. 2009, eq. 2).

    Parameters
    ----------
    theta : array-like or dict
        The model's :math:`\\hat\\theta_d`, indexed by the topic ids used in ``chosen``
        (a full K-vector, or a mapping ``{topic: proportion}`` for the options shown).
    chosen : int or array-like of int
        The topic each subject picked as the intruder (:math:`j_{d,s}`).
    intruder : int
        The true intruder topic :math:`j_{d,*}`.

    Returns
    -------
    float
        :math:`\\sum_s (\\log\\hat\\theta_{d,j_*} - \\log\\hat\\theta_{d,j_s}) / S` (natural logs, at
        most 0 when the true intruder has the smallest proportion among the options).

    Raises
    ------
    EmptyResultError
        Without any answer.
    InputError
        When a chosen topic has no :math:`\\hat\\theta` value, or a value is not positive.

    Examples
    --------
    The document is 50% topic 0, 30% topic 1 and 5% topic 3, the intruder. One subject
    found it (log odds 0), the other picked topic 1: :math:`(0 + \\log(0.05 / 0.3)) / 2`.

    >>> from tealeaves.analysis import topic_log_odds
    >>> round(topic_log_odds({0: 0.5, 1: 0.3, 3: 0.05}, [3, 1], 3), 4)
    -0.8959
    """
    chosen = list(np.atleast_1d(chosen))
    if not chosen:
        raise EmptyResultError("topic log odds needs at least one subject's answer")
    lookup = theta if isinstance(theta, dict) else dict(enumerate(as_numbers(theta, "theta", ndim=1)))
    try:
        values = np.array([lookup[j] for j in chosen], dtype=np.float64)
        true = float(lookup[intruder])
    except KeyError as exc:
        raise InputError(f"topic {exc.args[0]} has no θ̂ value; pass θ̂ for every option shown") from None
    if true <= 0 or np.any(values <= 0):
        raise InputError("θ̂ must be strictly positive for topic log odds (log of zero); smooth θ̂ first")
    return float(np.mean(np.log(true) - np.log(values)))


class TopicIntrusion(HumanTask):
    """Topic intrusion: see the module docstring."""

    name = "topic-intrusion"
    question = QUESTION
    instructions = INSTRUCTIONS
    annotators = 26
    familiarity = False
    options = ("docs", "low_share")
    unit = "document"
    measure = "topic log odds"
    live_scores = ("model precision", "topic log odds")
    sized_as = "word-intrusion"
    template = '  <section class="doc"><h2>{{ view.doc_title }}</h2><p>{{ view.doc_snippet }}</p></section>\n'

    def items(self, request: ItemRequest) -> tuple[list[Item], list[dict[str, Any]]]:
        """The items of the same ``docs`` documents, drawn from the corpus, for every model (θ̂ from its inference)."""
        if request.topics_per_model is not None:
            raise InputError("topic intrusion samples documents (docs=), not topics; leave topics_per_model unset")
        records = [model_record(label, model, None) for label, model in request.models.items()]
        if request.corpus is None:
            raise InputError(
                "topic intrusion shows documents: pass the corpus (--corpus) whose titles and snippets to use"
            )
        corpus = request.corpus if isinstance(request.corpus, Corpus) else Corpus.load(request.corpus)
        for label, model in request.models.items():
            if not isinstance(model, TopicModel):
                raise InputError(
                    f"topic intrusion needs θ̂ of each document, so {label!r} must be a model, not a topic list"
                )
        docs = shown_documents(corpus, request.docs, request.pick_rng)
        subset = corpus.subset(docs, note="documents shown in a topic-intrusion study")
        items: list[Item] = []
        for record, (label, model) in zip(records, request.models.items()):
            assert isinstance(model, TopicModel)
            theta = model.infer(subset, seed=int(request.task_rng.integers(2**63 - 1)))
            items += topic_intrusion_items(
                label, model, docs, theta, corpus, request.low_share, request.familiarity, request.task_rng
            )
            record["corpus_fingerprint"] = corpus.fingerprint()
            record["docs"] = [corpus.ids[d] for d in docs]
        return items, records

    def n_options(self, item: Item) -> int:
        return len(item.options)

    def shown(self, item: Item) -> dict[str, Any]:
        return {
            "doc_title": item.doc_title,
            "doc_snippet": item.doc_snippet,
            "options": [list(o) for o in item.options],
        }

    def answer_labels(self, item: Item) -> list[tuple[int, str]]:
        return [(i, ", ".join(words)) for i, words in enumerate(item.options)]

    def export_columns(self, item: Item) -> dict[str, Any]:
        return {**super().export_columns(item), "words": " | ".join(" ".join(o) for o in item.options)}

    def qualtrics_text(self, item: Item) -> str:
        question = super().qualtrics_text(item)
        return f"<h3>{html.escape(item.doc_title)}</h3><p>{html.escape(item.doc_snippet)}</p><p><strong>{question}</strong></p>"

    def live_values(self, item: Item, responses: Sequence[dict[str, Any]]) -> dict[str, float | None]:
        true = math.log(item.option_theta[int(item.intruder_position or 0)])
        odds = mean([true - math.log(item.option_theta[r["answer"]]) for r in responses])
        return {"model precision": found_share(responses), "topic log odds": odds}

    def item_score(self, responses: pd.DataFrame) -> float:
        """Topic log odds of one document; each row carries its own display order of the options."""
        lookup: dict[int, float] = {}
        chosen = []
        for row in responses.itertuples():
            topics = [int(t) for t in str(row.option_topics).split()]
            thetas = [float(t) for t in str(row.option_theta).split()]
            if len(topics) != len(thetas) or not 0 <= int(row.response) < len(topics):
                raise InputError(
                    f"item {row.item_id}: option_topics, option_theta and the chosen position do not match"
                )
            lookup.update(zip(topics, thetas))
            chosen.append(topics[int(row.response)])
        return topic_log_odds(lookup, chosen, int(float(responses["intruder"].iloc[0])))


TASK = TopicIntrusion()
