"""``dvae``: the Dirichlet variational autoencoder (Burkhardt & Kramer 2019) as Hoyle et al. (2021,
§4.2, Appendix A.3) reimplemented it, in PyTorch.

Generative model, for a document of counts x_d:

θ_d ~ Dirichlet(α 1_K),    x_d ~ Multinomial(N_d, softmax(BN(B θ_d + b)))

with topic-word weights B (V x K) and a background bias b; the decoder is a product of experts
(ProdLDA, Srivastava & Sutton 2017), not a mixture Σ_k θ_dk φ_k. The encoder maps the counts to
Dirichlet concentrations, q(θ_d | x_d) = Dirichlet(a_d) with a_d = max(softplus(BN(W_2 relu(W_1
x_d + c_1) + c_2)), 10⁻⁵) (one hidden layer of ``encoder_dim`` units, dropout ``dropout``; batch
norm without scale, ε = 0.001), and training maximises the evidence lower bound

ELBO_d = E_q[log p(x_d | θ_d)] − KL(Dirichlet(a_d) ‖ Dirichlet(α 1_K))

with one pathwise (reparameterised) sample θ_d ~ q (``Dirichlet.rsample``, Jankowiak & Obermeyer
2018, as Hoyle et al. use instead of Burkhardt & Kramer's rejection sampler) and the KL in
closed form. Hoyle et al.'s additions, all in their Table 8b:

- KL annealing: the KL term is weighted by a factor rising linearly from 0.01 to 1 over the first
  ``gamma_kl`` epochs (Bowman et al. 2016);
- batch-norm annealing: the decoder's word distribution is λ softmax(Bθ + b) + (1 − λ)
  softmax(BN(Bθ + b)) with λ rising from 0.01 to 1 over ``gamma_bn`` epochs (Card et al. 2018):
  batch norm on the logits early on, none at the end; ``gamma_bn=0`` keeps batch norm throughout;
- an L1 penalty ``beta_reg`` (‖B‖₁ + ‖b‖₁) on the decoder weights (after Eisenstein et al. 2011),
  added to each minibatch's loss.

The loss of a minibatch is the sum over its documents of −E_q[log p(x_d | θ_d)] + w_KL KL_d
(log-probabilities with 10⁻¹⁰ added), plus the penalty; Adam with learning rate
``learning_rate``, β = (0.9, 0.999); minibatches of ``batch_size`` documents in a new random
order each epoch, the partial last one dropped.

Parameters, named as Hoyle et al.'s Table 8b (ranges there; defaults are their best setting for
NYT, †, as for ``lda-gibbs``): ``alpha`` α ∈ {0.001, 0.01, 0.1} (default 0.01); ``learning_rate``
η ∈ {0.001, 0.01} (0.01); ``beta_reg`` β_reg ∈ {0, 0.01, 0.1, 1} (0.1); ``gamma_bn`` γ_BN ∈ {0, 1,
100, 200} (200); ``gamma_kl`` γ_KL ∈ {100, 200} (200); ``epochs`` #Steps ∈ {200, 500} (500). Not in
the table, from their code's defaults: ``batch_size=200``, ``encoder_dim=100``, ``dropout=0.25``.

Output. Topic k is the row B_k of the decoder weights, ranked as Hoyle et al. rank it (by B_k
alone, without the background b); Φ_k = softmax(B_k), strictly positive. The prior α 1_K is
``alpha``; the network's weights are in ``extra`` (``net.*``). θ of a document is the posterior
mean a_d / Σ_k a_dk of the encoder in evaluation mode (no dropout; the encoder's batch norm uses
the mean and variance of its inputs over all training documents, computed after training), both
for the stored θ and for :func:`infer`.

Checkpoint, as Hoyle et al. ran the D-VAE (``runs/dvae-sweep.yml`` of ahoho/topics:
``target_metric: npmi``, ``eval_step: 2``, ``eval_path: train.dtm.npz``, ``eval_words: 10``):
with ``checkpoint="npmi"`` (the default) the model is scored after epochs 1, 1 + s, 1 + 2s, ...
(s = ``checkpoint_every``, 2; their ``epoch % eval_step == 0`` on epochs counted from 0) by the
mean over topics of the training NPMI of its top 10 words (:func:`training_npmi`), and the
weights of the best-scoring epoch (the later one of a tie) are kept: the topics, θ and
``extra`` are those of that epoch. ``checkpoint="last"`` keeps the last epoch (their code
without a ``target_metric``). The scores per epoch and the kept epoch are in
``manifest["training"]["checkpoint"]``. Departure: their best starts at 0, so a run whose
training NPMI never rises above 0 saves nothing; here the best epoch is always kept.

Since the decoder is not a mixture of the topics, the held-out likelihood estimators of Wallach
et al. (2009) do not apply and refuse the model (:class:`tealeaves.likelihood.NotAMixtureError`);
Chang et al.'s predictive metrics (the mixture Σ_k θ̂_dk φ_k of the topics with the encoder's θ̂)
and the coherence measures do.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from tealeaves.confirmation import Conventions, normalized_log_ratio
from tealeaves.corpus import Corpus
from tealeaves.errors import InputError
from tealeaves.models.hyperparameters import check_hyperparameters, count, one_of, positive, real
from tealeaves.models.neural._training import (
    Batch,
    DocTerm,
    annealing_factor,
    copy_state,
    encode_all,
    infer_with_encoder,
    normalise_rows,
    require_torch,
    resolve_device,
    sparse_linear,
    torch_session,
    train_epochs,
    weights_to_extra,
)
from tealeaves.models.topic_model import TopicModel
from tealeaves.progress import ProgressCallback

KIND = "dvae"
BN_EPS = 1e-3
MIN_CONCENTRATION = 1e-5
RULES = {
    "k": count(2, why="with one topic θ is always 1"),
    "alpha": positive(),
    "learning_rate": positive(),
    "beta_reg": real(0),
    "gamma_bn": count(0),
    "gamma_kl": count(1),
    "epochs": count(1),
    "batch_size": count(1),
    "encoder_dim": count(1),
    "dropout": real(0, 1, high_open=True),
    "checkpoint": one_of("npmi", "last", why="the epoch of the best NPMI, Hoyle et al.'s, or the last"),
    "checkpoint_every": count(1),
    "threads": count(1),
}
"""The ranges of :func:`fit`'s hyperparameters (:mod:`tealeaves.models.hyperparameters`); ``device`` is
:func:`~tealeaves.models.neural._training.resolve_device`'s to read."""
LOG_EPS = 1e-10
CHECKPOINT_WORDS = 10  # Hoyle et al.'s eval_words


