"""Neural topic models of Hoyle et al. 2021: the Dirichlet VAE (``dvae``) and the Embedded Topic
Model (``etm``), in PyTorch (``pip install 'tealeaves[neural]'``).

Both train through :func:`tealeaves.models.train` (``model="dvae"`` or ``"etm"``) and infer θ with
their encoders through :meth:`tealeaves.models.TopicModel.infer`; the loop they share is in
``_training``.
"""

from tealeaves.models.neural._training import require_torch

__all__ = ["require_torch"]
