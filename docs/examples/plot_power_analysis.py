"""
How many annotators does a study need?
======================================

Hoyle et al. (2021, Appendix A.5) ask how many annotators per topic a human study needs to
detect, with power 0.9 at α = 0.05, that one 50-topic model has 4 fewer coherent topics than
another. tealeaves answers by simulation: latent topic labels, simulated answers, and the
one-tailed test the analysis will use (two-proportion z-test for word intrusion, Mann-Whitney
U for ratings). ``tealeaves study create`` runs this for the study's own design.
"""

import matplotlib.pyplot as plt
import pandas as pd

from tealeaves.analysis import annotators_needed, power_curve

needed = {
    task: annotators_needed(task, power=0.9, alpha=0.05, effect=4, k=50, seed=0)
    for task in ("intrusion", "rating")
}
pd.Series(needed, name="annotators per topic").to_frame()

# %%
# Hoyle et al. report about 25 for intrusion and 15 for ratings (and used 26 and 15). The
# power curves show how quickly power rises with more annotators, for effects of 2, 4 and 8
# topics out of 50.
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained", sharey=True)
annotators = [1, 2, 4, 6, 8, 12, 16, 20, 25, 30, 40]
for ax, task in zip(axes, ("intrusion", "rating")):
    for effect in (2, 4, 8):
        curve = power_curve(
            task, annotators, k=50, effect=effect, n_sim=2000, seed=0
        ).to_frame()
        ax.plot(
            curve["annotators"],
            curve["power"],
            marker="o",
            label=f"{effect} fewer coherent topics",
        )
    ax.axhline(0.9, color="grey", linestyle="--")
    ax.axvline(needed[task], color="grey", linewidth=1)
    ax.set(xlabel="annotators per topic", title=task)
axes[0].set_ylabel("power")
axes[0].legend()
plt.show()
