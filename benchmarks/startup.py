"""A user's first runs: cold and warm CPU seconds of whole processes, the CLI against the API, and gensim.

Usage: python benchmarks/startup.py [--data DIR] [--work DIR] [--runs 3] [--cold] [--quick]

Every row is a job run as fresh processes, timed by the CPU seconds (user + system, of the
processes and all their children, from ``getrusage``) and the wall seconds it took; each job
runs ``--runs`` times and the table gives the medians. CPU seconds are what to compare on a
shared machine: wall time also counts the waits for a busy CPU. With ``--cold`` each path also
runs in a fresh install's state, an empty ``NUMBA_CACHE_DIR`` per run, so that every numba
kernel it calls is compiled; "extra" is cold minus warm (the target of issue 36: 2 CPU seconds
at most), and "notices" how many runs printed tealeaves' compile notice
(``tealeaves: compiling numba kernels once …``).

Jobs, on 20 Newsgroups (Hoyle et al. 2021 preprocessing; ``--data``, see ``shared_data.py``)
and on the built-in corpus (``builtin:sotu``, the small case):

- coherence: ``RefIndex.build`` of the corpus, NPMI (s = 10) and C_V (s = 110) of 50 topics x
  top 10 with ``compat="gensim"``, in one process (the corpus loaded from its folder);
- likelihood: ``tealeaves.likelihood.estimate`` by left-to-right (``sis``, 100 particles, the
  kernel of the ``likelihood`` metric of ``tealeaves evaluate``) of 200 held-out documents;
- lda-gibbs: ``train(..., "lda-gibbs", k=50, iterations=10)`` on the training documents;
- API job: ``prepare(TEXTS, format="tokenized")``, ``RefIndex.build``, NPMI and C_V, in one
  process, from the corpus written as tokenized text (one document per line);
- CLI job: the same as four commands, ``tealeaves prepare TEXTS --format tokenized``,
  ``tealeaves index``, ``tealeaves coherence -m npmi --window 10 --compat gensim`` and
  ``-m cv --window 110 --compat gensim``; the ratio to the API job (target: 2 at most);
- gensim: ``CoherenceModel`` c_npmi and c_v of the same topics over the same texts (read from
  the same file, gensim's default processes), the whole process.

Then ``tealeaves --help`` and ``tealeaves coherence`` of the 50 topics on the saved 20 Newsgroups
index (NPMI) as whole processes, wall and CPU (targets of issue 36: 0.3 s and 0.8 s), and the
slowest top-level imports of each (``python -X importtime``).

Before anything is timed, each corpus is prepared, split (10% held out), written as tokenized
text, and a 50-topic lda-gibbs model is trained on the training part (200 sweeps), once, under
``--work`` (default ``benchmarks/results/startup``, ignored by git). ``--quick`` runs the
built-in corpus only, once per job, without gensim. The ``tealeaves`` imported is the one
Python finds (set ``PYTHONPATH`` to time another checkout).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from shared_data import ROOT, add_data_option, data_path

TARGETS = {"extra": 2.0, "ratio": 2.0, "help": 0.3, "coherence": 0.8}
NOTICE = "tealeaves: compiling"

COHERENCE = """
import sys
from tealeaves import Corpus, TopicModel
from tealeaves.coherence import RefIndex, score
corpus, topics = Corpus.load(sys.argv[1]), TopicModel.load(sys.argv[2]).top_words(10)
index = RefIndex.build(corpus)
for measure, window in (("npmi", 10), ("cv", 110)):
    score(topics, index, measure=measure, window=window, compat="gensim")
"""
LIKELIHOOD = """
import sys
from tealeaves import Corpus, TopicModel
from tealeaves.likelihood import estimate
model, heldout = TopicModel.load(sys.argv[1]), Corpus.load(sys.argv[2])
estimate(model, None, heldout.subset(range(min(200, len(heldout)))), method="left-to-right", particles=100)
"""
GIBBS = """
import sys
from tealeaves import Corpus, train
train(Corpus.load(sys.argv[1]), "lda-gibbs", k=50, seed=0, iterations=10)
"""
API_JOB = """
import sys
from tealeaves import TopicModel, prepare
from tealeaves.coherence import RefIndex, score
topics = TopicModel.load(sys.argv[2]).top_words(10)
index = RefIndex.build(prepare(sys.argv[1], format="tokenized"))
for measure, window in (("npmi", 10), ("cv", 110)):
    score(topics, index, measure=measure, window=window, compat="gensim")
