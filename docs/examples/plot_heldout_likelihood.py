"""
Held-out likelihood with two estimators
=======================================

Estimate log P(w | Φ, αm), the probability of each held-out paragraph under a trained LDA,
with two estimators of Wallach et al. (2009): the left-to-right algorithm (``sis``, unbiased,
1,000 particles by default) and importance sampling from the prior (IS-PT, MALLET's "empirical
likelihood"). Both are unbiased for P(w), so their log estimates are stochastic lower bounds
of log P(w): between two of them, the larger is more likely right.

The command line: ``tealeaves likelihood sotu-lda sotu/heldout --method left-to-right``.
"""

import matplotlib.pyplot as plt
import pandas as pd

import tealeaves
from tealeaves.likelihood import estimate

train_corpus, heldout = tealeaves.prepare("builtin:sotu", heldout=0.2, seed=0)
# a short run (50 sweeps, α learned from sweep 20) keeps the example fast
model = tealeaves.train(
    train_corpus, model="lda-gibbs", k=20, seed=0, iterations=50, optimize_burn_in=20
)

# %%
# Two hundred held-out paragraphs, each estimated by both methods with the same seed. Every
# document draws from its own random stream, so the numbers do not depend on the number of
# threads.
paragraphs = heldout.subset(range(200))
lr = estimate(model, None, paragraphs, method="left-to-right", seed=0)
is_pt = estimate(model, None, paragraphs, method="is-prior-theta", samples=1000, seed=0)
pd.DataFrame(
    {
        "estimator": [lr.label, is_pt.label],
        "total log P(w)": [lr.total, is_pt.total],
        "nats per token": [lr.per_token, is_pt.per_token],
        "perplexity": [lr.perplexity, is_pt.perplexity],
    }
)

# %%
# Per document, with one row per paragraph (``to_frame()``):
print(lr.to_frame().head())

# %%
# Per document the two estimates agree on short paragraphs; on long ones importance sampling
# from the prior falls below, because few draws of θ from the prior land where the posterior is.
difference = is_pt.log_prob - lr.log_prob
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
left.scatter(lr.log_prob, is_pt.log_prob, s=8)
low, high = lr.log_prob.min(), lr.log_prob.max()
left.plot([low, high], [low, high], color="grey", linewidth=1)
left.set(
    xlabel="left-to-right log P(w)", ylabel="IS-PT log P(w)", title="per paragraph"
)
right.scatter(lr.to_frame()["n_tokens"], difference, s=8)
right.axhline(0, color="grey", linewidth=1)
right.set(
    xlabel="tokens in the paragraph",
    ylabel="IS-PT − left-to-right (nats)",
    title="difference",
)
plt.show()
