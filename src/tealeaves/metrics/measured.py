"""What a metric is and what it measures: :class:`Metric`, its :class:`Output` numbers, the :class:`Inputs`
it reads besides the model, and :class:`Measured`, what it found for one model (:class:`Items` per topic or
document, model-level values, flags).

A metric's ``compute(model, inputs, seed, **options)`` calls its package's public function and
returns a :class:`Measured`; every caller reads it: ``tealeaves evaluate`` (its tables, the
statistical plan of each :class:`Output`), ``tealeaves validate`` (the per-topic values and the
coverage) and ``tealeaves sweep`` (the library's result, for its selection).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from tealeaves.coherence import RefIndex
    from tealeaves.corpus import Corpus

PAIRED, INDEPENDENT, JACKKNIFE = "paired", "independent", "jackknife"
"""The statistical plans of ``evaluate`` (:mod:`tealeaves.evaluation.stats`), which an :class:`Output` names."""
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
    bounds : tuple of float or None
        The range of a topic's value (NPMI's ``(-1, 1)``, a share's ``(0, 1)``, a divergence's
        ``(0, inf)``), within which the interval of a topic-level mean stays
        (:func:`tealeaves.stats.bootstrap_t_interval`); None: unbounded or unknown.

    Examples
    --------
    >>> from tealeaves.metrics import Output
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
    bounds: tuple[float, float] | None = field(default=None, repr=False)  # the range of a topic's value

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
    >>> from tealeaves.metrics import Items
    >>> items = Items(values=np.array([-30.0, -12.0]), weights=np.array([10.0, 4.0]), ids=np.array([0, 1]))
    >>> float(items.values.sum() / items.weights.sum())
    -3.0
    """

    values: np.ndarray
    weights: np.ndarray
    ids: np.ndarray  # topic numbers, or document positions in the held-out corpus

    def ratio(self) -> float:
        """``sum(values) / sum(weights)``: the model's value of the output (NaN without weight)."""
        total = float(self.weights.sum())
        return float(self.values.sum()) / total if total > 0 else float("nan")


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
    coverage : float or None
        The share of the scored topic words the metric's reference index or encoder represents
        (None where the metric reads no such thing).
    result : object
        The library's own result (a :class:`~tealeaves.coherence.CoherenceResult`, a
        :class:`~tealeaves.coherence.DiversityResult`, ...), for a caller that reads more than
        the values: the sweep's filters, validate's coverage. Never cached by ``evaluate``.

    Examples
    --------
    >>> from tealeaves.metrics import Measured
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
    coverage: float | None = None  # share of the topic words the index or encoder represents
    result: Any = field(default=None, repr=False)  # the library's result object, for callers that read more

    def flag(self, topic: int, note: str) -> None:
        """Add ``note`` to the notes of ``topic`` (its card in the report)."""
        self.flags.setdefault(int(topic), []).append(note)

    def per_topic(self, name: str, values: np.ndarray) -> None:
        """Keep the finite values of a per-topic output (a NaN marks a topic the measure left unscored)."""
        values = np.asarray(values, dtype=np.float64)
        ok = np.isfinite(values)
        self.items[name] = Items(values[ok], np.ones(int(ok.sum())), np.flatnonzero(ok))

    def topic_values(self, name: str, n_topics: int) -> np.ndarray:
        """A per-topic output's value for each of ``n_topics`` topics, NaN where it has none (the inverse of
        :meth:`per_topic`)."""
        values = np.full(n_topics, np.nan)
        values[self.items[name].ids] = self.items[name].values
        return values


@dataclass(frozen=True)
class Inputs:
    """What the metrics may need besides the model.

    Attributes
    ----------
    heldout : Corpus or None
        The held-out corpus (likelihood, predictive metrics).
    index : RefIndex, path or None
        The reference corpus' index (coherence, WI-Auto), or its folder.

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.metrics import METRICS, Inputs
    >>> vocab = Vocabulary(["tax", "budget", "deficit", "war", "peace", "army"])
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1, 2], [1, 2, 0], [3, 4, 5], [4, 5, 3]], vocab))
    >>> topics = [["tax", "budget", "deficit"], ["tax", "war", "peace"]]
    >>> measured = METRICS["npmi"].compute(topics, Inputs(index=index), 0, topn=3, window="document")
    >>> measured.items["npmi"].values.round(4)  # (1 - 1 - 1) / 3 for the mixed topic: 2 pairs never co-occur
    array([ 1.    , -0.3333])
    """

    heldout: Corpus | None = None
    index: RefIndex | str | os.PathLike[str] | None = None


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
    >>> from tealeaves.metrics import METRICS
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
