"""tealeaves' topic significance and θ classification beside OCTIS's own metrics, on the same model output.

    python benchmarks/octis_metrics.py --octis-python /tmp/octis-venv/bin/python
        [--corpora 20news sotu] [--topics 20] [--iterations 300] [--data DIR] [--work DIR]

OCTIS 1.14.0 pins old libraries (scikit-learn 1.1.0, numpy < 2, torch), so it runs in a virtualenv
of its own, as a child process: ``python3 -m venv /tmp/octis-venv``, ``/tmp/octis-venv/bin/pip
install --no-deps octis==1.14.0`` and ``pip install "numpy<2" "scipy<1.13" "scikit-learn==1.1.3"``
(what its metric modules import; 1.1.3 is the first 1.1 release with wheels for Python 3.11).
For each corpus an lda-gibbs model is trained on the training documents (cached in ``--work``),
θ is inferred for the test documents, and both libraries score the same arrays: Φ (K x V), θ of
the training documents (OCTIS's ``topic-document-matrix`` is its transpose) and θ of the test
documents, with the labels of both:

- ``20news``: 20 Newsgroups from ``--data`` (``20news/20news-bydate.jsonl.gz``), its "bydate"
  split (11,314 training and 7,532 test posts), the newsgroup as the label;
- ``sotu``: the built-in State of the Union paragraphs, 20% held out at random, the
  president's party as the label.

OCTIS's ``KL_uniform``, ``KL_vacuous`` and ``KL_background`` are compared with
:func:`tealeaves.models.topic_significance` (OCTIS's ε = 1e-5; its W-Uniform per topic, the
others' means, which is all OCTIS returns), and its ``AccuracyScore``, ``F1Score``,
``PrecisionScore`` and ``RecallScore`` (``average="micro"``, its default, and ``"macro"``) with
:func:`tealeaves.models.classify` under OCTIS's protocol (``heldout=`` the test documents). OCTIS's
scikit-learn 1.1 solves its ``LinearSVC`` in the dual, by coordinate descent in an unseeded random
order stopped at 1,000 iterations; tealeaves in the primal. So the OCTIS side runs twice: as it
is, and once more with ``LinearSVC(dual=False)`` patched into its module (its code otherwise
untouched), which isolates the solver: the row "OCTIS, primal" should equal tealeaves exactly, and
"predictions that differ" counts the test documents on which OCTIS's own dual solution disagrees.
A last table shows what OCTIS's ε does to the divergences (tealeaves with ε = 1e-5 and ε = 0).
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from shared_data import add_data_option, data_path

OCTIS_SIDE = r"""
import json, sys, warnings
import numpy as np
from sklearn import svm
import octis.evaluation_metrics.classification_metrics as classification
from octis.evaluation_metrics.classification_metrics import AccuracyScore, F1Score, PrecisionScore, RecallScore
from octis.evaluation_metrics.topic_significance_metrics import KL_background, KL_uniform, KL_vacuous

warnings.simplefilter("ignore")
arrays = np.load(sys.argv[1])
labels = json.loads(open(sys.argv[2]).read())
output = {name: arrays[name] for name in ("topic-word-matrix", "topic-document-matrix", "test-topic-document-matrix")}


class Dataset:  # OCTIS's metrics read only get_labels(): training documents first, test documents last
    def get_labels(self):
        return labels["train"] + labels["test"]


def predictions():
    # OCTIS keeps the last SVM's test labels and predictions as ids of label2id (a label's last training position)
    _, predicted = classification.stored_svm_results
    return [labels["train"][i] for i in predicted]


out = {
    "kl_uniform": [float(x) for x in KL_uniform().score(output, per_topic=True)],
    "kl_uniform_mean": float(KL_uniform().score(output)),
    "kl_vacuous_mean": float(KL_vacuous().score(output)),
    "kl_background_mean": float(KL_background().score(output)),
}
dual_svc = svm.LinearSVC
for solver in ("dual", "primal"):
    if solver == "primal":  # OCTIS's code as it is, its LinearSVC solved in the primal
        classification.svm.LinearSVC = lambda **options: dual_svc(dual=False, **options)
    for average in ("micro", "macro"):
        classification.stored_model_output_hash = None  # a fresh SVM for every setting
        scores = {"accuracy": AccuracyScore(Dataset(), average=average).score(output)}
        for name, metric in (("f1", F1Score), ("precision", PrecisionScore), ("recall", RecallScore)):
            scores[name] = metric(Dataset(), average=average).score(output)
        out[f"{solver} {average}"] = {**{k: float(v) for k, v in scores.items()}, "predicted": predictions()}
print(json.dumps(out))
"""


def news_corpora(data: Path, work: Path):  # type: ignore[no-untyped-def]
    """20 Newsgroups' bydate training and test posts, prepared (cached in ``work``), labelled by ``group``."""
    from tealeaves.corpus import Corpus, prepare

    folders = {split: work / f"20news-{split}" for split in ("train", "test")}
    if not all((f / "manifest.json").exists() for f in folders.values()):
        files = {split: (work / f"20news-{split}.jsonl").open("w", encoding="utf-8") for split in folders}
        with gzip.open(data_path(data, "20news"), "rt", encoding="utf-8") as lines:
            for line in lines:
                post = json.loads(line)
                record = {"id": post["id"], "text": post["text"], "group": post["group"]}
                files[post["split"]].write(json.dumps(record) + "\n")
        for file in files.values():
            file.close()
        train = prepare(work / "20news-train.jsonl", out=folders["train"], force=True, workers=2)
        prepare(work / "20news-test.jsonl", out=folders["test"], vocab_from=train, force=True, workers=2)
    return Corpus.load(folders["train"]), Corpus.load(folders["test"]), "group"