def fit(
    corpus: Corpus,
    k: int,
    seed: int = 0,
    progress: ProgressCallback | None = None,
    *,
    alpha: float = 0.01,
    learning_rate: float = 0.01,
    beta_reg: float = 0.1,
    gamma_bn: int = 200,
    gamma_kl: int = 200,
    epochs: int = 500,
    batch_size: int = 200,
    encoder_dim: int = 100,
    dropout: float = 0.25,
    checkpoint: str = "npmi",
    checkpoint_every: int = 2,
    device: str = "auto",
    threads: int = 1,
) -> TopicModel:
    """Train the D-VAE; the model and every parameter are described in the module docstring.

    Parameters
    ----------
    corpus : Corpus
        The training documents.
    k : int
        The number of topics (at least 2).
    seed : int
        The seed of the weights' initialisation, the minibatch order, dropout and the samples.
    progress : callable, optional
        Called with a progress update after each epoch (the loss per word in its ``info``).
    alpha : float
        α, the symmetric Dirichlet prior on θ (Table 8b: 0.001, 0.01, 0.1).
    learning_rate : float
        η, Adam's learning rate (0.001, 0.01).
    beta_reg : float
        β_reg, the L1 penalty on the decoder weights (0, 0.01, 0.1, 1).
    gamma_bn : int
        γ_BN, epochs over which batch norm of the decoder logits is annealed away (0, 1, 100, 200;
        0 keeps it throughout).
    gamma_kl : int
        γ_KL, epochs over which the KL term's weight rises to 1 (100, 200).
    epochs : int
        #Steps, training epochs (200, 500).
    batch_size, encoder_dim, dropout : int, int, float
        Minibatch size, hidden units of the encoder and its dropout rate.
    checkpoint : str
        ``"npmi"``: keep the epoch whose top 10 words have the best training NPMI, as Hoyle et al.
        ran the model; ``"last"``: keep the last epoch.
    checkpoint_every : int
        With ``checkpoint="npmi"``, score every this many epochs, from the first (2).
    device : str
        ``"auto"`` (CUDA when available), ``"cpu"``, ``"cuda"``. On the CPU a seed gives the same
        model every time.
    threads : int
        PyTorch's CPU threads during training (restored afterwards); with the default 1 a seed gives
        the same model on any machine.

    Returns
    -------
    TopicModel
        Φ (softmax of the decoder's topic rows), α, θ (the encoder's posterior means), the
        parameters, the network's weights in ``extra`` and the loss per epoch in
        ``manifest["training"]["trace"]``.

    Examples
    --------
    Two planted topics, words 0 to 3 and words 4 to 7, and two epochs:

    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models.neural import dvae
    >>> docs = [[0, 1, 2, 3, 0, 1] * 3 if d % 2 else [4, 5, 6, 7, 4, 5] * 3 for d in range(40)]
    >>> corpus = Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(8)]))
    >>> model = dvae.fit(corpus, k=2, epochs=2, gamma_bn=1, gamma_kl=1, batch_size=20, device="cpu")
    >>> model.phi.shape, model.theta.shape
    ((2, 8), (40, 2))
    >>> model.manifest["training"]["trace"]  # [epoch, loss per word]
    [[1, ...], [2, ...]]
    >>> model.manifest["training"]["checkpoint"]["epoch"]  # scored after epoch 1 only
    1
    """
    params = _params(
        corpus,
        k,
        seed,
        alpha=alpha,
        learning_rate=learning_rate,
        beta_reg=beta_reg,
        gamma_bn=gamma_bn,
        gamma_kl=gamma_kl,
        epochs=epochs,
        batch_size=batch_size,
        encoder_dim=encoder_dim,
        dropout=dropout,
        checkpoint=checkpoint,
        checkpoint_every=checkpoint_every,
        device=device,
        threads=threads,
    )
    resolved = resolve_device(device)
    data = DocTerm.of(corpus, resolved)
    with session(seed, threads):
        net, trace, best = _train(data, len(corpus.vocab), params, resolved, progress)
        return model_of(corpus, net, data, params, trace, best, resolved)


