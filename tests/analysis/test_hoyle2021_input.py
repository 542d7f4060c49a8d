"""The Hoyle et al. 2021 response CSVs: a missing or empty file is refused in one line."""

from __future__ import annotations

import pytest

from tealeaves.analysis.hoyle2021 import DATASETS, TASK_FILES, _responses_table
from tealeaves.errors import InputError


def write_responses(folder, empty: str | None = None) -> None:
    for suffix in TASK_FILES.values():
        for dataset in DATASETS:
            name = f"{dataset}_{suffix}.csv"
            cells = "" if name == empty else '0,"3,1"\n'
            (folder / name).write_text("," + f"{dataset}_gibbs_0\n" + cells)


def test_a_response_file_without_answers_is_refused(tmp_path):
    write_responses(tmp_path, empty="wikitext_ratings.csv")
    with pytest.raises(InputError, match=r"wikitext_ratings\.csv holds no answers"):
        _responses_table(tmp_path)


def test_a_missing_response_file_is_refused(tmp_path):
    write_responses(tmp_path)
    (tmp_path / "nytimes_intrusion.csv").unlink()
    with pytest.raises(InputError, match=r"nytimes_intrusion\.csv is missing"):
        _responses_table(tmp_path)
