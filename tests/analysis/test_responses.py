"""Reading exports (CSV, Parquet), attention-check exclusion and familiarity filtering."""

from __future__ import annotations

import pandas as pd
import pytest

from tealeaves.analysis import check_export, failed_checks, read_export, select
from tealeaves.errors import EmptyResultError, InputError


def test_csv_and_parquet_round_trip(tmp_path, export_frame, export_csv):
    from_csv = read_export(export_csv)
    parquet = tmp_path / "export.parquet"
    export_frame.astype(str).to_parquet(parquet)
    from_parquet = read_export(parquet)
    assert len(from_csv) == len(export_frame) == len(from_parquet)
    assert from_csv["response"].dtype == float and from_csv["is_check"].dtype == bool
    pd.testing.assert_series_equal(from_csv["correct"], from_parquet["correct"], check_dtype=False)


def test_attention_checks_and_familiarity(export_frame):
    responses = check_export(export_frame)
    table = failed_checks(responses).set_index("annotator")
    assert table.loc["a7", "failed"] == 1 and table.loc["a0", "failed"] == 0
    kept = select(responses)
    assert "a7" not in set(kept["annotator"]) and not kept["is_check"].any()
    assert kept.attrs["filters"]["excluded_annotators"] == 1
    assert "a7" in set(select(responses, exclude_failed_checks=False)["annotator"])
    familiar = select(responses, familiar_only=True)
    assert "a0" not in set(familiar["annotator"]) and (familiar["familiarity"] == 1).all()


def test_bad_exports_are_refused(tmp_path, export_frame):
    with pytest.raises(InputError, match="lacks the study export columns"):
        check_export(export_frame.drop(columns=["correct"]))
    bad = export_frame.copy()
    bad.loc[0, "task"] = "guessing"
    with pytest.raises(InputError, match="unknown task"):
        check_export(bad)
    bad = export_frame.astype(str)
    bad.loc[0, "response"] = "lots"
    with pytest.raises(InputError, match="numeric"):
        check_export(bad)
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(InputError, match="csv"):
        read_export(tmp_path / "x.txt")
    with pytest.raises(EmptyResultError):
        select(check_export(export_frame[export_frame["is_check"]]))
