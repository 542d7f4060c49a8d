"""Every metric against every public human data set present: the leaderboard and the leave-one-out table.

Usage: python benchmarks/validate_all.py [--data DIR (../shared/data)] [--human DIR (DATA/human)] [--work DIR]
[--n-resamples 1000]

Reads every data set of :data:`tealeaves.analysis.human_datasets.HUMAN_DATASETS` present under
``--human`` (``tealeaves validate --datasets all``; e.g. a folder holding ``hoyle2021`` and the
fetched ``hoyle2021pilot``), prepares 20 Newsgroups and AP as
reference corpora (``min_df=2``, Hoyle et al.'s other rules; cached under ``--work`` with their
indexes and w2v vectors) and prints:

1. how much of each data set's topic words (top 10) each stand-in reference corpus covers;
2. the leaderboard: every metric's Spearman correlation with the mean human scores per data
   set with its interval, the mean over data sets and a weighted mean whose weights are printed
   (each topic source equally, split equally between its tasks);
3. every metric against each data set's best NPMI (paired bootstrap over topics, Holm over the
   table);
4. leave one data set out: among every candidate computed here but NPMI (variants, encoders,
   WI-Auto, rank mixtures of NPMI and embedding coherence with weights 0.25, 0.5, 0.75; not the
   authors' given values, which a new data set does not have), the one with the largest mean
   Spearman on the data sets of other topics is tested on the data set left out, against its
   best NPMI and against plain embedding coherence (Holm over the rows of each).

The metrics: NPMI (10-word window, top 10; variants top 5+10 and the whole document as
window) and C_V on each stand-in, the authors' own NPMI and C_V where the data set gives them,
embedding coherence with the packaged ``st:all-MiniLM-L6-v2`` (top 10, top 5, top 5+10,
centroid) and with w2v vectors trained on 20 Newsgroups, embedding word intrusion, and automated
word intrusion (WI-Auto-PMI and WI-Auto-NPMI, Lau et al. 2014) against each stand-in: on the sets
people saw where a data set gives them, else on sets drawn from the topics (8 a topic, seeded).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import pandas as pd

from shared_data import add_data_option

STAND_INS = {"20news": "20news/20news-bydate.jsonl.gz", "ap": "ap/ap.txt"}
BASE_METRICS = [
    *(f"npmi@{name}" for name in STAND_INS),
    "npmi@20news,topn=5+10",
    "npmi@20news,window=document",
    *(f"cv@{name}" for name in STAND_INS),
    "embedding",
    "embedding,topn=5",
    "embedding,topn=5+10",
    "embedding_centroid",
    "embedding@w2v:20news",
    "embedding_intrusion",
    *(f"wi-auto@{name}" for name in STAND_INS),
    *(f"wi-auto@{name},association=npmi" for name in STAND_INS),
]
MIXED = ("npmi@20news", "embedding")


def reference_indexes(data: Path, work: Path) -> None:
    """Prepare and index each stand-in reference corpus under ``work`` (kept between runs)."""
    from tealeaves import prepare
    from tealeaves.coherence import RefIndex

    for name, path in STAND_INS.items():
        corpus, index = work / f"{name}-corpus", work / name
        if not corpus.exists():
            print(f"# preparing {name} (min_df=2)", flush=True)
            prepare(data / path, out=corpus, min_df=2)
        if not index.exists():
            RefIndex.build(corpus, out=index)


def vocabulary_coverage(judgments: list, work: Path) -> pd.DataFrame:
    """Per data set and stand-in, the share of its topics' top-10 words (distinct) the index has."""
    from tealeaves.corpus import Vocabulary

    vocabularies = {name: set(Vocabulary.load(work / name / "vocab.txt").words) for name in STAND_INS}
    rows = []
    for j in judgments:
        words = {w for topic in j.words() for w in topic[:10]}
        rows.append(
            {"human": j.name, "words": len(words), **{n: len(words & v) / len(words) for n, v in vocabularies.items()}}
        )
    return pd.DataFrame(rows)


