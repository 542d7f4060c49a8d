"""
Results in a notebook
=====================

In Jupyter every tealeaves object displays itself: a corpus and an index say how large they
are, a model shows its first topics' top words, and a result shows its model-level values
(the model mean with its 95% interval where it has one) and the first rows of its per-topic
table, never thousands of rows. Numbers are worded as the command line and the report word
them. The displays are plain HTML, without JavaScript, so they also show in exported
notebooks and in this page. An evaluation shows the report's summary and figures, and the
report itself shows as its page.

Download this example as a notebook (the link at the bottom of the page) and run it cell by
cell: a cell that ends with an object displays it.
"""

import tempfile

import tealeaves
from tealeaves.coherence import RefIndex, diversity, score

train_corpus, heldout = tealeaves.prepare("builtin:sotu", heldout=0.2, seed=0)
train_corpus

# %%
# Two models of the same corpus: pLSI and LDA by collapsed Gibbs sampling. A model shows its
# kind, K, V, its parameters and the top words of its first topics (with α, when it has a
# Dirichlet prior).
plsi = tealeaves.train(train_corpus, model="plsi", k=20, seed=0, iterations=50)
plsi

# %%
lda = tealeaves.train(
    train_corpus, model="lda-gibbs", k=20, seed=0, iterations=50, optimize_burn_in=20
)
lda

# %%
# The held-out paragraphs as the reference corpus of coherence: its index shows the
# documents, tokens and words it holds, and its most frequent words.
workdir = tempfile.TemporaryDirectory()
index = RefIndex.build(heldout, out=f"{workdir.name}/sotu-index")
index

# %%
# NPMI of each model: the model mean with its 95% bootstrap-t interval over topics (as the
# evaluation report computes it), then one row per topic with its words.
npmi_plsi = score(plsi, index, measure="npmi")
npmi_plsi

# %%
npmi_lda = score(lda, index, measure="npmi")
npmi_lda

# %%
# Outside a notebook, ``repr`` gives the same values on one line.
print(repr(npmi_plsi))
print(repr(npmi_lda))

# %%
# Diversity and Hoyle et al.'s redundancy filters; the table says which topics share top
# words with which.
diversity(lda)

# %%
# The whole tables are a method away: ``to_frame()`` (one row per segment here) and
# ``topics_frame()`` (one row per topic) are pandas DataFrames.
npmi_lda.topics_frame().sort_values("value", ascending=False).head(3)

# %%
# The whole evaluation of both models (every default metric, intervals, Holm-corrected tests;
# about 20 s here) displays the report's summary table, its verdicts and its figures: the same
# HTML and SVG as the report, without its topic cards. ``Evaluation.load(folder)`` displays a
# run folder the same way.
train_corpus.save(f"{workdir.name}/train")
heldout.save(f"{workdir.name}/heldout")
plsi.save(f"{workdir.name}/plsi")
lda.save(f"{workdir.name}/lda-gibbs")
config = {
    "corpora": {name: f"{workdir.name}/{name}" for name in ("heldout", "train")},
    "models": [
        {"name": name, "path": f"{workdir.name}/{name}"}
        for name in ("plsi", "lda-gibbs")
    ],
}
evaluation = tealeaves.evaluate(config, f"{workdir.name}/evaluation")
evaluation

# %%
# ``tealeaves.report`` writes the page and returns its path, which a notebook displays as the
# page itself, in a sandboxed frame (its search and sort of the topic cards work there).
tealeaves.report(evaluation, f"{workdir.name}/report.html")

# %%
workdir.cleanup()
