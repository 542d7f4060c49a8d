"""Automated word intrusion, WI-Auto (Lau, Newman & Baldwin 2014, §4.1 and §5.1).

Lau et al. automate Chang et al.'s (2009, §3.1) word-intrusion task: a machine, instead of
people, picks the word of a set that does not belong, and a topic's WI-Auto is the share of
its sets in which the machine picks the true intruder (Chang's model precision with the
machine as the only annotator). The procedure:

1. Sets: for every topic, ``draws`` sets of its top 5 words plus one intruder (low in this
   topic: outside its top 50; high in another: in that topic's top 10), from
   :func:`~tealeaves.intrusion.intruder_sets`, the generator the human task uses.
2. Features: for every word of a set, its association with the other five, PMI or NPMI,
   CP1 and CP2 from sliding-window counts of a reference corpus, min-max normalised within
   the set (:mod:`tealeaves.intrusion.features`).
3. Ranking: a linear ranking SVM (SVM-rank's objective, C = 0.01;
   :mod:`tealeaves.intrusion.ranking`) learns to rank the intruder above the topic words.
   Its training sets are generated, so no human labels are needed (Lau et al. §4.1). It is
   evaluated by 10-fold cross-validation split by topic: the sets of one topic are all in
   one fold, and each fold is ranked by an SVM trained on the other nine.
4. Output: WI-Auto per topic, the share of its draws whose true intruder the SVM ranks
   first; per model their mean. WI-Auto-PMI uses PMI + CP1 + CP2, WI-Auto-NPMI NPMI + CP1
   + CP2 (Lau et al., footnote 4); both are computed from the same counts.

Models are compared on equal footing with :func:`compare_word_intrusion`: the topics of all of
them are pooled into the folds, so one SVM per fold ranks every model's sets (Lau et al.'s data
set pools the topics of nine models per domain). :func:`auto_word_intrusion` scores one model,
its SVMs trained on its own topics.

Alongside, an unsupervised baseline picks the word with the lowest mean association (PMI or
NPMI) with the other five: no training, no cross-validation.

When several words share the top score, the set counts the share ``1 / t`` of the ``t`` tied
words if the intruder is among them (the expected hit of a random tie break); so a set whose
words cannot be told apart (e.g. no pair ever co-occurs) scores chance, 1/6. (Lau et al.'s
``ComputeWordIntrusion.py`` gives such ties to the intruder.)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.coherence import RefIndex, Window
from tealeaves.coherence.reference import as_reference_index
from tealeaves.errors import InputError, is_count, is_real
from tealeaves.intrusion.features import (
    ASSOCIATIONS,
    FEATURES,
    LAU_WINDOW,
    Association,
    SetFeatures,
    check_association,
    word_association_features,
)
from tealeaves.intrusion.intruders import PROTOCOLS, IntruderSets, Protocol, intruder_sets
from tealeaves.intrusion.ranking import SVM_RANK_C, fit_ranking_svm
from tealeaves.missing import OnMissingZero
from tealeaves.models import TopicModel, Topics, as_model, as_topics
from tealeaves.models.adapters import library_of
from tealeaves.progress import ProgressCallback, notify
from tealeaves.results import Columns, Result, dataframe, words_by_topic
from tealeaves.rng import as_seed, family_generator
from tealeaves.topic_means import PerTopicResult, interval_label, mean_interval

if TYPE_CHECKING:
    import pandas as pd

LAU_FOLDS = 10  # Lau et al.'s toolkit (SplitSVM.py): ten-fold cross-validation
CHANG_ANNOTATORS = 8  # Chang et al. 2009, §4.3: each task was done by 8 workers, each saw its own set

TopicsLike = TopicModel | Topics | Sequence[Sequence[str]] | IntruderSets


@dataclass(frozen=True)
class WordIntrusionResult(PerTopicResult):
    """Automated word intrusion of a set of topics.

    Attributes
    ----------
    association : str
        The variant ``per_topic`` reports: ``"pmi"`` (WI-Auto-PMI) or ``"npmi"`` (WI-Auto-NPMI).
    per_topic : float64[K]
        WI-Auto of each topic under ``association``.
    model_mean : float
        Mean of ``per_topic``.
    wi_auto, baseline : dict of str to float64[K]
        Per association (``pmi``, ``npmi``): WI-Auto per topic, and the unsupervised
        baseline's share (lowest mean association picked as the intruder).
    model_means : dict of str to float
        ``wi_auto_pmi``, ``wi_auto_npmi``, ``baseline_pmi``, ``baseline_npmi``.
    topics : tuple of tuple of str
        Each topic's shown words (its top words, most probable first, when known).
    fold_of_topic : int64[K]
        The cross-validation fold of each topic.
    weights : dict of str to float64[folds, 3]
        Per association, each fold's SVM weights for (PMI or NPMI, CP1, CP2), trained on the
        sets of every model in ``settings["models"]``.
    settings : dict
        Everything the numbers depend on: draws, protocol, low_rank, high_rank, seed (of the
        folds, and of the sets unless they were given), sets_seed, window, compat, C, folds,
        n_windows, on_missing, the models whose topics the SVMs were trained on, and the
        largest duality gap of the SVM fits (None in JSON if one did not converge).
    missing : tuple of (topic, word, reason)
        Words the reference corpus lacks, counted as never occurring (``on_missing="zero"``).
    index : dict
        The reference corpus: fingerprint, documents, tokens.
    sets : dict of column arrays
        One row per set (see :meth:`to_frame`).
    features : float64[S, 6, 4]
        Raw PMI, NPMI, CP1, CP2 of every word of every set, in display order.
    scores : dict of str to float64[S, 6]
        Per association, the SVM score of every word (the highest is the machine's pick).

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> topics = [
    ...     ["tax", "budget", "deficit", "spending", "revenue"],
    ...     ["war", "peace", "army", "soldier", "battle"],
    ...     ["school", "teacher", "student", "class", "exam"],
    ... ]
    >>> vocab = Vocabulary([word for topic in topics for word in topic])
    >>> docs = [[5 * k + (i + s) % 5 for i in range(5)] for k in range(3) for s in range(3)]
    >>> index = RefIndex.build(Corpus.from_documents(docs, vocab))  # 9 documents, 3 per topic
    >>> from tealeaves.intrusion import auto_word_intrusion
    >>> result = auto_word_intrusion(topics, index, seed=0, window="document", folds=3)
    >>> result.per_topic, result.model_means["baseline_npmi"]
    (array([1., 1., 1.]), 1.0)
    >>> result.sets["intruder"][:2], result.sets["predicted_pmi"][:2]
    (array(['soldier', 'student'], dtype=object), array(['soldier', 'student'], dtype=object))
    >>> result.settings["draws"], result.settings["folds"], result.fold_of_topic.tolist()
    (8, 3, [2, 1, 0])
    """

    association: str
    per_topic: np.ndarray
    model_mean: float
    wi_auto: dict[str, np.ndarray]
    baseline: dict[str, np.ndarray]
    model_means: dict[str, float]
    topics: tuple[tuple[str, ...], ...]
    fold_of_topic: np.ndarray
    weights: dict[str, np.ndarray]
    settings: dict[str, Any]
    missing: tuple[tuple[int, str, str], ...]
    index: dict[str, Any]
    sets: dict[str, np.ndarray]
    features: np.ndarray
    scores: dict[str, np.ndarray]

    def summary(self) -> dict[str, Any]:
        """The default summary, with the set words the reference corpus lacks (counted as never occurring) by topic.

        The default is :meth:`PerTopicResult.summary <tealeaves.topic_means.PerTopicResult.summary>`'s: the model
        mean with its named interval.
        """
        values = super().summary()
        if self.missing:
            values["words counted as never occurring"] = words_by_topic(self.missing)
        return values

    def value_bounds(self) -> tuple[float, float]:
        """WI-Auto is a share of sets: [0, 1]."""
        return (0.0, 1.0)

    def columns(self) -> Columns:
        """One row per set (topic and draw): its fold, words in display order, the intruder,
        and per association the SVM's pick and hit share, and the baseline's pick and hit."""
        return dict(self.sets)

    def topics_frame(self) -> pd.DataFrame:
        """One row per topic: WI-Auto-PMI, WI-Auto-NPMI, both baselines, fold and words."""
        return dataframe(self.topic_columns())

    def topic_columns(self) -> Columns:
        """:meth:`topics_frame` as columns (what a notebook shows the first rows of)."""
        columns: Columns = {"topic": np.arange(len(self.per_topic))}
        for a in ASSOCIATIONS:
            columns[f"wi_auto_{a}"] = self.wi_auto[a]
        for a in ASSOCIATIONS:
            columns[f"baseline_{a}"] = self.baseline[a]
        columns["fold"] = self.fold_of_topic
        columns["words"] = [" ".join(words) for words in self.topics]
        return columns

    def words_frame(self) -> pd.DataFrame:
        """One row per word of every set: its raw features and SVM scores."""
        n_sets, n = self.features.shape[:2]
        columns: Columns = {
            "topic": np.repeat(self.sets["topic"], n),
            "draw": np.repeat(self.sets["draw"], n),
            "position": np.tile(np.arange(n), n_sets),
            "word": [w for words in self.sets["words"] for w in words.split(" ")],
            "intruder": (np.arange(n)[None, :] == self.sets["intruder_position"][:, None]).ravel(),
        }
        for f, name in enumerate(FEATURES):
            columns[name] = self.features[:, :, f].ravel()
        for a in ASSOCIATIONS:
            columns[f"score_{a}"] = self.scores[a].ravel()
        return dataframe(columns)


@dataclass(frozen=True)
class WordIntrusionComparison(Result):
    """WI-Auto of several models whose topics were ranked by one SVM (:func:`compare_word_intrusion`).

    Attributes
    ----------
    results : dict of str to WordIntrusionResult
        Each model's result, in the order given.

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> topics = [
    ...     ["tax", "budget", "deficit", "spending", "revenue"],
    ...     ["war", "peace", "army", "soldier", "battle"],
    ...     ["school", "teacher", "student", "class", "exam"],
    ... ]
    >>> vocab = Vocabulary([word for topic in topics for word in topic])
    >>> docs = [[5 * k + (i + s) % 5 for i in range(5)] for k in range(3) for s in range(3)]
    >>> index = RefIndex.build(Corpus.from_documents(docs, vocab))  # 9 documents, 3 per topic
    >>> from tealeaves.intrusion import compare_word_intrusion
    >>> mixed = [*topics, ["tax", "war", "school", "budget", "army"]]
    >>> comparison = compare_word_intrusion({"clean": topics, "mixed": mixed}, index, seed=0, window="document")
    >>> comparison["mixed"].per_topic.round(4)
    array([1.    , 1.    , 1.    , 0.0625])
    >>> list(comparison.to_dict()["model_means"])
    ['clean', 'mixed']
    """

    results: dict[str, WordIntrusionResult]

    def __getitem__(self, name: str) -> WordIntrusionResult:
        return self.results[name]

    def to_dict(self) -> dict[str, Any]:
        """Every model's :meth:`WordIntrusionResult.to_dict`, and the model means side by side."""
        return {
            "model_means": {name: r.model_means for name, r in self.results.items()},
            "models": {name: r.to_dict() for name, r in self.results.items()},
        }

    def columns(self) -> Columns:
        """One row per set of every model (:meth:`WordIntrusionResult.columns` after a ``model`` column)."""
        parts = [r.columns() for r in self.results.values()]
        columns: Columns = {"model": [name for name, r in self.results.items() for _ in r.sets["topic"]]}
        for key in parts[0] if parts else ():
            columns[key] = [value for part in parts for value in np.asarray(part[key]).tolist()]
        return columns

    def _model_columns(self) -> Columns:
        rows = [{"model": name, "topics": len(r.per_topic), **r.model_means} for name, r in self.results.items()]
        return {key: [row[key] for row in rows] for key in rows[0]} if rows else {}

    def models_frame(self) -> pd.DataFrame:
        """One row per model: its number of topics and its model-level means."""
        return dataframe(self._model_columns())

    def summary(self) -> dict[str, Any]:
        """Each model's WI-Auto mean over its topics with its 95% interval (:func:`tealeaves.topic_means.mean_interval`,
        within [0, 1]), named by model and by what the interval is."""
        return {
            f"model mean ({name}; {interval_label(r.per_topic, bounds=r.value_bounds())})": mean_interval(
                r.per_topic, r.value_bounds()
            )
            for name, r in self.results.items()
        }

    def display_columns(self) -> Columns:
        """One row per model (:meth:`models_frame`'s columns), not the thousands of sets."""
        return self._model_columns()


def auto_word_intrusion(
    topics: TopicsLike,
    index: RefIndex | str | os.PathLike[str],
    seed: int | np.random.Generator = 0,
    *,
    association: Association = "pmi",
    draws: int = CHANG_ANNOTATORS,
    window: Window | int | str = LAU_WINDOW,
    compat: str | None = None,
    c: float = SVM_RANK_C,
    folds: int = LAU_FOLDS,
    protocol: Protocol = "chang",
    low_rank: int = 50,
    high_rank: int = 10,
    on_missing: OnMissingZero = "error",
    progress: ProgressCallback | None = None,
) -> WordIntrusionResult:
    """WI-Auto of every topic of one model (Lau et al. 2014; see the module docstring).

    The ranking SVM learns from this model's own sets (cross-validated over its topics). To
    compare models, score them together with :func:`compare_word_intrusion`, which ranks every
    model's sets with SVMs trained on the topics of all of them.

    Parameters
    ----------
    topics : TopicModel, Topics, list of word lists, IntruderSets, or another library's model
        Topics with words in rank order (at least two topics: intruders come from other
        topics), a gensim, scikit-learn, tomotopy or BERTopic model or OCTIS's model output
        (:func:`~tealeaves.models.as_model`), or ready-made sets (e.g. those a human study
        showed), which must cover topics ``0 .. K-1``.
    index : RefIndex, path, Corpus or texts
        Index of the reference corpus, prepared like the training corpus and with its
        vocabulary (``tealeaves index``); or the reference corpus itself, indexed for this
        call (:func:`~tealeaves.coherence.reference.as_reference_index`).
    seed : int or Generator
        Seeds the sets (``intruder_sets(topics, draws, protocol, low_rank, high_rank, seed)``
        gives exactly the sets scored) and, from the ``"intrusion folds"`` stream family
        (:func:`tealeaves.rng.family_generator`), the folds.
    association : "pmi" or "npmi"
        The variant reported as ``per_topic``; both are always computed.
    draws : int
        Sets per topic (default 8, as Chang et al.'s 8 annotators each saw one).
    window : int or str
        Sliding window size of the counts (default 20, Lau et al.'s toolkit), or "document".
    compat : None, "lau" or "gensim"
        ``"lau"`` counts the toolkit's padded windows (:meth:`RefIndex.window_counts`).
    c : float
        SVM-rank's C (default 0.01, Lau et al.'s toolkit); see :mod:`tealeaves.intrusion.ranking`.
    folds : int
        Cross-validation folds over topics (default 10; at most K, leave-one-topic-out then).
    protocol, low_rank, high_rank
        How sets are drawn (:func:`~tealeaves.intrusion.intruder_sets`); with ready-made sets,
        ``draws`` and these are theirs.
    on_missing : "error" or "zero"
        Set words the reference corpus lacks are refused, or counted as never occurring.
    progress : callable, optional
        Receives an update after counting and after each fold.

    Returns
    -------
    WordIntrusionResult

    See Also
    --------
    compare_word_intrusion : Several models ranked by the same SVMs.
    embedding_word_intrusion : The machine's pick from word vectors, without a reference corpus.

    Examples
    --------
    Three topics whose words occur together in a reference corpus, and a fourth that mixes
    them: the machine finds every intruder of the first three and few of the fourth's.

    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> topics = [
    ...     ["tax", "budget", "deficit", "spending", "revenue"],
    ...     ["war", "peace", "army", "soldier", "battle"],
    ...     ["school", "teacher", "student", "class", "exam"],
    ... ]
    >>> vocab = Vocabulary([word for topic in topics for word in topic])
    >>> docs = [[5 * k + (i + s) % 5 for i in range(5)] for k in range(3) for s in range(3)]
    >>> index = RefIndex.build(Corpus.from_documents(docs, vocab))  # 9 documents, 3 per topic
    >>> from tealeaves.intrusion import auto_word_intrusion
    >>> mixed = [*topics, ["tax", "war", "school", "budget", "army"]]
    >>> result = auto_word_intrusion(mixed, index, seed=0, window="document", folds=4)
    >>> result.per_topic  # WI-Auto-PMI, 8 sets per topic, leave-one-topic-out SVMs
    array([1.    , 1.    , 1.    , 0.0625])
    >>> result.model_means["wi_auto_npmi"], result.model_means["baseline_pmi"]
    (0.765625, 0.765625)
    """
    if isinstance(topics, Mapping) and library_of(topics) is None:  # OCTIS's model output is one model's dict
        raise InputError("auto_word_intrusion scores one model; pass several to compare_word_intrusion")
    comparison = compare_word_intrusion(
        {"model": topics},
        index,
        seed,
        association=association,
        draws=draws,
        window=window,
        compat=compat,
        c=c,
        folds=folds,
        protocol=protocol,
        low_rank=low_rank,
        high_rank=high_rank,
        on_missing=on_missing,
        progress=progress,
    )
    return comparison["model"]


def compare_word_intrusion(
    models: Mapping[str, TopicsLike],
    index: RefIndex | str | os.PathLike[str],
    seed: int | np.random.Generator = 0,
    *,
    association: Association = "pmi",
    draws: int = CHANG_ANNOTATORS,
    window: Window | int | str = LAU_WINDOW,
    compat: str | None = None,
    c: float = SVM_RANK_C,
    folds: int = LAU_FOLDS,
    protocol: Protocol = "chang",
    low_rank: int = 50,
    high_rank: int = 10,
    on_missing: OnMissingZero = "error",
    progress: ProgressCallback | None = None,
) -> WordIntrusionComparison:
    """WI-Auto of several models on equal footing: one ranking SVM for the topics of all of them.

    Lau et al.'s (2014, §3 and §4.1) data set holds the topics of nine models per domain, and
    their ranking SVMs are cross-validated over topics; the models are then compared by their
    mean WI-Auto. So here: each model gets its own sets (those :func:`auto_word_intrusion`
    with this seed draws for it), the topics of all models are pooled and cut into ``folds``
    random folds, and every fold is ranked by an SVM trained on the sets of the other folds,
    whatever model they come from. A model's numbers therefore depend on the models it is
    compared with, through the shared SVM; each result lists them
    in ``settings["models"]``.

    Parameters
    ----------
    models : mapping of name to topics
        Each a TopicModel, Topics, list of word lists, IntruderSets or another library's
        model, as for :func:`auto_word_intrusion`.
    index, seed, association, draws, window, compat, c, folds, protocol, low_rank, high_rank, on_missing, progress
        As for :func:`auto_word_intrusion`; ``folds`` counts folds of the pooled topics.

    Returns
    -------
    WordIntrusionComparison

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> topics = [
    ...     ["tax", "budget", "deficit", "spending", "revenue"],
    ...     ["war", "peace", "army", "soldier", "battle"],
    ...     ["school", "teacher", "student", "class", "exam"],
    ... ]
    >>> vocab = Vocabulary([word for topic in topics for word in topic])
    >>> docs = [[5 * k + (i + s) % 5 for i in range(5)] for k in range(3) for s in range(3)]
    >>> index = RefIndex.build(Corpus.from_documents(docs, vocab))  # 9 documents, 3 per topic
    >>> from tealeaves.intrusion import compare_word_intrusion
    >>> mixed = [*topics, ["tax", "war", "school", "budget", "army"]]
    >>> comparison = compare_word_intrusion({"clean": topics, "mixed": mixed}, index, seed=0, window="document")
    >>> {name: result.model_mean for name, result in comparison.results.items()}
    {'clean': 1.0, 'mixed': 0.765625}
    >>> comparison["mixed"].settings["models"], comparison["mixed"].settings["folds"]  # 7 topics pooled
    (['clean', 'mixed'], 7)
    """
    check_association(association)
    if not is_count(folds, 2):
        raise InputError(f"folds must be an integer of at least 2, got {folds!r}")
    if not (is_real(c) and np.isfinite(c) and c > 0):
        raise InputError(f"C must be a positive number, got {c!r}")
    if not isinstance(models, Mapping) or not models:
        raise InputError("models must be a non-empty mapping of model names to topics")
    index = as_reference_index(index)
    seed = as_seed(seed)
    names = [str(name) for name in models]
    drawn = []
    for given in models.values():
        if isinstance(given, IntruderSets):
            drawn.append((given, _shown_words(given)))
        else:
            topics = as_model(given)
            sets = intruder_sets(topics, draws, protocol, low_rank, high_rank, seed)
            drawn.append((sets, _shown_words(sets, topics)))
    offsets = np.cumsum([0] + [len(shown) for _, shown in drawn])
    n_topics = int(offsets[-1])
    n_folds = min(int(folds), n_topics)
    total_steps = len(names) + len(ASSOCIATIONS) * n_folds
    candidates = []
    for step, (sets, shown) in enumerate(drawn):
        candidates.append(_Candidate(sets, shown, word_association_features(sets, index, window, compat, on_missing)))
        notify(progress, "word intrusion", step + 1, total_steps)

    fold_of_topic = np.empty(n_topics, dtype=np.int64)
    folds_rng = family_generator(seed, "intrusion folds")
    fold_of_topic[folds_rng.permutation(n_topics)] = np.arange(n_topics) % n_folds
    fold = np.concatenate([fold_of_topic[offset + cand.topic] for offset, cand in zip(offsets, candidates)])
    target = np.concatenate([cand.target for cand in candidates])
    grades = (np.arange(candidates[0].features.raw.shape[1])[None, :] == target[:, None]).astype(np.int8)
    scores: dict[str, np.ndarray] = {}
    weights: dict[str, np.ndarray] = {}
    gaps: list[float] = []
    for a_index, a in enumerate(ASSOCIATIONS):
        x = np.concatenate([cand.features.matrix(a) for cand in candidates])
        scores[a] = np.zeros(x.shape[:2])
        weights[a] = np.zeros((n_folds, x.shape[2]))
        for f in range(n_folds):
            held = fold == f
            ranker = fit_ranking_svm(x[~held], grades[~held], c)
            weights[a][f] = ranker.weights
            scores[a][held] = ranker.score(x[held])
            gaps.append(ranker.primal - ranker.dual if ranker.converged else np.inf)
            notify(progress, "word intrusion", len(names) + a_index * n_folds + f + 1, total_steps, association=a)

    settings: dict[str, Any] = {"seed": seed, "window": candidates[0].features.window, "compat": compat}
    settings |= {"c": float(c), "folds": n_folds, "n_windows": candidates[0].features.n_windows}
    settings |= {"on_missing": on_missing, "models": names, "svm_duality_gap": max(gaps)}
    reference = {"corpus_fingerprint": index.corpus_fingerprint, "n_docs": index.n_docs, "n_tokens": index.n_tokens}
    bounds = np.cumsum([0] + [len(cand.target) for cand in candidates])
    results = {}
    for m, (name, cand) in enumerate(zip(names, candidates)):
        rows = slice(bounds[m], bounds[m + 1])
        own_scores: dict[str, np.ndarray] = {a: scores[a][rows] for a in ASSOCIATIONS}
        own_folds = fold_of_topic[offsets[m] : offsets[m + 1]]
        results[name] = _result(cand, own_scores, own_folds, weights, association, settings, reference)
    return WordIntrusionComparison(results)


@dataclass(frozen=True)
class _Candidate:
    """One model's sets, shown words and features."""

    sets: IntruderSets
    shown: tuple[tuple[str, ...], ...]
    features: SetFeatures

    @property
    def topic(self) -> np.ndarray:
        return np.array([s.topic for s in self.sets], dtype=np.int64)

    @property
    def target(self) -> np.ndarray:
        return np.array([s.intruder_position for s in self.sets], dtype=np.int64)


def _result(
    cand: _Candidate,
    scores: dict[str, np.ndarray],
    fold_of_topic: np.ndarray,
    weights: dict[str, np.ndarray],
    association: str,
    shared: dict[str, Any],
    reference: dict[str, Any],
) -> WordIntrusionResult:
    """One model's result from the SVM scores of its sets."""
    sets, features, topic, target = cand.sets, cand.features, cand.topic, cand.target
    k = len(cand.shown)
    columns: dict[str, Any] = {
        "topic": topic,
        "draw": np.array([s.draw for s in sets], dtype=np.int64),
        "fold": fold_of_topic[topic],
        "words": np.array([" ".join(w) for w in features.words], dtype=object),
        "intruder": np.array([s.intruder for s in sets], dtype=object),
        "intruder_position": target,
    }
    wi_auto: dict[str, np.ndarray] = {}
    baseline: dict[str, np.ndarray] = {}
    for a in ASSOCIATIONS:
        hits, picks = first_place_share(scores[a], target)
        base_hits, base_picks = first_place_share(-features.raw[:, :, FEATURES.index(a)], target)
        columns[f"predicted_{a}"] = np.array([w[p] for w, p in zip(features.words, picks)], dtype=object)
        columns[f"hit_{a}"] = hits
        columns[f"baseline_predicted_{a}"] = np.array([w[p] for w, p in zip(features.words, base_picks)], dtype=object)
        columns[f"baseline_hit_{a}"] = base_hits
        wi_auto[a] = _per_topic(hits, topic, k)
        baseline[a] = _per_topic(base_hits, topic, k)
    model_means = {f"wi_auto_{a}": float(wi_auto[a].mean()) for a in ASSOCIATIONS}
    model_means |= {f"baseline_{a}": float(baseline[a].mean()) for a in ASSOCIATIONS}
    settings = {"draws": int(columns["draw"].max() + 1), "protocol": sets.protocol, "low_rank": sets.low_rank}
    settings |= {"high_rank": sets.high_rank, "sets_seed": sets.seed, **shared}
    return WordIntrusionResult(
        association=association,
        per_topic=wi_auto[association],
        model_mean=model_means[f"wi_auto_{association}"],
        wi_auto=wi_auto,
        baseline=baseline,
        model_means=model_means,
        topics=cand.shown,
        fold_of_topic=fold_of_topic,
        weights=weights,
        settings=settings,
        missing=tuple(sorted({(int(topic[i]), word, why) for i, word, why in features.missing})),
        index=reference,
        sets=columns,
        features=features.raw,
        scores=scores,
    )


def first_place_share(scores: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``scores`` [S, n]: the share of first place that item ``target`` holds, and the pick.

    The share is ``1 / t`` when ``target`` ties with ``t - 1`` other items at the top score
    (the expected hit of a random tie break), 0 when it is not at the top.

    Parameters
    ----------
    scores : ndarray of shape (S, n)
        Each set's item scores (higher is picked).
    target : ndarray of int, shape (S,)
        Each set's true item (the intruder's position).

    Returns
    -------
    share : ndarray of float64, shape (S,)
        The share of first place ``target`` holds.
    pick : ndarray of int, shape (S,)
        The first item with the top score.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.intrusion import first_place_share
    >>> scores = np.array([[0.1, 0.9, 0.3], [0.5, 0.5, 0.2], [0.7, 0.1, 0.7]])
    >>> share, pick = first_place_share(scores, np.array([1, 0, 1]))
    >>> share, pick  # a hit, a tie of two, a miss
    (array([1. , 0.5, 0. ]), array([1, 0, 0]))
    """
    top = scores.max(axis=1, keepdims=True)
    at_top = scores == top
    rows = np.arange(len(scores))
    share = at_top[rows, target] / at_top.sum(axis=1)
    return share.astype(np.float64), np.argmax(at_top, axis=1)


def _per_topic(values: np.ndarray, topic: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(topic, weights=values, minlength=k) / np.bincount(topic, minlength=k)


def _shown_words(
    sets: IntruderSets, topics: TopicModel | Topics | Sequence[Sequence[str]] | None = None
) -> tuple[tuple[str, ...], ...]:
    """Each topic's shown words, in rank order when the topics are known, else as first shown."""
    present = sorted({s.topic for s in sets})
    if present != list(range(len(present))):
        lacking = sorted(set(range(max(present) + 1)) - set(present))
        raise InputError(f"the sets must cover topics 0..K-1; topic(s) {lacking[:10]} have none")
    words: list[list[str]] = [[] for _ in present]
    for s in sets:
        words[s.topic].extend(w for w in s.topic_words if w not in words[s.topic])
    if topics is None:
        return tuple(tuple(w) for w in words)
    ranked = as_topics(topics, max(PROTOCOLS[sets.protocol]) if isinstance(topics, TopicModel) else None).words
    return tuple(tuple(w for w in ranked[k] if w in set(words[k])) for k in range(len(words)))