def source_weights(result) -> dict[str, float]:
    """Each topic source weighted equally, split equally between the data sets (tasks) that judge it."""
    sources = result.topic_sources()
    key = {h: " ".join(sorted(s)) for h, s in sources.items()}
    counts = pd.Series(key).value_counts()
    return {h: 1.0 / (len(counts) * counts[k]) for h, k in key.items()}


def leaderboard(result, weights: dict[str, float]) -> pd.DataFrame:
    """Metrics by data sets: Spearman [interval], the equal and the weighted mean."""
    spearman = result.correlations[result.correlations["method"] == "spearman"]
    cells = spearman.assign(
        cell=[f"{r.estimate:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]" for r in spearman.itertuples()]
    ).pivot(index="metric", columns="human", values="cell")
    summary = result.weighted_summary(weights).set_index("metric")
    board = result.leaderboard.set_index("metric")
    table = cells.reindex(board.index).fillna("-")
    table["mean"] = board["mean_spearman"].round(3)
    table["weighted"] = summary["weighted_spearman"].round(3)
    table["family"] = board["family"].where(~board.index.str.startswith("mix"), "mixture (reference corpus)")
    return table.sort_values("weighted", ascending=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "tealeaves-validate-all")
    parser.add_argument("--human", type=Path, default=None, help="the folder of human data sets (default DATA/human)")
    parser.add_argument("--n-resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from tealeaves.analysis import validate
    from tealeaves.analysis.combinations import rank_mixtures
    from tealeaves.analysis.human_datasets import dataset_judgments

    data = args.data.resolve()
    human = (args.human or data / "human").resolve()
    judgments, absent = dataset_judgments(["all"], human)
    print(f"# data sets: {[j.name for j in judgments]}; absent: {absent}", flush=True)
    if not judgments:
        raise SystemExit(f"no human data set under {human}")
    args.work.mkdir(parents=True, exist_ok=True)
    reference_indexes(data, args.work)
    os.chdir(args.work)  # the metrics name their indexes by folder: npmi@20news
    pd.set_option("display.width", 250, "display.max_columns", 30, "display.max_colwidth", 60)
    print("\n## vocabulary coverage of the stand-in reference corpora (distinct top-10 words)")
    print(vocabulary_coverage(judgments, args.work).round(3).to_string(index=False))
    start = time.perf_counter()
    first = validate(judgments, list(MIXED), n_resamples=2, seed=args.seed)
    mixtures = rank_mixtures(first.topic_values, *MIXED)
    mixtures.to_csv("mixtures.csv", index=False)
    result = validate(judgments, [*BASE_METRICS, "csv:mixtures.csv"], n_resamples=args.n_resamples, seed=args.seed)
    weights = source_weights(result)
    print(f"\n## leaderboard: Spearman [95% interval] per data set; weights {json.dumps(weights)}")
    print(leaderboard(result, weights).to_string())
    versus = result.versus_best("NPMI")
    print("\n## every metric vs each data set's best NPMI (paired bootstrap over topics; Holm over the table)")
    print(
        versus[["human", "metric", "spearman", "baseline", "baseline_spearman", "difference", "p_value", "p_holm"]]
        .round(3)
        .to_string(index=False)
    )
    given = {column for j in judgments for column in j.given}  # the authors' values: not computable on a new set
    candidates = [m for m in result.leaderboard["metric"] if not m.lower().startswith("npmi") and m not in given]
    held_out = result.leave_one_out(candidates, reference="embedding")
    print("\n## leave one data set out: chosen on the other topics' data sets, tested on the one left out")
    columns = [
        "human",
        "chosen",
        "selection_spearman",
        "spearman",
        "baseline",
        "baseline_spearman",
        "difference",
        "p_value",
        "p_holm",
        "reference_difference",
        "reference_p",
        "reference_p_holm",
    ]
    print(held_out[columns].round(3).to_string(index=False))
    print(f"\n# {time.perf_counter() - start:.0f} s; {args.n_resamples} resamples, seed {args.seed}")
    result.leaderboard.to_csv("leaderboard.csv", index=False)
    held_out.to_csv("leave_one_out.csv", index=False)


if __name__ == "__main__":
    main()
