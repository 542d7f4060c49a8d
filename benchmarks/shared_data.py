"""The public data sets the benchmarks read, from ``--data DIR`` (default ``../shared/data``).

The folder holds 20 Newsgroups (``20news/20news-bydate.jsonl.gz``), the AP sample of Blei et
al. 2003 (``ap/ap.txt``) and Hoyle et al. 2021's released judgments (``human/hoyle2021``);
the documentation's "Data sets" page says where to get each.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
FILES = {"20news": "20news/20news-bydate.jsonl.gz", "ap": "ap/ap.txt", "hoyle2021": "human/hoyle2021"}


def add_data_option(parser: argparse.ArgumentParser) -> None:
    """``--data DIR``: the folder of the data sets."""
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help=f"folder of the data sets (default: {DEFAULT_DATA})"
    )


def data_path(data: Path, name: str) -> Path:
    """The path of data set ``name`` under ``data``; exits with what is missing when it is absent."""
    path = data / FILES[name]
    if not path.exists():
        raise SystemExit(f"{path} not found: pass --data DIR, the folder that holds {FILES[name]}")
    return path
