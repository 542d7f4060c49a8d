"""The neural models of Hoyle et al. 2021 on 20 Newsgroups: NPMI, C_V and topic uniqueness of
lda-gibbs, dvae and etm at K = 20 and 50, and training seconds per epoch (per sweep for LDA).

    python benchmarks/neural.py [--data DIR (../shared/data)] [--work DIR] [-k 20 50]
                                [--dvae-epochs 50] [--etm-epochs 5] [--lda-iterations 300]
                                [--threads 1]

20 Newsgroups (train and test, 18,846 posts) is prepared with Hoyle et al.'s preprocessing and is
both the training corpus and the reference corpus of NPMI (10-token windows) and C_V (110-token
windows) over each topic's top 10 words; topic uniqueness (Nan et al. 2019) over the top 10.
Each model is trained once per K with seed 0 and its Table 8 defaults (best NYT setting), except
the number of epochs: the defaults (500 for dvae, 1000 for etm) take hours on two CPU cores, so
``--dvae-epochs`` and ``--etm-epochs`` cut them, and dvae's annealing spans γ_BN and γ_KL are cut
in the same proportion (200 of 500 epochs becomes 20 of 50), so that its annealing ends where
it would. Seconds per epoch are wall time between the first and the last epoch's progress
update, divided by the epochs (dvae and etm, with ``--threads`` PyTorch threads; etm's skip-gram
embeddings are timed apart), or the training time divided by the sweeps (lda-gibbs, one worker).
Preparing the corpus and building the index are not timed; ``--work`` keeps them.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from shared_data import ROOT, add_data_option, data_path

DEFAULT_EPOCHS = {"dvae": 500, "etm": 1000}
DVAE_ANNEALING = {"gamma_bn": 200, "gamma_kl": 200}  # Table 8b's best NYT setting


class EpochClock:
    """A progress callback that notes when each epoch of the training task ends."""

    def __init__(self, task: str) -> None:
        self.task, self.times, self.started = task, [], time.perf_counter()
        self.phases: dict[str, float] = {}

    def __call__(self, update: Any) -> None:
        now = time.perf_counter()
        if update.task == self.task:
            self.times.append(now)
        elif update.done == update.total:
            self.phases[update.task] = now - self.started

    def per_epoch(self) -> float:
        return (self.times[-1] - self.times[0]) / (len(self.times) - 1)


def train_one(corpus: Any, model: str, k: int, args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    from tealeaves.models import train

    params: dict[str, Any]
    if model == "lda-gibbs":
        params = {"iterations": args.lda_iterations}
    elif model == "dvae":
        scale = args.dvae_epochs / DEFAULT_EPOCHS["dvae"]
        params = {"epochs": args.dvae_epochs, "threads": args.threads, "device": "cpu"}
        params |= {name: max(1, round(value * scale)) for name, value in DVAE_ANNEALING.items()}
    else:
        params = {"epochs": args.etm_epochs, "threads": args.threads, "device": "cpu"}
    clock = EpochClock(f"train {model}")
    started = time.perf_counter()
    fitted = train(corpus, model, k=k, seed=0, progress=clock, **params)
    seconds = time.perf_counter() - started
    per_epoch = seconds / args.lda_iterations if model == "lda-gibbs" else clock.per_epoch()
    timing = {"params": params, "seconds": round(seconds, 1), "seconds_per_epoch": round(per_epoch, 3)}
    if model == "etm":
        timing["embedding_seconds"] = round(clock.phases.get("train etm: skip-gram embeddings", float("nan")), 1)
    return fitted, timing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "neural")
    parser.add_argument("-k", type=int, nargs="+", default=[20, 50])
    parser.add_argument("--models", nargs="+", default=["lda-gibbs", "dvae", "etm"])
    parser.add_argument("--dvae-epochs", type=int, default=50)
    parser.add_argument("--etm-epochs", type=int, default=5)
    parser.add_argument("--lda-iterations", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1, help="PyTorch CPU threads of dvae and etm")
    args = parser.parse_args()

    from tealeaves.coherence import RefIndex, diversity, score
    from tealeaves.corpus import Corpus, prepare

    news = data_path(args.data, "20news")
    args.work.mkdir(parents=True, exist_ok=True)
    corpus_dir, index_dir = args.work / "corpus", args.work / "index"
    if not corpus_dir.exists():
        print(f"# preparing {news} (not timed)", flush=True)
        prepare(news, out=corpus_dir)
    corpus = Corpus.load(corpus_dir)
    if not index_dir.exists():
        RefIndex.build(corpus, out=index_dir)
    index = RefIndex.load(index_dir)
    print(f"# 20 Newsgroups: {len(corpus)} documents, {corpus.n_tokens} tokens, V = {len(corpus.vocab)}", flush=True)

    rows = []
    for k in args.k:
        for model in args.models:
            fitted, timing = train_one(corpus, model, k, args)
            row = {
                "model": model,
                "k": k,
                "npmi": score(fitted, index, measure="npmi", window=10, topn=10).model_mean,
                "c_v": score(fitted, index, measure="cv", window=110, topn=10).model_mean,
                "topic_uniqueness": diversity(fitted).topic_uniqueness,
                **timing,
                "topics": [" ".join(words) for words in fitted.top_words(10)],
            }
            rows.append(row)
            print(
                f"{model:10s} K={k:3d}  NPMI {row['npmi']:.3f}  C_V {row['c_v']:.3f}  "
                f"TU {row['topic_uniqueness']:.3f}  {timing['seconds_per_epoch']:.2f} s/epoch  "
                f"({timing['seconds']:.0f} s, {timing['params']})",
                flush=True,
            )
            for words in row["topics"][:5]:
                print(f"    {words}")
    out = args.work / "neural.json"
    out.write_text(json.dumps(rows, indent=1))
    print(f"# written {out}")


if __name__ == "__main__":
    main()
