"""Reference corpora at scale: sharded preparation on a LocalCluster, index build, query time.

Usage: python benchmarks/scale.py [--sizes 10M,50M,200M] [--workers 1,2] [--shard-size 2000]
                                  [--query-only SIZES] [--work DIR] [--wiki-articles 300]
                                  [--wiki-shard-size 50] [--skip-wiki]

For each size, a synthetic corpus is generated and written as text (``lines`` files of about
2.5M tokens, one document per line): a Zipfian vocabulary of 100,000 words (``zqa``, ``zqb``,
..., none a stop word, all kept by the token rules) with topical co-occurrence: 500 topics,
each a Zipfian distribution over its own 1,000 words drawn uniformly from the overall ranks
50 to 20,000 (content words, neither the most frequent nor the rarest); a document
(about 300 words, log-normal) takes two topics, and each of its words comes from the overall
Zipf law with probability 1/2 or else from one of its topics. Then, for each size:

- preparation (``tealeaves.prepare(..., shard_size=, scheduler="local", workers=N)``) with 1
  and 2 workers of a ``LocalCluster``: seconds, input words per second, the ratio of the two,
  and the largest peak RSS of a worker process;
- the index build (``RefIndex.build``, in the corpus' shards over 2 processes): seconds, and
  its size against the token array;
- the query: 50 topics x top 10 words (50 of the planted topics, their 10 most probable words
  that survived the vocabulary rules), NPMI with s = 10 and C_V with s = 110, timed as a whole
  process (``tealeaves coherence TOPICS --index INDEX``, wall time from the shell's point of
  view) and within one (``tealeaves.coherence.score`` on the loaded index: first call, then a
  second call).

``--query-only 200M`` makes the corpus of a size straight from the generator's word ids (no
text, tokenizer or vocabulary rules: all 100,000 words kept) and times only the index and the
queries, for sizes whose preparation would take too long where the script runs.

The same is run on a small WikiExtractor-format sample that the test suite generates
(``tests/corpus/wikisample.py``: articles of State of the Union paragraphs), with 50 topics of
10 words drawn from its 1,000 most frequent words. Results are printed as a Markdown table;
the generated texts, corpora and indexes stay under ``--work`` (default
``benchmarks/results/scale``, ignored by git).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from shared_data import ROOT

N_WORDS = 100_000
N_TOPICS = 500
TOPIC_WORDS = 1_000
TOPIC_RANKS = (50, 20_000)
ZIPF_EXPONENT = 1.07
FILE_TOKENS = 2_500_000
GENERATOR = {"words": N_WORDS, "topics": N_TOPICS, "topic_words": TOPIC_WORDS, "topic_ranks": TOPIC_RANKS}


def word_strings(n: int) -> list[str]:
    """``zqa``, ``zqb``, ...: distinct letter strings, none of them an English stop word."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = []
    for i in range(n):
        digits = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            digits = letters[r] + digits
        out.append("zq" + digits)
    return out


def zipf(n: int) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1) ** ZIPF_EXPONENT
    return p / p.sum()


def topics(rng: np.random.Generator) -> np.ndarray:
    """Each topic's words (``N_TOPICS x TOPIC_WORDS``, most probable first): distinct words drawn
    uniformly from the overall ranks ``TOPIC_RANKS`` (content words: not the most frequent
    words, which act as function words, nor the rarest)."""
    low, high = TOPIC_RANKS
    return np.stack([low + rng.choice(high - low, size=TOPIC_WORDS, replace=False) for _ in range(N_TOPICS)])