"""
GENSIM_JOB = """
import sys
from gensim.corpora import Dictionary
from gensim.models.coherencemodel import CoherenceModel
from tealeaves import TopicModel
texts = [line.split() for line in open(sys.argv[1], encoding="utf-8")]
topics = TopicModel.load(sys.argv[2]).top_words(10)
dictionary = Dictionary(texts)
for measure in ("c_npmi", "c_v"):
    CoherenceModel(topics=topics, texts=texts, dictionary=dictionary, coherence=measure).get_coherence_per_topic()
"""


@dataclass(frozen=True)
class Inputs:
    """One corpus' files under ``--work``."""

    name: str
    corpus: Path  # every document
    train: Path
    heldout: Path
    texts: Path  # the corpus as tokenized text, one document per line
    model: Path  # 50 topics, trained on ``train``
    index: Path  # of ``corpus``


@dataclass
class Timing:
    """Medians of a job's runs, and how many runs printed the compile notice."""

    cpu: float
    wall: float
    notices: int


def tealeaves_command() -> list[str]:
    """The installed console script beside this interpreter (what a user runs)."""
    script = Path(sys.executable).with_name("tealeaves")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tealeaves.cli"]


def prepare_inputs(name: str, source: str, work: Path) -> Inputs:
    """Prepare ``source``, split it, write it as text and train a 50-topic model, once (not timed)."""
    from tealeaves import Corpus, prepare, train
    from tealeaves.coherence import RefIndex

    folder = work / name
    inputs = Inputs(name, *(folder / f for f in ("corpus", "train", "heldout", "texts.txt", "model", "index")))
    if not (inputs.model / "manifest.json").exists():
        print(f"# preparing {source} and training its model under {folder} (not timed)", file=sys.stderr, flush=True)
        corpus = prepare([source], out=inputs.corpus, force=True, workers=os.cpu_count())
        assert isinstance(corpus, Corpus)
        train_part, heldout = corpus.split(0.1, seed=0)
        train_part.save(inputs.train, force=True)
        heldout.save(inputs.heldout, force=True)
        words = corpus.vocab.words
        inputs.texts.write_text(
            "".join(" ".join(words[t] for t in corpus.doc(i)) + "\n" for i in range(len(corpus))), encoding="utf-8"
        )
        RefIndex.build(corpus, out=inputs.index, force=True)
        train(train_part, model="lda-gibbs", k=50, seed=0, out=inputs.model, force=True, iterations=200)
    return inputs


def run_job(commands: list[list[str]], cold: bool, cache: Path, runs: int) -> Timing:
    """Median CPU and wall seconds of ``runs`` runs of ``commands``, one fresh process each, in turn.

    Cold runs get an empty ``NUMBA_CACHE_DIR`` each; warm ones share ``cache``, filled by an
    untimed run first.
    """
    if not cold:
        _run(commands, cache)
    cpu, wall, notices = [], [], 0
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as empty:
            spent, seconds, stderr = _run(commands, Path(empty) if cold else cache)
        cpu.append(spent)
        wall.append(seconds)
        notices += NOTICE in stderr
    return Timing(statistics.median(cpu), statistics.median(wall), notices)


