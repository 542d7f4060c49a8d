"""The metrics ``tealeaves evaluate`` runs per model, as a registry (:data:`METRICS`).

A :class:`Metric` is a function of one model, the run's inputs (held-out corpus, reference
index), the seed and its options, returning a :class:`Measured`: per-item values (per topic or
per document, with weights for ratios such as log likelihood per token), model-level values, and
per-topic flags for the report. Each metric calls the library's own function; nothing is
recomputed here. To add one (an embedding coherence, say), write its function and
:func:`register` it; ``[metrics] NAME = {...}`` in the configuration turns it on.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves.errors import InputError

if TYPE_CHECKING:
    from tealeaves.coherence import RefIndex
    from tealeaves.corpus import Corpus
    from tealeaves.models import TopicModel, Topics


PAIRED, INDEPENDENT, JACKKNIFE = "paired", "independent", "jackknife"
DEFAULT_PLAN = {"document": PAIRED, "topic": INDEPENDENT, "model": None}


@dataclass(frozen=True)
class Output:
    """One number a metric produces: its label, direction, the unit its values come per, and how it is tested.

    Attributes
    ----------
    label : str
        The name the tables and the report show (``"NPMI"``).
    higher_is_better : bool
        The direction of the verdicts.
    unit : str
        ``"topic"``, ``"document"`` (values over weights, e.g. nats over tokens) or ``"model"``.
    plan : str or None
        How it is tested (see :mod:`tealeaves.evaluation.stats`): ``"paired"`` (documents every
        model scored, resampled together), ``"independent"`` (topics, independent within and
        across models), ``"jackknife"`` (a model-level quantity, jackknifed over topics) or None
        (shown, not tested); by default ``"paired"`` for documents, ``"independent"`` for
        topics, None for models.

    Examples
    --------
    >>> from tealeaves.evaluation import Output
    >>> Output("NPMI")
    Output(label='NPMI', higher_is_better=True, unit='topic', plan='independent')
    >>> Output("held-out log likelihood per token", unit="document").plan
    'paired'
    >>> Output("redundant", higher_is_better=False, unit="model").plan is None
    True
    """

    label: str
    higher_is_better: bool = True
    unit: str = "topic"  # "topic", "document" (values over weights, e.g. nats over tokens) or "model"
    plan: str | None = ""

    def __post_init__(self) -> None:
        if self.plan == "":
            object.__setattr__(self, "plan", DEFAULT_PLAN[self.unit])


@dataclass
class Items:
    """Per-item values of one output; the model's value is ``sum(values) / sum(weights)``.

    Attributes
    ----------
    values : ndarray
        One value per item (a topic's score, a document's log likelihood).
    weights : ndarray
        One weight per item: 1 for topics, the tokens of a document for a per-token ratio.
    ids : ndarray
        Topic numbers, or document positions in the held-out corpus.

    Examples
    --------
    Two documents of 10 and 4 tokens with log likelihoods -30 and -12: -3 nats per token.

    >>> import numpy as np
    >>> from tealeaves.evaluation import Items
    >>> items = Items(values=np.array([-30.0, -12.0]), weights=np.array([10.0, 4.0]), ids=np.array([0, 1]))
    >>> float(items.values.sum() / items.weights.sum())
    -3.0
    """

    values: np.ndarray
    weights: np.ndarray
    ids: np.ndarray  # topic numbers, or document positions in the held-out corpus


@dataclass
class Measured:
    """What one metric found for one model.

    Attributes
    ----------
    items : dict of str to Items
        Per-item values of each per-topic or per-document output.
    scalars : dict of str to float
        Model-level values (topic diversity, inverted RBO, ...).
    flags : dict of int to list of str
        Notes per topic, shown on its card in the report.
    jackknife : dict of str to ndarray
        For a scalar, its leave-one-topic-out values (input of the comparisons' jackknife).
    topics : dict
        Top words and settings: the input of the model-level test and interval.

    Examples
    --------
    >>> from tealeaves.evaluation import Measured
    >>> measured = Measured()
    >>> measured.per_topic("npmi", [0.2, float("nan"), 0.4])  # topic 1 left unscored
    >>> measured.items["npmi"].values, measured.items["npmi"].ids
    (array([0.2, 0.4]), array([0, 2]))
    >>> measured.flag(1, "npmi: not scored (a word never occurs)")
    >>> measured.flags
    {1: ['npmi: not scored (a word never occurs)']}
    """

    items: dict[str, Items] = field(default_factory=dict)
    scalars: dict[str, float] = field(default_factory=dict)
    flags: dict[int, list[str]] = field(default_factory=dict)  # topic -> notes for its card
    jackknife: dict[str, np.ndarray] = field(default_factory=dict)  # scalar -> its leave-one-topic-out values
    topics: dict[str, Any] = field(default_factory=dict)  # top words and settings: input of the test and interval

    def flag(self, topic: int, note: str) -> None:
        self.flags.setdefault(int(topic), []).append(note)

    def per_topic(self, name: str, values: np.ndarray) -> None:
        """Keep the finite values of a per-topic output (a NaN marks a topic the measure left unscored)."""
        values = np.asarray(values, dtype=np.float64)
        ok = np.isfinite(values)
        self.items[name] = Items(values[ok], np.ones(int(ok.sum())), np.flatnonzero(ok))


@dataclass(frozen=True)
class Inputs:
    """What the metrics may need besides the model.

    Attributes
    ----------
    heldout : Corpus or None
        The held-out corpus (likelihood, predictive metrics).
    index : RefIndex or None
        The reference corpus' index (coherence, WI-Auto).

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.evaluation import METRICS, Inputs
    >>> vocab = Vocabulary(["tax", "budget", "deficit", "war", "peace", "army"])
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1, 2], [1, 2, 0], [3, 4, 5], [4, 5, 3]], vocab))
    >>> topics = [["tax", "budget", "deficit"], ["tax", "war", "peace"]]
    >>> measured = METRICS["npmi"].compute(topics, Inputs(index=index), 0, topn=3, window="document")
    >>> measured.items["npmi"].values.round(4)  # (1 - 1 - 1) / 3 for the mixed topic: 2 pairs never co-occur
    array([ 1.    , -0.3333])
    """

    heldout: Corpus | None = None
    index: RefIndex | None = None


@dataclass(frozen=True)
class Metric:
    """A registered metric: ``compute(model, inputs, seed, **options) -> Measured``.

    Attributes
    ----------
    name : str
        The metric's name in ``[metrics]`` and the tables.
    compute : callable
        ``compute(model, inputs, seed, **options) -> Measured``; for a ``pooled`` metric
        ``compute({name: model}, inputs, seed, **options) -> {name: Measured}``.
    outputs : dict of str to Output
        The numbers it produces, by name.
    defaults : dict
        Its default options (the configuration's ``[metrics] NAME = {...}`` overrides them).
    needs : tuple of str
        The inputs it requires: ``"heldout"``, ``"index"``.
    model_only : bool
        True when it needs Φ and the prior rather than word lists (likelihood, predictive).
    applies : callable
        Returns why a model is skipped (None when it is not).
    default : bool
        Whether it is in the default set.
    source : str
        The papers it follows.
    pooled : bool
        Whether it scores all models in one step (WI-Auto: one ranking SVM for every model's
        topics).
    check : callable, optional
        ``check(options, where)`` refuses, before any step runs, options the metric would
        refuse (an unknown name, with the closest known one; ``where`` names the table in the
        message); None checks nothing.

    Examples
    --------
    >>> from tealeaves.evaluation import METRICS
    >>> npmi = METRICS["npmi"]
    >>> npmi.needs, npmi.defaults, npmi.outputs["npmi"].label
    (('index',), {'topn': 10, 'window': 10, 'on_missing': 'skip'}, 'NPMI')
    >>> METRICS["wi-auto"].pooled, METRICS["likelihood"].model_only
    (True, True)
    >>> METRICS["likelihood"].applies([["tax", "budget"]])  # why a model is skipped
    'a topic list has no Φ'
    """

    name: str
    compute: Callable[..., Any]  # a Measured, or {model: Measured} when pooled
    outputs: dict[str, Output]
    defaults: dict[str, Any] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    model_only: bool = False
    applies: Callable[[Any], str | None] = lambda model: None
    default: bool = True
    source: str = ""
    pooled: bool = False
    check: Callable[[dict[str, Any], str], None] | None = None


METRICS: dict[str, Metric] = {}
"""The registered metrics by name, those :func:`tealeaves.evaluate` can run: ``npmi``, ``cv``,
``diversity``, ``wi-auto``, ``likelihood``, ``predictive``, and, when turned on, ``significance``
and ``classification`` (:func:`register` adds one)."""


def register(metric: Metric) -> Metric:
    """Add ``metric`` to :data:`METRICS` (a name may be registered once).

    ``[metrics] NAME = {...}`` in a configuration then turns it on (or it runs by default when
    ``metric.default`` is True).

    Parameters
    ----------
    metric : Metric
        The metric, with a name no registered metric has.

    Returns
    -------
    Metric
        ``metric`` itself.

    Raises
    ------
    InputError
        When a metric of that name is already registered.

    Examples
    --------
    A metric of the number of distinct first letters among each topic's top words:

    >>> from tealeaves.evaluation import METRICS, Measured, Metric, Output, register
    >>> from tealeaves.models import as_topics
    >>> def letters(model, inputs, seed, topn=5):
    ...     measured = Measured()
    ...     measured.per_topic("letters", [len({w[0] for w in t}) for t in as_topics(model, topn).words])
    ...     return measured
    >>> metric = register(Metric("letters", letters, {"letters": Output("first letters")}, default=False))
    >>> "letters" in METRICS
    True
    >>> METRICS["letters"].compute([["tax", "tariff", "budget"]], None, 0, topn=3).items["letters"].values
    array([2.])
    >>> del METRICS["letters"]  # this example leaves the registry as it was
    """
    if metric.name in METRICS:
        raise InputError(f"a metric named {metric.name!r} is already registered")
    METRICS[metric.name] = metric
    return metric


def outputs() -> dict[str, Output]:
    """Every output of every registered metric, and of the human scores, by name."""
    table = {name: out for metric in METRICS.values() for name, out in metric.outputs.items()}
    return {**table, **HUMAN_OUTPUTS}


def active_metrics(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The metrics to run and their options, from the configuration's ``[metrics]`` table.

    Default metrics run unless set to ``false``; a table (or ``true``) turns a metric on and
    overrides its default options. Names and options are checked before
    (:func:`tealeaves.evaluation.config.refuse_unknown_keys`).
    """
    active = {}
    for name, metric in METRICS.items():
        value = table.get(name, metric.default)
        if value is False:
            continue
        if value is not True and not isinstance(value, dict):
            raise InputError(f"[metrics] {name} must be true, false or a table of options, got {value!r}")
        active[name] = {**metric.defaults, **(value if isinstance(value, dict) else {})}
    if not active:
        raise InputError("every metric is turned off; leave at least one on in [metrics]")
    return active


def unknown_keys(table: dict[str, Any], known: Collection[str], where: str, what: str = "key") -> None:
    """Refuse the keys of ``table`` outside ``known``: each with the closest known one, then every known one.

    Parameters
    ----------
    table : dict
        A table of the configuration.
    known : collection of str
        Its valid keys.
    where : str
        The table, as the message names it (``"[metrics] npmi"``).
    what : str
        What a key is (``"key"``, ``"option"``, ``"metric"``).

    Raises
    ------
    InputError
        ``[metrics] npmi has unknown option windw (did you mean window?); its options: ...``.

    Examples
    --------
    >>> from tealeaves.evaluation.metrics import unknown_keys
    >>> unknown_keys({"windw": 10}, ["topn", "window", "on_missing"], "[metrics] npmi", what="option")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: [metrics] npmi has unknown option windw (did you mean window?); its options: on_missing, topn, window
    """
    import difflib

    unknown = sorted(set(table) - set(known))
    if not unknown:
        return
    named = []
    for key in unknown:
        close = difflib.get_close_matches(key, list(known), n=1)
        named.append(f"{key} (did you mean {close[0]}?)" if close else key)
    plural = "s" if len(unknown) > 1 else ""
    raise InputError(f"{where} has unknown {what}{plural} {', '.join(named)}; its {what}s: {', '.join(sorted(known))}")


def accepts(target: str, *fixed: str, extra: Collection[str] = ()) -> Callable[[dict[str, Any], str], None]:
    """A :attr:`Metric.check` refusing the options that the library function ``target`` (``"module:function"``) has
    no keyword parameter for, besides the ``fixed`` ones the metric sets itself and the metric's own ``extra``.

    Parameters
    ----------
    target : str
        ``"module:function"``, imported only when the check runs.
    *fixed : str
        Its parameters the metric passes itself (the model, the index, the seed, progress).
    extra : collection of str
        Options the metric's own function takes (``flag_below``).

    Returns
    -------
    callable
        ``check(options, where)``.

    Examples
    --------
    >>> from tealeaves.evaluation.metrics import accepts
    >>> check = accepts("tealeaves.coherence:diversity", "topics")
    >>> check({"diversity_topn": 10}, "[metrics] diversity")
    >>> check({"diversity_top": 10}, "[metrics] diversity")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: [metrics] diversity has unknown option diversity_top (did you mean diversity_topn?); ...
    """

    def check(options: dict[str, Any], where: str) -> None:
        import importlib
        import inspect

        module, function = target.split(":")
        parameters = inspect.signature(getattr(importlib.import_module(module), function)).parameters
        names = {n for n, p in parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        unknown_keys(options, (names - set(fixed)) | set(extra), where, what="option")

    return check


def _likelihood_options(options: dict[str, Any], where: str) -> None:
    """The options of :func:`tealeaves.likelihood.estimate` and those of its ``method``."""
    from tealeaves.likelihood.estimators import METHODS, find_method

    method = find_method(options.get("method", "left-to-right"), METHODS)
    own = {k: v for k, v in options.items() if k not in ("method", "runs", "bootstrap", "on_missing")}
    unknown_keys(own, [*method.defaults(), "method", "runs", "bootstrap", "on_missing"], where, what="option")


def _classification_options(options: dict[str, Any], where: str) -> None:
    """The options of :func:`tealeaves.models.classify`, and the label field it needs."""
    accepts("tealeaves.models.classification:classify", "model", "corpus", "heldout", "infer", "seed")(options, where)
    if not isinstance(options.get("label"), str) or not options["label"]:
        raise InputError(f'{where} needs the metadata field to predict: classification = {{ label = "FIELD" }}')


def _not_a_dirichlet_mixture(model: Any) -> str | None:
    """Why Wallach et al.'s estimators do not apply (None when they do)."""
    from tealeaves.models import TopicModel

    if not isinstance(model, TopicModel):
        return "a topic list has no Φ"
    if model.alpha is None:
        return "no Dirichlet prior"
    return "its decoder is not a mixture of its topics" if model.params.get("mixture_decoder", True) is False else None


def _not_a_model(model: Any) -> str | None:
    from tealeaves.models import TopicModel

    return None if isinstance(model, TopicModel) else "a topic list has no Φ"


def _coherence(measure: str) -> Callable[..., Measured]:
    def compute(model: TopicModel | Topics, inputs: Inputs, seed: int, **options: Any) -> Measured:
        from tealeaves.coherence import score

        result = score(model, inputs.index, measure=measure, **options)
        measured = Measured()
        measured.per_topic(measure, result.per_topic)
        for k, word, why in result.missing:
            measured.flag(k, f"{measure}: not scored ({why})" if word == "*" else f"rare word {word!r}: {why}")
        return measured

    compute.__doc__ = f"{measure} per topic by :func:`tealeaves.coherence.score`."
    return compute


def _diversity(model: TopicModel | Topics, inputs: Inputs, seed: int, **options: Any) -> Measured:
    """Topic uniqueness, diversity and inverted RBO per model with their leave-one-topic-out values,
    uniqueness per topic and the redundancy filter (:func:`tealeaves.coherence.diversity`)."""
    from tealeaves.coherence import diversity

    result = diversity(model, **options)
    scalars = {
        "topic_uniqueness": result.topic_uniqueness,
        "topic_diversity": result.topic_diversity,
        "inverted_rbo": result.inverted_rbo,
    }
    measured = Measured(scalars={**scalars, "redundant": float(result.redundant)})
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


def _wi_auto(
    models: dict[str, TopicModel | Topics], inputs: Inputs, seed: int, *, flag_below: float, **options: Any
) -> dict[str, Measured]:
    """WI-Auto-PMI and -NPMI per topic of every model, ranked by one pooled SVM
    (:func:`tealeaves.intrusion.compare_word_intrusion`)."""
    from tealeaves.intrusion import compare_word_intrusion

    comparison = compare_word_intrusion(models, inputs.index, seed, **options)  # type: ignore[arg-type]
    out = {}
    for name, result in comparison.results.items():
        measured = Measured()
        for association in ("pmi", "npmi"):
            measured.per_topic(f"wi_auto_{association}", result.wi_auto[association])
        for k, value in enumerate(result.wi_auto["pmi"]):
            if value < flag_below:
                measured.flag(k, f"low WI-Auto-PMI ({value:.2f} < {flag_below})")
        out[name] = measured
    return out


def _likelihood(model: TopicModel, inputs: Inputs, seed: int, **options: Any) -> Measured:
    """Held-out log P(w) per token (:func:`tealeaves.likelihood.estimate`, left-to-right ``sis``)."""
    from tealeaves.likelihood import estimate

    result = estimate(model, None, inputs.heldout, seed=seed, **options)  # type: ignore[arg-type]
    lengths = np.diff(np.asarray(inputs.heldout.offsets))  # type: ignore[union-attr]
    ids = np.arange(len(lengths))
    return Measured(items={"heldout_log_likelihood": Items(np.asarray(result.log_prob), lengths.astype(float), ids)})


def _predictive(model: TopicModel, inputs: Inputs, seed: int, **options: Any) -> Measured:
    """Chang et al.'s predictive log likelihood per word and rank (:func:`tealeaves.likelihood.predictive`)."""
    from tealeaves.likelihood import predictive

    result = predictive(model, inputs.heldout, seed=seed, **options)  # type: ignore[arg-type]
    ids = np.arange(len(result.ids))
    scored = result.n_terms > 0
    measured = Measured()
    measured.items["predictive_log_likelihood"] = Items(result.log_likelihood, result.n_tokens.astype(float), ids)
    measured.items["predictive_rank"] = Items(result.rank[scored], np.ones(int(scored.sum())), ids[scored])
    return measured


def _without_theta(model: Any) -> str | None:
    """Why topic significance does not apply (None when it does)."""
    return _not_a_model(model) or (None if model.theta is not None else "no θ of its training documents")


def _significance(model: TopicModel, inputs: Inputs, seed: int, **options: Any) -> Measured:
    """Each topic's KL divergence from W-Uniform, W-Vacuous and D-BGround over its training documents' θ
    (:func:`tealeaves.models.topic_significance`, as OCTIS)."""
    from tealeaves.models import topic_significance
    from tealeaves.models.significance import JUNK

    result = topic_significance(model, **options)
    measured = Measured()
    for name in JUNK:
        measured.per_topic(name, getattr(result, name))
    return measured


def _without_inference(model: Any) -> str | None:
    """Why θ cannot be inferred for held-out documents (None when it can)."""
    from tealeaves.models.inference import INFERENCE

    reason = _not_a_model(model)
    if reason is None and model.kind not in INFERENCE and model.alpha is None:
        reason = "no inference of θ for held-out documents (no prior, no inference of its own)"
    return reason


def _classification(model: TopicModel, inputs: Inputs, seed: int, *, label: str, **options: Any) -> Measured:
    """Whether a linear SVM on θ inferred for each held-out document predicts its label, by stratified
    cross-validation over the held-out documents (:func:`tealeaves.models.classify`); F1, precision and recall.

    The held-out documents are the units, the same for every model (the same folds under the run's
    seed), so the accuracy is compared by the paired plan; the training documents' θ would tie a
    model's score to its own training corpus, which imported models need not share.
    """
    from tealeaves.models import classify

    result = classify(model, inputs.heldout, label, infer=True, seed=seed, **options)  # type: ignore[arg-type]
    correct = Items(result.correct.astype(np.float64), np.ones(len(result.documents)), result.documents)
    scalars = {f"classification_{name}": getattr(result, name) for name in ("f1", "precision", "recall")}
    return Measured(items={"classification_accuracy": correct}, scalars=scalars)


HUMAN_OUTPUTS = {  # scores per topic (per rated document for topic log odds), tested like topic metrics
    "model_precision": Output("model precision"),
    "topic_log_odds": Output("topic log odds", unit="document", plan=INDEPENDENT),
    "mean_rating": Output("mean rating"),
}

for _measure, _label, _window in (("npmi", "NPMI", 10), ("cv", "C_V", 110)):
    register(
        Metric(
            _measure,
            _coherence(_measure),
            {_measure: Output(_label)},
            defaults={"topn": 10, "window": _window, "on_missing": "skip"},
            needs=("index",),
            source="Lau et al. 2014; Röder et al. 2015; Hoyle et al. 2021",
            check=accepts("tealeaves.coherence.scoring:score", "topics", "index", "measure", "progress"),
        )
    )
register(
    Metric(
        "diversity",
        _diversity,
        {
            "topic_uniqueness": Output("topic uniqueness", plan=JACKKNIFE),
            "topic_diversity": Output("topic diversity", unit="model", plan=JACKKNIFE),
            "inverted_rbo": Output("inverted RBO", unit="model", plan=JACKKNIFE),
            "redundant": Output("redundant (Hoyle et al.'s filter)", higher_is_better=False, unit="model"),
        },
        source="Dieng et al. 2020; Nan et al. 2019; Bianchi et al. 2021; Hoyle et al. 2021",
        check=accepts("tealeaves.coherence.redundancy:diversity", "topics"),
    )
)
register(
    Metric(
        "wi-auto",
        _wi_auto,
        {"wi_auto_pmi": Output("WI-Auto-PMI"), "wi_auto_npmi": Output("WI-Auto-NPMI")},
        defaults={"on_missing": "zero", "flag_below": 0.25},
        needs=("index",),
        source="Lau et al. 2014",
        pooled=True,
        check=accepts(
            "tealeaves.intrusion.automated:compare_word_intrusion",
            "models",
            "index",
            "seed",
            "progress",
            extra=("flag_below",),
        ),
    )
)
register(
    Metric(
        "likelihood",
        _likelihood,
        {"heldout_log_likelihood": Output("held-out log likelihood per token", unit="document")},
        defaults={"method": "left-to-right", "variant": "sis"},
        needs=("heldout",),
        model_only=True,
        applies=_not_a_dirichlet_mixture,
        source="Wallach et al. 2009",
        check=_likelihood_options,
    )
)
register(
    Metric(
        "predictive",
        _predictive,
        {
            "predictive_log_likelihood": Output("predictive log likelihood per word", unit="document"),
            "predictive_rank": Output("predictive rank", higher_is_better=False, unit="document"),
        },
        needs=("heldout",),
        model_only=True,
        applies=_not_a_model,
        source="Chang et al. 2009",
    )
)
register(
    Metric(
        "significance",
        _significance,
        {
            "kl_uniform": Output("KL divergence from W-Uniform (nats)"),
            "kl_vacuous": Output("KL divergence from W-Vacuous (nats)"),
            "kl_background": Output("KL divergence from D-BGround (nats)"),
        },
        defaults={"epsilon": 1e-5},
        model_only=True,
        applies=_without_theta,
        default=False,
        check=accepts("tealeaves.models.significance:topic_significance", "model", "theta"),
        source="AlSumait et al. 2009; OCTIS",
    )
)
register(
    Metric(
        "classification",
        _classification,
        {
            "classification_accuracy": Output("classification accuracy", unit="document"),
            "classification_f1": Output("classification F1", unit="model"),
            "classification_precision": Output("classification precision", unit="model"),
            "classification_recall": Output("classification recall", unit="model"),
        },
        defaults={"label": None, "folds": 5, "average": "macro", "scale": True},
        needs=("heldout",),
        model_only=True,
        applies=_without_inference,
        default=False,
        check=_classification_options,
        source="Blei et al. 2003; OCTIS",
    )
)
