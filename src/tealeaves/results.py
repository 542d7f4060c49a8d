"""Result objects: frozen dataclasses with ``to_dict()`` (JSON-safe) and ``to_frame()`` (pandas).

Per-item values (per document, per topic, per pair, per respondent) are always kept;
aggregates are computed from them. Subclasses implement :meth:`Result.to_frame` returning
the per-item table; :func:`write_result` writes a result as JSON or CSV by file extension.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tealeaves.artifacts import atomic_file, json_safe, write_json
from tealeaves.errors import InputError

if TYPE_CHECKING:
    import pandas as pd


class Result:
    """Mixin for result dataclasses (declare them ``@dataclass(frozen=True)``)."""

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain JSON types (arrays become lists, non-finite floats ``None``)."""
        if not dataclasses.is_dataclass(self):  # pragma: no cover - programming error
            raise TypeError(f"{type(self).__name__} must be a dataclass")
        return {f.name: json_safe(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def to_frame(self) -> pd.DataFrame:
        """The per-item values as a DataFrame, one row per item."""
        raise NotImplementedError(f"{type(self).__name__} defines no table view")


def write_result(result: Result, path: str | os.PathLike[str]) -> Path:
    """Write ``result`` to ``path``: ``.json`` gets :meth:`Result.to_dict`, ``.csv`` the frame."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in {".json", ".csv"}:
        raise InputError(f"cannot write results to {path}: use a .json or .csv file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as tmp:
        if suffix == ".json":
            write_json(tmp, result.to_dict())
        else:
            result.to_frame().to_csv(tmp, index=False)
    return path
