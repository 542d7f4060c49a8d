"""
Topic diversity as the number of topics grows
=============================================

Topic diversity (the unique share of all topics' top 25 words, Dieng et al. 2020), topic
uniqueness (Nan et al. 2019), inverted rank-biased overlap (Bianchi et al. 2021) and Hoyle et
al. (2021)'s redundancy filter, for pLSI models with 5 to 40 topics. More topics repeat more
words.

The command line: ``tealeaves diversity sotu-model``.
"""

import matplotlib.pyplot as plt
import pandas as pd

import tealeaves
from tealeaves.coherence import diversity

train_corpus, _ = tealeaves.prepare("builtin:sotu", heldout=0.2, seed=0)

rows = []
for k in (5, 10, 20, 40):
    model = tealeaves.train(train_corpus, model="plsi", k=k, seed=0, iterations=30)
    result = diversity(model)
    rows.append(
        {
            "topics": k,
            "topic diversity": result.topic_diversity,
            "topic uniqueness": result.topic_uniqueness,
            "inverted RBO": result.inverted_rbo,
            "pairs sharing a top-5 word": len(result.shared_top_words),
            "redundant (Hoyle et al.)": result.redundant,
        }
    )
table = pd.DataFrame(rows)
table.round(3)

# %%
# The 40-topic model: which topics share a top-5 word with another?
result.to_frame().query("shares_top_words_with != ''").head(8)

# %%
fig, ax = plt.subplots(figsize=(6, 3.8), layout="constrained")
for column in ("topic diversity", "topic uniqueness", "inverted RBO"):
    ax.plot(table["topics"], table[column], marker="o", label=column)
ax.set(
    xlabel="number of topics",
    ylabel="score (1 = no overlap)",
    title="pLSI on SOTU paragraphs",
)
ax.set_xticks(table["topics"], table["topics"])
ax.legend()
plt.show()
