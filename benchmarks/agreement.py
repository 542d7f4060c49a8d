"""Does ``infer`` on the training documents give back the θ stored at training? Every trainer, its defaults.

    python benchmarks/agreement.py [--corpus builtin:sotu] [-k 20] [--models lda-gibbs,lda-vb,plsi,ctm]

Prepares the corpus (all documents), trains each model with its default settings, then
reports the mean and 90th percentile over documents of the Hellinger distance between
``model.infer(corpus)`` and ``model.theta``, with the training and inference times.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from rich.console import Console
from rich.table import Table

import tealeaves
from tealeaves.models import TRAINERS
from tealeaves.models.compare import hellinger


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="builtin:sotu")
    parser.add_argument("-k", type=int, default=20)
    parser.add_argument("--models", default=",".join(TRAINERS))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    console = Console(width=150)
    corpus = tealeaves.prepare(args.corpus)
    console.print(f"{args.corpus}: {corpus}, K = {args.k}, load {os.getloadavg()[0]:.2f}")
    table = Table(title=f"{args.corpus}, K = {args.k}: infer on the training documents vs the stored θ")
    for column in ("model", "iterations", "train s", "infer s", "mean H", "90% H"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for name in args.models.split(","):
        started = time.perf_counter()
        model = tealeaves.train(corpus, name, k=args.k, seed=args.seed)
        trained = time.perf_counter() - started
        started = time.perf_counter()
        theta = model.infer(corpus, seed=args.seed + 1)
        inferred = time.perf_counter() - started
        distance = hellinger(theta, model.theta)
        table.add_row(
            name,
            str(model.params["iterations"]),
            f"{trained:.1f}",
            f"{inferred:.1f}",
            f"{distance.mean():.4f}",
            f"{np.quantile(distance, 0.9):.4f}",
        )
        console.print(f"  {name}: mean H {distance.mean():.4f}", highlight=False)
    console.print(table)


if __name__ == "__main__":
    main()
