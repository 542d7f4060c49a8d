"""Many trials at once: the trials of a sweep that train one ETM or one D-VAE each on one corpus,
as one batched computation on one device.

Hoyle et al. (2021, §4.2) select each model from about 82 settings trained to the end (ETM: 500
or 1,000 epochs; D-VAE: 200 or 500). One minibatch of either network is a few milliseconds of a
GPU's arithmetic, spread over hundreds of small kernels: the device waits on their launches.
Trained together, T trials make every kernel T times larger and the launches are shared.

How. Each trial keeps its own network, initialised as its own ``fit`` initialises it (its seed's
``torch_session``: :func:`tealeaves.models.neural.etm.session`,
:func:`tealeaves.models.neural.dvae.session`), its own minibatch order (its seed's stream), its
own random draws (a ``torch.Generator`` per trial holding its seed's PyTorch generator state
after the initialisation, so that the draws of the trial's own run come in the same sequence)
and its own checkpoint and learning rate. The T weight matrices of a layer are stacked into one
tensor (T x ...): the encoder's first layer multiplies the T minibatches as one block-diagonal
sparse matrix (T·B x T·V, trial t's documents in rows t·B…, its words in columns t·V…) by the
stacked W^T (T·V x H), the dense layers are batched products (``torch.baddbmm``). The objective
is the sum over trials of each trial's own (its minibatch mean for the ETM, sum plus L1 penalty
for the D-VAE), whose gradient with respect to trial t's weights is that trial's own. Adam (β =
0.9, 0.999, ε = 10⁻⁸, L2 penalty W_decay added to the gradient, as PyTorch's) steps all trials
at once with a learning rate and a weight decay per trial (tensors of T).

ETM (:class:`_EtmStack`): β_t = softmax(ρ α_t^T) is one product of ρ with the stacked α, θ_t β_t
is sampled at every trial's nonzero counts by one SDDMM over the block-diagonal matrix, ε ~ N(0,
I) is drawn from each trial's generator, and the annealing γ_η lowers one trial's rate.

D-VAE (:class:`_DvaeStack`): the decoder's logits B θ + b are one batched product (T x B x V);
batch norm (the encoder's on the K concentrations, the decoder's on the V logits) normalises
each trial's documents alone (one ``batch_norm`` over B x T·V features, each trial's running
statistics its own); the annealing weights λ (batch norm) and w_KL are per trial, as are α,
β_reg and the dropout rate. Dropout and the Dirichlet sample θ ~ q (``Dirichlet.rsample``) are
drawn per trial by the very calls of its own run, with the trial's generator state put in
PyTorch's global generator for the call (``torch.distributions`` and dropout take no generator):
the same numbers on every device. A trial whose λ has reached 1 no longer uses the decoder's
batch norm: its bias and running statistics stay as they are (its own run's Adam skips a
parameter without a gradient).

Each trial equals its own run of ``fit`` from the same seed: the same minibatches and random
draws, the same operations; only the products' blocking differs, so the losses agree to float32
rounding and the topics are the same (``tests/models/test_batched.py``, on the CPU; on CUDA the
sparse sums are unordered, so a trial drifts from its own run in the last bits, as two runs of
``fit`` there do).

What can be batched together: trials of one model with the same corpus and network shapes and
the same minibatches' sizes (:func:`shape_key`): for the ETM the same k, ``encoder_dim``,
``embedding_dim`` (and ``embedding_seed``: one ρ), ``batch_size`` and ``epochs``; for the D-VAE
the same k, ``encoder_dim``, ``batch_size`` and ``epochs``. The other settings and the seed may
differ. What cannot: trials of different shapes (another group each) and ETM trials with
``validation_share > 0`` (each seed holds out other documents, so the completion criterion's
batches differ in size: such trials train one by one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import InputError
from tealeaves.models.neural import dvae, etm
from tealeaves.models.neural._training import (
    DocTerm,
    _sparse_product,
    annealing_factor,
    copy_state,
    cpu_mode,
    minibatch_rng,
    minibatches,
    require_torch,
    resolve_device,
)
from tealeaves.models.topic_model import TopicModel
from tealeaves.progress import ProgressCallback, notify

# what the trials of one batch share, with each trainer's defaults
SHAPES: dict[str, dict[str, Any]] = {
    "etm": {
        "k": None,
        "encoder_dim": 800,
        "embedding_dim": 300,
        "embedding_seed": 0,
        "batch_size": 1000,
        "epochs": 1000,
    },
    "dvae": {"k": None, "encoder_dim": 100, "batch_size": 200, "epochs": 500},
}
BYTES = 4  # float32
BETAS, EPS = (0.9, 0.999), 1e-8


def _shape(model: str) -> dict[str, Any]:
    if model not in SHAPES:
        raise InputError(f"fit_many trains {' or '.join(SHAPES)} trials, not {model!r}")
    return SHAPES[model]


def shape_key(params: dict[str, Any], model: str = "etm") -> tuple[Any, ...]:
    """What trials must share to be trained as one batch: k, the network's sizes (and for the ETM
    the embeddings' seed), the minibatch size and the epochs (``fit``'s defaults where ``params``
    omits them).

    Parameters
    ----------
    params : dict
        A trial's ``k`` and ``fit`` settings.
    model : str
        ``"etm"`` or ``"dvae"``.

    Returns
    -------
    tuple
        The values of the model's names in :data:`SHAPES`, in that order.

    Examples
    --------
    >>> from tealeaves.models.neural.batched import shape_key
    >>> shape_key({"k": 50, "learning_rate": 0.002, "epochs": 500})
    (50, 800, 300, 0, 1000, 500)
    >>> shape_key({"k": 50, "alpha": 0.1, "gamma_bn": 100}, "dvae")
    (50, 100, 200, 500)
    """
    return tuple(params.get(name, default) for name, default in _shape(model).items())


def trial_bytes(n_words: int, n_docs: int, nonzeros: int, params: dict[str, Any], model: str = "etm") -> int:
    """An estimate of one trial's device memory in a batch, in bytes.

    ETM: its weights with their gradients and Adam's two moments (4 copies of V·H + H² + 2H·K +
    E·K), the kept checkpoint (one more), the decoder's V x K logits, β and their gradients (4
    V·K), the minibatch's activations (8 B·H) and its nonzeros (ids, counts and the transposed
    copy: 8 per nonzero, with ``nonzeros / n_docs`` per document), and the completion halves'
    counts (12 per nonzero). D-VAE: its weights (V·H + H·K + K·V and the biases; 5 copies as the
    ETM's), the decoder's B x V logits with their log-softmax, batch norm and gradients (10 B·V),
    the encoder's activations (4 B·H) and the minibatch's nonzeros (8 per nonzero).

    Parameters
    ----------
    n_words, n_docs, nonzeros : int
        The corpus's vocabulary size V, documents and nonzero document-term counts.
    params : dict
        The trial's ``k`` and ``fit`` settings.
    model : str
        ``"etm"`` or ``"dvae"``.

    Returns
    -------
    int
        Bytes (float32 throughout).

    Examples
    --------
    20 Newsgroups as the sweep trains it, the authors' network sizes:

    >>> from tealeaves.models.neural.batched import trial_bytes
    >>> round(trial_bytes(7316, 13133, 900_000, {"k": 50}) / 1e6)
    209
    >>> round(trial_bytes(7316, 13133, 900_000, {"k": 50}, "dvae") / 1e6)
    82
    """
    key = dict(zip(_shape(model), shape_key(params, model)))
    k, hidden, batch = key["k"], key["encoder_dim"], min(key["batch_size"], n_docs)
    per_doc = nonzeros / max(n_docs, 1)
    if model == "dvae":
        weights = n_words * hidden + hidden * k + k * n_words + hidden + 2 * k + 2 * n_words
        return int(BYTES * (5 * weights + 10 * batch * n_words + 4 * batch * hidden + 8 * batch * per_doc))
    dims = key["embedding_dim"]
    weights = n_words * hidden + hidden * hidden + 2 * hidden * k + dims * k + 2 * hidden + 2 * k
    return int(BYTES * (5 * weights + 4 * n_words * k + 8 * batch * hidden + 8 * batch * per_doc + 12 * nonzeros))


def fit_many(
    corpus: Corpus,
    trials: Sequence[dict[str, Any]],
    *,
    model: str = "etm",
    device: str = "auto",
    threads: int = 1,
    progress: ProgressCallback | None = None,
) -> list[TopicModel]:
    """Train several ETMs or D-VAEs on ``corpus`` at once (module docstring); trial t's model is
    that of ``etm.fit(corpus, seed=..., **params)`` (or ``dvae.fit``) from its own settings.

    Parameters
    ----------
    corpus : Corpus
        The training documents, shared by every trial.
    trials : sequence of dict
        One dict per trial: ``k``, ``seed`` and the keyword arguments of
        :func:`~tealeaves.models.neural.etm.fit` or :func:`~tealeaves.models.neural.dvae.fit`
        (not ``validation``, ``device``, ``threads``). They must share :func:`shape_key`.
    model : str
        ``"etm"`` or ``"dvae"``.
    device : str
        ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``: one device for all.
    threads : int
        PyTorch's CPU threads.
    progress : callable, optional
        Called after each epoch of the batch.

    Returns
    -------
    list of TopicModel
        One per trial, in order.

    Raises
    ------
    InputError
        Trials of different shapes, ETM trials with ``validation_share > 0``, or a bad setting (as ``fit``).

    Examples
    --------
    Two settings of the planted two-topic corpus at once, equal to their own runs:

    >>> import os, tempfile
    >>> from unittest import mock
    >>> import numpy as np
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models.neural import batched, dvae, etm
    >>> docs = [[0, 1, 2, 3, 0, 1] * 3 if d % 2 else [4, 5, 6, 7, 4, 5] * 3 for d in range(40)]
    >>> corpus = Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(8)]))
    >>> small = {"k": 2, "epochs": 2, "batch_size": 20, "encoder_dim": 16, "embedding_dim": 8}
    >>> trials = [{**small, "seed": 0, "learning_rate": 0.02}, {**small, "seed": 1, "learning_rate": 0.002}]
    >>> with tempfile.TemporaryDirectory() as cache, mock.patch.dict(os.environ, {"TEALEAVES_CACHE": cache}):
    ...     models = batched.fit_many(corpus, trials, device="cpu")
    ...     alone = etm.fit(corpus, **trials[1], device="cpu")
    >>> bool(np.allclose(models[1].phi, alone.phi, atol=1e-5))
    True
    >>> small = {"k": 2, "epochs": 2, "batch_size": 20, "gamma_bn": 1, "gamma_kl": 1}
    >>> trials = [{**small, "seed": 0, "alpha": 0.1}, {**small, "seed": 1, "learning_rate": 0.001}]
    >>> models = batched.fit_many(corpus, trials, model="dvae", device="cpu")
    >>> alone = dvae.fit(corpus, **trials[1], device="cpu")
    >>> bool(np.allclose(models[1].phi, alone.phi, atol=1e-5))
    True
    """
    if not trials:
        return []
    if len({shape_key(trial, model) for trial in trials}) > 1:
        raise InputError(
            f"{model} trials trained as one batch must share {', '.join(SHAPES[model])}; group them by shape_key first"
        )
    train = _fit_etm if model == "etm" else _fit_dvae
    return train(corpus, trials, device, threads, progress)


def _settings(fit: Callable[..., Any], trial: dict[str, Any], device: str, threads: int) -> dict[str, Any]:
    """``fit``'s keyword arguments for ``trial`` (its defaults, the trial's settings, ``device`` and ``threads``)."""
    options = {name: value for name, value in trial.items() if name not in ("k", "seed")}
    defaults = dict(fit.__kwdefaults__ or {})
    unknown = set(options) - set(defaults) | ({"validation", "device", "threads"} & set(options))
    if unknown:
        raise InputError(
            f"fit_many takes {fit.__module__}.fit's settings except validation, device and threads; got {sorted(unknown)}"
        )
    defaults.pop("validation", None)
    return {**defaults, **options, "device": device, "threads": threads}


def _fit_etm(
    corpus: Corpus, trials: Sequence[dict[str, Any]], device: str, threads: int, progress: ProgressCallback | None
) -> list[TopicModel]:
    """:func:`fit_many` of ETM trials."""
    resolved = resolve_device(device)
    prepared = [_prepare(corpus, trial, device, threads) for trial in trials]
    embeddings, cache = etm.embeddings_of(corpus, prepared[0]["params"], progress)
    data = DocTerm.of(corpus, resolved)
    halves = tuple(DocTerm(half, resolved) for half in etm.completion_halves(corpus))
    nets, generators = [], []
    for item in prepared:
        with etm.session(item["params"]["seed"], threads):
            net = etm._network(len(corpus.vocab), item["params"]).to(resolved)
            net.word_embeddings.copy_(require_torch().from_numpy(embeddings))
            nets.append(net)
            generators.append(_continuing(resolved))
    stack = _EtmStack(nets, generators, [item["params"] for item in prepared], data, halves)
    with cpu_mode(threads):
        traces = _train(stack, [item["docs"] for item in prepared], progress)
    models = []
    for net, item, trace, best in zip(nets, prepared, traces, stack.checkpoints):
        best.restore()
        with etm.session(item["params"]["seed"], threads):
            models.append(etm.model_of(corpus, net, data, item["params"], trace, best, item["split"], cache))
    return models


def _prepare(corpus: Corpus, trial: dict[str, Any], device: str, threads: int) -> dict[str, Any]:
    """An ETM trial's checked parameters and training documents, as ``etm.fit`` checks them."""
    if trial.get("validation_share", 0.0):
        raise InputError("etm trials with validation_share > 0 hold out different documents: train them one by one")
    params = etm._params(int(trial["k"]), int(trial.get("seed", 0)), **_settings(etm.fit, trial, device, threads))
    docs, _, split = etm._validation_split(corpus, None, 0.0, params["seed"])
    if len(docs) < 1 or corpus.n_tokens == 0:
        raise InputError("etm needs at least one training document with tokens")
    return {"params": params, "docs": docs, "split": split}


