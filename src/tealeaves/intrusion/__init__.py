"""Word intrusion: intruder sets (Chang et al. 2009) shared by the human and automated tasks,
and automated word intrusion, WI-Auto (Lau, Newman & Baldwin 2014).

- :func:`intruder_sets`: a topic's top words plus one intruder (Chang et al. 2009, §3.1);
- :func:`word_association_features`: PMI or NPMI, CP1 and CP2 of each word of a set against
  the others, from a reference index, min-max normalised within the set;
- :func:`fit_ranking_svm`: a linear ranking SVM with SVM-rank's objective;
- :func:`auto_word_intrusion`: WI-Auto-PMI and WI-Auto-NPMI per topic and per model, by
  10-fold cross-validation over topics, with the unsupervised mean-association baseline;
- :func:`compare_word_intrusion`: the same for several models, one SVM per fold for all;
- :func:`embedding_word_intrusion`: the machine picks the word farthest from the others in a
  word-vector space, on the same sets, without a reference corpus.
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.intrusion.automated import (
        WordIntrusionComparison,
        WordIntrusionResult,
        auto_word_intrusion,
        compare_word_intrusion,
        first_place_share,
    )
    from tealeaves.intrusion.embedding import EmbeddingIntrusionResult, embedding_word_intrusion
    from tealeaves.intrusion.features import (
        ASSOCIATIONS,
        FEATURES,
        SetFeatures,
        association_sums,
        min_max_within_sets,
        word_association_features,
    )
    from tealeaves.intrusion.intruders import PROTOCOLS, IntruderSet, IntruderSets, intruder_sets
    from tealeaves.intrusion.ranking import RankingSVM, fit_ranking_svm, preference_pairs

__getattr__, __dir__ = attach(__name__, __file__)

__all__ = [
    "ASSOCIATIONS",
    "FEATURES",
    "PROTOCOLS",
    "EmbeddingIntrusionResult",
    "IntruderSet",
    "IntruderSets",
    "RankingSVM",
    "SetFeatures",
    "WordIntrusionComparison",
    "WordIntrusionResult",
    "association_sums",
    "auto_word_intrusion",
    "compare_word_intrusion",
    "embedding_word_intrusion",
    "first_place_share",
    "fit_ranking_svm",
    "intruder_sets",
    "min_max_within_sets",
    "preference_pairs",
    "word_association_features",
]
