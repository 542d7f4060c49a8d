"""The metric specs of ``tealeaves validate``: ``MEASURE[@SOURCE][,KEY=VALUE...]`` or ``csv:PATH``.

:func:`parse_metric` reads a spec into a :class:`MetricSpec`: a coherence measure against a
reference index (``npmi@INDEX``), automated word intrusion against one (``wi-auto@INDEX``), an
embedding measure or embedding word intrusion with an encoder (``embedding@st:MODEL``), their
variants (``embedding,topn=5+10``: the mean over the top 5 and the top 10 words), or the columns
of a CSV of per-topic scores. How each is computed is
:mod:`tealeaves.metrics`' (:func:`tealeaves.analysis.topic_metrics.metric_values`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tealeaves.errors import InputError

COUNT_OPTIONS = {"topn", "on_missing", "window", "compat"}
VECTOR_OPTIONS = {"topn", "on_missing"}
INTRUSION_OPTIONS = {"draws", "protocol", "on_missing"}
WI_AUTO_OPTIONS = {"association", "draws", "protocol", "window", "compat", "folds", "on_missing"}
WI_AUTO = ("wi-auto", "wi_auto", "wiauto")  # the registered name, and how else it is written
DEFAULT_METRICS = ("embedding", "embedding,topn=5+10", "embedding_centroid", "embedding_intrusion")
REFERENCE_FREE = "reference-free"
REFERENCE_CORPUS = "reference corpus"


@dataclass(frozen=True)
class MetricSpec:
    """A metric to validate, as ``tealeaves validate`` names it (its computation is :mod:`tealeaves.metrics`').

    Attributes
    ----------
    label : str
        Its name in the tables.
    kind : str
        ``coherence`` (a count measure with a reference index, or an embedding measure with an
        encoder), ``wi_auto`` (automated word intrusion with a reference index),
        ``embedding_intrusion``, ``given`` (a column of the human data's own metrics)
        or ``table`` (a column of a CSV of per-topic scores).
    measure : str
        The coherence measure, the given column or the CSV column.
    source : str or None
        The reference index folder, the encoder spec or the CSV path.
    options : dict
        ``topn`` (default 10), ``on_missing`` (default "skip" for coherence, "zero" for
        intrusion), ``window``, ``compat`` (count measures), ``draws`` (default 26, the
        intrusion answers per topic in Hoyle et al.), ``protocol`` (default "hoyle"): the
        intrusion's defaults are those of the registered ``embedding_intrusion``
        (:data:`tealeaves.metrics.METRICS`). WI-Auto takes ``association`` (``pmi``, the default,
        or ``npmi``: which of WI-Auto-PMI and WI-Auto-NPMI is the metric), ``draws``,
        ``protocol``, ``window``, ``compat``, ``folds`` and ``on_missing``, with the registered
        ``wi-auto``'s defaults (Lau et al. 2014: 8 sets per topic, the top 5 words, a 20-word
        window, 10 folds, ``on_missing="zero"``).
    family : str
        ``reference-free`` (a pre-trained encoder), ``reference corpus`` (counts or w2v
        vectors of a reference corpus) or ``external``.

    Examples
    --------
    Metrics are usually written as text and parsed by :func:`parse_metric`:

    >>> from tealeaves.analysis import parse_metric
    >>> [metric] = parse_metric("npmi@index,window=20")
    >>> metric
    MetricSpec(label='npmi@index,window=20', kind='coherence', measure='npmi', source='index', options={'window': 20}, family='reference corpus')
    """

    label: str
    kind: str
    measure: str
    source: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    family: str = REFERENCE_FREE


def parse_metric(text: str) -> list[MetricSpec]:
    """Metrics from ``MEASURE[@SOURCE][,KEY=VALUE...]`` or ``csv:PATH``.

    - ``npmi@INDEX``, ``cv@INDEX,window=110``: a coherence measure (any of
      :data:`~tealeaves.coherence.MEASURES`) against a reference index;
    - ``embedding``, ``embedding_centroid@w2v:INDEX``, ``embedding@static:glove.txt,topn=5``,
      ``embedding,topn=5+10`` (the mean of the scores over the top 5 and the top 10 words): an
      embedding measure with an encoder (default ``st:all-MiniLM-L6-v2``);
    - ``wi-auto@INDEX[,association=npmi,draws=8,protocol=chang]``: automated word intrusion
      (WI-Auto, Lau et al. 2014) against a reference index;
    - ``embedding_intrusion[@ENCODER][,draws=26,protocol=hoyle]``: embedding word intrusion;
    - ``csv:PATH``: every numeric column of a CSV with ``model``, ``topic`` (and optionally
      ``dataset``) and one column per metric.

    Parameters
    ----------
    text : str
        The spec.

    Returns
    -------
    list of MetricSpec
        One metric, or one per metric column of a CSV.

    Raises
    ------
    InputError
        For an unknown measure, a count measure without an index, a setting that is not
        ``KEY=VALUE`` or a setting the measure does not take.

    Examples
    --------
    >>> from tealeaves.analysis import parse_metric
    >>> [metric] = parse_metric("c_npmi@wiki-index,window=10")  # gensim's name is accepted
    >>> metric.kind, metric.measure, metric.source, metric.options, metric.family
    ('coherence', 'npmi', 'wiki-index', {'window': 10}, 'reference corpus')
    >>> parse_metric("embedding,topn=5+10")[0].options  # the mean over the top 5 and the top 10 words
    {'topn': (5, 10)}
    >>> parse_metric("npmi")
    Traceback (most recent call last):
    ...
    tealeaves.errors.InputError: metric 'npmi': npmi counts a reference corpus; write npmi@INDEX_FOLDER
    """
    from tealeaves.coherence.measures import ALIASES, EMBEDDING_MEASURES, MEASURES

    text = text.strip()
    if text.startswith("csv:"):
        return _csv_metrics(Path(text[4:]))
    head, *pairs = text.split(",")
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InputError(f"metric {text!r}: settings are KEY=VALUE after a comma, got {pair!r}")
        options[key.strip()] = _setting(value.strip())
    measure, _, source = head.partition("@")
    measure = ALIASES.get(measure.lower(), measure.lower())
    source_or_none = source or None
    if measure in MEASURES:
        if source_or_none is None:
            raise InputError(f"metric {text!r}: {measure} counts a reference corpus; write {measure}@INDEX_FOLDER")
        kind, allowed, family = "coherence", COUNT_OPTIONS, REFERENCE_CORPUS
    elif measure in WI_AUTO:
        if source_or_none is None:
            raise InputError(f"metric {text!r}: WI-Auto counts a reference corpus; write wi-auto@INDEX_FOLDER")
        if options.get("association", "pmi") not in ("pmi", "npmi"):
            raise InputError(f"metric {text!r}: association is pmi or npmi, got {options['association']!r}")
        measure, kind, allowed, family = "wi-auto", "wi_auto", WI_AUTO_OPTIONS, REFERENCE_CORPUS
    elif measure in EMBEDDING_MEASURES or measure in ("embedding_intrusion", "intrusion"):
        intrusion = measure in ("embedding_intrusion", "intrusion")
        measure = "embedding_intrusion" if intrusion else measure
        kind, allowed = ("embedding_intrusion", INTRUSION_OPTIONS) if intrusion else ("coherence", VECTOR_OPTIONS)
        family = REFERENCE_CORPUS if (source_or_none or "").startswith("w2v:") else REFERENCE_FREE
    else:
        names = [*MEASURES, *EMBEDDING_MEASURES, "embedding_intrusion", "wi-auto"]
        raise InputError(f"unknown metric {measure!r} in {text!r}; choose one of {', '.join(names)}, or csv:PATH")
    unknown = set(options) - allowed
    if unknown:
        raise InputError(f"metric {text!r}: unknown setting(s) {sorted(unknown)}; {measure} takes {sorted(allowed)}")
    return [MetricSpec(text, kind, measure, source_or_none, options, family)]


def _setting(value: str) -> Any:
    """An int, a tuple of ints written ``5+10`` (``topn`` averaged over cardinalities), or the text."""
    parts = value.split("+")
    try:
        numbers = tuple(int(part) for part in parts)
    except ValueError:
        return value
    return numbers[0] if len(numbers) == 1 else numbers


def _csv_metrics(path: Path) -> list[MetricSpec]:
    from tealeaves.analysis.study_analysis import read_metrics

    frame = read_metrics(path)
    return [
        MetricSpec(column, "table", column, str(path), family="external")
        for column in frame.columns
        if column not in ("model", "topic", "dataset")
    ]


def default_metrics() -> list[MetricSpec]:
    """The embedding coherence (pairwise and centroid) and embedding intrusion, default encoder."""
    return [m for text in DEFAULT_METRICS for m in parse_metric(text)]