def _fit_dvae(
    corpus: Corpus, trials: Sequence[dict[str, Any]], device: str, threads: int, progress: ProgressCallback | None
) -> list[TopicModel]:
    """:func:`fit_many` of D-VAE trials."""
    params = [
        dvae._params(corpus, int(trial["k"]), int(trial.get("seed", 0)), **_settings(dvae.fit, trial, device, threads))
        for trial in trials
    ]
    resolved = resolve_device(device)
    data = DocTerm.of(corpus, resolved)
    nets, generators = [], []
    for item in params:
        with dvae.session(item["seed"], threads):
            nets.append(dvae._network(len(corpus.vocab), item).to(resolved))
            generators.append(_continuing(resolved))
    stack = _DvaeStack(nets, generators, params, data)
    with cpu_mode(threads):
        traces = _train(stack, [np.arange(data.n_docs)] * len(params), progress)
    models = []
    for net, item, trace, best in zip(nets, params, traces, stack.checkpoints):
        best.restore()
        with dvae.session(item["seed"], threads):
            models.append(dvae.model_of(corpus, net, data, item, trace, best, resolved))
    return models


def _continuing(device: Any) -> Any:
    """A generator on ``device`` that continues the current session's stream of PyTorch's random draws."""
    torch = require_torch()
    generator = torch.Generator(device=device)
    generator.set_state(torch.cuda.get_rng_state(device) if device.type == "cuda" else torch.get_rng_state())
    return generator


