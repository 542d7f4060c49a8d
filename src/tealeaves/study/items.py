"""The synthetic attention checks of a study, and the ranked topic words they are drawn from.

Attention checks (Hoyle et al. 2021 footnote 14) are synthetic poor-quality topics made of
high-probability words of other topics that are improbable in the topics under study (see
:func:`synthetic_topics`). A careful reader rates them lowest. A study's questions are
:class:`~tealeaves.study.tasks.item.Item` objects (one question of a task:
:mod:`tealeaves.study.tasks`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tealeaves.errors import InputError
from tealeaves.models import TopicModel, Topics, as_topics
from tealeaves.study.tasks.item import CHECK_LABEL, RATING_WORDS, Item


# --------------------------------------------------------------------------- attention checks
def synthetic_topics(
    study_topics: Sequence[Sequence[str]],
    n: int,
    rng: np.random.Generator,
    sources: Sequence[Sequence[str]] | None = None,
    n_words: int = RATING_WORDS,
    high_rank: int = 10,
    low_rank: int = 50,
) -> list[tuple[tuple[str, ...], int]]:
    """Synthetic poor-quality topics for attention checks (Hoyle et al. 2021, footnote 14).

    Hoyle et al. use "random high-probability words appearing in topics from other
    hyperparameter settings, but that have low probability among selected topics". Here each
    synthetic topic is built from words drawn at random from the top ``high_rank`` words of
    the ``sources`` topics (by default the topics under study themselves), accepting a word
    only if

    - its source topic has given no other word to this synthetic topic, and
    - no topic under study has it among its ``low_rank`` most probable words together with a
      word already chosen,

    so that no topic under study makes any two of its words probable together: the list has no
    theme a reader could name. When too few words qualify, ``low_rank`` is halved (down to
    ``high_rank``); the value used is returned with each topic.

    Parameters
    ----------
    study_topics : sequence of sequence of str
        The topics under study, each its words in rank order.
    n : int
        Synthetic topics to build.
    rng : numpy.random.Generator
        The draws.
    sources : sequence of sequence of str, optional
        Topics to draw the words from (default: ``study_topics``; Hoyle et al. used other
        runs).
    n_words : int, optional
        Words per synthetic topic.
    high_rank : int, optional
        Words are drawn from each source topic's top ``high_rank``.
    low_rank : int, optional
        No two chosen words may both be among a study topic's top ``low_rank``.

    Returns
    -------
    list of (words, low_rank_used)

    Raises
    ------
    InputError
        For a negative ``n``, or when too few words qualify even at ``low_rank = high_rank``.

    Examples
    --------
    Each word comes from a different topic, so the list has no theme:

    >>> import numpy as np
    >>> from tealeaves.study import synthetic_topics
    >>> topics = [
    ...     ["tax", "budget", "deficit"], ["war", "army", "troops"], ["school", "children", "teachers"],
    ...     ["oil", "energy", "gas"], ["court", "law", "justice"], ["farm", "crops", "farmers"],
    ... ]
    >>> synthetic_topics(topics, 2, np.random.default_rng(0), n_words=4)
    [(('children', 'justice', 'oil', 'army'), 50), (('crops', 'troops', 'deficit', 'children'), 50)]
    """
    sources = study_topics if sources is None else sources
    if n < 0:
        raise InputError(f"the number of attention checks must be >= 0, got {n}")
    pool = sorted({(w, j) for j, words in enumerate(sources) for w in list(words)[:high_rank]})
    out = []
    for _ in range(n):
        used = low_rank
        while True:
            members: dict[str, frozenset[int]] = {}
            for t, words in enumerate(study_topics):
                for w in list(words)[:used]:
                    members[w] = members.get(w, frozenset()) | {t}
            chosen: list[str] = []
            blocked: set[int] = set()
            sources_used: set[int] = set()
            for i in rng.permutation(len(pool)):
                word, source = pool[int(i)]
                topics_of_word = members.get(word, frozenset())
                if word in chosen or source in sources_used or topics_of_word & blocked:
                    continue
                chosen.append(word)
                sources_used.add(source)
                blocked |= topics_of_word
                if len(chosen) == n_words:
                    break
            if len(chosen) == n_words:
                out.append((tuple(chosen), used))
                break
            if used <= high_rank:
                raise InputError(
                    f"cannot build a synthetic attention-check topic of {n_words} words: the topics offer too few "
                    f"words that no topic under study makes probable together (it needs at least {n_words} source "
                    "topics); pass more models or check topics from other runs, or set checks to 0"
                )
            used = max(high_rank, used // 2)
    return out


def check_items(
    study_topics: Sequence[Sequence[str]],
    n: int,
    scale: int,
    familiarity: bool,
    rng: np.random.Generator,
    sources: Sequence[Sequence[str]] | None = None,
    *,
    task: str,
) -> list[Item]:
    """Attention checks: synthetic poor topics asked as items of ``task`` on a ``scale``, failed
    when rated "very related" (the top of the scale)."""
    return [
        Item(
            item_id="",
            task=task,
            model=CHECK_LABEL,
            topic=None,
            words=words,
            scale=scale,
            familiarity=familiarity,
            is_check=True,
            source=(("low_rank_used", used), ("synthetic", True)),
        )
        for words, used in synthetic_topics(study_topics, n, rng, sources=sources)
    ]


def ranked_words(topics: TopicModel | Topics | Sequence[Sequence[str]], depth: int = 50) -> list[list[str]]:
    """Each topic's words by decreasing probability, ``depth`` deep where the model knows more."""
    if isinstance(topics, TopicModel):
        return topics.top_words(depth)
    return [list(t) for t in as_topics(topics).words]
