"""Topic models: the TopicModel artifact, Topics, and the trainers."""

from typing import TYPE_CHECKING

from tealeaves.lazy import attach

if TYPE_CHECKING:
    from tealeaves.models.adapters import as_model
    from tealeaves.models.importers import IMPORTERS, import_model
    from tealeaves.models.topic_model import TopicModel
    from tealeaves.models.topics import Topics, as_topics
    from tealeaves.models.training import TRAINERS, train, trainer_params

__getattr__, __dir__ = attach(__name__, __file__)

__all__ = [
    "IMPORTERS",
    "TRAINERS",
    "TopicModel",
    "Topics",
    "as_model",
    "as_topics",
    "import_model",
    "train",
    "trainer_params",
]