def _params(corpus: Corpus, k: int, seed: int, **values: Any) -> dict[str, Any]:
    """The parameters of :func:`fit` checked (an :class:`InputError` naming a bad one) and recorded."""
    check_hyperparameters(KIND, RULES, {"k": k, **values})
    if len(corpus) < 2:
        raise InputError("dvae needs at least 2 training documents (batch norm needs two per minibatch)")
    require_torch()  # refused in one line before any work when PyTorch is missing
    return {
        "k": k,
        **{name: float(values[name]) for name in ("alpha", "learning_rate", "beta_reg")},
        **{name: int(values[name]) for name in ("gamma_bn", "gamma_kl", "epochs", "batch_size", "encoder_dim")},
        "dropout": float(values["dropout"]),
        "checkpoint": values["checkpoint"],
        "checkpoint_every": int(values["checkpoint_every"]),
        "device": values["device"],
        "threads": values["threads"],
        "seed": seed,
        "mixture_decoder": False,
    }


def session(seed: int, threads: int) -> Any:
    """The PyTorch session of one trial trained from ``seed`` (its weights', dropout's and samples' generators)."""
    return torch_session(seed, "train dvae", threads)


def model_of(
    corpus: Corpus,
    net: Any,
    data: DocTerm,
    params: dict[str, Any],
    trace: list[list[float]],
    best: _Checkpoint,
    device: Any,
) -> TopicModel:
    """The trained model of :func:`fit` (its network's kept checkpoint already loaded; inside the trial's :func:`session`)."""
    _set_population_statistics(net, data, params["batch_size"])
    theta = _posterior_mean(net, data, params["batch_size"])
    weights = net.topics.weight.detach().double().cpu().numpy().T  # K x V
    model = TopicModel(
        corpus.vocab,
        _softmax_rows(weights),
        alpha=np.full(params["k"], params["alpha"]),
        theta=theta,
        kind=KIND,
        params=params,
        extra=weights_to_extra(net),
    )
    model.manifest["training"] = {
        "objective": "training loss per word: -E_q log p(x | θ) + annealed KL (the L1 penalty excluded)",
        "trace": trace,
        "device": str(device),
        "checkpoint": best.record(),
    }
    return model


