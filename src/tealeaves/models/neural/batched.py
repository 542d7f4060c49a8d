"""Many trials at once: the trials of a sweep that train one ETM each on one corpus, as one
batched computation on one device.

Hoyle et al. (2021, §4.2) select each model from about 82 settings trained to the end (ETM: 500
or 1,000 epochs). One ETM's minibatch is a few milliseconds of a GPU's arithmetic, spread over
hundreds of small kernels: the device waits on their launches. Trained together, T trials make
every kernel T times larger and the launches are shared.

How. Each trial keeps its own network, initialised as its own :func:`~tealeaves.models.neural.etm.fit`
initialises it (its seed's ``torch_session``), its own minibatch order (its seed's stream), its
own random draws (a generator per trial holding its seed's PyTorch generator state after the
initialisation, so that ε ~ N(0, I) is the same sequence) and its own checkpoint and learning
rate. The T weight matrices of a layer are stacked into one tensor (T x ...): the encoder's
first layer multiplies the T minibatches as one block-diagonal sparse matrix (T·B x T·V, trial t's
documents in rows t·B…, its words in columns t·V…) by the stacked W^T (T·V x H), the dense
layers are batched products (``torch.baddbmm``), β_t = softmax(ρ α_t^T) is one product of ρ with
the stacked α, and θ_t β_t is sampled at every trial's nonzero counts by one SDDMM over the
block-diagonal matrix. The objective is the sum over trials of each trial's minibatch mean, whose
gradient with respect to trial t's weights is that trial's own. Adam (β = 0.9, 0.999, ε = 10⁻⁸,
L2 penalty W_decay added to the gradient, as PyTorch's) steps all trials at once with a learning
rate and a weight decay per trial (tensors of T), so that the annealing γ_η lowers one trial's rate.

Each trial equals its own run of ``etm.fit`` from the same seed: the same minibatches and random
draws, the same operations; only the products' blocking differs, so the losses agree to float32
rounding and the topics are the same (``tests/models/test_batched.py``).

What can be batched together: trials with the same corpus and network shapes and the same
minibatches' sizes, that is the same k, ``encoder_dim``, ``embedding_dim`` (and
``embedding_seed``: one ρ), ``batch_size`` and ``epochs`` (:func:`shape_key`); the learning
rate, the weight decay, γ_η and the seed may differ. What cannot: trials of different shapes
(another group each), ``validation_share > 0`` (each seed holds out other documents, so the
completion criterion's batches differ in size: such trials train one by one), and the D-VAE
(its Dirichlet samples and dropout draw from PyTorch's global generator inside
``torch.distributions``; its trials train one by one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import InputError
from tealeaves.models.neural import etm
from tealeaves.models.neural._training import (
    DocTerm,
    _sparse_product,
    copy_state,
    minibatch_rng,
    minibatches,
    require_torch,
    resolve_device,
)
from tealeaves.models.topic_model import TopicModel
from tealeaves.progress import ProgressCallback, notify

SHAPE = ("k", "encoder_dim", "embedding_dim", "embedding_seed", "batch_size", "epochs")
BYTES = 4  # float32
BETAS, EPS = (0.9, 0.999), 1e-8


def shape_key(params: dict[str, Any]) -> tuple[Any, ...]:
    """What trials must share to be trained as one batch: k, the network's sizes, the embeddings'
    seed, the minibatch size and the epochs (``etm.fit``'s defaults where ``params`` omits them).

    Parameters
    ----------
    params : dict
        A trial's ``k`` and ``etm.fit`` settings.

    Returns
    -------
    tuple
        The values of :data:`SHAPE`, in that order.

    Examples
    --------
    >>> from tealeaves.models.neural.batched import shape_key
    >>> shape_key({"k": 50, "learning_rate": 0.002, "epochs": 500})
    (50, 800, 300, 0, 1000, 500)
    """
    defaults = {"encoder_dim": 800, "embedding_dim": 300, "embedding_seed": 0, "batch_size": 1000, "epochs": 1000}
    return tuple(params.get(name, defaults.get(name)) for name in SHAPE)


def trial_bytes(n_words: int, n_docs: int, nonzeros: int, params: dict[str, Any]) -> int:
    """An estimate of one ETM trial's device memory in a batch, in bytes: its weights with their
    gradients and Adam's two moments (4 copies of V·H + H² + 2H·K + E·K), the kept checkpoint (one
    more), the decoder's V x K logits, β and their gradients (4 V·K), the minibatch's
    activations (8 B·H) and its nonzeros (ids, counts and the transposed copy: 8 per nonzero,
    with ``nonzeros / n_docs`` per document), and the completion halves' counts (12 per nonzero).

    Parameters
    ----------
    n_words, n_docs, nonzeros : int
        The corpus's vocabulary size V, documents and nonzero document-term counts.
    params : dict
        The trial's ``k`` and ``etm.fit`` settings.

    Returns
    -------
    int
        Bytes (float32 throughout).

    Examples
    --------
    20 Newsgroups as the sweep trains it, Dieng et al.'s network sizes:

    >>> from tealeaves.models.neural.batched import trial_bytes
    >>> round(trial_bytes(7316, 13133, 900_000, {"k": 50}) / 1e6)
    209
    """
    k, hidden, dims = shape_key(params)[0], shape_key(params)[1], shape_key(params)[2]
    batch = min(shape_key(params)[4], n_docs)
    weights = n_words * hidden + hidden * hidden + 2 * hidden * k + dims * k + 2 * hidden + 2 * k
    per_doc = nonzeros / max(n_docs, 1)
    return int(BYTES * (5 * weights + 4 * n_words * k + 8 * batch * hidden + 8 * batch * per_doc + 12 * nonzeros))


def fit_many(
    corpus: Corpus,
    trials: Sequence[dict[str, Any]],
    *,
    device: str = "auto",
    threads: int = 1,
    progress: ProgressCallback | None = None,
) -> list[TopicModel]:
    """Train several ETMs on ``corpus`` at once (module docstring); trial t's model is that of
    ``etm.fit(corpus, seed=..., **params)`` from its own settings.

    Parameters
    ----------
    corpus : Corpus
        The training documents, shared by every trial.
    trials : sequence of dict
        One dict per trial: ``k``, ``seed`` and the keyword arguments of
        :func:`~tealeaves.models.neural.etm.fit` (not ``validation``, ``device``, ``threads``).
        They must share :func:`shape_key`.
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
        Trials of different shapes, ``validation_share > 0``, or a bad setting (as ``etm.fit``).

    Examples
    --------
    Two settings of the planted two-topic corpus at once, equal to their own runs:

    >>> import os, tempfile
    >>> from unittest import mock
    >>> import numpy as np
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models.neural import batched, etm
    >>> docs = [[0, 1, 2, 3, 0, 1] * 3 if d % 2 else [4, 5, 6, 7, 4, 5] * 3 for d in range(40)]
    >>> corpus = Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(8)]))
    >>> small = {"k": 2, "epochs": 2, "batch_size": 20, "encoder_dim": 16, "embedding_dim": 8}
    >>> trials = [{**small, "seed": 0, "learning_rate": 0.02}, {**small, "seed": 1, "learning_rate": 0.002}]
    >>> with tempfile.TemporaryDirectory() as cache, mock.patch.dict(os.environ, {"TEALEAVES_CACHE": cache}):
    ...     models = batched.fit_many(corpus, trials, device="cpu")
    ...     alone = etm.fit(corpus, **trials[1], device="cpu")
    >>> bool(np.allclose(models[1].phi, alone.phi, atol=1e-5))
    True
    """
    if not trials:
        return []
    keys = {shape_key(trial) for trial in trials}
    if len(keys) > 1:
        raise InputError(f"trials trained as one batch must share {', '.join(SHAPE)}; group them by shape_key first")
    resolved = resolve_device(device)
    prepared = [_prepare(corpus, trial, device, threads) for trial in trials]
    first = prepared[0]
    embeddings, cache = etm.embeddings_of(corpus, first["params"], progress)
    data = DocTerm.of(corpus, resolved)
    halves = tuple(DocTerm(half, resolved) for half in etm.completion_halves(corpus))
    nets, generators = [], []
    for item in prepared:
        with etm.session(item["params"]["seed"], threads):
            net, generator = _initial(corpus, item["params"], embeddings, resolved)
        nets.append(net)
        generators.append(generator)
    torch = require_torch()
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        stack = _Stack(nets, generators, [item["params"] for item in prepared], resolved)
        traces, checkpoints = _train(stack, data, halves, prepared, progress)
    finally:
        torch.set_num_threads(before)
    models = []
    for net, item, trace, best in zip(nets, prepared, traces, checkpoints):
        best.restore()
        with etm.session(item["params"]["seed"], threads):
            models.append(etm.model_of(corpus, net, data, item["params"], trace, best, item["split"], cache))
    return models


def _prepare(corpus: Corpus, trial: dict[str, Any], device: str, threads: int) -> dict[str, Any]:
    """A trial's checked parameters and training documents, as ``etm.fit`` checks them."""
    options = {name: value for name, value in trial.items() if name not in ("k", "seed")}
    if options.get("validation_share", 0.0):
        raise InputError("etm trials with validation_share > 0 hold out different documents: train them one by one")
    unknown = set(options) - set(etm.fit.__kwdefaults__ or {}) | ({"validation", "device", "threads"} & set(options))
    if unknown:
        raise InputError(
            f"fit_many takes etm.fit's settings except validation, device and threads; got {sorted(unknown)}"
        )
    settings = {**(etm.fit.__kwdefaults__ or {}), **options, "device": device, "threads": threads}
    settings.pop("validation")
    params = etm._params(int(trial["k"]), int(trial.get("seed", 0)), **settings)
    docs, _, split = etm._validation_split(corpus, None, 0.0, params["seed"])
    if len(docs) < 1 or corpus.n_tokens == 0:
        raise InputError("etm needs at least one training document with tokens")
    return {"params": params, "docs": docs, "split": split}


