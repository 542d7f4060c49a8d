"""
Coherence: NPMI and C_V against an index of the corpus
======================================================

Automated coherence counts how often a topic's top words occur together in the windows of a
reference corpus processed like the training corpus. Here the reference corpus is the held-out
paragraphs; tealeaves indexes it once (each word's positions) and then counts any measure,
window size and number of top words from the index.

The command line: ``tealeaves index sotu/heldout --out sotu-index`` and
``tealeaves coherence sotu-model --index sotu-index --measure npmi``.
"""

import tempfile

import matplotlib.pyplot as plt

import tealeaves
from tealeaves.coherence import RefIndex, score

train_corpus, heldout = tealeaves.prepare("builtin:sotu", heldout=0.2, seed=0)
model = tealeaves.train(train_corpus, model="plsi", k=20, seed=0, iterations=50)

workdir = tempfile.TemporaryDirectory()
index = RefIndex.build(
    heldout, out=f"{workdir.name}/sotu-index"
)  # later: RefIndex.load(path)

# %%
# NPMI over 10-token sliding windows and C_V over 110-token windows, top 10 words, each
# counted exactly. Every result keeps the segments (word pairs) with the counts behind them.
npmi = score(model, index, measure="npmi")
cv = score(model, index, measure="cv")
print(f"NPMI {npmi.model_mean:.3f}, C_V {cv.model_mean:.3f}")
npmi.to_frame()[["topic", "w_prime", "w_star", "value", "count_joint"]].head()

# %%
# gensim counts fewer windows than exist (its sliding window forgets a word whose earlier
# occurrence leaves the window); ``compat="gensim"`` reproduces its numbers for comparison
# with published results.
as_gensim = score(model, index, measure="cv", compat="gensim")
print(
    f"C_V counted exactly {cv.model_mean:.4f}, as gensim counts {as_gensim.model_mean:.4f}"
)

# %%
# Per topic: the most and the least coherent topics by NPMI.
table = npmi.topics_frame().assign(
    cv=cv.per_topic, words=[" ".join(w) for w in model.top_words(6)]
)
table.sort_values("value", ascending=False)[["topic", "value", "cv", "words"]].iloc[
    [0, 1, 2, -3, -2, -1]
]

# %%
# The two measures rank topics similarly, but not identically.
fig, ax = plt.subplots(figsize=(5, 4), layout="constrained")
ax.scatter(npmi.per_topic, cv.per_topic)
for k in range(model.k):
    ax.annotate(
        str(k),
        (npmi.per_topic[k], cv.per_topic[k]),
        fontsize=8,
        xytext=(3, 3),
        textcoords="offset points",
    )
ax.set(
    xlabel="NPMI (10-token windows)",
    ylabel="C_V (110-token windows)",
    title="coherence per topic",
)
plt.show()
workdir.cleanup()