def _train(
    data: DocTerm, n_words: int, params: dict[str, Any], device: Any, progress: ProgressCallback | None
) -> tuple[Any, list[list[float]], _Checkpoint]:
    """Build the network and train it (in the caller's ``torch_session``), keeping the checkpoint's epoch."""
    torch = require_torch()
    net = _network(n_words, params).to(device)
    prior = torch.distributions.Dirichlet(
        torch.full((params["k"],), params["alpha"], device=device), validate_args=False
    )
    gamma_bn, gamma_kl, beta_reg = params["gamma_bn"], params["gamma_kl"], params["beta_reg"]

    def loss(rows: np.ndarray, epoch: int, b: int, n_batches: int) -> tuple[Any, Any]:
        weights = annealing_factor(b, epoch, gamma_bn, n_batches), annealing_factor(b, epoch, gamma_kl, n_batches)
        return minibatch_loss(net, prior, data.batch(rows), *weights, beta_reg)

    best = _Checkpoint(net, present_words(data), params)
    net.train()
    trace = train_epochs(
        net.parameters(),
        loss,
        data,
        epochs=params["epochs"],
        batch_size=params["batch_size"],
        learning_rate=params["learning_rate"],
        reduction="sum",
        drop_last=True,
        seed=params["seed"],
        task="train dvae",
        progress=progress,
        after_epoch=best,
    )
    best.restore()
    return net, trace, best


class _Checkpoint:
    """Hoyle et al.'s checkpoint (module docstring): after the first epoch and every ``checkpoint_every``-th
    after it, the training NPMI of each topic's top words; the weights of the best epoch are kept
    (``checkpoint="last"``: the last epoch's, nothing scored)."""

    def __init__(self, net: Any, present: sp.csc_matrix, params: dict[str, Any]) -> None:
        self.net, self.every, self.last = net, params["checkpoint_every"], params["checkpoint"] == "last"
        self.present = present
        self.npmi, self.epoch = -np.inf, params["epochs"]
        self.state: dict[str, Any] | None = None
        self.scores: list[list[float]] = []

    def __call__(self, epoch: int, _loss: float, _optimizer: Any) -> dict[str, float]:
        """The ``after_epoch`` of :func:`~tealeaves.models.neural._training.train_epochs`."""
        improved = self.observe(epoch, self.net.topics.weight)
        if improved:
            self.state = copy_state(self.net)
        return {"training_npmi": self.scores[-1][1]} if improved is not None else {}

    def observe(self, epoch: int, topics: Any) -> bool | None:
        """Score epoch ``epoch`` by the decoder weights ``topics`` (V x K) when it is a scored epoch:
        whether it is the best so far, so that its weights are to be kept (None: not scored)."""
        if self.last or epoch % self.every:
            return None
        with require_torch().no_grad():
            top = np.argsort(-topics.t().cpu().numpy(), axis=1, kind="stable")[:, :CHECKPOINT_WORDS]
        value = training_npmi(self.present, top)
        self.scores.append([epoch + 1, value])
        if value >= self.npmi:
            self.npmi, self.epoch = value, epoch + 1
            return True
        return False

    def restore(self) -> None:
        """Load the kept epoch's weights into the network (the last epoch's are in it otherwise)."""
        if self.state is not None:
            self.net.load_state_dict(self.state)

    def record(self) -> dict[str, Any]:
        """The checkpoint as the manifest records it."""
        criterion = (
            "last epoch"
            if self.last
            else f"training NPMI of the top {CHECKPOINT_WORDS} words (document co-occurrence), every {self.every} epochs"
        )
        return {
            "criterion": criterion,
            "epoch": self.epoch,
            "npmi": float(self.npmi) if self.scores else None,
            "trace": self.scores,
            "columns": ["epoch", "training NPMI"],
        }


