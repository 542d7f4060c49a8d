"""Texts to Corpus: readers, the standard preprocessing (Hoyle et al. 2021 A.2), Corpus and Vocabulary."""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.corpus.adapters import as_corpus, onto_vocabulary
    from tealeaves.corpus.corpus import HALVES_MODES, Corpus
    from tealeaves.corpus.formats import FORMATS, read_inputs
    from tealeaves.corpus.preparation import prepare
    from tealeaves.corpus.preprocess import PreprocessConfig, min_df_threshold
    from tealeaves.corpus.readers import RawDocument
    from tealeaves.corpus.vocabulary import Vocabulary

__getattr__, __dir__ = attach(__name__, __file__)

__all__ = [
    "FORMATS",
    "HALVES_MODES",
    "Corpus",
    "PreprocessConfig",
    "RawDocument",
    "Vocabulary",
    "as_corpus",
    "min_df_threshold",
    "onto_vocabulary",
    "prepare",
    "read_inputs",
]
