"""``etm``: the Embedded Topic Model (Dieng, Ruiz & Blei 2020) as Hoyle et al. (2021, §4.2,
Appendix A.3) trained it, in PyTorch.

Generative model: every word v has an embedding ρ_v ∈ R^E and every topic k an embedding
α_k ∈ R^E; topic k's word distribution is

φ_k = softmax_v(ρ_v · α_k),

and a document draws η_d ~ N(0, I_K), θ_d = softmax(η_d) (a logistic-normal prior, not a
Dirichlet), then each word from the mixture Σ_k θ_dk φ_k. The encoder maps the normalised
counts x_d / N_d through two ReLU layers of ``encoder_dim`` units to a Gaussian q(η_d | x_d) =
N(μ_d, diag σ²_d), and training maximises the evidence lower bound

ELBO_d = E_q[Σ_v x_dv log(Σ_k θ_dk φ_kv + 10⁻⁶)] − KL(N(μ_d, σ²_d) ‖ N(0, I))

with one reparameterised sample per document (Kingma & Welling 2014) and the Gaussian KL in
closed form; each minibatch minimises the mean over its documents of −ELBO_d, with Adam, its L2
penalty ``weight_decay`` on every weight, as in Dieng et al.'s code (``main.py``). The word
embeddings ρ are skip-gram embeddings learned on the training corpus and kept fixed, as Hoyle
et al. did following Dieng et al.: gensim's ``Word2Vec`` with Dieng et al.'s ``skipgram.py``
settings (300 dimensions, window 4, 10 negative samples, 5 epochs; every word of the vocabulary
counted, one worker and the seed so that the embeddings are reproducible); a vocabulary word the
corpus never uses gets a N(0, 0.6²) vector, as their loader does.

Learning-rate annealing (``anneal_lr``, Dieng et al.'s ``--anneal_lr`` with ``--nonmono 10``
and ``--lr_factor 4``): a random ``validation_share`` of the training documents is held out of
the updates, and after each epoch, when the validation loss (the reconstruction loss per word of
those documents with θ = softmax(μ_d)) is higher than the lowest loss of all epochs but the last
10, and the learning rate is above 10⁻⁵, the learning rate is divided by 4. Without annealing
every document is trained on.

Parameters, named as Hoyle et al.'s Table 8c (ranges there; defaults are their best setting for
NYT, †, as for ``lda-gibbs``): ``learning_rate`` η ∈ {0.001, 0.002, 0.01, 0.02} (0.02);
``weight_decay`` W_decay ∈ {1.2e-5, 1.2e-6, 1.2e-7} (1.2e-6); ``anneal_lr`` γ_η ∈ {0, 1} (0);
``epochs`` #Steps ∈ {500, 1000} (1000). From Dieng et al.'s defaults: ``batch_size=1000``,
``encoder_dim=800``, ``embedding_dim=300``.

Output: Φ the φ_k above (strictly positive), ``alpha`` None (the prior is logistic normal: the
Wallach et al. estimators, which need a Dirichlet, refuse the model; Chang et al.'s predictive
metrics apply, the decoder being the mixture they score), θ of a document softmax(μ_d), θ at
the mean of q(η_d), as Dieng et al.'s evaluation uses it (E_q[softmax(η)] has no closed form),
for the stored θ and for :func:`infer`; the network's weights, ρ included, in ``extra``
(``net.*``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import InputError, MissingDependencyError
from tealeaves.models.neural._training import (
    DocTerm,
    check_count,
    check_positive,
    encode_all,
    infer_with_encoder,
    normalise_rows,
    require_torch,
    resolve_device,
    torch_session,
    train_epochs,
    weights_to_extra,
)
from tealeaves.models.topic_model import TopicModel
from tealeaves.progress import ProgressCallback, notify
from tealeaves.rng import family_generator, family_seed, word_hash

KIND = "etm"
LOG_EPS = 1e-6
SKIP_GRAM = {"window": 4, "negative": 10, "epochs": 5}  # Dieng et al.'s skipgram.py
UNSEEN_SCALE = 0.6
NONMONO, LR_FACTOR, MIN_LR = 10, 4.0, 1e-5


def fit(
    corpus: Corpus,
    k: int,
    seed: int = 0,
    progress: ProgressCallback | None = None,
    *,
    learning_rate: float = 0.02,
    weight_decay: float = 1.2e-6,
    anneal_lr: bool = False,
    epochs: int = 1000,
    batch_size: int = 1000,
    encoder_dim: int = 800,
    embedding_dim: int = 300,
    validation_share: float = 0.1,
    device: str = "auto",
    threads: int = 1,
) -> TopicModel:
    """Train the ETM; the model and every parameter are described in the module docstring.

    Parameters
    ----------
    learning_rate : float
        η, Adam's learning rate (Table 8c: 0.001, 0.002, 0.01, 0.02).
    weight_decay : float
        W_decay, Adam's L2 penalty (1.2e-5, 1.2e-6, 1.2e-7).
    anneal_lr : bool
        γ_η: divide the learning rate by 4 when the validation loss stops improving for 10 epochs.
    epochs : int
        #Steps, training epochs (500, 1000).
    batch_size, encoder_dim, embedding_dim : int
        Minibatch size, hidden units of the encoder, dimension of the skip-gram embeddings.
    validation_share : float
        With ``anneal_lr``, the share of the training documents held out for the validation loss.
    device : str
        ``"auto"`` (CUDA when available), ``"cpu"``, ``"cuda"``. On the CPU a seed gives the same
        model every time.
    threads : int
        PyTorch's CPU threads during training (restored afterwards); with the default 1 a seed gives
        the same model on any machine.
    """
    check_positive(KIND, learning_rate=learning_rate)
    check_count(
        KIND,
        1,
        epochs=epochs,
        batch_size=batch_size,
        encoder_dim=encoder_dim,
        embedding_dim=embedding_dim,
        threads=threads,
    )
    if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float)) or not weight_decay >= 0:
        raise InputError(f"etm needs weight_decay >= 0, got {weight_decay!r}")
    if anneal_lr not in (True, False):  # also 0 and 1, Hoyle et al.'s indicator
        raise InputError(f"etm needs anneal_lr to be true or false (1 or 0), got {anneal_lr!r}")
    if isinstance(validation_share, bool) or not isinstance(validation_share, (int, float)):
        raise InputError(f"etm needs validation_share between 0 and 1, got {validation_share!r}")
    if k < 2:
        raise InputError("etm needs k >= 2: with one topic θ is always 1")
    docs = np.arange(len(corpus))
    validation = np.zeros(0, dtype=np.int64)
    if anneal_lr:
        n_valid = round(validation_share * len(corpus))
        if not 0 < validation_share < 1 or n_valid < 1 or n_valid >= len(corpus):
            raise InputError(
                f"etm with anneal_lr holds out validation_share of the {len(corpus)} documents: it must leave "
                f"at least one document on each side, got {validation_share!r}"
            )
        order = family_generator(seed, "train etm validation").permutation(len(corpus))
        validation, docs = np.sort(order[:n_valid]), np.sort(order[n_valid:])
    if len(docs) < 1 or corpus.n_tokens == 0:
        raise InputError("etm needs at least one training document with tokens")
    torch = require_torch()
    resolved = resolve_device(device)
    params: dict[str, Any] = {
        "k": k,
        "learning_rate": float(learning_rate),
        "weight_decay": float(weight_decay),
        "anneal_lr": bool(anneal_lr),
        "epochs": int(epochs),
        "batch_size": int(batch_size),
        "encoder_dim": int(encoder_dim),
        "embedding_dim": int(embedding_dim),
        "validation_share": float(validation_share),
        "device": device,
        "threads": threads,
        "seed": seed,
    }
    notify(progress, "train etm: skip-gram embeddings", 0, 1)
    embeddings = skip_gram_embeddings(corpus, embedding_dim, seed)
    notify(progress, "train etm: skip-gram embeddings", 1, 1)
    data = DocTerm.of(corpus, resolved)
    validation_trace: list[list[float]] = []
    with torch_session(seed, "train etm", threads):
        net = _network(len(corpus.vocab), params).to(resolved)
        net.word_embeddings.copy_(torch.from_numpy(embeddings))

        def loss(rows: np.ndarray, epoch: int, b: int, n_batches: int) -> tuple[Any, None]:
            x = data.batch(rows)
            mu, log_variance = net.encode(x)
            eta = mu + torch.exp(0.5 * log_variance) * torch.randn_like(mu)
            reconstruction = -(x * net.log_word_probs(torch.softmax(eta, dim=-1))).sum(dim=1)
            kl = -0.5 * (1 + log_variance - mu.pow(2) - log_variance.exp()).sum(dim=1)
            return reconstruction + kl, None

        def anneal(epoch: int, _loss: float, optimizer: Any) -> dict[str, float]:
            net.eval()
            rows = DocTerm(data.counts[validation], resolved)
            value = _reconstruction_per_word(net, rows, batch_size)
            net.train()
            group = optimizer.param_groups[0]
            group["lr"] = annealed_learning_rate([row[1] for row in validation_trace], value, group["lr"])
            validation_trace.append([epoch + 1, value, group["lr"]])
            return {"validation_loss_per_word": value, "learning_rate": group["lr"]}

        net.train()
        trace = train_epochs(
            [p for p in net.parameters() if p.requires_grad],
            loss,
            data,
            epochs=epochs,
            batch_size=batch_size,
            learning_rate=learning_rate,
            weight_decay=weight_decay,
            reduction="mean",
            seed=seed,
            task="train etm",
            progress=progress,
            after_epoch=anneal if anneal_lr else None,
            docs=docs,
        )
        net.eval()
        theta = _theta(net, data, batch_size)
    model = TopicModel(
        corpus.vocab,
        _topics(net),
        alpha=None,
        theta=theta,
        kind=KIND,
        params=params,
        extra=weights_to_extra(net),
    )
    model.manifest["training"] = {
        "objective": "negative evidence lower bound per word (reconstruction + KL)",
        "trace": trace,
        "device": str(resolved),
        "embeddings": {"method": "gensim Word2Vec skip-gram", "dimensions": embedding_dim, **SKIP_GRAM},
    }
    if anneal_lr:
        model.manifest["training"]["validation"] = {
            "documents": len(validation),
            "trace": validation_trace,
            "columns": ["epoch", "reconstruction loss per word", "learning rate after the epoch"],
        }
    return model


def infer(
    model: TopicModel,
    corpus: Corpus,
    seed: int | np.random.Generator = 0,
    progress: ProgressCallback | None = None,
    batch_size: int = 1000,
    device: str = "cpu",
    threads: int = 1,
) -> np.ndarray:
    """θ̂_d = softmax(μ_d), the encoder's θ at the mean of q(η_d).

    Deterministic: ``seed`` is accepted for the common interface and not used; ``device`` and
    ``threads`` as for training.
    """
    return infer_with_encoder(model, corpus, _network, _theta, progress, batch_size, device, threads)


def annealed_learning_rate(history: list[float], value: float, rate: float) -> float:
    """Dieng et al.'s rule: the learning rate divided by 4 when this epoch's validation loss
    ``value`` is above the lowest of ``history`` (the earlier epochs) but its last 10, and the
    rate is above 10⁻⁵; otherwise unchanged."""
    earlier = history[:-NONMONO]
    if earlier and value > min(earlier) and rate > MIN_LR:
        return rate / LR_FACTOR
    return rate


def skip_gram_embeddings(corpus: Corpus, dimensions: int, seed: int) -> np.ndarray:
    """float32[V, ``dimensions``]: skip-gram vectors of the vocabulary learned on ``corpus`` (see the
    module docstring); reproducible for a seed."""
    try:
        from gensim.models import Word2Vec  # type: ignore[import-untyped]
    except ImportError as exc:
        raise MissingDependencyError(
            "etm learns its word embeddings with gensim: pip install 'tealeaves[neural]'"
        ) from exc
    words = corpus.vocab.words
    sentences = [[words[t] for t in corpus.doc(d)] for d in range(len(corpus))]
    w2v = Word2Vec(
        sentences,
        vector_size=dimensions,
        min_count=1,
        sg=1,
        workers=1,
        seed=family_seed(seed, "etm skip-gram") % 2**31,
        hashfxn=word_hash,
        **SKIP_GRAM,
    )
    fallback = family_generator(seed, "etm unseen words")
    vectors = np.empty((len(words), dimensions), dtype=np.float32)
    for i, word in enumerate(words):
        if word in w2v.wv.key_to_index:
            vectors[i] = w2v.wv[word]
        else:
            vectors[i] = fallback.normal(scale=UNSEEN_SCALE, size=dimensions)
    return vectors


def _network(n_words: int, params: dict[str, Any]) -> Any:
    """The ETM's encoder, topic embeddings and fixed word embeddings, built from its parameters."""
    torch = require_torch()
    nn = torch.nn
    module: Any = nn.Module
    k, hidden, dims = int(params["k"]), int(params["encoder_dim"]), int(params["embedding_dim"])

    class EmbeddedTopicModel(module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("word_embeddings", torch.zeros(n_words, dims))
            self.topic_embeddings = nn.Linear(dims, k, bias=False)
            self.encoder = nn.Sequential(nn.Linear(n_words, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            self.mean = nn.Linear(hidden, k)
            self.log_variance = nn.Linear(hidden, k)

        def encode(self, x: Any) -> tuple[Any, Any]:
            h = self.encoder(x / x.sum(dim=1, keepdim=True).clamp_min(1.0))
            return self.mean(h), self.log_variance(h)

        def log_word_probs(self, theta: Any) -> Any:
            beta = torch.softmax(self.topic_embeddings(self.word_embeddings), dim=0).T  # K x V
            return torch.log(theta @ beta + LOG_EPS)

    return EmbeddedTopicModel()


def _reconstruction_per_word(net: Any, data: DocTerm, batch_size: int) -> float:
    torch = require_torch()
    total = 0.0
    with torch.no_grad():
        for lo in range(0, data.n_docs, batch_size):
            x = data.batch(np.arange(lo, min(lo + batch_size, data.n_docs)))
            theta = torch.softmax(net.encode(x)[0], dim=-1)
            total += float(-(x * net.log_word_probs(theta)).sum())
    return total / max(float(data.lengths.sum()), 1.0)


def _topics(net: Any) -> np.ndarray:
    """φ_k = softmax_v(ρ_v · α_k) in float64."""
    rho = net.word_embeddings.detach().double().cpu().numpy()
    alphas = net.topic_embeddings.weight.detach().double().cpu().numpy()
    logits = alphas @ rho.T
    return normalise_rows(np.exp(logits - logits.max(axis=1, keepdims=True)))


def _theta(net: Any, data: DocTerm, batch_size: int) -> np.ndarray:
    torch = require_torch()
    theta = encode_all(lambda x: torch.softmax(net.encode(x)[0].double(), dim=-1), data, batch_size)
    return normalise_rows(theta) if len(theta) else theta