def present_words(data: DocTerm) -> sp.csc_matrix:
    """1 where a training document holds a word (the checkpoint's NPMI counts; CSC)."""
    present = data.counts.tocsc()
    present.data[:] = 1.0
    return present


def minibatch_loss(
    net: Any, prior: Any, x: Batch, bn_weight: float, kl_weight: float, beta_reg: float
) -> tuple[Any, Any]:
    """The loss of minibatch ``x`` (module docstring): per document

    −Σ_v x_dv log(p_dv + 10⁻¹⁰) + w_KL KL(Dirichlet(a_d) ‖ prior),

    with θ_d ~ Dirichlet(a_d) drawn once by ``rsample`` and p_d = λ softmax(Bθ_d + b) + (1 − λ)
    softmax(BN(Bθ_d + b)), λ = ``bn_weight``, w_KL = ``kl_weight``; and the penalty
    β_reg (‖B‖₁ + ‖b‖₁), None when ``beta_reg`` is 0. Hoyle et al.'s SVI step minimises the sum of
    the first over the minibatch plus the second (their ``L1RegularizedTraceMeanField_ELBO``);
    ``benchmarks/neural_vs_reference.py --parts step`` checks both and their gradients against
    their code, with the same weights and random draws."""
    torch = require_torch()
    posterior = torch.distributions.Dirichlet(net.encode(x), validate_args=False)  # a_d >= 10⁻⁵ by construction
    theta = posterior.rsample()
    log_p = net.decode_log(theta, bn_weight, x)
    kl = torch.distributions.kl_divergence(posterior, prior)
    per_doc = -x.row_sums(x.counts * log_p) + kl_weight * kl
    penalty = None
    if beta_reg > 0:
        penalty = beta_reg * (net.topics.weight.abs().sum() + net.topics.bias.abs().sum())
    return per_doc, penalty


def training_npmi(present: sp.spmatrix, top: np.ndarray) -> float:
    """Hoyle et al.'s checkpoint criterion (ahoho/dvae ``utils.NPMI``): the mean over topics of the
    mean over the pairs i < j of a topic's top words of

    NPMI(w_i, w_j) = log(D D_ij / (D_i D_j)) / (log D − log D_ij),

    with D the documents of ``present`` (a binary documents × words matrix: the training
    documents), D_i those holding w_i and D_ij those holding both; a pair in no document scores 0
    (their convention, not NPMI's limit −1), a pair in every document 1.

    Parameters
    ----------
    present : scipy.sparse matrix
        1 where a document holds a word (CSC is fastest: columns are read).
    top : numpy.ndarray
        Each topic's top words, one row per topic, as column indices of ``present``.

    Returns
    -------
    float
        The mean NPMI.

    Examples
    --------
    Words 0 and 1 always together, word 2 in half the documents and never with word 0:

    >>> import numpy as np, scipy.sparse as sp
    >>> from tealeaves.models.neural.dvae import training_npmi
    >>> present = sp.csc_matrix(np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 1]]))
    >>> training_npmi(present, np.array([[0, 1]])), training_npmi(present, np.array([[0, 2]]))
    (1.0, 0.0)
    """
    words, position = np.unique(top, return_inverse=True)
    position = position.reshape(top.shape)
    columns = present[:, words]
    joint = (columns.T @ columns).toarray()
    marginal = np.diag(joint)
    first, second = np.triu_indices(top.shape[1], 1)
    a, b = position[:, first], position[:, second]
    values = normalized_log_ratio(joint[a, b], marginal[a], marginal[b], present.shape[0], Conventions(zero_pair=0.0))
    return float(values.mean())