class _Stack:
    """The trials' weights stacked (T x ...): the trainable ones with Adam's moments, the
    per-trial learning rates and weight decays; the others (batch norm's fixed scale and running
    statistics) beside them. A model's stack adds its batched loss and its checkpoints."""

    task, drop_last, reduction = "", False, "mean"
    shared: tuple[str, ...] = ()  # fixed tensors equal in every trial, not stacked

    def __init__(self, nets: list[Any], generators: list[Any], params: list[dict[str, Any]], data: DocTerm) -> None:
        torch = require_torch()
        self.nets, self.generators, self.params, self.data = nets, generators, params, data
        self.device = data.device
        state = [dict(net.named_parameters()) for net in nets]
        names = [name for name, weight in state[0].items() if weight.requires_grad]
        self.weights = {name: torch.stack([s[name].detach() for s in state]).requires_grad_() for name in names}
        fixed = [{**dict(net.named_buffers()), **s} for net, s in zip(nets, state)]
        self.fixed = {
            name: torch.stack([f[name].detach() for f in fixed])
            for name in fixed[0]
            if name not in self.weights and name not in self.shared and not name.endswith("num_batches_tracked")
        }
        self.moments = {name: (torch.zeros_like(w), torch.zeros_like(w)) for name, w in self.weights.items()}
        self.rate = torch.tensor([p["learning_rate"] for p in params], dtype=torch.float32, device=self.device)
        self.decay = torch.tensor([p.get("weight_decay", 0.0) for p in params], dtype=torch.float32, device=self.device)
        self.steps, self.t = 0, len(nets)
        self.frozen: dict[str, Any] = {}  # per weight: the trials whose copy the next step leaves alone

    def per_trial(self, values: Sequence[float]) -> Any:
        """``values`` (one per trial) as a float32 tensor on the device."""
        torch = require_torch()
        return torch.tensor(values, dtype=torch.float32, device=self.device)

    def loss(self, x: Any, epoch: int, b: int, n_batches: int) -> tuple[Any, Any]:
        """Per-document losses (T x B) of the stacked minibatch ``x`` (minibatch ``b`` of
        ``n_batches`` in ``epoch``) and the summed penalty (or None)."""
        raise NotImplementedError

    def after_epoch(self, epoch: int) -> None:
        """Each trial's checkpoint after epoch ``epoch``."""
        raise NotImplementedError

    def step(self) -> None:
        """One Adam step of every trial with its own learning rate and L2 penalty (PyTorch's Adam);
        a weight without a gradient, or a trial's copy in :attr:`frozen`, is left alone."""
        torch = require_torch()
        self.steps += 1
        first, second = 1 - BETAS[0] ** self.steps, 1 - BETAS[1] ** self.steps
        with torch.no_grad():
            for name, weight in self.weights.items():
                if weight.grad is None:
                    continue
                shape = (self.t,) + (1,) * (weight.dim() - 1)
                mean, square = self.moments[name]
                frozen = self.frozen.get(name)
                before = None if frozen is None else (frozen.view(shape), weight.clone(), mean.clone(), square.clone())
                grad = weight.grad + self.decay.view(shape) * weight
                mean.lerp_(grad, 1 - BETAS[0])
                square.mul_(BETAS[1]).addcmul_(grad, grad, value=1 - BETAS[1])
                denominator = (square.sqrt() / second**0.5).add_(EPS)
                weight.addcdiv_(mean, denominator * (first / self.rate.view(shape)), value=-1.0)
                if before is not None:
                    for now, kept in zip((weight, mean, square), before[1:]):
                        now.copy_(torch.where(before[0], kept, now))
                weight.grad = None

    def unstack(self, trial: int) -> None:
        """Copy trial ``trial``'s current weights and statistics into its own network."""
        torch = require_torch()
        with torch.no_grad():
            for name, value in list(self.nets[trial].named_parameters()) + list(self.nets[trial].named_buffers()):
                stacked = self.weights.get(name, self.fixed.get(name))
                if stacked is not None:
                    value.copy_(stacked[trial])