def sotu_corpora(work: Path):  # type: ignore[no-untyped-def]
    """The built-in State of the Union paragraphs, 20% held out (seed 0), labelled by ``party``."""
    from tealeaves.corpus import Corpus, prepare

    if not (work / "sotu" / "heldout" / "manifest.json").exists():
        prepare("builtin:sotu", out=work / "sotu", heldout=0.2, seed=0, force=True)
    return Corpus.load(work / "sotu" / "train"), Corpus.load(work / "sotu" / "heldout"), "party"


def side_by_side(name: str, train, test, label: str, args: argparse.Namespace, work: Path) -> None:  # type: ignore[no-untyped-def]
    from tealeaves.models import TopicModel, classify, topic_significance
    from tealeaves.models import train as run_train

    folder = work / f"{name}-lda-k{args.topics}-i{args.iterations}"
    if (folder / "manifest.json").exists():
        model = TopicModel.load(folder)
    else:
        model = run_train(train, "lda-gibbs", k=args.topics, seed=0, iterations=args.iterations, out=folder)
    theta_test = model.infer(test, seed=0)  # what classify(heldout=test, seed=0) infers
    labels = {
        split: [str(meta[label]) for meta in corpus.metadata] for split, corpus in (("train", train), ("test", test))
    }
    arrays = work / f"{name}-output.npz"
    np.savez(
        arrays,
        **{
            "topic-word-matrix": model.phi,
            "topic-document-matrix": model.theta.T,
            "test-topic-document-matrix": theta_test.T,
        },
    )
    (work / f"{name}-labels.json").write_text(json.dumps(labels))
    start = time.perf_counter()
    done = subprocess.run(
        [args.octis_python, "-c", OCTIS_SIDE, str(arrays), str(work / f"{name}-labels.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the OCTIS side failed:\n{done.stderr}")
    octis = json.loads(done.stdout)
    octis_seconds = time.perf_counter() - start

    start = time.perf_counter()
    ours = topic_significance(model)
    classified = {
        average: classify(model, train, label, heldout=test, average=average, seed=0) for average in ("micro", "macro")
    }
    ours_seconds = time.perf_counter() - start
    print(
        f"\n## {name}: lda-gibbs, K = {args.topics}, {args.iterations} sweeps; {len(train)} training and "
        f"{len(test)} test documents, V = {len(model.vocab)}, label {label!r} ({len(set(labels['train']))} classes)\n"
    )
    print("| metric | tealeaves | OCTIS | difference | OCTIS, primal | difference |")
    print("|---|---:|---:|---:|---:|---:|")
    per_topic = np.max(np.abs(ours.kl_uniform - np.asarray(octis["kl_uniform"])))
    print(f"| KL_uniform, largest difference over the {args.topics} topics | | | {per_topic:.2e} | | |")
    for metric in ("kl_uniform", "kl_vacuous", "kl_background"):
        a, b = ours.model_mean[metric], octis[f"{metric}_mean"]
        print(f"| {metric}, mean over topics (nats) | {a:.10f} | {b:.10f} | {a - b:.2e} | | |")
    for average, result in classified.items():
        dual, primal = octis[f"dual {average}"], octis[f"primal {average}"]
        for score in ("accuracy", "f1", "precision", "recall"):
            a = getattr(result, score)
            print(
                f"| {score} ({average}) | {a:.10f} | {dual[score]:.10f} | {a - dual[score]:.2e} "
                f"| {primal[score]:.10f} | {a - primal[score]:.2e} |"
            )
        mine = result.predicted.tolist()
        differ = [sum(x != y for x, y in zip(mine, side["predicted"])) for side in (dual, primal)]
        print(f"| test predictions that differ ({average}) | | | {differ[0]} of {len(mine)} | | {differ[1]} |")
    print(f"\nseconds: tealeaves {ours_seconds:.1f}, OCTIS (both solvers, a new process) {octis_seconds:.1f}")
    exact = topic_significance(model, epsilon=0)
    print("\nOCTIS's ε: tealeaves' means over topics with ε = 1e-5 (OCTIS's) and ε = 0 (the exact divergence)\n")
    print("| metric | ε = 1e-5 | ε = 0 |\n|---|---:|---:|")
    for metric in ("kl_uniform", "kl_vacuous", "kl_background"):
        print(f"| {metric} | {ours.model_mean[metric]:.4f} | {exact.model_mean[metric]:.4f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--octis-python", required=True, help="The interpreter of a virtualenv with OCTIS 1.14.0.")
    parser.add_argument("--corpora", nargs="+", choices=("20news", "sotu"), default=["20news", "sotu"])
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--work", type=Path, default=None, help="Folder kept between runs (default: a temporary one).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for name in args.corpora:
            corpora = news_corpora(args.data, work) if name == "20news" else sotu_corpora(work)
            side_by_side(name, *corpora, args, work)


if __name__ == "__main__":
    main()