def infer(
    model: TopicModel,
    corpus: Corpus,
    seed: int | np.random.Generator = 0,
    progress: ProgressCallback | None = None,
    batch_size: int = 1000,
    device: str = "cpu",
    threads: int = 1,
) -> np.ndarray:
    """θ̂_d = a_d / Σ_k a_dk, the mean of the encoder's Dirichlet posterior, in evaluation mode.

    Parameters
    ----------
    model : TopicModel
        A model trained by :func:`fit` (its network's weights are in ``extra``).
    corpus : Corpus
        Documents with the model's vocabulary.
    seed : int or numpy.random.Generator
        Accepted for the common interface and not used: the encoder is deterministic.
    progress : callable, optional
        Called with a progress update at the start and the end.
    batch_size : int
        Documents encoded at a time.
    device, threads : str, int
        As for :func:`fit` (``device="cpu"`` by default here).

    Returns
    -------
    numpy.ndarray
        θ̂, one row per document (float64, rows summing to 1).

    Examples
    --------
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models.neural import dvae
    >>> docs = [[0, 1, 2, 3, 0, 1] * 3 if d % 2 else [4, 5, 6, 7, 4, 5] * 3 for d in range(40)]
    >>> corpus = Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(8)]))
    >>> model = dvae.fit(corpus, k=2, epochs=2, gamma_bn=1, gamma_kl=1, batch_size=20, device="cpu")
    >>> theta = dvae.infer(model, corpus.subset([0, 1]))
    >>> theta.shape, theta.sum(axis=1).round(6).tolist()
    ((2, 2), [1.0, 1.0])
    """
    return infer_with_encoder(model, corpus, _network, _posterior_mean, progress, batch_size, device, threads)


def _network(n_words: int, params: dict[str, Any]) -> Any:
    """The encoder and decoder, built from the model's parameters."""
    torch = require_torch()
    nn, functional = torch.nn, torch.nn.functional
    module: Any = nn.Module
    k, hidden = int(params["k"]), int(params["encoder_dim"])

    def batch_norm(size: int) -> Any:
        # no learned scale (fixed at 1), as the NVDM / ProdLDA code Hoyle et al. follow
        layer = nn.BatchNorm1d(size, eps=BN_EPS, momentum=1e-3, affine=True)
        layer.weight.requires_grad_(False)
        return layer

    class DirichletVAE(module):
        def __init__(self) -> None:
            super().__init__()
            self.hidden = sparse_linear(n_words, hidden)
            self.dropout = nn.Dropout(float(params["dropout"]))
            self.concentration = nn.Linear(hidden, k)
            self.concentration_bn = batch_norm(k)
            self.topics = nn.Linear(k, n_words)
            self.topics_bn = batch_norm(n_words)

        def pre_norm(self, x: Batch) -> Any:
            return self.concentration(self.dropout(functional.relu(self.hidden(x, x.counts))))

        def encode(self, x: Batch) -> Any:
            return functional.softplus(self.concentration_bn(self.pre_norm(x))).clamp_min(MIN_CONCENTRATION)

        def decode_log(self, theta: Any, bn_weight: float, x: Batch) -> Any:
            """log p_dv at the nonzero counts of ``x``: the softmax needs every word's logit, the
            log of the (mixed) probabilities only those the loss multiplies by a nonzero count."""
            logits = self.topics(theta)
            at = x.doc * n_words + x.word

            def softmax_at(values: Any) -> Any:
                return torch.exp(functional.log_softmax(values, dim=1).reshape(-1)[at])

            probs = bn_weight * softmax_at(logits)
            if bn_weight < 1:
                probs = probs + (1 - bn_weight) * softmax_at(self.topics_bn(logits))
            return torch.log(probs + LOG_EPS)

    return DirichletVAE()


def _set_population_statistics(net: Any, data: DocTerm, batch_size: int) -> None:
    """Set the encoder's batch-norm mean and variance to those of its inputs over every training
    document (no dropout), so that evaluation mode normalises as training did on average."""
    torch = require_torch()
    net.eval()
    inputs = torch.from_numpy(encode_all(net.pre_norm, data, max(batch_size, 1000)))
    layer = net.concentration_bn
    layer.running_mean.copy_(inputs.mean(dim=0).to(layer.running_mean))
    layer.running_var.copy_(inputs.var(dim=0, unbiased=False).to(layer.running_var))


def _posterior_mean(net: Any, data: DocTerm, batch_size: int) -> np.ndarray:
    net.eval()
    concentrations = encode_all(net.encode, data, max(batch_size, 1000))
    return normalise_rows(concentrations) if len(concentrations) else concentrations


def _softmax_rows(weights: np.ndarray) -> np.ndarray:
    shifted = np.exp(weights - weights.max(axis=1, keepdims=True))
    return normalise_rows(shifted)
