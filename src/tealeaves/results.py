"""Result objects: frozen dataclasses with ``to_dict()`` (JSON-safe), ``columns()`` and ``to_frame()`` (pandas).

Per-item values (per document, per topic, per pair, per respondent) are always kept;
aggregates are computed from them. Subclasses implement :meth:`Result.columns`, the per-item
table as named columns of equal length, from which :meth:`Result.to_frame` makes a pandas
DataFrame (pandas is the ``frames`` extra: the core never needs it), or, in packages that
need pandas anyway, override :meth:`Result.to_frame` itself. :func:`write_result` writes a
result as JSON or CSV by file extension, without pandas when the result has columns.

Every result shows itself in a notebook (``_repr_html_``) and in a short ``repr``, through
:mod:`tealeaves.display`: its :meth:`Result.summary` values and the first rows of its
:meth:`Result.display_columns`, never the whole table.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tealeaves import display
from tealeaves.artifacts import atomic_file, json_safe, write_json
from tealeaves.errors import InputError
from tealeaves.extras import require

if TYPE_CHECKING:
    import pandas as pd

Columns = dict[str, Sequence[Any] | np.ndarray]


class Result:
    """Mixin for result dataclasses (declare them ``@dataclass(frozen=True)``).

    A subclass gets a one-line ``repr`` of its first :meth:`summary` values (in place of the
    dataclass's field-by-field one; a ``__repr__`` the class writes itself is kept) and
    ``_repr_html_``, the notebook display (:mod:`tealeaves.display`).

    Attributes
    ----------
    per_topic : ndarray, optional
        A subclass's per-topic values: :meth:`summary` shows their number as ``topics``.
    model_mean : float, optional
        Their mean, which :meth:`summary` shows with its 95% interval over the topics, named by
        what it is and clipped to :meth:`value_bounds`.

    Examples
    --------
    >>> from tealeaves.coherence import RefIndex, score
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> index = RefIndex.build(Corpus.from_documents([[0, 1, 1], [2, 3], [0, 1, 3]], vocab))
    >>> result = score([["tax", "budget"], ["war", "peace"]], index, measure="npmi", window="document")
    >>> result
    CoherenceResult(measure=npmi, window=document, compat=–, topics=2, model mean (95% CI, t over 2 topics)=0.6845 [-1, 1], n_windows=3, …)
    >>> result.summary()["model mean (95% CI, t over 2 topics)"]  # NPMI's interval, clipped to [-1, 1]
    '0.6845 [-1, 1]'
    >>> result.display_columns()["words"]
    ['tax budget', 'war peace']
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__repr__" not in cls.__dict__:  # @dataclass adds its field-by-field repr only where there is none
            cls.__repr__ = Result.__repr__  # type: ignore[method-assign]

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain JSON types (arrays become lists, non-finite floats ``None``)."""
        if not dataclasses.is_dataclass(self):  # pragma: no cover - programming error
            raise TypeError(f"{type(self).__name__} must be a dataclass")
        return {f.name: json_safe(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def columns(self) -> Columns:
        """The per-item values as named columns of equal length, one entry per item."""
        raise NotImplementedError(f"{type(self).__name__} defines no table view")

    def to_frame(self) -> pd.DataFrame:
        """The per-item values as a DataFrame, one row per item (needs pandas: ``tealeaves[frames]``)."""
        return dataframe(self.columns())

    def summary(self) -> dict[str, Any]:
        """The values a display shows first, by name.

        By default the result's single-valued fields (text, numbers, flags, paths), the number
        of topics of a ``per_topic`` field, a ``model_mean`` over them with its 95% interval
        (:func:`mean_interval`: bootstrap-t, the t interval under five topics; clipped to
        :meth:`value_bounds`) under a name that says which (:func:`interval_label`:
        ``model mean (95% CI, bootstrap-t over 20 topics)``), and the size of each DataFrame field.
        """
        values: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name == "per_topic" and isinstance(value, np.ndarray):
                values["topics"] = len(value)
            elif f.name == "model_mean" and isinstance(getattr(self, "per_topic", None), np.ndarray):
                per_topic = self.per_topic  # type: ignore[attr-defined]
                values[f"model mean ({interval_label(per_topic)})"] = mean_interval(per_topic, self.value_bounds())
            elif value is None or isinstance(value, (str, int, float, bool, np.number, np.bool_)):
                values[f.name] = value
            elif isinstance(value, os.PathLike):
                values[f.name] = os.fspath(value)
            elif hasattr(value, "shape") and len(getattr(value, "shape", ())) == 2 and hasattr(value, "columns"):
                values[f.name] = display.shape(*value.shape)  # a DataFrame
        return values

    def value_bounds(self) -> tuple[float, float] | None:
        """The range a ``per_topic`` value lies in, to which :meth:`summary` clips the interval of their mean
        (None: unbounded; a result of a bounded metric says so)."""
        return None

    def display_columns(self) -> Columns | None:
        """The table a display shows the first rows of: per topic with its words where the result
        has ``topic_columns()``, else :meth:`columns` (or :meth:`to_frame`); None when there is none."""
        topic_columns = getattr(self, "topic_columns", None)
        if topic_columns is not None:
            return topic_columns()
        if type(self).columns is not Result.columns:
            return self.columns()
        if type(self).to_frame is not Result.to_frame:
            frame = self.to_frame()
            return {str(name): frame[name].to_numpy() for name in frame.columns}
        return None

    def __repr__(self) -> str:
        return display.text(type(self).__name__, self.summary())

    def _repr_html_(self) -> str:
        """The notebook display: the summary and the first rows of :meth:`display_columns`."""
        return display.html(type(self).__name__, self.summary(), self.display_columns())


def mean_interval(values: np.ndarray | Sequence[float], bounds: tuple[float, float] | None = None) -> str:
    """The mean of the finite ``values`` with its 95% interval, as every display shows a mean over topics.

    The interval is :func:`tealeaves.stats.mean_with_interval`'s (bootstrap-t over the ``n``
    finite values; the t interval :math:`\\bar x \\pm t_{0.975, n-1}\\, s / \\sqrt n` for fewer
    than five or without spread), the one the evaluation's tables give a topic-level metric,
    worded by :func:`tealeaves.display.estimate`: with one value the mean alone, with none ``nan``;
    :func:`interval_label` says which interval it is. A metric bounded to ``bounds`` (NPMI to
    [-1, 1], a share to [0, 1]) has its interval clipped to them (to the values themselves where
    one lies outside, as an epsilon can make NPMI do): the mean lies within them, and so does the
    interval shown.

    Parameters
    ----------
    values : array-like of float
        Per-topic values; NaN and infinite ones are left out.
    bounds : tuple of float, optional
        The values' range, ``(low, high)``, that the interval is clipped to.

    Returns
    -------
    str
        Worded by :func:`tealeaves.display.estimate`.

    Examples
    --------
    Three values with standard deviation 0.1 (too few for the bootstrap): the half-width is
    :math:`t_{0.975, 2} \\times 0.1 / \\sqrt 3 = 4.303 \\times 0.05774 = 0.2484`.

    >>> from tealeaves.results import mean_interval
    >>> mean_interval([0.1, 0.2, 0.3, float("nan")])
    '0.2 [-0.04841, 0.4484]'
    >>> mean_interval([0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.16, 0.3])
    '0.096 [0.05111, 0.2107]'
    >>> mean_interval([0.2]), mean_interval([])
    ('0.2', 'nan')

    NPMI of two topics, clipped to its range:

    >>> mean_interval([1.0, 0.3691]), mean_interval([1.0, 0.3691], bounds=(-1.0, 1.0))
    ('0.6845 [-3.324, 4.693]', '0.6845 [-1, 1]')
    """
    from tealeaves.stats.intervals import mean_with_interval

    mean, low, high = mean_with_interval(values)
    if bounds is not None and math.isfinite(low):  # widened to the values, should a convention step outside
        x = np.asarray(values, dtype=np.float64)
        x = x[np.isfinite(x)]
        low, high = max(low, min(bounds[0], x.min())), min(high, max(bounds[1], x.max()))
    return display.estimate(mean, low, high)


def interval_label(values: np.ndarray | Sequence[float], unit: str = "topics") -> str:
    """What the interval of :func:`mean_interval` is: ``95% CI, bootstrap-t over 20 topics``, or ``t`` where it is
    the t interval (under five values, without spread, or values so tied that the bootstrap's quantiles are not finite).

    Parameters
    ----------
    values : array-like of float
        The values :func:`mean_interval` was given; NaN and infinite ones are left out.
    unit : str
        What a value is, in the plural.

    Returns
    -------
    str
        The label; ``no interval: 1 topics`` style under two values.

    Examples
    --------
    >>> from tealeaves.results import interval_label
    >>> interval_label([0.1, 0.2, 0.3]), interval_label(range(20)), interval_label([0.2])
    ('95% CI, t over 3 topics', '95% CI, bootstrap-t over 20 topics', 'no interval: 1 topics')
    """
    from tealeaves.stats.intervals import bootstrap_t_interval, t_interval

    x = np.asarray(values, dtype=np.float64)
    x = np.sort(x[np.isfinite(x)])  # as bootstrap_t_interval sums them
    if len(x) < 2:
        return f"no interval: {len(x)} {unit}"
    t_bounds = t_interval(float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x))), len(x) - 1.0)
    method = "t" if bootstrap_t_interval(x) == t_bounds else "bootstrap-t"
    return f"95% CI, {method} over {len(x)} {unit}"


def words_by_topic(missing: Sequence[tuple[int, str, str]]) -> str:
    """Topic words a result left out or counted as never occurring, by topic: ``topic 0: café, tax; topic 3: ...``.

    Parameters
    ----------
    missing : sequence of (topic, word, reason)
        A result's ``missing`` entries; ``"*"`` entries (a whole topic left unscored) are left out.

    Returns
    -------
    str
        Their number, then the words of each topic in order (what a display shows of them).

    Examples
    --------
    >>> from tealeaves.results import words_by_topic
    >>> words_by_topic([(0, "café", "not in the index"), (3, "zorp", "never occurs"), (0, "tax", "never occurs")])
    '3: topic 0: café, tax; topic 3: zorp'
    """
    topics: dict[int, list[str]] = {}
    for k, word, _ in missing:
        if word != "*":
            topics.setdefault(int(k), []).append(word)
    listed = "; ".join(f"topic {k}: {', '.join(words)}" for k, words in sorted(topics.items()))
    return f"{sum(map(len, topics.values()))}: {listed}" if topics else "0"


def dataframe(columns: Columns) -> pd.DataFrame:
    """``columns`` as a pandas DataFrame, refusing in one line when pandas is not installed.

    Parameters
    ----------
    columns : dict of str to sequence
        Named columns of equal length.

    Returns
    -------
    pandas.DataFrame
        One row per item.

    Raises
    ------
    MissingDependencyError
        When pandas is not installed (``pip install 'tealeaves[frames]'``).

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.results import dataframe
    >>> dataframe({"topic": np.arange(2), "words": ["tax budget", "war peace"]})
       topic       words
    0      0  tax budget
    1      1   war peace
    """
    require("frames", "pandas", what="a DataFrame")
    import pandas as pd

    return pd.DataFrame(columns)


def _cell(value: Any) -> Any:
    """A CSV cell as pandas writes it: NaN and None empty, everything else as ``str``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value


def write_csv(path: str | os.PathLike[str], columns: Columns) -> None:
    """Write ``columns`` as a CSV file with a header row, as ``DataFrame.to_csv(index=False)`` would.

    NaN and None are written as empty cells, everything else as ``str``.

    Parameters
    ----------
    path : str or path
        The CSV file.
    columns : dict of str to sequence
        Named columns of equal length (lists or numpy arrays).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> from tealeaves.results import write_csv
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_csv(Path(tmp) / "t.csv", {"topic": np.arange(2), "value": [0.5, float("nan")]})
    ...     print((Path(tmp) / "t.csv").read_text(), end="")
    topic,value
    0,0.5
    1,
    """
    names = list(columns)
    values = [
        np.asarray(columns[n]).tolist() if isinstance(columns[n], np.ndarray) else list(columns[n]) for n in names
    ]
    lengths = {len(v) for v in values}
    if len(lengths) > 1:  # pragma: no cover - programming error
        raise ValueError(f"columns of unequal lengths: {dict(zip(names, map(len, values)))}")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(names)
        writer.writerows([_cell(v) for v in row] for row in zip(*values))


def write_result(result: Result, path: str | os.PathLike[str]) -> Path:
    """Write ``result`` to ``path``: ``.json`` gets :meth:`Result.to_dict`, ``.csv`` its table.

    The table is :meth:`Result.columns`, written without pandas, or, for a result that only
    defines :meth:`Result.to_frame`, that frame. The file is written atomically and its folder
    created.

    Parameters
    ----------
    result : Result
        Any tealeaves result.
    path : str or path
        A ``.json`` or ``.csv`` file name.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InputError
        For another extension.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from tealeaves.coherence import diversity
    >>> from tealeaves.results import write_result
    >>> topics = [["tax", "budget"], ["tax", "war"]]
    >>> result = diversity(topics, diversity_topn=2, uniqueness_topn=2, filter_topn=2, overlap_topn=2)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(write_result(result, Path(tmp) / "diversity.csv").read_text(), end="")
    ...     print(json.loads(write_result(result, Path(tmp) / "diversity.json").read_text())["topic_diversity"])
    topic,uniqueness,duplicate_of,shares_top_words_with
    0,0.75,,1
    1,0.75,,0
    0.75
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in {".json", ".csv"}:
        raise InputError(f"cannot write results to {path}: use a .json or .csv file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as tmp:
        if suffix == ".json":
            write_json(tmp, result.to_dict())
        elif type(result).columns is Result.columns:  # a result of a package that needs pandas anyway
            result.to_frame().to_csv(tmp, index=False)
        else:
            write_csv(tmp, result.columns())
    return path