def _run(commands: list[list[str]], cache: Path) -> tuple[float, float, str]:
    """CPU seconds (of the processes and their children), wall seconds and stderr of running ``commands``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    stderr = ""
    for argv in commands:
        done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
        stderr += done.stderr
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return spent, time.perf_counter() - start, stderr


def cli_job(inputs: Inputs, out: Path) -> list[list[str]]:
    """The four commands of the CLI job, writing under ``out`` (replaced by each run)."""
    base = tealeaves_command()
    corpus, index = out / "corpus", out / "index"
    topics = [str(inputs.model), "--index", str(index)]
    return [
        [*base, "prepare", str(inputs.texts), "--format", "tokenized", "--out", str(corpus), "--force"],
        [*base, "index", str(corpus), "--out", str(index), "--force"],
        [*base, "coherence", *topics, "--measure", "npmi", "--window", "10", "--compat", "gensim"],
        [*base, "coherence", *topics, "--measure", "cv", "--window", "110", "--compat", "gensim"],
    ]


def python(code: str, *args: Path) -> list[list[str]]:
    return [[sys.executable, "-c", code, *map(str, args)]]


def jobs(inputs: Inputs, work: Path, gensim: bool) -> dict[str, list[list[str]]]:
    """Each job of the table, as the commands it runs."""
    table = {
        "coherence: index + NPMI + C_V (API)": python(COHERENCE, inputs.corpus, inputs.model),
        "likelihood: left-to-right, 200 documents": python(LIKELIHOOD, inputs.model, inputs.heldout),
        "lda-gibbs: 10 sweeps, K = 50": python(GIBBS, inputs.train),
        "API job: prepare + index + NPMI + C_V": python(API_JOB, inputs.texts, inputs.model),
        "CLI job: prepare, index, coherence x 2": cli_job(inputs, work / inputs.name / "cli"),
    }
    if gensim:
        table["gensim CoherenceModel: c_npmi + c_v"] = python(GENSIM_JOB, inputs.texts, inputs.model)
    return table


def print_paths(inputs: Inputs, work: Path, args: argparse.Namespace) -> None:
    from tealeaves import Corpus

    corpus = Corpus.load(inputs.corpus)
    print(
        f"\n# {inputs.name}: {len(corpus):,} documents, {corpus.n_tokens:,} tokens, {len(corpus.vocab):,} words; "
        f"median of {args.runs} run(s); CPU and wall seconds of whole processes"
    )
    print(
        f"{'job':<42} {'cold CPU':>9} {'warm CPU':>9} {'extra':>7} {'cold wall':>10} {'warm wall':>10} {'notices':>8}"
    )
    cache = work / "numba-warm"
    timings: dict[str, Timing] = {}
    for name, commands in jobs(inputs, work, gensim=not args.quick).items():
        warm = timings[name] = run_job(commands, cold=False, cache=cache, runs=args.runs)
        if args.cold and not name.startswith("gensim"):
            cold = run_job(commands, cold=True, cache=cache, runs=args.runs)
            print(
                f"{name:<42} {cold.cpu:>9.2f} {warm.cpu:>9.2f} {cold.cpu - warm.cpu:>7.2f} {cold.wall:>10.2f} "
                f"{warm.wall:>10.2f} {cold.notices:>5}/{args.runs}"
            )
        else:
            print(f"{name:<42} {'':>9} {warm.cpu:>9.2f} {'':>7} {'':>10} {warm.wall:>10.2f}")
    api, cli = timings["API job: prepare + index + NPMI + C_V"], timings["CLI job: prepare, index, coherence x 2"]
    print(f"{'CLI job / API job (warm CPU; target <= 2)':<42} {'':>9} {cli.cpu / api.cpu:>9.2f}")
    if not args.quick:
        gensim = timings["gensim CoherenceModel: c_npmi + c_v"]
        print(f"{'gensim / API job (warm CPU)':<42} {'':>9} {gensim.cpu / api.cpu:>9.1f}")


def print_startup(inputs: Inputs, work: Path, runs: int) -> None:
    base = tealeaves_command()
    commands = {
        "tealeaves --help": ["--help"],
        "tealeaves coherence MODEL -i INDEX -m npmi": ["coherence", str(inputs.model), "-i", str(inputs.index)],
    }
    print(f"\n# whole processes, median of {runs} runs")
    print(f"{'command':<44} {'wall s':>7} {'fastest':>8} {'CPU s':>7} {'target wall s':>14}  ok")
    for (name, argv), target in zip(commands.items(), (TARGETS["help"], TARGETS["coherence"]), strict=True):
        _run([base + argv], work / "numba-warm")
        times = [_run([base + argv], work / "numba-warm") for _ in range(runs)]
        wall = statistics.median(t[1] for t in times)
        cpu = statistics.median(t[0] for t in times)
        fastest = min(t[1] for t in times)
        print(f"{name:<44} {wall:>7.3f} {fastest:>8.3f} {cpu:>7.3f} {target:>14.1f}  {wall <= target}")
    for argv in commands.values():
        print(f"\nslowest top-level imports of `tealeaves {argv[0]}` (python -X importtime, cumulative):")
        for module, seconds in slowest_imports(argv):
            print(f"  {module:<40} {seconds:>7.3f} s")


def slowest_imports(args: list[str], top: int = 5) -> list[tuple[str, float]]:
    """The ``top`` slowest top-level imports (cumulative seconds) of ``tealeaves ARGS``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tealeaves.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        if not name.startswith("  "):  # top level: the name follows a single space
            rows.append((name.strip(), int(cumulative) / 1e6))
    return sorted(rows, key=lambda row: -row[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "startup")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="also time each path with an empty numba cache per run")
    parser.add_argument("--quick", action="store_true", help="the built-in corpus only, one run per job, no gensim")
    args = parser.parse_args()
    if args.quick:
        args.runs = 1
    args.work.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]
    print(f"# {os.cpu_count()} CPUs, load average {load:.1f}, Python {platform.python_version()}, {sys.executable}")
    sources = [("sotu", "builtin:sotu")]
    if not args.quick:
        sources.insert(0, ("20news", str(data_path(args.data, "20news"))))
    prepared = [prepare_inputs(name, source, args.work) for name, source in sources]
    for inputs in prepared:
        print_paths(inputs, args.work, args)
    print_startup(prepared[0], args.work, max(args.runs, 5))


if __name__ == "__main__":
    main()