def _initial(corpus: Corpus, params: dict[str, Any], embeddings: np.ndarray, device: Any) -> tuple[Any, Any]:
    """A trial's network as ``etm.fit`` initialises it (inside its session), and a generator that
    continues its session's stream of random draws on ``device``."""
    torch = require_torch()
    net = etm._network(len(corpus.vocab), params).to(device)
    net.word_embeddings.copy_(torch.from_numpy(embeddings))
    generator = torch.Generator(device=device)
    generator.set_state(torch.cuda.get_rng_state(device) if device.type == "cuda" else torch.get_rng_state())
    return net, generator


class _Stack:
    """The trials' trainable weights stacked (T x ...), Adam's moments, the per-trial learning
    rates and weight decays, and the batched forward pass (module docstring)."""

    def __init__(self, nets: list[Any], generators: list[Any], params: list[dict[str, Any]], device: Any) -> None:
        torch = require_torch()
        self.nets, self.generators, self.device = nets, generators, device
        names = [name for name, weight in nets[0].named_parameters() if weight.requires_grad]
        self.weights = {
            name: torch.stack([dict(net.named_parameters())[name].detach() for net in nets]).requires_grad_()
            for name in names
        }
        self.rho = nets[0].word_embeddings
        self.moments = {name: (torch.zeros_like(w), torch.zeros_like(w)) for name, w in self.weights.items()}
        self.rate = torch.tensor([p["learning_rate"] for p in params], dtype=torch.float32, device=device)
        self.decay = torch.tensor([p["weight_decay"] for p in params], dtype=torch.float32, device=device)
        self.steps = 0
        self.t, (self.v, self.h) = len(nets), self.weights["encoder.0.weight_t"].shape[1:]

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

    def loss(self, x: Any) -> Any:
        """−ELBO_d of every document of the stacked minibatch (T x B), as ``etm.minibatch_loss``."""
        torch = require_torch()
        mean, log_variance = self.encode(x)
        noise = torch.stack([torch.randn(mean.shape[1:], generator=g, device=self.device) for g in self.generators])
        eta = mean + torch.exp(0.5 * log_variance) * noise
        reconstruction = -x.row_sums(x.counts * self.log_word_probs(torch.softmax(eta, dim=-1), x))
        kl = -0.5 * (1 + log_variance - mean.pow(2) - log_variance.exp()).sum(dim=2)
        return reconstruction.view(self.t, -1) + kl

    def step(self) -> None:
        """One Adam step of every trial with its own learning rate and L2 penalty (PyTorch's Adam)."""
        torch = require_torch()
        self.steps += 1
        first, second = 1 - BETAS[0] ** self.steps, 1 - BETAS[1] ** self.steps
        with torch.no_grad():
            for name, weight in self.weights.items():
                shape = (self.t,) + (1,) * (weight.dim() - 1)
                grad = weight.grad + self.decay.view(shape) * weight
                mean, square = self.moments[name]
                mean.lerp_(grad, 1 - BETAS[0])
                square.mul_(BETAS[1]).addcmul_(grad, grad, value=1 - BETAS[1])
                denominator = (square.sqrt() / second**0.5).add_(EPS)
                weight.addcdiv_(mean, denominator * (first / self.rate.view(shape)), value=-1.0)
                weight.grad = None

    def unstack(self, trial: int) -> None:
        """Copy trial ``trial``'s current weights into its own network."""
        torch = require_torch()
        with torch.no_grad():
            for name, weight in self.nets[trial].named_parameters():
                if name in self.weights:
                    weight.copy_(self.weights[name][trial])


