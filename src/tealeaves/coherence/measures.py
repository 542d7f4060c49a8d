"""The coherence measures: segmentation, window, confirmation and their conventions.

Each measure is a function of one topic's counts (:class:`TopicCounts`) and the segments its
segmentation chose; its docstring gives the formula, the window, the smoothing, the log base
and the source. :data:`MEASURES` registers them with their defaults and, where gensim or Lau
et al.'s toolkit compute the measure, the settings that reproduce those tools (``compat``).
A topic's score is the arithmetic mean of its segment values (Röder et al. 2015's σ_a;
gensim and Lau et al.'s toolkit also average).

Missing words kept with ``on_missing="zero"`` contribute 0 to every segment they are in.

The embedding measures (:data:`EMBEDDING_MEASURES`) confirm a segment from the words' vectors
instead of counts (:func:`pairwise_cosine`, :func:`centroid_cosine`); their pipeline, from an
encoder, is :mod:`tealeaves.coherence.embedding`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from tealeaves.coherence import segmentation
from tealeaves.coherence.segmentation import SET
from tealeaves.coherence.windows import Window
from tealeaves.confirmation import (
    ROEDER_EPSILON,
    Conventions,
    conditional,
    cosine_rows,
    fitelson,
    log_conditional,
    log_ratio,
    normalized_log_ratio,
)
from tealeaves.errors import InputError, unknown_name


@dataclass(frozen=True)
class TopicCounts:
    """Counts for one topic's words ``w_0 .. w_{m-1}`` (most probable first).

    ``joint[i, j]`` counts windows holding both words (the diagonal: windows holding the word
    for sliding and document windows, pairs of two occurrences for context windows),
    ``marginal[i]`` windows holding ``w_i``, ``n_windows`` all windows; ``present[i]`` is False
    for a word missing from the reference corpus.
    """

    joint: np.ndarray
    marginal: np.ndarray
    n_windows: int
    present: np.ndarray


Confirm = Callable[[TopicCounts, np.ndarray, np.ndarray, Conventions, "str | None"], np.ndarray]


def _pairs(c: TopicCounts, prime: np.ndarray, star: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return c.joint[prime, star], c.marginal[prime], c.marginal[star]


def _missing_to_zero(values: np.ndarray, c: TopicCounts, prime: np.ndarray, star: np.ndarray) -> np.ndarray:
    keep = c.present[prime] & np.where(star == SET, True, c.present[np.maximum(star, 0)])
    return np.where(keep, values, 0.0)


def _vectors(c: TopicCounts, confirm: Callable[..., np.ndarray], conv: Conventions) -> np.ndarray:
    """Context vectors in the topic's word space: ``v(w_i)_k = m(w_i, w_k) ** gamma``.

    ``gamma`` is a whole number (:class:`Conventions` refuses others), so a negative
    confirmation raised to it is real: its sign is kept for odd ``gamma``, dropped for even.
    """
    m = len(c.marginal)
    i, k = np.indices((m, m))
    matrix = np.power(confirm(c.joint[i, k], c.marginal[i], c.marginal[k], c.n_windows, conv), conv.gamma)
    keep = np.outer(c.present, c.present)
    return np.where(keep, matrix, 0.0)


def uci(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """UCI coherence (Newman et al. 2010; Lau et al. 2014 §4.2 OC-Auto-PMI; Röder et al. 2015 C_UCI).

    Mean over ordered pairs ``i != j`` (S_one^one) of
    ``PMI(w_i, w_j) = log( (P(w_i, w_j) + eps) / (P(w_i) P(w_j)) )``.

    Window: boolean sliding windows of 10 tokens. Smoothing: ``eps = 1e-12`` (Röder et al.
    2015, Eq. 5). Log base: e. ``compat="gensim"``: gensim's ``c_uci`` (the same formula on
    gensim's window counts). ``compat="lau"``: Lau et al.'s toolkit ``pmi`` (padded windows of
    20, log base 10, 0 for a pair that never co-occurs).
    """
    return log_ratio(*_pairs(c, prime, star), c.n_windows, conv)


def npmi(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """NPMI coherence (Bouma 2009; Lau et al. 2014 §4.2 OC-Auto-NPMI; Hoyle et al. 2021 Eq. 1).

    Mean over ordered pairs ``i != j`` (S_one^one; the same mean as Lau's ``j > i``) of
    ``NPMI(w_i, w_j) = log( P(w_i, w_j) / (P(w_i) P(w_j)) ) / -log P(w_i, w_j)``.

    Window: boolean sliding windows of 10 tokens (Hoyle et al. 2021, §6.2). Smoothing: none;
    a pair that never co-occurs has NPMI -1, its limit. Log base: any (it cancels).
    ``compat="gensim"``: gensim's ``c_npmi`` (``eps = 1e-12`` added to ``P(w_i, w_j)`` in both
    logs, so a pair that never co-occurs gets ``log(eps / (P_i P_j)) / -log(eps)``, not -1).
    ``compat="lau"``: Lau et al.'s toolkit ``npmi`` (padded windows of 20; 0 for a pair that
    never co-occurs).
    """
    return normalized_log_ratio(*_pairs(c, prime, star), c.n_windows, conv)


def umass(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """UMass coherence (Mimno et al. 2011, Eq. 1; Röder et al. 2015 C_UMass).

    Mean over pairs ``j < i`` (S_one^pre: conditioned on the higher-ranked word) of
    ``log( (D(w_i, w_j) + 1) / D(w_j) )``, ``D`` counting documents (Mimno et al. sum the
    pairs; the mean is the sum divided by ``m (m - 1) / 2``).

    Window: whole documents. Smoothing: +1 on the joint count. Log base: e.
    ``compat="gensim"``: gensim's ``u_mass``, ``log( D(w_i, w_j) / D + eps ) - log( D(w_j) / D )``
    with ``eps = 1e-12`` instead of the +1.
    """
    n12, _, n2 = _pairs(c, prime, star)
    return log_conditional(n12, n2, c.n_windows, conv)


def lcp(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """Log conditional probability over windows (Lau et al. 2014 §4.2 OC-Auto-LCP).

    Mean over pairs ``j < i`` (S_one^pre) of ``log( P(w_i, w_j) / P(w_j) )``: UMass's
    confirmation on sliding windows of the reference corpus (Lau et al., footnote 6).

    Window: boolean sliding windows of 10 tokens. Smoothing: +1 on the joint count, as
    Mimno et al. Log base: e. ``compat="lau"``: Lau et al.'s toolkit ``lcp`` (padded windows
    of 20, log base 10, no smoothing; a pair that never co-occurs scores ``log P(w_i)``, or
    ``log(1 / N)`` when ``w_i`` never occurs).
    """
    n12, n1, n2 = _pairs(c, prime, star)
    values = log_conditional(n12, n2, c.n_windows, conv)
    if compat == "lau":
        fallback = np.maximum(n1, 1) / c.n_windows
        values = np.where(n12 == 0, np.log(fallback) / math.log(conv.log_base), values)
    return values


def cp1(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """CP1 (Lau et al. 2014 §4.1, after Lau et al. 2010).

    Mean over pairs ``j < i`` (S_one^pre) of ``P(w_i, w_j) / P(w_j) = P(w_i | w_j)``: the
    lower-ranked word given the higher-ranked one. (Lau et al.'s per-word feature
    ``CP1(w_i) = sum_{j != i} P(w_i, w_j) / P(w_j)`` for word intrusion follows from
    :meth:`RefIndex.window_counts`.)

    Window: boolean sliding windows of 10 tokens. Smoothing: none. No logarithm.
    """
    n12, _, n2 = _pairs(c, prime, star)
    return conditional(n12, n2, c.n_windows, conv)


def cp2(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """CP2 (Lau et al. 2014 §4.1, after Lau et al. 2010).

    Mean over pairs ``j < i`` (S_one^pre) of ``P(w_i, w_j) / P(w_i) = P(w_j | w_i)``: the
    higher-ranked word given the lower-ranked one.

    Window: boolean sliding windows of 10 tokens. Smoothing: none. No logarithm.
    """
    n12, n1, _ = _pairs(c, prime, star)
    return conditional(n12, n1, c.n_windows, conv)


def cv(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """C_V (Röder et al. 2015, §4 and Table 2).

    For every word (S_one^set: ``W' = {w_i}``, ``W* = W``) the cosine of the context vectors
    ``v(W')_k = NPMI(w_i, w_k) ** gamma`` and ``v(W*)_k = sum_j NPMI(w_j, w_k) ** gamma``
    over the topic's words ``k``; the topic's C_V is their mean.

    Window: boolean sliding windows of 110 tokens. Smoothing: ``eps = 1e-12`` in NPMI (Röder
    et al.'s m_nlr). ``gamma = 1``. Log base: any (NPMI and the cosine cancel it).
    ``compat="gensim"``: gensim's ``c_v`` (the same formula on gensim's window counts).
    """
    vectors = _vectors(c, normalized_log_ratio, conv)
    whole = np.broadcast_to(vectors.sum(axis=0), vectors.shape)
    return cosine_rows(vectors[prime], whole[prime])


def cp(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """C_P (Röder et al. 2015, Table 2; Fitelson's confirmation).

    Mean over pairs ``j < i`` (S_one^pre) of Fitelson's
    ``( P(w_i | w_j) - P(w_i | ¬w_j) ) / ( P(w_i | w_j) + P(w_i | ¬w_j) )``.

    Window: boolean sliding windows of 70 tokens. Smoothing: none (0 where both conditionals
    are 0, as Palmetto). No logarithm.
    """
    return fitelson(*_pairs(c, prime, star), c.n_windows, conv)


def ca(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """C_A (Röder et al. 2015, Table 2; after Aletras & Stevenson 2013).

    Mean over ordered pairs ``i != j`` (S_one^one) of the cosine of the context vectors
    ``v(w_i)_k = NPMI(w_i, w_k) ** gamma`` over the topic's words ``k``, with probabilities
    from ±5-token context windows (see :mod:`tealeaves.coherence.windows`).

    Window: ±5 tokens. Smoothing: ``eps = 1e-12`` in NPMI (Röder et al.'s m_nlr).
    ``gamma = 1``. Log base: any.
    """
    vectors = _vectors(c, normalized_log_ratio, conv)
    return cosine_rows(vectors[prime], vectors[star])


def ds(c: TopicCounts, prime: np.ndarray, star: np.ndarray, conv: Conventions, compat: str | None) -> np.ndarray:
    """Distributional similarity (Aletras & Stevenson 2013; Lau et al. 2014 §4.2 OC-Auto-DS).

    Mean over ordered pairs ``i != j`` of the cosine of PMI-weighted context vectors in the
    *topic word space*: ``v(w_i)_k = PMI(w_i, w_k)`` for the topic's words ``k``, with
    ``PMI = log( P(w_i, w_k) / (P(w_i) P(w_k)) )`` from ±5-token context windows.

    Window: ±5 tokens. Smoothing: none; a pair that never co-occurs weighs 0 (an empty cell
    of the co-occurrence matrix). Log base: any (the cosine cancels it).
    """
    vectors = _vectors(c, log_ratio, conv)
    return cosine_rows(vectors[prime], vectors[star])


@dataclass(frozen=True)
class Measure:
    """A registered measure: its function, segmentation and defaults (plain and per ``compat``).

    Attributes
    ----------
    name : str
        The key in :data:`MEASURES`.
    function : callable
        The confirmation of each segment, ``function(counts, prime, star, conventions, compat)``;
        its docstring states the formula and its source.
    segment : callable
        The segmentation: the ``(W', W*)`` index pairs of a topic of N words
        (:mod:`tealeaves.coherence.segmentation`).
    window : Window
        The default window.
    conventions : Conventions
        The default conventions.
    compat : dict of str to (Window, Conventions)
        The window and conventions that reproduce another tool (``"gensim"``, ``"lau"``).
    bounds : tuple of float, optional
        The range of a segment's value (NPMI and the cosines: [-1, 1]; CP1 and CP2: [0, 1]);
        the interval of a mean over topics is clipped to it. None: unbounded (UCI, UMass, LCP).

    Examples
    --------
    >>> from tealeaves.coherence import get_measure
    >>> umass = get_measure("umass")
    >>> str(umass.window), umass.conventions.smoothing  # whole documents, +1 smoothing
    ('document', 1.0)
    >>> umass.summary
    'UMass coherence ...'
    >>> window, conventions = umass.settings("gensim")
    >>> str(window), conventions.epsilon
    ('document', 1e-12)
    """

    name: str
    function: Confirm
    segment: Callable[[int], tuple[np.ndarray, np.ndarray]]
    window: Window
    conventions: Conventions = field(default_factory=Conventions)
    compat: dict[str, tuple[Window, Conventions]] = field(default_factory=dict)
    bounds: tuple[float, float] | None = None

    @property
    def context(self) -> bool:
        """Whether the measure needs ±c context windows (C_A, DS)."""
        return self.window.kind == "context"

    @property
    def summary(self) -> str:
        """The first line of the measure's docstring."""
        return (self.function.__doc__ or self.name).strip().splitlines()[0]

    def settings(self, compat: str | None) -> tuple[Window, Conventions]:
        """Default window and conventions, plain or reproducing a tool."""
        if compat is None:
            return self.window, self.conventions
        if compat not in self.compat:
            tools = ", ".join(sorted(self.compat)) or "no other tool"
            raise InputError(
                f"compat={compat!r} is not available for {self.name} ({self.name} is computed by {tools} "
                "besides tealeaves); pass compat=None"
            )
        return self.compat[compat]

    def evaluate(self, counts: TopicCounts, conv: Conventions, compat: str | None) -> tuple[np.ndarray, ...]:
        """``(values, prime, star)`` for one topic, missing words contributing 0."""
        prime, star = self.segment(len(counts.marginal))
        values = self.function(counts, prime, star, conv, compat)
        return _missing_to_zero(values, counts, prime, star), prime, star


_EPS = Conventions(epsilon=ROEDER_EPSILON)
_LAU = Conventions(log_base=10.0, zero_pair=0.0)
_S10, _S20 = Window("sliding", 10), Window("sliding", 20)
COSINE = (-1.0, 1.0)  # NPMI and every cosine of context vectors
SHARE = (0.0, 1.0)  # a conditional probability

MEASURES: dict[str, Measure] = {
    "uci": Measure("uci", uci, segmentation.one_one, _S10, _EPS, {"gensim": (_S10, _EPS), "lau": (_S20, _LAU)}),
    "npmi": Measure(
        "npmi",
        npmi,
        segmentation.one_one,
        _S10,
        Conventions(),
        {"gensim": (_S10, _EPS), "lau": (_S20, _LAU)},
        bounds=COSINE,
    ),
    "umass": Measure(
        "umass",
        umass,
        segmentation.one_preceding,
        Window("document"),
        Conventions(smoothing=1.0),
        {"gensim": (Window("document"), _EPS)},
    ),
    "lcp": Measure(
        "lcp",
        lcp,
        segmentation.one_preceding,
        _S10,
        Conventions(smoothing=1.0),
        {"lau": (_S20, Conventions(log_base=10.0))},
    ),
    "cp1": Measure("cp1", cp1, segmentation.one_preceding, _S10, bounds=SHARE),
    "cp2": Measure("cp2", cp2, segmentation.one_preceding, _S10, bounds=SHARE),
    "cv": Measure(
        "cv",
        cv,
        segmentation.one_set,
        Window("sliding", 110),
        _EPS,
        {"gensim": (Window("sliding", 110), _EPS)},
        bounds=COSINE,
    ),
    "cp": Measure("cp", cp, segmentation.one_preceding, Window("sliding", 70), bounds=COSINE),
    "ca": Measure("ca", ca, segmentation.one_one, Window("context", 5), _EPS, bounds=COSINE),
    "ds": Measure("ds", ds, segmentation.one_one, Window("context", 5), Conventions(zero_pair=0.0), bounds=COSINE),
}
"""Measure name -> :class:`Measure`. gensim names: ``c_uci`` = uci, ``c_npmi`` = npmi,
``u_mass`` = umass, ``c_v`` = cv; Palmetto's ``C_A``/``C_P`` = ca/cp."""

ALIASES = {"c_uci": "uci", "pmi": "uci", "c_npmi": "npmi", "u_mass": "umass", "c_v": "cv", "c_p": "cp", "c_a": "ca"}


def get_measure(name: str, others: Iterable[str] = ()) -> Measure:
    """The measure called ``name`` (gensim's and Palmetto's names are accepted too).

    Parameters
    ----------
    name : str
        A key of :data:`MEASURES`, or ``c_uci``, ``pmi``, ``c_npmi``, ``u_mass``, ``c_v``,
        ``c_p``, ``c_a`` (any case).
    others : iterable of str, optional
        Other names the caller accepts (the embedding measures, for :func:`score`), offered with
        :data:`MEASURES` when ``name`` is none of them.

    Returns
    -------
    Measure

    Raises
    ------
    InputError
        For an unknown name.

    Examples
    --------
    >>> from tealeaves.coherence import get_measure
    >>> get_measure("c_v").name, str(get_measure("C_V").window)  # C_V's 110-token windows
    ('cv', 'sliding:110')
    >>> get_measure("npmi").summary
    'NPMI coherence (Bouma 2009; Lau et al. 2014 §4.2 OC-Auto-NPMI; Hoyle et al. 2021 Eq. 1).'
    """
    key = ALIASES.get(name.lower(), name.lower()) if isinstance(name, str) else name
    if not isinstance(key, str) or key not in MEASURES:
        raise unknown_name("coherence measure", name, [*MEASURES, *others])
    return MEASURES[key]


# --------------------------------------------------------------------------- the embedding measures
def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row divided by its Euclidean norm; a zero row stays zero (its cosines are 0)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=np.float64), where=norms > 0)


def pairwise_cosine(vectors: np.ndarray, prime: np.ndarray, star: np.ndarray) -> np.ndarray:
    """Embedding coherence's confirmation: ``cos(v_i, v_j)`` for each segment (i = prime, j = star).

    ``cos(u, v) = u . v / (|u| |v|)``; 0 when either vector is zero. The topic's ``embedding``
    coherence is the mean over the ordered pairs ``i != j`` of its top-N words (the average
    pairwise cosine similarity of word vectors, Fang et al. 2016, "Using word embedding to
    evaluate the coherence of topics from Twitter data", SIGIR; Aletras & Stevenson 2013 use
    distributional vectors the same way). Range [-1, 1]; no window, no smoothing, no logarithm.
    """
    unit = unit_rows(vectors)
    return np.einsum("ij,ij->i", unit[prime], unit[star])


def centroid_cosine(vectors: np.ndarray, prime: np.ndarray, star: np.ndarray) -> np.ndarray:
    """The centroid variant's confirmation: ``cos(v_i, c)`` with ``c = mean_j v_j / |v_j|``.

    S_one^set (Röder et al. 2015's segmentation of C_V, with word vectors in place of NPMI
    context vectors): each word against the whole topic, the centroid of the unit vectors of
    the words represented (a zero vector, a word the encoder lacks, is left out of the centroid
    and scores 0). The topic's ``embedding_centroid`` coherence is the mean over its words.
    Range [-1, 1]; no window, no smoothing, no logarithm.
    """
    unit = unit_rows(vectors)
    kept = np.linalg.norm(unit, axis=1) > 0
    centroid = unit[kept].mean(axis=0) if kept.any() else np.zeros(unit.shape[1])
    return unit_rows(unit[prime]) @ unit_rows(centroid[None, :])[0]


@dataclass(frozen=True)
class EmbeddingMeasure:
    """A registered embedding measure: its confirmation over vectors and its segmentation.

    Attributes
    ----------
    name : str
        The key in :data:`EMBEDDING_MEASURES`.
    function : callable
        ``function(vectors, prime, star)``: the confirmation of each segment from the words'
        vectors (:func:`pairwise_cosine`, :func:`centroid_cosine`); its docstring states the
        formula and its source.
    segment : callable
        The segmentation: the ``(W', W*)`` index pairs of a topic of N words.
    bounds : tuple of float
        The range of a segment's value, a cosine's: [-1, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.coherence import EMBEDDING_MEASURES
    >>> measure = EMBEDDING_MEASURES["embedding"]
    >>> prime, star = measure.segment(3)  # every ordered pair of three words
    >>> prime.tolist(), star.tolist()
    ([0, 0, 1, 1, 2, 2], [1, 2, 0, 2, 0, 1])
    >>> measure.function(np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]), prime, star).round(4).tolist()
    [0.7071, 0.0, 0.7071, 0.7071, 0.0, 0.7071]
    """

    name: str
    function: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    segment: Callable[[int], tuple[np.ndarray, np.ndarray]]
    bounds: tuple[float, float] = (-1.0, 1.0)

    @property
    def summary(self) -> str:
        """The first line of the confirmation's docstring."""
        return (self.function.__doc__ or self.name).strip().splitlines()[0]


EMBEDDING_MEASURES: dict[str, EmbeddingMeasure] = {
    "embedding": EmbeddingMeasure("embedding", pairwise_cosine, segmentation.one_one),
    "embedding_centroid": EmbeddingMeasure("embedding_centroid", centroid_cosine, segmentation.one_set),
}
"""Measure name -> :class:`EmbeddingMeasure`, the measures :func:`~tealeaves.coherence.score`
computes from word vectors rather than a reference index."""
