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
from tealeaves.deprecation import moved_names
from tealeaves.errors import InputError
from tealeaves.extras import require

if TYPE_CHECKING:
    import pandas as pd

Columns = dict[str, Sequence[Any] | np.ndarray]
__getattr__ = moved_names(
    __name__, {name: f"tealeaves.topic_means.{name}" for name in ("mean_interval", "interval_label")}
)


class Result:
    """Mixin for result dataclasses (declare them ``@dataclass(frozen=True)``).

    A subclass gets a one-line ``repr`` of its first :meth:`summary` values (in place of the
    dataclass's field-by-field one; a ``__repr__`` the class writes itself is kept) and
    ``_repr_html_``, the notebook display (:mod:`tealeaves.display`).

    Attributes
    ----------
    per_topic : ndarray, optional
        A subclass's per-topic values: :meth:`summary` shows their number as ``topics`` (and a
        :class:`~tealeaves.topic_means.PerTopicResult` their mean with its 95% interval).

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
        of topics of a ``per_topic`` field and the size of each DataFrame field (a
        :class:`~tealeaves.topic_means.PerTopicResult` words its ``model_mean`` with an interval).
        """
        values: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name == "per_topic" and isinstance(value, np.ndarray):
                values["topics"] = len(value)
            elif value is None or isinstance(value, (str, int, float, bool, np.number, np.bool_)):
                values[f.name] = value
            elif isinstance(value, os.PathLike):
                values[f.name] = os.fspath(value)
            elif hasattr(value, "shape") and len(getattr(value, "shape", ())) == 2 and hasattr(value, "columns"):
                values[f.name] = display.shape(*value.shape)  # a DataFrame
        return values

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