def _train(
    stack: _Stack,
    data: DocTerm,
    halves: tuple[DocTerm, ...],
    prepared: list[dict[str, Any]],
    progress: ProgressCallback | None,
) -> tuple[list[list[list[float]]], list[Any]]:
    """The epochs of every trial at once: per trial its loss trace and its checkpoint."""
    torch = require_torch()
    params = [item["params"] for item in prepared]
    epochs, size = params[0]["epochs"], params[0]["batch_size"]
    rngs = [minibatch_rng(p["seed"], "train etm") for p in params]
    checkpoints = [etm._Checkpoint(net, halves, p) for net, p in zip(stack.nets, params)]
    completion = _completion(stack, halves, size)
    traces: list[list[list[float]]] = [[] for _ in params]
    rates = [p["learning_rate"] for p in params]
    notify(progress, "train etm (batched)", 0, epochs)
    for epoch in range(epochs):
        orders = [minibatches(len(item["docs"]), size, rng, drop_last=False) for item, rng in zip(prepared, rngs)]
        total = torch.zeros(stack.t, dtype=torch.float64, device=stack.device)
        tokens = np.zeros(stack.t)
        for b in range(len(orders[0])):
            rows = [item["docs"][order[b]] for item, order in zip(prepared, orders)]
            per_doc = stack.loss(data.stacked(rows))
            per_doc.mean(dim=1).sum().backward()
            stack.step()
            total += per_doc.detach().sum(dim=1)
            tokens += [data.lengths[r].sum() for r in rows]
        per_word = total.cpu().numpy() / np.maximum(tokens, 1.0)
        values = completion()
        for t, (best, trace) in enumerate(zip(checkpoints, traces)):
            if not np.isfinite(per_word[t]):
                raise InputError(
                    f"train etm: the loss became {per_word[t]} in epoch {epoch + 1}; lower the learning rate"
                )
            trace.append([epoch + 1, float(per_word[t])])
            improved, rates[t] = best.observe(epoch, float(values[t]), rates[t])
            stack.rate[t] = rates[t]
            if improved:
                stack.unstack(t)
                best.state = copy_state(stack.nets[t])
        notify(progress, "train etm (batched)", epoch + 1, epochs)
    return traces, checkpoints


def _completion(stack: _Stack, halves: tuple[DocTerm, ...], size: int) -> Callable[[], np.ndarray]:
    """The document-completion criterion of every trial (``etm.completion_loss``) as a function of
    the current weights; its stacked minibatches are built once."""
    torch = require_torch()
    first, second = halves
    parts = []
    for lo in range(0, first.n_docs, size):
        rows = np.arange(lo, min(lo + size, first.n_docs))
        parts.append(
            (
                first.stacked([rows] * stack.t),
                second.stacked([rows] * stack.t),
            )
        )

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