class _EtmStack(_Stack):
    """ETM trials (module docstring): the batched forward pass, the document-completion criterion
    and each trial's checkpoint and annealed learning rate."""

    task, drop_last, reduction = "train etm", False, "mean"
    shared = ("word_embeddings",)  # ρ, one for all

    def __init__(
        self,
        nets: list[Any],
        generators: list[Any],
        params: list[dict[str, Any]],
        data: DocTerm,
        halves: tuple[DocTerm, ...],
    ) -> None:
        super().__init__(nets, generators, params, data)
        self.rho = nets[0].word_embeddings
        self.v, self.h = self.weights["encoder.0.weight_t"].shape[1:]
        self.checkpoints = [etm._Checkpoint(net, halves, p) for net, p in zip(nets, params)]
        self.rates = [p["learning_rate"] for p in params]
        self.completion = _completion(self, halves, params[0]["batch_size"])

    def encode(self, x: Any) -> tuple[Any, Any]:
        """(μ, log σ²), T x B x K, of the stacked minibatch ``x`` (T·B documents)."""
        torch = require_torch()
        w, t = self.weights, self.t
        bias = w["encoder.0.bias"].repeat_interleave(x.n_docs // t, dim=0)
        h = _sparse_product().apply(w["encoder.0.weight_t"].reshape(t * self.v, self.h), bias, x, x.shares)
        h = torch.relu(h).view(t, x.n_docs // t, self.h)
        h = torch.relu(torch.baddbmm(w["encoder.2.bias"][:, None], h, w["encoder.2.weight"].mT))
        mean = torch.baddbmm(w["mean.bias"][:, None], h, w["mean.weight"].mT)
        return mean, torch.baddbmm(w["log_variance.bias"][:, None], h, w["log_variance.weight"].mT)

    def log_word_probs(self, theta: Any, x: Any) -> Any:
        """log(Σ_k θ_dk φ_kv + 10⁻⁶) of every trial at the nonzeros of ``x`` (θ: T x B x K)."""
        torch = require_torch()
        beta = torch.softmax(torch.matmul(self.rho, self.weights["topic_embeddings.weight"].mT), dim=1)
        flat = beta.reshape(self.t * self.v, -1)
        mixture = torch.sparse.sampled_addmm(x.matrix(x.counts), theta.reshape(x.n_docs, -1), flat.t(), beta=0.0)
        return torch.log(mixture.values() + etm.LOG_EPS)

    def loss(self, x: Any, epoch: int, b: int, n_batches: int) -> tuple[Any, Any]:
        """−ELBO_d of every document of the stacked minibatch (T x B), as ``etm.minibatch_loss``; no penalty."""
        torch = require_torch()
        mean, log_variance = self.encode(x)
        noise = torch.stack([torch.randn(mean.shape[1:], generator=g, device=self.device) for g in self.generators])
        eta = mean + torch.exp(0.5 * log_variance) * noise
        reconstruction = -x.row_sums(x.counts * self.log_word_probs(torch.softmax(eta, dim=-1), x))
        kl = -0.5 * (1 + log_variance - mean.pow(2) - log_variance.exp()).sum(dim=2)
        return reconstruction.view(self.t, -1) + kl, None

    def after_epoch(self, epoch: int) -> None:
        values = self.completion()
        for t, best in enumerate(self.checkpoints):
            improved, self.rates[t] = best.observe(epoch, float(values[t]), self.rates[t])
            self.rate[t] = self.rates[t]
            if improved:
                self.unstack(t)
                best.state = copy_state(self.nets[t])


class _DvaeStack(_Stack):
    """D-VAE trials (module docstring): the batched loss with each trial's own dropout and
    Dirichlet draws, batch norm per trial, and each trial's NPMI checkpoint."""

    task, drop_last, reduction = "train dvae", True, "sum"

    def __init__(self, nets: list[Any], generators: list[Any], params: list[dict[str, Any]], data: DocTerm) -> None:
        torch = require_torch()
        super().__init__(nets, generators, params, data)
        self.v = self.weights["hidden.weight_t"].shape[1]
        present = dvae.present_words(data)
        self.checkpoints = [dvae._Checkpoint(net, present, p) for net, p in zip(nets, params)]
        alpha = torch.tensor([[p["alpha"]] for p in params], dtype=torch.float32, device=self.device)
        prior = alpha[:, None].expand(self.t, 1, params[0]["k"])  # T x 1 x K
        self.prior = torch.distributions.Dirichlet(prior, validate_args=False)
        self.beta_reg = self.per_trial([p["beta_reg"] for p in params])
        self.momentum = nets[0].topics_bn.momentum

    def draw(self, trial: int, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)`` drawing from trial ``trial``'s generator, put in PyTorch's global one for the call."""
        torch = require_torch()
        if self.device.type == "cuda":
            default = torch.cuda.default_generators[self.device.index or torch.cuda.current_device()]
        else:
            default = torch.default_generator
        saved = default.get_state()
        default.set_state(self.generators[trial].get_state())
        try:
            return call(*args)
        finally:
            self.generators[trial].set_state(default.get_state())
            default.set_state(saved)

    def norm(self, values: Any, name: str, active: Any) -> Any:
        """Batch norm ``name`` (training mode) of each trial's B documents (``values``: T x B x C),
        updating the running statistics of the ``active`` trials (all when None)."""
        torch = require_torch()
        t, n, c = values.shape
        mean, var = self.fixed[f"{name}.running_mean"], self.fixed[f"{name}.running_var"]
        running = (mean, var) if active is None else (mean.clone(), var.clone())
        flat = torch.nn.functional.batch_norm(
            values.transpose(0, 1).reshape(n, t * c),
            running[0].view(-1),
            running[1].view(-1),
            self.fixed[f"{name}.weight"].reshape(-1),
            self.weights[f"{name}.bias"].reshape(-1),
            training=True,
            momentum=self.momentum,
            eps=dvae.BN_EPS,
        )
        if active is not None:
            mean.copy_(torch.where(active[:, None], running[0], mean))
            var.copy_(torch.where(active[:, None], running[1], var))
        return flat.view(n, t, c).transpose(0, 1)

    def loss(self, x: Any, epoch: int, b: int, n_batches: int) -> tuple[Any, Any]:
        """Every trial's ``dvae.minibatch_loss`` of its minibatch (T x B) and the sum of their penalties."""
        torch = require_torch()
        functional, w, t, n = torch.nn.functional, self.weights, self.t, x.n_docs // self.t
        bias = w["hidden.bias"].repeat_interleave(n, dim=0)
        hidden = _sparse_product().apply(w["hidden.weight_t"].reshape(t * self.v, -1), bias, x, x.counts)
        hidden = torch.relu(hidden).view(t, n, -1)
        hidden = torch.stack(
            [self.draw(i, functional.dropout, hidden[i], p["dropout"], True) for i, p in enumerate(self.params)]
        )
        pre = torch.baddbmm(w["concentration.bias"][:, None], hidden, w["concentration.weight"].mT)
        concentration = functional.softplus(self.norm(pre, "concentration_bn", None)).clamp_min(dvae.MIN_CONCENTRATION)
        posterior = torch.distributions.Dirichlet(concentration, validate_args=False)
        theta = torch.stack([self.draw(i, _rsample, concentration[i]) for i in range(t)])
        logits = torch.baddbmm(w["topics.bias"][:, None], theta, w["topics.weight"].mT)  # T x B x V
        trial = x.doc // n
        at = x.doc * self.v + x.word - trial * self.v

        def softmax_at(values: Any) -> Any:
            return torch.exp(functional.log_softmax(values, dim=-1).reshape(-1)[at])

        bn = [annealing_factor(b, epoch, p["gamma_bn"], n_batches) for p in self.params]
        probs = self.per_trial(bn)[trial] * softmax_at(logits)
        self.frozen = {}
        if min(bn) < 1:
            active = torch.tensor([weight < 1 for weight in bn], device=self.device)
            normed = softmax_at(self.norm(logits, "topics_bn", active))
            probs = probs + self.per_trial([1 - weight for weight in bn])[trial] * normed
            self.frozen = {"topics_bn.bias": ~active}
        log_p = torch.log(probs + dvae.LOG_EPS)
        kl_weight = self.per_trial([annealing_factor(b, epoch, p["gamma_kl"], n_batches) for p in self.params])
        kl = torch.distributions.kl_divergence(posterior, self.prior)
        per_doc = -x.row_sums(x.counts * log_p).view(t, n) + kl_weight[:, None] * kl
        penalty = None
        if bool((self.beta_reg > 0).any()):
            l1 = w["topics.weight"].abs().sum(dim=(1, 2)) + w["topics.bias"].abs().sum(dim=1)
            penalty = (self.beta_reg * l1).sum()
        return per_doc, penalty

    def after_epoch(self, epoch: int) -> None:
        for t, best in enumerate(self.checkpoints):
            if best.observe(epoch, self.weights["topics.weight"][t].detach()):
                self.unstack(t)
                best.state = copy_state(self.nets[t])


def _rsample(concentration: Any) -> Any:
    """One reparameterised sample of Dirichlet(``concentration``), as ``dvae.minibatch_loss`` draws it."""
    return require_torch().distributions.Dirichlet(concentration, validate_args=False).rsample()


def _train(stack: _Stack, docs: list[np.ndarray], progress: ProgressCallback | None) -> list[list[list[float]]]:
    """The epochs of every trial at once (trial t's minibatches drawn from its documents ``docs[t]``);
    per trial its loss trace, the checkpoints kept by ``stack.after_epoch``."""
    torch = require_torch()
    epochs, size = stack.params[0]["epochs"], stack.params[0]["batch_size"]
    rngs = [minibatch_rng(p["seed"], stack.task) for p in stack.params]
    traces: list[list[list[float]]] = [[] for _ in stack.params]
    label = f"{stack.task} (batched)"
    notify(progress, label, 0, epochs)
    for epoch in range(epochs):
        orders = [minibatches(len(rows), size, rng, drop_last=stack.drop_last) for rows, rng in zip(docs, rngs)]
        total = torch.zeros(stack.t, dtype=torch.float64, device=stack.device)
        tokens = np.zeros(stack.t)
        for b in range(len(orders[0])):
            rows = [trial_docs[order[b]] for trial_docs, order in zip(docs, orders)]
            per_doc, penalty = stack.loss(stack.data.stacked(rows), epoch, b, len(orders[0]))
            objective = per_doc.sum() if stack.reduction == "sum" else per_doc.mean(dim=1).sum()
            (objective if penalty is None else objective + penalty).backward()
            stack.step()
            total += per_doc.detach().sum(dim=1)
            tokens += [stack.data.lengths[r].sum() for r in rows]
        per_word = total.cpu().numpy() / np.maximum(tokens, 1.0)
        for t, trace in enumerate(traces):
            if not np.isfinite(per_word[t]):
                raise InputError(
                    f"{stack.task}: the loss became {per_word[t]} in epoch {epoch + 1}; lower the learning rate"
                )
            trace.append([epoch + 1, float(per_word[t])])
        stack.after_epoch(epoch)
        notify(progress, label, epoch + 1, epochs)
    for t in range(stack.t):
        stack.unstack(t)  # the last epoch's weights: the model's unless a checkpoint kept another
    return traces


def _completion(stack: _EtmStack, halves: tuple[DocTerm, ...], size: int) -> Callable[[], np.ndarray]:
    """The document-completion criterion of every ETM trial (``etm.completion_loss``) as a function of
    the current weights; its stacked minibatches are built once."""
    torch = require_torch()
    first, second = halves
    parts = []
    for lo in range(0, first.n_docs, size):
        rows = np.arange(lo, min(lo + size, first.n_docs))
        parts.append((first.stacked([rows] * stack.t), second.stacked([rows] * stack.t)))

    def criterion() -> np.ndarray:
        if first.n_docs == 0:
            return np.full(stack.t, np.inf)
        total = torch.zeros(stack.t, dtype=torch.float64, device=stack.device)
        with torch.no_grad():
            for x1, x2 in parts:
                theta = torch.softmax(stack.encode(x1)[0], dim=-1)
                loss = -x2.row_sums(x2.counts * stack.log_word_probs(theta, x2)) / x2.lengths
                total += loss.view(stack.t, -1).sum(dim=1)
        return total.cpu().numpy() / first.n_docs

    return criterion
