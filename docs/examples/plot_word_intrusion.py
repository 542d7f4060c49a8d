"""
Automated word intrusion
========================

Lau, Newman & Baldwin (2014) automate Chang et al. (2009)'s word-intrusion task: for each
topic, sets of its top five words plus one intruder, and a ranking SVM over word association
features (PMI or NPMI, CP1, CP2 from a reference index) that picks the word that does not
belong. A topic's WI-Auto is the share of its sets where the machine finds the intruder;
chance is 1/6.

Here a trained model is compared with lists of random vocabulary words, on equal footing
(one SVM per cross-validation fold for both). The command line:
``tealeaves intrusion sotu-model --index sotu-index``.
"""

import tempfile

import matplotlib.pyplot as plt
import numpy as np

import tealeaves
from tealeaves.coherence import RefIndex
from tealeaves.intrusion import compare_word_intrusion

train_corpus, heldout = tealeaves.prepare("builtin:sotu", heldout=0.2, seed=0)
model = tealeaves.train(train_corpus, model="plsi", k=20, seed=0, iterations=50)
workdir = tempfile.TemporaryDirectory()
index = RefIndex.build(heldout, out=f"{workdir.name}/sotu-index")

# random lists of words that occur in the reference corpus (a word it lacks cannot be scored)
occurring = np.asarray(model.vocab.words)[np.diff(np.asarray(index.word_offsets)) > 0]
rng = np.random.default_rng(0)
random_words = [list(rng.choice(occurring, 50, replace=False)) for _ in range(20)]
both = compare_word_intrusion(
    {"pLSI": model, "random words": random_words}, index, seed=0
)
both.models_frame()

# %%
# One row per intruder set: the words shown, the true intruder and what each variant picked.
plsi = both["pLSI"]
plsi.to_frame()[
    ["topic", "draw", "words", "intruder", "predicted_pmi", "hit_pmi"]
].head()

# %%
# Per topic, WI-Auto-NPMI of the model's topics and of the random lists.
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
for name, result in ((name, both[name]) for name in ("pLSI", "random words")):
    values = np.sort(result.topics_frame()["wi_auto_npmi"].to_numpy())[::-1]
    ax.plot(values, marker="o", label=f"{name} (mean {values.mean():.2f})")
ax.axhline(1 / 6, color="grey", linestyle="--", label="chance, 1/6")
ax.set(
    xlabel="topic (sorted)",
    ylabel="WI-Auto-NPMI",
    ylim=(-0.05, 1.05),
    title="automated word intrusion",
)
ax.legend()
plt.show()
workdir.cleanup()