def generate_ids(
    n_tokens: int, planted: np.ndarray, rng: np.random.Generator
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Documents of about ``n_tokens`` words in all, as (lengths, word ids) chunks of about ``FILE_TOKENS``."""
    overall_cdf = np.cumsum(zipf(N_WORDS))
    topic_cdf = np.cumsum(zipf(TOPIC_WORDS))
    written = 0
    while written < n_tokens:
        target = min(FILE_TOKENS, n_tokens - written)
        lengths = np.maximum(30, rng.lognormal(np.log(300), 0.5, size=target // 100 + 1).astype(np.int64))
        lengths = lengths[: np.searchsorted(np.cumsum(lengths), target) + 1]
        total = int(lengths.sum())
        doc_of = np.repeat(np.arange(len(lengths)), lengths)
        doc_topics = rng.integers(0, N_TOPICS, size=(len(lengths), 2))
        which = doc_topics[doc_of, rng.integers(0, 2, size=total)]
        from_topic = rng.random(total) < 0.5
        ids = np.searchsorted(overall_cdf, rng.random(total) * overall_cdf[-1])
        ranks = np.minimum(np.searchsorted(topic_cdf, rng.random(total) * topic_cdf[-1]), TOPIC_WORDS - 1)
        ids[from_topic] = planted[which[from_topic], ranks[from_topic]]
        yield lengths, np.minimum(ids, N_WORDS - 1)
        written += total


def generate(folder: Path, n_tokens: int, seed: int = 0) -> tuple[Path, np.ndarray]:
    """Write the synthetic corpus of about ``n_tokens`` words as text under ``folder``; return it and the topics."""
    rng = np.random.default_rng(seed)
    planted = topics(rng)
    done = folder / "done.json"
    if done.is_file() and json.loads(done.read_text())["generator"] == json.loads(json.dumps(GENERATOR)):
        return folder, planted
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    words = np.array(word_strings(N_WORDS), dtype=object)
    written = 0
    for part, (lengths, ids) in enumerate(generate_ids(n_tokens, planted, rng)):
        bounds = np.concatenate([[0], np.cumsum(lengths)])
        with open(folder / f"part-{part:04d}.txt", "w", encoding="utf-8") as handle:
            for a, b in itertools.pairwise(bounds):
                handle.write(" ".join(words[ids[a:b]]) + "\n")
        written += len(ids)
    done.write_text(json.dumps({"tokens": written, "generator": GENERATOR}))
    return folder, planted


def direct_corpus(out: Path, n_tokens: int, seed: int = 0) -> tuple[object, np.ndarray]:
    """The synthetic corpus straight from the generator's word ids (no text, tokenizer or
    vocabulary rules: every one of the 100,000 words is kept), saved to ``out``."""
    from tealeaves.corpus import Corpus, Vocabulary

    rng = np.random.default_rng(seed)
    planted = topics(rng)
    if (out / "manifest.json").is_file() and Corpus.load(out).manifest.get("generator") == json.loads(
        json.dumps(GENERATOR)
    ):
        return Corpus.load(out), planted
    parts = list(generate_ids(n_tokens, planted, rng))
    lengths = np.concatenate([p[0] for p in parts])
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    tokens = np.concatenate([p[1].astype(np.int32) for p in parts])
    del parts
    corpus = Corpus(Vocabulary(word_strings(N_WORDS)), tokens, offsets)
    corpus.manifest["generator"] = GENERATOR
    corpus.save(out, force=True)
    return Corpus.load(out), planted


def input_words(paths: list[Path]) -> int:
    from tealeaves.corpus import read_inputs

    return sum(len(doc.text.split()) for doc in read_inputs(paths))


def time_prepare(inputs: list[Path], out: Path, workers: int, shard_size: int) -> tuple[float, object]:
    from tealeaves import prepare

    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    corpus = prepare(inputs, out=out, shard_size=shard_size, scheduler="local", workers=workers, force=True)
    return time.perf_counter() - start, corpus


def query_times(index_dir: Path, topic_file: Path) -> dict[str, float]:
    """Whole-process and in-process seconds for NPMI (s = 10) and C_V (s = 110)."""
    from tealeaves import RefIndex
    from tealeaves.coherence import score
    from tealeaves.models import Topics

    script = Path(sys.executable).with_name("tealeaves")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "tealeaves.cli"]
    times: dict[str, float] = {}
    for measure, window in (("npmi", 10), ("cv", 110)):
        start = time.perf_counter()
        subprocess.run(
            [*command, "coherence", str(topic_file), "--index", str(index_dir), "-m", measure, "--window", str(window)],
            check=True,
            capture_output=True,
        )
        times[f"{measure} process"] = time.perf_counter() - start
        topic_list = Topics.load(topic_file)
        index = RefIndex.load(index_dir)
        for attempt in ("first", "second"):
            start = time.perf_counter()
            score(topic_list, index, measure=measure, window=window)
            times[f"{measure} in-process {attempt}"] = time.perf_counter() - start
    return times


def benchmark(name: str, inputs: list[Path] | object, topic_words: list[list[str]] | None, work: Path, args) -> dict:
    """Prepare with each worker count (unless ``inputs`` is a corpus already), index, query; one row of results."""
    from tealeaves import RefIndex

    row: dict = {"name": name}
    if isinstance(inputs, list):
        row["input_words"] = input_words(inputs)
        for workers in args.workers:
            seconds, corpus = time_prepare(inputs, work / f"corpus-{workers}", workers, args.shard_size)
            row[f"prep {workers}w s"] = seconds
            row[f"prep {workers}w words/s"] = row["input_words"] / seconds
            row[f"prep {workers}w worker peak RSS MB"] = corpus.manifest["shards"]["worker_peak_rss_bytes"] / 2**20
        if len(args.workers) > 1:
            row["prep throughput ratio"] = row[f"prep {args.workers[0]}w s"] / row[f"prep {args.workers[-1]}w s"]
        row["shards"] = corpus.manifest["shards"]["count"]
    else:
        corpus = inputs
    row.update(tokens=corpus.n_tokens, docs=len(corpus), vocab=len(corpus.vocab))
    index_dir = work / "index"
    start = time.perf_counter()
    index = RefIndex.build(corpus, out=index_dir, workers=2, force=True)
    row["index s"] = time.perf_counter() - start
    row["index / token array"] = index.manifest["size"]["ratio_to_token_array"]
    if topic_words is None:  # the sample: 50 groups of 10 of its 1,000 most frequent words
        frequent = np.argsort(-index.frequency(np.arange(len(corpus.vocab))), kind="stable")[:1000]
        groups = np.random.default_rng(0).permutation(frequent)[:500].reshape(50, 10)
        topic_words = [[corpus.vocab.word(int(w)) for w in g] for g in groups]
    else:
        topic_words = [[w for w in t if w in corpus.vocab][:10] for t in topic_words][:50]
    topic_file = work / "topics.txt"
    topic_file.write_text("".join(" ".join(t) + "\n" for t in topic_words))
    row.update(query_times(index_dir, topic_file))
    return row


def parse_size(text: str) -> int:
    text = text.strip().upper()
    factor = {"K": 10**3, "M": 10**6, "G": 10**9}.get(text[-1], 1)
    return int(float(text.rstrip("KMG")) * factor)


def print_table(rows: list[dict]) -> None:
    keys = [k for k in rows[0] if k != "name"]
    print("| measure | " + " | ".join(r["name"] for r in rows) + " |")
    print("|---|" + "---:|" * len(rows))
    for key in keys:
        cells = []
        for r in rows:
            value = r.get(key)
            cells.append("" if value is None else f"{value:,.2f}" if isinstance(value, float) else f"{value:,}")
        print(f"| {key} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10M,50M,200M", help="synthetic corpus sizes in tokens (comma-separated)")
    parser.add_argument("--workers", default="1,2", help="LocalCluster worker counts to prepare with")
    parser.add_argument("--shard-size", type=int, default=2000, help="documents per shard")
    parser.add_argument("--wiki-articles", type=int, default=300, help="articles in the WikiExtractor sample")
    parser.add_argument("--wiki-shard-size", type=int, default=50, help="documents per shard for the sample")
    parser.add_argument("--skip-wiki", action="store_true", help="do not run the WikiExtractor sample")
    parser.add_argument(
        "--query-only",
        default="",
        help="sizes whose corpus is made from the generator's ids directly, to time only the index and queries",
    )
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "scale")
    args = parser.parse_args()
    args.workers = [int(w) for w in args.workers.split(",")]
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    print(f"# {os.cpu_count()} CPUs; Python {platform.python_version()}; shard size {args.shard_size} documents")
    rows = []
    if not args.skip_wiki:
        sys.path.insert(0, str(ROOT))
        from tests.corpus.wikisample import sample_articles, write_wikiextractor

        work = args.work / "wiki-sample"
        shutil.rmtree(work, ignore_errors=True)
        folder = write_wikiextractor(work / "text", sample_articles(args.wiki_articles))
        sample_args = argparse.Namespace(**{**vars(args), "shard_size": args.wiki_shard_size})
        rows.append(
            benchmark(f"WikiExtractor sample ({args.wiki_articles} articles)", [folder], None, work, sample_args)
        )
        print_table(rows)
    for size in sizes:
        work = args.work / f"synthetic-{size}"
        folder, planted = generate(work / "text", size)
        words = word_strings(N_WORDS)
        topic_words = [[words[i] for i in t] for t in planted]
        rows.append(benchmark(f"synthetic {size / 1e6:g}M", sorted(folder.glob("part-*.txt")), topic_words, work, args))
        print_table(rows)
    for size in [parse_size(s) for s in args.query_only.split(",") if s.strip()]:
        work = args.work / f"direct-{size}"
        corpus, planted = direct_corpus(work / "corpus", size)
        words = word_strings(N_WORDS)
        topic_words = [[words[i] for i in t] for t in planted]
        rows.append(benchmark(f"synthetic {size / 1e6:g}M, ids direct", corpus, topic_words, work, args))
        print_table(rows)
    print()
    print_table(rows)


if __name__ == "__main__":
    main()
