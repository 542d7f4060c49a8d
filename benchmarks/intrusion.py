"""Automated word intrusion (WI-Auto, Lau et al. 2014) on 20 Newsgroups: good LDA > poor LDA > random topics.

Usage: python benchmarks/intrusion.py [--data DIR (../shared/data)]
                                      [--work DIR] [--seeds 0 1 2] [--topics 20]
                                      [--sweeps 1000 10] [--draws 8]

The ``train`` split is prepared (Hoyle et al. 2021 preprocessing) as the training corpus; the
``test`` split is prepared with the training corpus' rules and vocabulary (``--vocab-from``)
and indexed as the held-out reference corpus. For every seed, LDA (``lda-gibbs``) is trained
with each number of sweeps, and K topics of random words (50 distinct vocabulary words each,
drawn with the same seed) stand in for a model with no structure. Each is scored by
``auto_word_intrusion`` (8 draws per topic, 20-token windows, C = 0.01, 10-fold
cross-validation by topic). The three candidates of a seed are compared as Lau et al. compared
models, with one SVM per fold trained on the topics of all of them (``compare_word_intrusion``);
the "own SVM" columns score each alone (``auto_word_intrusion``, SVMs trained on its own
topics). The table gives model-level WI-Auto-PMI and WI-Auto-NPMI, the unsupervised baseline
(lowest mean PMI), and the NPMI coherence (10-token windows, top 10) for comparison; the last
line times ``compare_word_intrusion`` (counting, features and 2 x 10 SVM fits). Preparing,
indexing and training are cached in ``--work`` between runs.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from shared_data import add_data_option, data_path


def split_jsonl(data: Path, work: Path) -> dict[str, Path]:
    """Write the train and test posts of the 20 Newsgroups file to two jsonl files."""
    paths = {name: work / f"20news-{name}.jsonl" for name in ("train", "test")}
    if all(p.exists() for p in paths.values()):
        return paths
    files = {name: path.open("w", encoding="utf-8") for name, path in paths.items()}
    with gzip.open(data, "rt", encoding="utf-8") as lines:
        for line in lines:
            post = json.loads(line)
            files[post["split"]].write(json.dumps({"id": post["id"], "text": post["text"]}) + "\n")
    for f in files.values():
        f.close()
    return paths


def prepared(work: Path, data: Path):  # type: ignore[no-untyped-def]
    """The training corpus and the index of the held-out reference corpus (cached in ``work``)."""
    from tealeaves.coherence import RefIndex
    from tealeaves.corpus import Corpus, prepare

    train_dir, ref_dir, index_dir = work / "train", work / "reference", work / "reference-index"
    if not index_dir.exists():
        paths = split_jsonl(data, work)
        start = time.perf_counter()
        train = prepare(paths["train"], out=train_dir, force=True, workers=2)
        reference = prepare(paths["test"], out=ref_dir, vocab_from=train, force=True, workers=2)
        RefIndex.build(reference, out=index_dir, force=True)
        print(f"prepared and indexed in {time.perf_counter() - start:.0f} s")
    return Corpus.load(train_dir), RefIndex.load(index_dir)


def trained(train, work: Path, k: int, sweeps: int, seed: int):  # type: ignore[no-untyped-def]
    """LDA with ``sweeps`` Gibbs sweeps (cached in ``work``)."""
    from tealeaves.models import TopicModel
    from tealeaves.models import train as run_train

    folder = work / f"lda-k{k}-sweeps{sweeps}-seed{seed}"
    if folder.exists():
        return TopicModel.load(folder)
    # fewer sweeps than the 200 of MALLET's burn-in never optimise alpha, as a short MALLET run
    return run_train(train, model="lda-gibbs", k=k, seed=seed, iterations=sweeps, out=folder, force=True)


def random_topics(vocab, k: int, seed: int) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """K lists of 50 distinct vocabulary words drawn uniformly at random."""
    rng = np.random.default_rng(seed)
    return [list(rng.choice(np.array(vocab.words, dtype=object), 50, replace=False)) for _ in range(k)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=None, help="Folder kept between runs (default: a temporary one).")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--sweeps", type=int, nargs="+", default=[1000, 10])
    parser.add_argument("--draws", type=int, default=8)
    args = parser.parse_args()
    news = data_path(args.data, "20news")

    from tealeaves.coherence import score
    from tealeaves.intrusion import auto_word_intrusion, compare_word_intrusion

    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        train, index = prepared(work, news)
        print(f"training corpus: {train}; reference index: {index}")
        auto_word_intrusion(random_topics(train.vocab, 2, 0), index, draws=1)  # compile the kernels before timing
        rows = [
            "| seed | topics | WI-Auto-PMI | WI-Auto-NPMI | own SVM: PMI | own SVM: NPMI | baseline (mean PMI) "
            "| NPMI coherence |",
            "|---:|---|---:|---:|---:|---:|---:|---:|",
        ]
        verdicts = {"compared (one SVM)": True, "own SVM": True}
        seconds = []
        for seed in args.seeds:
            candidates = {f"LDA, {s} sweeps": trained(train, work, args.topics, s, seed) for s in args.sweeps}
            candidates["random words"] = random_topics(train.vocab, args.topics, seed)
            start = time.perf_counter()
            compared = compare_word_intrusion(candidates, index, seed=seed, draws=args.draws)
            seconds.append(time.perf_counter() - start)
            alone = {name: auto_word_intrusion(t, index, seed=seed, draws=args.draws) for name, t in candidates.items()}
            for name, topics in candidates.items():
                m, own = compared[name].model_means, alone[name].model_means
                npmi = score(topics, index, measure="npmi", topn=10).model_mean
                rows.append(
                    f"| {seed} | {name} | {m['wi_auto_pmi']:.3f} | {m['wi_auto_npmi']:.3f} | {own['wi_auto_pmi']:.3f} "
                    f"| {own['wi_auto_npmi']:.3f} | {m['baseline_pmi']:.3f} | {npmi:.3f} |"
                )
            for label, results in (("compared (one SVM)", compared.results), ("own SVM", alone)):
                means = [[r.model_means[f"wi_auto_{a}"] for a in ("pmi", "npmi")] for r in results.values()]
                ordered = all(a[v] > b[v] for a, b in itertools.pairwise(means) for v in (0, 1))
                verdicts[label] &= ordered
                print(f"seed {seed}, {label}: {'ordered' if ordered else 'NOT ordered'}")
        print("\n".join(rows))
        order = " > ".join(candidates)
        for label, ok in verdicts.items():
            print(f"{label}: WI-Auto-PMI and -NPMI rank {order} in every seed ({args.seeds}): {ok}")
        print(
            f"compare_word_intrusion of the {len(candidates)} candidates ({len(candidates) * args.topics} topics, "
            f"{args.draws} draws): {np.median(seconds):.2f} s median over {len(seconds)} seeds"
        )


if __name__ == "__main__":
    main()
