"""Reader for the human judgments released with Hoyle et al. 2021 (``human/hoyle2021``).

Two views of the same study:

- ``all_data.json``: per dataset (``nytimes``, ``wikitext``) and model (``mallet``, ``dvae``,
  ``etm``) the 50 topics, the automated coherence the authors computed with gensim, and per topic
  the human answers resampled to a fixed number of annotators (15 ratings, 26 intrusion answers,
  with replacement) together with a familiarity flag per answer. The paper's Tables 3, 4, 10 and
  11 are computed from these lists; :attr:`Hoyle2021.annotations` holds them one row per answer.
- ``{dataset}_{ratings,intrusion}.csv``: one row per respondent, one column per topic (plus the
  16 synthetic attention-check topics in the ratings files); :attr:`Hoyle2021.responses` turns
  them into the long study-export format (:data:`tealeaves.study.schema.EXPORT_COLUMNS` subset)
  for per-respondent analyses (agreement, attention checks).

Automated metrics get the paper's labels: metric ``NPMI`` (``c_npmi_10``, 10-token window) and
``Cv`` (``c_v``, 110-token window); reference ``NYT`` / ``WIKI`` (the full 1.8M-document NYT or
4.6M-document Wikipedia corpus, whichever the topic's own dataset is not being the cross-domain
one), ``Train`` and ``Val``. Missing values (the released files hold ``null`` where a topic's words
are absent from a reference) follow ``missing``: ``"paper"`` reproduces the authors' analysis
(a missing cross-domain value takes the in-domain full-reference value, ``combine_first`` in their
notebook; any other missing value becomes 0), ``"nan"`` keeps them missing (analyses then drop
the topic). The number of filled values is recorded in :attr:`Hoyle2021.filled`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tealeaves.errors import InputError

DATASETS = {"nytimes": "NYT", "wikitext": "WIKI"}
MODELS = ("mallet", "dvae", "etm")
METRICS = {"NPMI": "c_npmi_10", "Cv": "c_v"}
REFERENCES = ("NYT", "WIKI", "Train", "Val")
TASK_FILES = {"rating": "ratings", "word-intrusion": "intrusion"}
JSON_TASKS = {"rating": "ratings", "word-intrusion": "intrusion"}
INTRUDER_CHOICE = 6  # "choice,familiarity" cells: 6 = the intruder was picked
FAMILIARITY_OFFSET = {"rating": 3, "word-intrusion": 6}  # 4/5/6 and 7/8/9 -> 1/2/3


@dataclass(frozen=True)
class Hoyle2021:
    """The Hoyle et al. 2021 study: topics, automated metrics, resampled answers, raw responses.

    Attributes
    ----------
    path : pathlib.Path
        The release folder.
    topics : pandas.DataFrame
        One row per topic: ``dataset`` (``NYT``, ``WIKI``), ``model`` (``mallet``, ``dvae``,
        ``etm``), ``topic``, ``words``.
    metrics : pandas.DataFrame
        One row per topic: ``dataset``, ``model``, ``topic`` and one column per metric and
        reference, ``NPMI/NYT`` ... ``Cv/Val`` (:attr:`metric_columns`).
    annotations : pandas.DataFrame
        One row per resampled answer: ``task``, ``dataset``, ``model``, ``topic``, ``score``
        (the rating, or 1 = intruder found) and ``familiar``.
    responses : pandas.DataFrame
        The per-respondent CSVs in the long study-export format (and ``dataset``).
    filled : dict
        How many missing metric values were filled, and how (see the module docstring).

    Examples
    --------
    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> def model(other, k=2):  # a model's topics, its metrics per reference, its resampled answers
    ...     metrics = {
    ...         f"{m}_{r}": rng.uniform(0, 0.2, k).tolist()
    ...         for m in ("c_npmi_10", "c_v")
    ...         for r in ("full", f"{other}_full", "train", "val")
    ...     }
    ...     for task, top in (("ratings", 3), ("intrusion", 1)):
    ...         metrics[f"{task}_scores_raw"] = rng.integers(top - 1, top + 1, (k, 4)).tolist()
    ...         metrics[f"{task}_confidences_raw"] = [[True, True, False, True]] * k  # familiar?
    ...     return {"topics": [[f"word{i}", f"term{i}"] for i in range(k)], "metrics": metrics}
    >>> data = {d: {m: model(o) for m in ("mallet", "dvae", "etm")} for d, o in (("nytimes", "wikitext"), ("wikitext", "nytimes"))}
    >>> folder = tempfile.TemporaryDirectory()  # a release of the shape of Hoyle et al.'s, made up
    >>> _ = (Path(folder.name) / "all_data.json").write_text(json.dumps(data))
    >>> for d in data:  # one row per respondent, "answer,familiarity" per topic shown
    ...     _ = (Path(folder.name) / f"{d}_ratings.csv").write_text(f',{d}_mallet_0,{d}_dvae_0\\n0,"3,4","1,5"\\n1,"2,4","1,4"\\n')
    ...     _ = (Path(folder.name) / f"{d}_intrusion.csv").write_text(f',{d}_mallet_0,{d}_dvae_0\\n0,"6,7","2,8"\\n1,"6,7","6,7"\\n')
    >>> from tealeaves.analysis import load_hoyle2021
    >>> study = load_hoyle2021(folder.name)
    >>> study.metric_columns
    ['NPMI/NYT', 'NPMI/WIKI', 'NPMI/Train', 'NPMI/Val', 'Cv/NYT', 'Cv/WIKI', 'Cv/Train', 'Cv/Val']
    >>> study.annotations.head(3)
         task dataset   model  topic  score  familiar
    0  rating     NYT  mallet      0    2.0      True
    1  rating     NYT  mallet      0    3.0      True
    2  rating     NYT  mallet      0    2.0     False
    >>> folder.cleanup()
    """

    path: Path
    topics: pd.DataFrame  # dataset, model, topic, words
    metrics: pd.DataFrame  # dataset, model, topic, one column per "NPMI/NYT" ... "Cv/Val"
    annotations: pd.DataFrame  # task, dataset, model, topic, score, familiar (one row per answer)
    responses: pd.DataFrame  # long study-export format, per respondent
    filled: dict = field(default_factory=dict)

    @property
    def metric_columns(self) -> list[str]:
        """The metric columns of :attr:`metrics`: each metric (NPMI, C_v) with each reference."""
        return [f"{m}/{r}" for m in METRICS for r in REFERENCES]


def _reference_key(dataset: str, metric: str, reference: str) -> tuple[str, str | None]:
    """The all_data.json key of a (metric, reference) for a dataset, and its in-domain fallback."""
    base = METRICS[metric]
    if reference in ("NYT", "WIKI"):
        own = DATASETS[dataset] == reference
        other = next(d for d, label in DATASETS.items() if label == reference)
        return (f"{base}_full", None) if own else (f"{base}_{other}_full", f"{base}_full")
    return f"{base}_{reference.lower()}", None


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    for dataset in DATASETS:
        for model in MODELS:
            if "metrics" not in data.get(dataset, {}).get(model, {}):
                raise InputError(f"{path} has no {dataset}/{model}/metrics: is it Hoyle et al.'s all_data.json?")
    return data


def _metrics_table(data: dict, missing: str) -> tuple[pd.DataFrame, dict]:
    rows, filled = [], {"cross_domain_from_in_domain": 0, "zero": 0, "left_missing": 0}
    for dataset in DATASETS:
        for model in MODELS:
            source = data[dataset][model]["metrics"]
            for topic in range(len(data[dataset][model]["topics"])):
                row = {"dataset": DATASETS[dataset], "model": model, "topic": topic}
                for metric in METRICS:
                    for reference in REFERENCES:
                        key, fallback = _reference_key(dataset, metric, reference)
                        value = source[key][topic]
                        if value is None and missing == "paper":
                            if fallback is not None and source[fallback][topic] is not None:
                                value = source[fallback][topic]
                                filled["cross_domain_from_in_domain"] += 1
                            else:
                                value = 0.0
                                filled["zero"] += 1
                        elif value is None:
                            filled["left_missing"] += 1
                        row[f"{metric}/{reference}"] = np.nan if value is None else float(value)
                rows.append(row)
    return pd.DataFrame(rows), filled


def _annotations_table(data: dict) -> pd.DataFrame:
    frames = []
    for task, prefix in JSON_TASKS.items():
        for dataset in DATASETS:
            for model in MODELS:
                source = data[dataset][model]["metrics"]
                scores, familiar = source[f"{prefix}_scores_raw"], source[f"{prefix}_confidences_raw"]
                for topic, (s, f) in enumerate(zip(scores, familiar)):
                    frames.append(
                        pd.DataFrame(
                            {
                                "task": task,
                                "dataset": DATASETS[dataset],
                                "model": model,
                                "topic": topic,
                                "score": np.asarray(s, dtype=np.float64),
                                "familiar": np.asarray(f, dtype=bool),
                            }
                        )
                    )
    return pd.concat(frames, ignore_index=True)


def _responses_table(path: Path) -> pd.DataFrame:
    frames = []
    for task, suffix in TASK_FILES.items():
        for dataset in DATASETS:
            file = path / f"{dataset}_{suffix}.csv"
            if not file.is_file():
                raise InputError(f"{file} is missing; the Hoyle 2021 folder needs all four response CSVs")
            wide = pd.read_csv(file, index_col=0, dtype=str)
            long = wide.stack().dropna().rename("cell").reset_index()
            long.columns = ["row", "item_id", "cell"]
            if long.empty:
                raise InputError(f"{file} holds no answers; the Hoyle 2021 response CSVs have one cell per answer")
            parts = long["cell"].str.split(",", expand=True)
            if parts.shape[1] != 2:
                raise InputError(f"{file}: cells must read 'answer,familiarity', got {long['cell'].iloc[0]!r}")
            answer = parts[0].astype(float)
            name = long["item_id"].str.rsplit("_", n=2, expand=True)
            is_check = name[1] == "fake"
            frames.append(
                pd.DataFrame(
                    {
                        "study_id": f"hoyle2021-{dataset}-{suffix}",
                        "annotator": f"{dataset}-{suffix}-" + long["row"].astype(str),
                        "item_id": long["item_id"],
                        "task": task,
                        "model": np.where(is_check, "check", name[1]),
                        "topic": np.where(is_check, np.nan, pd.to_numeric(name[2], errors="coerce")),
                        "dataset": DATASETS[dataset],
                        "response": answer,
                        "correct": (answer == INTRUDER_CHOICE) if task == "word-intrusion" else np.nan,
                        "familiarity": parts[1].astype(float) - FAMILIARITY_OFFSET[task],
                        "scale": 3.0 if task == "rating" else np.nan,
                        "is_check": is_check.to_numpy(),
                    }
                )
            )
    out = pd.concat(frames, ignore_index=True)
    out["correct"] = out["correct"].astype(object).where(out["task"] == "word-intrusion", np.nan)
    return out


def load_hoyle2021(path: str | os.PathLike[str], missing: str = "paper") -> Hoyle2021:
    """Read the Hoyle et al. 2021 release folder (all_data.json and the four response CSVs).

    Parameters
    ----------
    path : str or path-like
        The folder (``human/hoyle2021``): ``all_data.json`` and ``{nytimes,wikitext}_{ratings,
        intrusion}.csv``.
    missing : {"paper", "nan"}, optional
        How missing metric values are treated (see the module docstring).

    Returns
    -------
    Hoyle2021

    Raises
    ------
    InputError
        When a file is missing or is not of the release's shape, or for another ``missing``.

    Examples
    --------
    A made-up release of the released files' shape, two topics per model (the real one has
    50 per model and data set):

    >>> import json
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> def model(other, k=2):  # a model's topics, its metrics per reference, its resampled answers
    ...     metrics = {
    ...         f"{m}_{r}": rng.uniform(0, 0.2, k).tolist()
    ...         for m in ("c_npmi_10", "c_v")
    ...         for r in ("full", f"{other}_full", "train", "val")
    ...     }
    ...     for task, top in (("ratings", 3), ("intrusion", 1)):
    ...         metrics[f"{task}_scores_raw"] = rng.integers(top - 1, top + 1, (k, 4)).tolist()
    ...         metrics[f"{task}_confidences_raw"] = [[True, True, False, True]] * k  # familiar?
    ...     return {"topics": [[f"word{i}", f"term{i}"] for i in range(k)], "metrics": metrics}
    >>> data = {d: {m: model(o) for m in ("mallet", "dvae", "etm")} for d, o in (("nytimes", "wikitext"), ("wikitext", "nytimes"))}
    >>> folder = tempfile.TemporaryDirectory()  # a release of the shape of Hoyle et al.'s, made up
    >>> _ = (Path(folder.name) / "all_data.json").write_text(json.dumps(data))
    >>> for d in data:  # one row per respondent, "answer,familiarity" per topic shown
    ...     _ = (Path(folder.name) / f"{d}_ratings.csv").write_text(f',{d}_mallet_0,{d}_dvae_0\\n0,"3,4","1,5"\\n1,"2,4","1,4"\\n')
    ...     _ = (Path(folder.name) / f"{d}_intrusion.csv").write_text(f',{d}_mallet_0,{d}_dvae_0\\n0,"6,7","2,8"\\n1,"6,7","6,7"\\n')
    >>> from tealeaves.analysis import load_hoyle2021
    >>> study = load_hoyle2021(folder.name)
    >>> study.topics.head(3)
      dataset   model  topic        words
    0     NYT  mallet      0  word0 term0
    1     NYT  mallet      1  word1 term1
    2     NYT    dvae      0  word0 term0
    >>> study.annotations.groupby(["task", "dataset", "model"])["score"].mean().head(3)
    task    dataset  model
    rating  NYT      dvae      2.625
                     etm       2.750
                     mallet    2.250
    Name: score, dtype: float64
    >>> study.responses[["annotator", "item_id", "response", "familiarity"]].head(2)
               annotator           item_id  response  familiarity
    0  nytimes-ratings-0  nytimes_mallet_0       3.0          1.0
    1  nytimes-ratings-0    nytimes_dvae_0       1.0          2.0
    >>> folder.cleanup()
    """
    path = Path(path)
    if not (path / "all_data.json").is_file():
        raise InputError(f"{path} has no all_data.json; pass the folder of Hoyle et al. 2021's released judgments")
    if missing not in ("paper", "nan"):
        raise InputError(f"missing must be 'paper' or 'nan', got {missing!r}")
    data = _read_json(path / "all_data.json")
    topics = pd.DataFrame(
        [
            {"dataset": DATASETS[d], "model": m, "topic": k, "words": " ".join(words)}
            for d in DATASETS
            for m in MODELS
            for k, words in enumerate(data[d][m]["topics"])
        ]
    )
    metrics, filled = _metrics_table(data, missing)
    return Hoyle2021(
        path=path,
        topics=topics,
        metrics=metrics,
        annotations=_annotations_table(data),
        responses=_responses_table(path),
        filled=filled,
    )
