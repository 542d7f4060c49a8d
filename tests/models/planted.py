"""A corpus sampled from a known LDA, for planted-topic recovery tests."""

from __future__ import annotations

import numpy as np

from tealeaves.corpus import Corpus, Vocabulary

# dvae's and etm's settings on the K = 10, V = 500 planted corpus: those of the tests (conftest.py's
# planted_neural) and those the reference implementations ran with in
# benchmarks/neural_vs_reference.py --parts planted (the reference D-VAE there without a
# target_metric, so both keep the last epoch)
PLANTED_NEURAL = {
    "dvae": {
        "epochs": 100,
        "gamma_bn": 1,
        "gamma_kl": 20,
        "beta_reg": 0.0,
        "alpha": 0.01,
        "learning_rate": 0.01,
        "checkpoint": "last",
    },
    "etm": {"epochs": 60, "batch_size": 200, "encoder_dim": 100, "embedding_dim": 100, "learning_rate": 0.02},
}


def lda_corpus(k=10, v=500, n_docs=2000, length=100, alpha=0.3, beta=0.05, seed=0):
    """Documents of ``length`` tokens from LDA with θ_d ~ Dir(alpha), φ_k ~ Dir(beta); returns (corpus, Φ, Θ)."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(v, beta), size=k)
    theta = rng.dirichlet(np.full(k, alpha), size=n_docs)
    docs = []
    for d in range(n_docs):
        counts = rng.multinomial(length, theta[d])
        docs.append(np.concatenate([rng.choice(v, size=c, p=phi[j]) for j, c in enumerate(counts)]))
    return Corpus.from_documents(docs, Vocabulary([f"w{i:03d}" for i in range(v)])), phi, theta
