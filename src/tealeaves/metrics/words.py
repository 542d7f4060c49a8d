"""The metrics of a model's top words: coherence (any measure, from counts or word vectors), diversity and
redundancy, automated word intrusion (WI-Auto, embedding word intrusion).

Each is a ``compute(model, inputs, seed, **options) -> Measured`` calling its package's public
function (:mod:`tealeaves.coherence`, :mod:`tealeaves.intrusion`), registered in
:data:`tealeaves.metrics.METRICS` (:mod:`tealeaves.metrics.registry`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.errors import InputError, is_real
from tealeaves.metrics.measured import Inputs, Measured
from tealeaves.metrics.options import accepts

if TYPE_CHECKING:
    from tealeaves.coherence import CoherenceResult
    from tealeaves.intrusion import IntruderSets
    from tealeaves.models import TopicModel, Topics


def coherence_metric(measure: str) -> Callable[..., Measured]:
    """The computation of coherence ``measure``: :func:`tealeaves.coherence.score` of the model's topics.

    Any measure :func:`~tealeaves.coherence.score` computes: the count measures against
    ``inputs.index`` (:data:`~tealeaves.coherence.MEASURES`) and the embedding measures from an
    ``encoder`` option (:data:`~tealeaves.coherence.EMBEDDING_MEASURES`). The options are
    ``score``'s (``topn``, ``window``, ``compat``, ``on_missing``, ``conventions``, ``encoder``).

    Parameters
    ----------
    measure : str
        The measure's name (not an alias: ``npmi``, not ``c_npmi``).

    Returns
    -------
    callable
        ``compute(model, inputs, seed, **options) -> Measured``: the per-topic output ``measure``
        (topics left unscored have none), a flag per word the reference lacks, the coverage (the
        share of the scored topic words the index or the encoder represents) and the
        :class:`~tealeaves.coherence.CoherenceResult`.

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.metrics import Inputs
    >>> from tealeaves.metrics.words import coherence_metric
    >>> vocab = Vocabulary(["tax", "budget", "deficit", "war", "peace"])
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1, 2], [1, 2, 0], [3, 4, 3]], vocab))
    >>> umass = coherence_metric("umass")
    >>> measured = umass([["tax", "budget"], ["war", "army"]], Inputs(index=index), 0, window="document", on_missing="skip")
    >>> measured.topic_values("umass", 2), measured.coverage  # "army" is not in the index
    (array([0.40546511,        nan]), 0.75)
    """

    def compute(model: TopicModel | Topics, inputs: Inputs, seed: int, **options: Any) -> Measured:
        from tealeaves.coherence import score

        result = score(model, inputs.index, measure=measure, **options)
        measured = Measured(coverage=_coverage(result), result=result)
        measured.per_topic(measure, result.per_topic)
        for k, word, why in result.missing:
            measured.flag(k, f"{measure}: not scored ({why})" if word == "*" else f"rare word {word!r}: {why}")
        return measured

    compute.__doc__ = f"{measure} per topic by :func:`tealeaves.coherence.score`."
    return compute


def _coverage(result: CoherenceResult) -> float:
    """The share of the scored topic words the index (or the encoder) represents."""
    from tealeaves.coherence.result import WHOLE_TOPIC

    if result.encoder is not None:
        return float(result.encoder["coverage"])
    lacking = sum(1 for _, word, _ in result.missing if word != WHOLE_TOPIC)
    return 1.0 - lacking / sum(len(words) for words in result.topics)


def diversity_metric(model: TopicModel | Topics, inputs: Inputs, seed: int, **options: Any) -> Measured:
    """Topic uniqueness, diversity and inverted RBO per model with their leave-one-topic-out values,
    uniqueness per topic and the redundancy filter (:func:`tealeaves.coherence.diversity`)."""
    from tealeaves.coherence import diversity

    result = diversity(model, **options)
    scalars = {
        "topic_uniqueness": result.topic_uniqueness,
        "topic_diversity": result.topic_diversity,
        "inverted_rbo": result.inverted_rbo,
    }
    measured = Measured(scalars={**scalars, "redundant": float(result.redundant)}, result=result)
    if len(result.per_topic) >= 3:
        measured.jackknife = leave_one_topic_out(model, result.diversity_topn, result.uniqueness_topn, result.rbo_p)
        measured.topics = model_level_topics(model, result.diversity_topn, result.uniqueness_topn, result.rbo_p)
    measured.per_topic("topic_uniqueness", result.per_topic)
    for a, b in result.duplicate_topics:  # Hoyle et al.'s filter (a): the same top-N word set
        same = f"(the same top-{result.filter_topn} words)"
        measured.flag(a, f"redundant: duplicate of topic {b} {same}")
        measured.flag(b, f"redundant: duplicate of topic {a} {same}")
    return measured


def model_level_topics(
    model: TopicModel | Topics | list[list[str]], diversity_topn: int, uniqueness_topn: int, rbo_p: float
) -> dict[str, Any]:
    """The top words of every topic and the settings of the model-level quantities: what
    :func:`tealeaves.evaluation.stats.randomisation` regroups and the per-model interval
    (:func:`tealeaves.stats.delete_d_jackknife_se`) subsets to recompute them."""
    from tealeaves.models import as_topics

    words = as_topics(model, max(diversity_topn, uniqueness_topn)).words
    settings = {"diversity_topn": diversity_topn, "uniqueness_topn": uniqueness_topn, "rbo_p": rbo_p}
    return {"words": [list(map(str, topic)) for topic in words], **settings}


def leave_one_topic_out(
    model: TopicModel | Topics | list[list[str]], diversity_topn: int, uniqueness_topn: int, rbo_p: float
) -> dict[str, np.ndarray]:
    """Topic uniqueness, topic diversity and inverted RBO of the model without topic j, for every j.

    The input of the comparisons' jackknife (:func:`tealeaves.stats.jackknife_difference_test`;
    a model's own interval is the delete-d jackknife's, :func:`tealeaves.stats.delete_d_jackknife_se`):
    each is a function of all topics together, so a topic's share cannot be resampled on its own. With :math:`c_w` the
    number of topics whose top-N words hold ``w`` and :math:`u_{jw}` whether topic j's do,
    topic uniqueness without j is :math:`\\frac1{K-1} \\sum_{i \\ne j} \\frac1N \\sum_{w \\in i}
    1/(c_w - u_{jw})` (Nan et al. 2019); topic diversity without j drops the words only j has
    among the top 25 (Dieng et al. 2020); inverted RBO without j is one minus the mean RBO of
    the pairs without j (Bianchi et al. 2021). Each equals the library's measure of the
    remaining topics.
    """
    from tealeaves.coherence import rank_biased_overlap
    from tealeaves.models import as_topics

    words = as_topics(model, max(diversity_topn, uniqueness_topn)).words
    k = len(words)
    vocab = {w: i for i, w in enumerate(dict.fromkeys(w for topic in words for w in topic))}

    def incidence(topn: int) -> np.ndarray:
        held = np.zeros((k, len(vocab)))
        for i, topic in enumerate(words):
            held[i, [vocab[w] for w in topic[:topn]]] = 1.0
        return held

    unique = incidence(uniqueness_topn)
    inverse = 1.0 / np.maximum(unique.sum(axis=0)[None, :] - unique, 1.0)  # row j: 1 / counts without topic j
    per_topic = unique @ inverse.T / uniqueness_topn  # [i, j]: topic i's uniqueness without topic j
    top = incidence(diversity_topn)
    counts = top.sum(axis=0)
    only = (top * (counts == 1)).sum(axis=1)  # words no other topic has
    rbo = np.zeros((k, k))
    for a, b in itertools.combinations(range(k), 2):
        rbo[a, b] = rbo[b, a] = rank_biased_overlap(words[a][:uniqueness_topn], words[b][:uniqueness_topn], rbo_p)
    return {
        "topic_uniqueness": (per_topic.sum(axis=0) - np.diag(per_topic)) / (k - 1),
        "topic_diversity": (np.count_nonzero(counts) - only) / ((k - 1) * diversity_topn),
        "inverted_rbo": 1.0 - (rbo.sum() / 2 - rbo.sum(axis=1)) / ((k - 1) * (k - 2) / 2),
    }


def wi_auto_options(options: dict[str, Any], where: str) -> None:
    """The options of :func:`tealeaves.intrusion.compare_word_intrusion`, and ``flag_below``, the WI-Auto-PMI below
    which the report flags a topic: a share in [0, 1]."""
    accepts(
        "tealeaves.intrusion.automated:compare_word_intrusion",
        "models",
        "index",
        "seed",
        "progress",
        extra=("flag_below",),
    )(options, where)
    flag = options.get("flag_below", 0.0)
    if not (is_real(flag) and 0 <= flag <= 1):
        raise InputError(
            f"{where}: flag_below must be a WI-Auto share in [0, 1] (the report flags the topics below it), got {flag!r}"
        )


def wi_auto_metric(
    models: dict[str, TopicModel | Topics], inputs: Inputs, seed: int, *, flag_below: float, **options: Any
) -> dict[str, Measured]:
    """WI-Auto-PMI and -NPMI per topic of every model, ranked by one pooled SVM
    (:func:`tealeaves.intrusion.compare_word_intrusion`)."""
    from tealeaves.intrusion import compare_word_intrusion

    comparison = compare_word_intrusion(models, inputs.index, seed, **options)  # type: ignore[arg-type]
    out = {}
    for name, result in comparison.results.items():
        measured = Measured(result=result)
        for association in ("pmi", "npmi"):
            measured.per_topic(f"wi_auto_{association}", result.wi_auto[association])
        for k, value in enumerate(result.wi_auto["pmi"]):
            if value < flag_below:
                measured.flag(k, f"low WI-Auto-PMI ({value:.2f} < {flag_below})")
        out[name] = measured
    return out


def embedding_intrusion_metric(
    model: TopicModel | Topics | IntruderSets, inputs: Inputs, seed: int, *, encoder: Any = None, **options: Any
) -> Measured:
    """Embedding word intrusion per topic, the machine picking the word farthest from the others
    (:func:`tealeaves.intrusion.embedding_word_intrusion`): on intruder sets drawn from the model's
    topics, or on the given :class:`~tealeaves.intrusion.IntruderSets` (the sets people saw)."""
    from tealeaves.intrusion import embedding_word_intrusion

    result = embedding_word_intrusion(model, encoder, seed, **options)
    measured = Measured(coverage=float(result.encoder["coverage"]), result=result)
    measured.per_topic("embedding_intrusion", result.per_topic)
    return measured
