"""``tealeaves evaluate`` on the four demo models: a cold run, a cached rerun, and a rerun with one model more.

Usage: python benchmarks/evaluate.py [--work DIR] [--workers 1]

Under ``--work`` (default ``benchmarks/results/evaluate``, ignored by git) the demo's own steps
prepare the built-in State of the Union corpus and train its four models (lda-gibbs 1,000
sweeps, lda-vb, pLSI, CTM, K = 20), once. Then, timed as the whole ``tealeaves.evaluate`` call
with the default metrics:

- cold: an empty run folder, every step computed;
- cached: the same configuration again, every step read from the cache;
- one more model: a fifth model (lda-gibbs, seed 1, 200 sweeps) added, only its steps computed.

The table gives the wall time, the steps computed and read from the cache, and the time of
the heaviest step kinds of the cold run.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def demo_models(work: Path) -> Path:
    """The demo's corpus and four models under ``work/demo`` (made once); returns the folder."""
    from tealeaves.demo import DemoRun, step_models, step_prepare, step_train

    folder = work / "demo"
    if not (folder / "models" / "ctm" / "manifest.json").exists():
        shutil.rmtree(folder, ignore_errors=True)
        run = DemoRun(out=folder, show=False)
        for step in (step_prepare, step_train, step_models):
            step(run)
    return folder


def timed(config: Path, out: Path, workers: int) -> tuple[float, dict]:
    from tealeaves import evaluate

    started = time.perf_counter()
    result = evaluate(config, out, workers=workers)
    return time.perf_counter() - started, result.manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "evaluate")
    parser.add_argument("--workers", type=int, default=1, help="processes for the models (0: one per core)")
    args = parser.parse_args()

    from tealeaves import train
    from tealeaves.corpus import Corpus
    from tealeaves.demo import evaluate_config

    folder = demo_models(args.work)
    config = folder / "evaluate.toml"
    config.write_text(evaluate_config(["lda-gibbs", "lda-vb", "plsi", "ctm"]), encoding="utf-8")
    out = args.work / "run"
    shutil.rmtree(out, ignore_errors=True)

    rows = []
    for label in ("cold", "cached"):
        seconds, manifest = timed(config, out, args.workers)
        rows.append((label, seconds, manifest))
    extra = folder / "models" / "lda-gibbs-seed1"
    if not (extra / "manifest.json").exists():
        train(
            Corpus.load(folder / "corpus" / "train"), "lda-gibbs", k=20, seed=1, iterations=200, out=extra, force=True
        )
    more = folder / "evaluate-5.toml"
    more.write_text(config.read_text() + '\n[[models]]\nname = "lda-gibbs-seed1"\npath = "models/lda-gibbs-seed1"\n')
    seconds, manifest = timed(more, out, args.workers)
    rows.append(("one more model", seconds, manifest))

    print(f"| run | models | seconds | steps computed | steps cached |  (workers={args.workers})")
    print("|---|---:|---:|---:|---:|")
    for label, seconds, manifest in rows:
        steps = manifest["steps"]
        computed = sum(not s["cached"] for s in steps)
        print(f"| {label} | {len(manifest['models'])} | {seconds:.1f} | {computed} | {len(steps) - computed} |")
    cold = rows[0][2]["steps"]
    kinds: dict[str, float] = {}
    for step in cold:
        kinds[step["metric"]] = kinds.get(step["metric"], 0.0) + step["seconds"]
    print("\ncold run, seconds per metric over the four models: " + ", ".join(f"{k} {v:.1f}" for k, v in kinds.items()))


if __name__ == "__main__":
    main()
