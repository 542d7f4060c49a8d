"""Seconds per Gibbs sweep and the model it trains: tealeaves' ``lda-gibbs`` beside MALLET (and tomotopy).

    python benchmarks/lda_gibbs.py [--data DIR (../shared/data)] [--work DIR] [-k 50 200 500]
                                   [--iterations 300] [--burn-in 200] [--threads 1]
                                   [--mallet DIR ($MALLET_SRC)] [--samplers 10] [--warm 50]
                                   [--tomotopy]

20 Newsgroups is prepared as ``benchmarks/sweep.py`` prepares it (Hoyle et al.'s preprocessing,
30% of the posts held out and indexed as the reference corpus; ``--work`` keeps it between
runs). Two tables, one row per K and thread count:

- **samplers**: CPU seconds per sweep of tealeaves' two samplers on one state, the scan over the
  K topics (``sampler="dense"``) and SparseLDA's buckets (``"sparse"``), alternated sweep by
  sweep for ``--samplers`` sweeps each after ``--warm`` sparse sweeps from the random start (and tomotopy's
  sampler from its own start with ``--tomotopy``); α = 0.25/K per topic, β = 0.1. With one
  thread the sparse sampler's word lists are packed before its sweep, untimed, as ``fit`` keeps
  them from sweep to sweep. ``lda-gibbs``'s
  ``sampler="auto"`` picks the sparse sampler from ``lda_gibbs.SPARSE_FROM_K`` topics on.
- **MALLET**: one training each of MALLET's ``train-topics`` and ``lda_gibbs.fit`` (the
  automatic sampler) on identical token sequences: our training posts written one per line in
  MALLET's ``import-file`` format and imported with ``--keep-sequence --token-regex '\\S+'
  --preserve-case`` (no stopwords, no tokenisation of MALLET's own), ``--iterations`` sweeps with
  ``--alpha 0.25 --beta 0.1 --optimize-interval 10 --optimize-burn-in`` ``--burn-in`` (the same
  settings for ours), ``--num-threads`` as our ``workers``. Wall and CPU seconds per sweep are
  timed after the burn-in (from the log-likelihood lines both print every 10 sweeps, so the
  optimisation and the log-likelihood are inside the timing; CPU is user + system time of all
  the process's threads, MALLET's read from /proc, its JVM's compiler and collector included); LL/token is each one's own last value (MALLET's
  with Stirling's log Γ); NPMI (10-token windows, top 10, over the held-out posts) and topic
  uniqueness (top 10) are computed by tealeaves on each one's final topics (MALLET's
  ``--topic-word-weights-file``; ours with ``topics_from="last"``, as MALLET's).

MALLET is compiled from a checkout of mimno/Mallet (``--mallet DIR`` or ``$MALLET_SRC``: a folder
with ``src/main/java`` and ``lib/``) with the JDK's ``javac``, after dropping the
``com.google.errorprone.annotations.Var`` imports and ``@Var`` annotations; the classes are
cached under ``$TEALEAVES_CACHE`` (``~/.cache/tealeaves``)/mallet. Without a checkout or a JDK
the MALLET table is skipped with the reason. The load average is printed beside the timings:
wall times are only comparable on an idle machine, CPU times hold better on a busy one.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from shared_data import add_data_option, data_path
from sweep import prepare_inputs

ALPHA_SUM, BETA = 0.25, 0.1
LIBS = ("lib/mallet-deps.jar", "lib/hppc-0.7.1.jar", "lib/bsh.jar")
VAR_IMPORT = re.compile(r"^import com\.google\.errorprone\.annotations\.Var;\s*$", re.MULTILINE)
VAR_ANNOTATION = re.compile(r"@Var\b\s*")
LL_LINE = re.compile(r"<(\d+)> LL/token: (-?[\d.,]+)")
TOKENS_LINE = re.compile(r"total tokens: (\d+)")


# --------------------------------------------------------------------------- MALLET
def mallet_classpath(source: Path | None) -> tuple[str | None, str]:
    """MALLET's classpath, compiled from the checkout ``source`` once and cached, or None and why not."""
    if source is None:
        return None, "no MALLET checkout: pass --mallet DIR or set MALLET_SRC (github.com/mimno/Mallet)"
    java_dir = source / "src" / "main" / "java"
    missing = [name for name in LIBS if not (source / name).exists()]
    if not java_dir.is_dir() or missing:
        return None, f"{source} is not a MALLET checkout (needs src/main/java and {', '.join(LIBS)})"
    if shutil.which("javac") is None or shutil.which("java") is None:
        return None, "no JDK (javac): install one, e.g. apt-get install openjdk-17-jdk-headless"
    files = sorted(java_dir.rglob("*.java"))
    key = hashlib.sha1(str(source.resolve()).encode())
    for path in files:
        key.update(f"{path.relative_to(java_dir)} {path.stat().st_size} {path.stat().st_mtime_ns}".encode())
    from tealeaves.artifacts import cache_root

    classes = cache_root() / "mallet" / key.hexdigest()[:16]
    classpath = os.pathsep.join([str(classes), *(str(source / name) for name in LIBS)])
    if (classes / "cc" / "mallet" / "topics" / "tui" / "TopicTrainer.class").exists():
        return classpath, f"MALLET classes cached in {classes}"
    print(f"# compiling MALLET from {source} into {classes} (once)", flush=True)
    with tempfile.TemporaryDirectory(prefix="mallet-src-") as tmp:
        copies = []
        for path in files:
            text = VAR_ANNOTATION.sub("", VAR_IMPORT.sub("", path.read_text(encoding="utf-8")))
            copy = Path(tmp) / path.relative_to(java_dir)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(text, encoding="utf-8")
            copies.append(str(copy))
        listing = Path(tmp) / "sources.txt"
        listing.write_text("\n".join(copies))
        building = classes.with_name(classes.name + ".part")
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(parents=True)
        libs = os.pathsep.join(str(source / name) for name in LIBS)
        command = ["javac", "-nowarn", "-encoding", "UTF-8", "-cp", libs, "-d", str(building), f"@{listing}"]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            return None, f"javac failed on {source}: {done.stderr.strip().splitlines()[-1:]}"
        if (source / "src" / "main" / "resources").is_dir():  # the logger's settings
            shutil.copytree(source / "src" / "main" / "resources", building, dirs_exist_ok=True)
        building.rename(classes)
    return classpath, f"MALLET compiled from {source} into {classes}"


