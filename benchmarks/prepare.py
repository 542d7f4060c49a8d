"""Words per second preparing 20 Newsgroups with 1 and 2 processes (Hoyle et al. 2021 preprocessing).

Usage: python benchmarks/prepare.py [--data DIR (../shared/data)] [--repeat 1]

"Words" are the whitespace-separated words of the input documents read (before any rule),
timed over the whole of ``tealeaves.prepare`` (reading, spaCy tokenization, rules, vocabulary).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import time

from shared_data import add_data_option, data_path
from tealeaves import prepare


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(parser)
    parser.add_argument("--repeat", type=int, default=1, help="runs per setting; the best is reported")
    args = parser.parse_args()
    news = data_path(args.data, "20news")
    with gzip.open(news, "rt", encoding="utf-8") as handle:
        words = sum(len(json.loads(line)["text"].split()) for line in handle)
    print(f"# {news.name}: {words:,} whitespace words; {os.cpu_count()} CPUs; Python {platform.python_version()}")
    print(f"{'processes':>9} {'seconds':>8} {'words/s':>10} {'docs':>6} {'tokens':>10} {'vocab':>6}")
    for workers in (1, 2):
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            corpus = prepare(news, workers=workers)
            best = min(best, time.perf_counter() - start)
        print(
            f"{workers:>9} {best:>8.1f} {words / best:>10,.0f} {len(corpus):>6} {corpus.n_tokens:>10,} {len(corpus.vocab):>6}"
        )


if __name__ == "__main__":
    main()
