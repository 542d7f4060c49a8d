"""Training speed and held-out fit: tealeaves' trainers next to gensim and scikit-learn, in one run.

    python benchmarks/train.py [--data DIR (../shared/data)] [-k 50] [--iterations 50]

The corpus is prepared by tealeaves (Hoyle et al. 2021 preprocessing) with a 20% held-out split.
Every model gets the same number of passes over the training documents (Gibbs sweeps, EM
iterations or batch variational passes) and the same priors where it has them (α = 0.1 per
topic, η = β = 0.01). gensim ``LdaModel`` runs batch variational Bayes (``update_every=0``,
one M-step per pass) and scikit-learn ``LatentDirichletAllocation`` runs
``learning_method="batch"``; their models are read back with ``tealeaves.import_model``.

Held-out fit is computed the same way for all: θ̂ from the model's ``infer`` on the first half
of each held-out document, then the per-word log-likelihood of the second half,
Σ_d Σ_{n in 2nd half} log Σ_k θ̂_dk φ_{k,w_n} / (tokens in the second halves). For the two
libraries the score with their own inference of θ (gensim ``inference``, scikit-learn
``transform``) is shown too. "H(infer, θ)" is the mean Hellinger distance between ``infer``
on the training documents and the θ stored at training.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numba
import numpy as np
from rich.console import Console
from rich.table import Table

import tealeaves
from shared_data import ROOT, add_data_option, data_path
from tealeaves.corpus import Corpus
from tealeaves.models import TopicModel, import_model
from tealeaves.models.compare import hellinger

ALPHA, ETA = 0.1, 0.01


def completion_loglik(phi: np.ndarray, theta: np.ndarray, held: Corpus) -> float:
    """Per-word log-likelihood of the held halves under the plug-in θ̂ (from the observed halves)."""
    total, n = 0.0, 0
    for d in range(len(held)):
        words = held.doc(d)
        if len(words):
            total += float(np.log(theta[d] @ phi[:, words]).sum())
            n += len(words)
    return total / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("-k", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=ROOT / "benchmarks" / "results" / "train")
    args = parser.parse_args()
    console = Console(width=150)
    k, n_iter, seed = args.k, args.iterations, args.seed
    workdir = args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    args.corpus = data_path(args.data, "ap")

    train_corpus, heldout = tealeaves.prepare(args.corpus, heldout=0.2, seed=seed)
    observed, held = heldout.halves("first-half")
    console.print(f"{args.corpus}: {train_corpus} for training, {heldout} held out; K = {k}, {n_iter} passes")
    console.print(f"numba threads: {numba.get_num_threads()}, cores: {os.cpu_count()}, load: {os.getloadavg()[0]:.2f}")

    rows = []

    def record(name: str, seconds: float, model: TopicModel, own: float | None = None) -> None:
        t0 = time.perf_counter()
        theta = model.infer(observed, seed=seed)
        infer_seconds = time.perf_counter() - t0
        ll = completion_loglik(model.phi, theta, held)
        agreement = None
        if model.theta is not None:
            agreement = float(hellinger(model.infer(train_corpus, seed=seed + 1), model.theta).mean())
        rows.append((name, seconds, infer_seconds, ll, own, agreement))
        console.print(f"  {name}: {seconds:.1f} s, held-out {ll:.4f} per word", highlight=False)

    trainers = {
        "tealeaves lda-gibbs": ("lda-gibbs", {"alpha_sum": ALPHA * k, "beta": ETA, "optimize_burn_in": n_iter // 4}),
        "tealeaves lda-vb": ("lda-vb", {"alpha": ALPHA, "eta": ETA}),
        "tealeaves plsi": ("plsi", {"beta": ETA}),
    }
    for name, (kind, params) in trainers.items():
        started = time.perf_counter()
        model = tealeaves.train(train_corpus, kind, k=k, seed=seed, iterations=n_iter, **params)
        record(name, time.perf_counter() - started, model)

    texts, observed_texts = train_corpus.texts(), observed.texts()

    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    dictionary = Dictionary(texts)
    bows = [dictionary.doc2bow(t) for t in texts]
    started = time.perf_counter()
    lda = LdaModel(
        bows,
        id2word=dictionary,
        num_topics=k,
        alpha=ALPHA,
        eta=ETA,
        passes=n_iter,
        update_every=0,
        chunksize=len(bows),
        iterations=100,
        eval_every=None,
        random_state=seed,
        dtype=np.float64,
    )
    seconds = time.perf_counter() - started
    lda.save(str(workdir / "gensim.lda"))
    model = import_model("gensim", workdir / "gensim.lda", vocab_from=train_corpus)
    gamma = lda.inference([dictionary.doc2bow(t) for t in observed_texts])[0]
    own = completion_loglik(model.phi, gamma / gamma.sum(axis=1, keepdims=True), held)
    record("gensim LdaModel (batch)", seconds, model, own)

    import joblib
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import Pipeline

    joined = [" ".join(t) for t in texts]
    pipeline = Pipeline(
        [
            ("vectorizer", CountVectorizer(token_pattern=r"\S+", lowercase=False)),
            (
                "lda",
                LatentDirichletAllocation(
                    k,
                    doc_topic_prior=ALPHA,
                    topic_word_prior=ETA,
                    learning_method="batch",
                    max_iter=n_iter,
                    n_jobs=numba.get_num_threads(),
                    random_state=seed,
                ),
            ),
        ]
    )
    started = time.perf_counter()
    pipeline.fit(joined)
    seconds = time.perf_counter() - started
    joblib.dump(pipeline, workdir / "sklearn.joblib")
    model = import_model("sklearn", workdir / "sklearn.joblib", vocab_from=train_corpus)
    own = completion_loglik(model.phi, pipeline.transform([" ".join(t) for t in observed_texts]), held)
    record("scikit-learn LatentDirichletAllocation (batch)", seconds, model, own)

    table = Table(title=f"{Path(args.corpus).name}, K = {k}, {n_iter} passes, seed {seed}", title_justify="left")
    for column in ("model", "train s", "infer s", "held-out LL/word", "with own θ", "H(infer, θ)"):
        table.add_column(column, justify="left" if column == "model" else "right")
    for name, seconds, infer_seconds, ll, own, agreement in rows:
        table.add_row(
            name,
            f"{seconds:.1f}",
            f"{infer_seconds:.1f}",
            f"{ll:.4f}",
            "" if own is None else f"{own:.4f}",
            "" if agreement is None else f"{agreement:.3f}",
        )
    console.print(table)


if __name__ == "__main__":
    main()