def mallet_input(corpus, work: Path, classpath: str) -> Path:
    """Our training posts imported by MALLET with --keep-sequence: the same token sequences."""
    instances = work / "mallet-train.mallet"
    if instances.exists():
        return instances
    text = work / "mallet-train.txt"
    with text.open("w", encoding="utf-8") as out:
        for d, words in enumerate(corpus.texts()):
            out.write(f"d{d} X {' '.join(words)}\n")
    java(classpath, "cc.mallet.classify.tui.Csv2Vectors", "--input", str(text), "--output", str(instances),
         "--keep-sequence", "--token-regex", r"\S+", "--preserve-case")  # fmt: skip
    return instances


def java(classpath: str, main: str, *args: str) -> None:
    subprocess.run(["java", "-Xmx4g", "-Duser.language=en", "-cp", classpath, main, *args], check=True,
                   capture_output=True)  # fmt: skip


def run_mallet(classpath: str, instances: Path, corpus, k: int, args, threads: int, out: Path):
    """MALLET's train-topics: its model, seconds per sweep after the burn-in and last LL/token."""
    from tealeaves.models.importers import import_model

    weights = out / f"mallet-k{k}-t{threads}-weights.txt"
    command = [
        "java", "-Xmx4g", "-Duser.language=en", "-cp", classpath, "cc.mallet.topics.tui.TopicTrainer",
        "--input", str(instances), "--num-topics", str(k), "--num-iterations", str(args.iterations),
        "--alpha", str(ALPHA_SUM), "--beta", str(BETA), "--optimize-interval", "10",
        "--optimize-burn-in", str(args.burn_in), "--num-threads", str(threads), "--random-seed", "1",
        "--show-topics-interval", str(args.iterations + 1), "--topic-word-weights-file", str(weights),
    ]  # fmt: skip
    stamps: dict[int, tuple[float, float]] = {}
    lls: dict[int, float] = {}
    tokens = None
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if (found := LL_LINE.search(line)) is not None:
                stamps[int(found[1])] = (time.perf_counter(), cpu_seconds(process.pid))
                lls[int(found[1])] = float(found[2].replace(",", ""))
            elif (found := TOKENS_LINE.search(line)) is not None:
                tokens = int(found[1])
    if process.returncode != 0:
        raise SystemExit(f"MALLET train-topics failed (exit {process.returncode}): {' '.join(command)}")
    if tokens != len(corpus.tokens):
        raise SystemExit(f"MALLET read {tokens} tokens, tealeaves has {len(corpus.tokens)}: not the same sequences")
    model = import_model("mallet", weights, vocab_from=corpus.vocab, alpha=ALPHA_SUM / k, beta=BETA)
    return model, per_sweep(stamps, args), lls[max(lls)]


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system, all threads) used so far by process ``pid``, from /proc (NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def per_sweep(stamps: dict[int, tuple[float, float]], args) -> tuple[float, float]:
    """Wall and CPU seconds per sweep between the log-likelihood lines of the burn-in's end and of the last sweep."""
    start = max(s for s in stamps if s <= args.burn_in)
    end, begin = stamps[args.iterations], stamps[start]
    return (end[0] - begin[0]) / (args.iterations - start), (end[1] - begin[1]) / (args.iterations - start)


def run_ours(corpus, k: int, args, threads: int):
    """``lda_gibbs.fit`` with MALLET's settings: the model, seconds per sweep after the burn-in, last LL/token."""
    from tealeaves.models import lda_gibbs

    stamps: dict[int, tuple[float, float]] = {}

    def progress(update) -> None:
        stamps[update.done] = (time.perf_counter(), time.process_time())

    model = lda_gibbs.fit(
        corpus, k, seed=1, progress=progress, iterations=args.iterations, alpha_sum=ALPHA_SUM, beta=BETA,
        optimize_interval=10, optimize_burn_in=args.burn_in, workers=threads, topics_from="last",
    )  # fmt: skip
    return model, per_sweep(stamps, args), model.manifest["training"]["trace"][-1][1]


# --------------------------------------------------------------------------- samplers
def sampler_sweeps(corpus, k: int, workers: int, warm: int, sweeps: int) -> dict[str, float]:
    """CPU seconds per sweep of the dense and the sparse kernel on one state, after ``warm`` sparse sweeps."""
    from tealeaves.models import _gibbs, lda_gibbs
    from tealeaves.streams import stream

    tokens = np.ascontiguousarray(corpus.tokens, dtype=np.int32)
    offsets = np.ascontiguousarray(corpus.offsets, dtype=np.int64)
    v, n_docs = len(corpus.vocab), len(corpus)
    z = _gibbs.random_assignments(tokens, k, stream(0, 0))
    n_wk, n_dk, n_k = np.zeros((v, k), np.int32), np.zeros((n_docs, k), np.int32), np.zeros(k, np.int64)
    lda_gibbs.assignment_counts(tokens, offsets, z, n_wk, n_dk, n_k)
    bounds = lda_gibbs.shard_bounds(offsets, workers)
    shards = len(bounds) - 1
    states = np.concatenate([stream(0, 1 + s) for s in range(shards)])
    copies = shards if shards > 1 else 0
    local = (np.zeros((copies, v, k), np.int32), np.zeros((copies, k), np.int64))
    alpha = np.full(k, ALPHA_SUM / k)
    state = (tokens, offsets, z, n_wk, n_dk, n_k, alpha, BETA, bounds, states, *local)
    for _ in range(warm):
        lda_gibbs.gibbs_sweep(*state, sparse=True)
    seconds = {}
    for _ in range(sweeps):  # alternated, so that both see the same load
        for name in ("dense", "sparse"):
            # the sparse sampler's word lists packed untimed, as fit keeps them from sweep to sweep
            lists = _gibbs.packed_lists(n_wk, n_k) if name == "sparse" and shards == 1 else None
            started = time.process_time()
            lda_gibbs.gibbs_sweep(*state, sparse=name == "sparse", lists=lists)
            seconds[name] = seconds.get(name, 0.0) + (time.process_time() - started) / sweeps
    return seconds


def tomotopy_sweeps(corpus, k: int, workers: int, warm: int, sweeps: int) -> float:
    """CPU seconds per sweep of tomotopy's sampler after ``warm`` untimed sweeps."""
    import tomotopy as tp

    model = tp.LDAModel(k=k, alpha=ALPHA_SUM / k, eta=BETA, seed=0, min_cf=0, min_df=0, rm_top=0)
    model.optim_interval, model.burn_in = 0, 0
    for text in corpus.texts():
        model.add_doc(text)
    model.train(warm, workers=workers)
    started = time.process_time()
    model.train(sweeps, workers=workers)
    return (time.process_time() - started) / sweeps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--work", type=Path, default=None, help="keep the prepared corpus here")
    parser.add_argument("-k", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--iterations", type=int, default=300, help="sweeps of each training")
    parser.add_argument("--burn-in", type=int, default=200, help="--optimize-burn-in; sweeps after it are timed")
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--mallet", type=Path, default=os.environ.get("MALLET_SRC") or None, help="MALLET checkout")
    parser.add_argument("--samplers", type=int, default=10, help="sweeps timed per sampler (0: no samplers table)")
    parser.add_argument("--warm", type=int, default=50, help="sparse sweeps before the samplers are timed")
    parser.add_argument("--tomotopy", action="store_true", help="time tomotopy's sampler too")
    args = parser.parse_args()
    if args.iterations < args.burn_in + 10 or args.iterations % 10:
        parser.error("--iterations must be a multiple of 10, at least --burn-in + 10")

    from tealeaves.coherence import RefIndex, diversity, score
    from tealeaves.corpus import Corpus
    from tealeaves.models import lda_gibbs

    work = args.work or Path(tempfile.mkdtemp(prefix="tealeaves-lda-gibbs-"))
    corpus_dir, index_dir = prepare_inputs(data_path(args.data, "20news"), work)
    corpus = Corpus.load(corpus_dir, mmap=False)
    print(f"{corpus}; cores: {os.cpu_count()}; sparse sampler from K = {lda_gibbs.SPARSE_FROM_K}", flush=True)
    lda_gibbs.fit(corpus, 2, iterations=2, workers=max(args.threads), sampler="dense")  # compiles the kernels
    lda_gibbs.fit(corpus, 2, iterations=2, workers=max(args.threads), sampler="sparse")
    if args.samplers:
        print("\nsamplers: CPU seconds per sweep")
        print(f"{'K':>4} {'threads':>7} {'dense':>7} {'sparse':>7} {'tomotopy':>8}  load (1 min)")
        for k in args.k:
            for workers in args.threads:
                seconds = sampler_sweeps(corpus, k, workers, args.warm, args.samplers)
                theirs = (
                    f"{tomotopy_sweeps(corpus, k, workers, args.warm, args.samplers):8.3f}"
                    if args.tomotopy
                    else f"{'-':>8}"
                )
                print(f"{k:>4} {workers:>7} {seconds['dense']:7.3f} {seconds['sparse']:7.3f} {theirs}  "
                      f"{os.getloadavg()[0]:.2f}", flush=True)  # fmt: skip

    classpath, why = mallet_classpath(args.mallet)
    print(f"\n# {why}", flush=True)
    if classpath is None:
        print("MALLET table skipped")
        return
    instances = mallet_input(corpus, work, classpath)
    index = RefIndex.load(index_dir)
    print(f"MALLET beside lda-gibbs: {args.iterations} sweeps, optimisation every 10 after {args.burn_in}")
    print(f"{'K':>4} {'threads':>7} | {'s/sweep':>7} {'CPU s':>6} {'LL/token':>8} {'NPMI':>6} {'uniq.':>5} | "
          f"MALLET {'s/sweep':>7} {'CPU s':>6} {'LL/token':>8} {'NPMI':>6} {'uniq.':>5} | CPU ratio  load")  # fmt: skip
    for k in args.k:
        for threads in args.threads:
            cells = []
            for model, seconds, ll in (
                run_ours(corpus, k, args, threads),
                run_mallet(classpath, instances, corpus, k, args, threads, work),
            ):
                npmi = score(model, index, measure="npmi", window=10, topn=10).model_mean
                cells.append((seconds, ll, npmi, diversity(model, uniqueness_topn=10).topic_uniqueness))
            ((wall, cpu), ll, npmi, unique), ((wall_m, cpu_m), ll_m, npmi_m, unique_m) = cells
            print(f"{k:>4} {threads:>7} | {wall:7.3f} {cpu:6.3f} {ll:8.3f} {npmi:6.3f} {unique:5.2f} | MALLET "
                  f"{wall_m:7.3f} {cpu_m:6.3f} {ll_m:8.3f} {npmi_m:6.3f} {unique_m:5.2f} | {cpu / cpu_m:9.2f}  "
                  f"{os.getloadavg()[0]:.2f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
