"""Topic models: the TopicModel artifact, Topics, the trainers, and measures of a model by itself and of its θ."""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.models.adapters import as_model, as_topics
    from tealeaves.models.classification import ClassificationResult, classify
    from tealeaves.models.importers import IMPORTERS, import_model
    from tealeaves.models.significance import SignificanceResult, topic_significance
    from tealeaves.models.topic_model import TopicModel
    from tealeaves.models.topics import Topics
    from tealeaves.models.training import TRAINERS, train, trainer_params, trainer_rules

__getattr__, __dir__ = attach(__name__, __file__)

__all__ = [
    "IMPORTERS",
    "TRAINERS",
    "ClassificationResult",
    "SignificanceResult",
    "TopicModel",
    "Topics",
    "as_model",
    "as_topics",
    "classify",
    "import_model",
    "topic_significance",
    "train",
    "trainer_params",
    "trainer_rules",
]
