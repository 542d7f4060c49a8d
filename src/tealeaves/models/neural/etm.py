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
penalty ``weight_decay`` on every weight, as in Dieng et al.'s code (``main.py``). Every document is
used in every epoch: the last minibatch is what remains after the full ones (their ``torch.split``).

Word embeddings: ρ are skip-gram embeddings learned on the training corpus and kept fixed, as
Hoyle et al. did following Dieng et al.: gensim's ``Word2Vec`` with Dieng et al.'s ``skipgram.py``
settings (300 dimensions, window 4, 10 negative samples, 5 epochs; every word of the vocabulary
counted, one worker and ``embedding_seed``, so that the embeddings are reproducible); a vocabulary
word the corpus never uses gets a N(0, 0.6²) vector, as their loader does. The authors learned
them once per corpus and every run read the same file; here they are cached on disk, under
``$TEALEAVES_CACHE/etm-embeddings`` (:func:`tealeaves.artifacts.cache_root`), keyed by the corpus
fingerprint, the dimensions, the skip-gram settings, ``embedding_seed`` and gensim's version
(:func:`cached_skip_gram_embeddings`): every trial of a sweep on one corpus trains them once,
and a different corpus or setting gets its own file. ``embedding_seed`` is not the trial's
``seed``, so trials with different seeds share the embeddings, as the authors' did.

Checkpoint and learning-rate annealing, as in the authors' ``main.py`` (ahoho/ETM, Dieng et al.'s
loop): every document of ``corpus`` is trained on, and after each epoch the model is scored by
document completion: each validation document's tokens are cut in two in their order (the first
⌊N_d/2⌋ and the rest, as Dieng et al.'s data scripts cut them), θ_d = softmax(μ_d) is encoded from
the first half, and the criterion is the mean over documents of the loss per word of the second
half, −Σ_{v ∈ half 2} log(Σ_k θ_dk φ_kv + 10⁻⁶) / N_d^(2) (its exponential is their "Doc
Completion PPL"). The weights of the epoch with the lowest criterion are kept (their
checkpoint); with ``anneal_lr`` (``--anneal_lr`` with ``--nonmono 10`` and ``--lr_factor 4``),
when the criterion is higher than the lowest of all epochs but the last 10, and the learning
rate is above 10⁻⁵, the rate is divided by 4. The validation split: ``validation``, a corpus
with the training vocabulary (a held-out split; what the authors scored was the halves of their
test split, which their ``evaluate(model, 'val')`` reads whatever its argument), or, without it,
the training documents themselves (in-sample document completion, the default: no document is
withheld from training); ``validation_share > 0`` instead holds that random share of the
training documents out of training and scores them. Documents with fewer than 2 tokens are not
scored. Departures, small: the authors ran ``epochs − 1`` epochs (``range(1, epochs)``), rounded
the perplexity to 0.1 before comparing, averaged per-batch means and took log(θφ) without the
10⁻⁶; here ``epochs`` epochs, the unrounded criterion, the mean over documents, and the 10⁻⁶ of
training.

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
(``net.*``), those of the kept checkpoint; the criterion per epoch, the kept epoch and the
embeddings' cache file in ``manifest["training"]``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from tealeaves.artifacts import atomic_file, cache_root
from tealeaves.corpus import Corpus
from tealeaves.errors import InputError, MissingDependencyError
from tealeaves.models.hyperparameters import check_hyperparameters, count, one_of, positive, real
from tealeaves.models.neural._training import (
    Batch,
    DocTerm,
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
from tealeaves.progress import ProgressCallback, notify
from tealeaves.rng import family_generator, family_seed, word_hash

KIND = "etm"
LOG_EPS = 1e-6
SKIP_GRAM = {"window": 4, "negative": 10, "epochs": 5}  # Dieng et al.'s skipgram.py
UNSEEN_SCALE = 0.6
DIENG = "Dieng et al.'s"
RULES = {
    "k": count(2, why="with one topic θ is always 1"),
    "learning_rate": positive(also={"lr": DIENG}),
    "weight_decay": real(0, also={"wdecay": DIENG}),
    "anneal_lr": one_of(False, True),  # also 0 and 1, Hoyle et al.'s indicator
    "epochs": count(1),
    "batch_size": count(1),
    "encoder_dim": count(1, also={"t_hidden_size": DIENG}),
    "embedding_dim": count(1, also={"rho_size": DIENG, "emb_size": DIENG}),
    "validation_share": real(0, 1, high_open=True),
    "embedding_seed": count(0),
    "threads": count(1),
}
"""The ranges of :func:`fit`'s hyperparameters (:mod:`tealeaves.models.hyperparameters`); ``device`` is
:func:`~tealeaves.models.neural._training.resolve_device`'s to read, ``validation`` a corpus."""
NONMONO, LR_FACTOR, MIN_LR = 10, 4.0, 1e-5
NEEDS_GENSIM = "etm learns its word embeddings with gensim: pip install 'tealeaves[neural]'"


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
    validation: Corpus | str | os.PathLike[str] | None = None,
    validation_share: float = 0.0,
    embedding_seed: int = 0,
    device: str = "auto",
    threads: int = 1,
) -> TopicModel:
    """Train the ETM; the model and every parameter are described in the module docstring.

    Parameters
    ----------
    corpus : Corpus
        The training documents (and the skip-gram embeddings' corpus).
    k : int
        The number of topics (at least 2).
    seed : int
        The seed of the weights' initialisation, the minibatch order, the samples and the
        ``validation_share`` split (not of the embeddings: ``embedding_seed``).
    progress : callable, optional
        Called with a progress update after each epoch (loss per word, completion criterion and
        learning rate in its ``info``).
    learning_rate : float
        η, Adam's learning rate (Table 8c: 0.001, 0.002, 0.01, 0.02).
    weight_decay : float
        W_decay, Adam's L2 penalty (1.2e-5, 1.2e-6, 1.2e-7).
    anneal_lr : bool
        γ_η: divide the learning rate by 4 when the validation criterion stops improving for 10 epochs.
    epochs : int
        #Steps, training epochs (500, 1000).
    batch_size, encoder_dim, embedding_dim : int
        Minibatch size, hidden units of the encoder, dimension of the skip-gram embeddings.
    validation : Corpus or path
        The documents of the document-completion criterion (checkpoint and annealing); a corpus
        with the training vocabulary. Default: the training documents.
    validation_share : float
        Without ``validation``: hold this random share of the training documents out of training
        and score them instead (0, the default, trains on every document).
    embedding_seed : int
        The seed of the skip-gram embeddings (shared by every trial on a corpus; see the module docstring).
    device : str
        ``"auto"`` (CUDA when available), ``"cpu"``, ``"cuda"``. On the CPU a seed gives the same
        model every time.
    threads : int
        PyTorch's CPU threads during training (restored afterwards); with the default 1 a seed gives
        the same model on any machine.

    Returns
    -------
    TopicModel
        Φ, θ (softmax of the encoder's means) and the network's weights of the kept checkpoint,
        the parameters, and in ``manifest["training"]`` the loss per epoch, the checkpoint's
        criterion per epoch and the embeddings' cache file.

    Examples
    --------
    Two planted topics, words 0 to 3 and words 4 to 7, small networks and two epochs (the
    skip-gram embeddings are cached under ``$TEALEAVES_CACHE``, here a temporary folder):

    >>> import os, tempfile
    >>> from unittest import mock
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models.neural import etm
    >>> docs = [[0, 1, 2, 3, 0, 1] * 3 if d % 2 else [4, 5, 6, 7, 4, 5] * 3 for d in range(40)]
    >>> corpus = Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(8)]))
    >>> with tempfile.TemporaryDirectory() as cache, mock.patch.dict(os.environ, {"TEALEAVES_CACHE": cache}):
    ...     model = etm.fit(corpus, k=2, epochs=2, batch_size=20, encoder_dim=16, embedding_dim=8, device="cpu")
    >>> model.phi.shape, model.theta.shape, model.alpha
    ((2, 8), (40, 2), None)
    >>> model.manifest["training"]["checkpoint"]["epoch"] in (1, 2)
    True
    """
    params = _params(
        k,
        seed,
        learning_rate=learning_rate,
        weight_decay=weight_decay,
        anneal_lr=anneal_lr,
        epochs=epochs,
        batch_size=batch_size,
        encoder_dim=encoder_dim,
        embedding_dim=embedding_dim,
        validation_share=validation_share,
        embedding_seed=embedding_seed,
        device=device,
        threads=threads,
    )
    docs, scored, split = _validation_split(corpus, validation, validation_share, seed)
    if len(docs) < 1 or corpus.n_tokens == 0:
        raise InputError("etm needs at least one training document with tokens")
    require_torch()  # refused in one line before any work when PyTorch is missing
    resolved = resolve_device(device)
    embeddings, cache = embeddings_of(corpus, params, progress)
    data = DocTerm.of(corpus, resolved)
    halves = tuple(DocTerm(half, resolved) for half in completion_halves(scored))
    with session(seed, threads):
        net, trace, best = _train(data, halves, embeddings, docs, params, resolved, progress)
        return model_of(corpus, net, data, params, trace, best, split, cache)


def _params(k: int, seed: int, **values: Any) -> dict[str, Any]:
    """The parameters of :func:`fit` checked (an :class:`InputError` naming a bad one) and recorded."""
    check_hyperparameters(KIND, RULES, {"k": k, **values})
    return {
        "k": k,
        "learning_rate": float(values["learning_rate"]),
        "weight_decay": float(values["weight_decay"]),
        "anneal_lr": bool(values["anneal_lr"]),
        **{name: int(values[name]) for name in ("epochs", "batch_size", "encoder_dim", "embedding_dim")},
        "validation_share": float(values["validation_share"]),
        "embedding_seed": int(values["embedding_seed"]),
        "device": values["device"],
        "threads": values["threads"],
        "seed": seed,
    }


def session(seed: int, threads: int) -> Any:
    """The PyTorch session of one trial trained from ``seed`` (its weights' and samples' generators)."""
    return torch_session(seed, "train etm", threads)


def embeddings_of(
    corpus: Corpus, params: dict[str, Any], progress: ProgressCallback | None
) -> tuple[np.ndarray, dict[str, Any]]:
    """The skip-gram word embeddings ρ of ``corpus`` for ``params`` (through the cache) and the cache's record."""
    notify(progress, "train etm: skip-gram embeddings", 0, 1)
    embeddings, cache = cached_skip_gram_embeddings(corpus, params["embedding_dim"], params["embedding_seed"])
    notify(progress, "train etm: skip-gram embeddings", 1, 1)
    return embeddings, cache


def model_of(
    corpus: Corpus,
    net: Any,
    data: DocTerm,
    params: dict[str, Any],
    trace: list[list[float]],
    best: _Checkpoint,
    split: str,
    cache: dict[str, Any],
) -> TopicModel:
    """The trained model of :func:`fit` (its network's kept checkpoint already loaded)."""
    net.eval()
    theta = _theta(net, data, params["batch_size"])
    model = TopicModel(
        corpus.vocab, _topics(net), alpha=None, theta=theta, kind=KIND, params=params, extra=weights_to_extra(net)
    )
    model.manifest["training"] = {
        "objective": "negative evidence lower bound per word (reconstruction + KL)",
        "trace": trace,
        "device": str(data.device),
        "embeddings": {
            "method": "gensim Word2Vec skip-gram",
            "dimensions": params["embedding_dim"],
            **SKIP_GRAM,
            **cache,
        },
        "checkpoint": best.record(split, best.halves[0].n_docs),
    }
    return model


def _train(
    data: DocTerm,
    halves: tuple[DocTerm, ...],
    embeddings: np.ndarray,
    docs: np.ndarray,
    params: dict[str, Any],
    device: Any,
    progress: ProgressCallback | None,
) -> tuple[Any, list[list[float]], _Checkpoint]:
    """Build the network on the skip-gram embeddings and train it on ``docs`` (in the caller's
    ``torch_session``), keeping the epoch with the best document completion of ``halves``."""
    torch = require_torch()
    net = _network(len(embeddings), params).to(device)
    net.word_embeddings.copy_(torch.from_numpy(embeddings))

    def loss(rows: np.ndarray, epoch: int, b: int, n_batches: int) -> tuple[Any, None]:
        return minibatch_loss(net, data.batch(rows)), None

    best = _Checkpoint(net, halves, params)
    net.train()
    trace = train_epochs(
        [p for p in net.parameters() if p.requires_grad],
        loss,
        data,
        epochs=params["epochs"],
        batch_size=params["batch_size"],
        learning_rate=params["learning_rate"],
        weight_decay=params["weight_decay"],
        reduction="mean",
        drop_last=False,
        seed=params["seed"],
        task="train etm",
        progress=progress,
        after_epoch=best,
        docs=docs,
    )
    best.restore()
    return net, trace, best


class _Checkpoint:
    """Hoyle et al.'s checkpoint (module docstring): after every epoch, the document completion loss per
    word of the validation halves; the best epoch's weights are kept, and with ``anneal_lr`` the
    learning rate is divided by 4 when the loss stops improving (:func:`annealed_learning_rate`)."""

    def __init__(self, net: Any, halves: tuple[DocTerm, ...], params: dict[str, Any]) -> None:
        self.net, self.halves, self.batch_size = net, halves, params["batch_size"]
        self.anneal = params["anneal_lr"]
        self.loss, self.epoch = np.inf, 0
        self.state: dict[str, Any] | None = None
        self.criterion: list[list[float]] = []

    def __call__(self, epoch: int, _loss: float, optimizer: Any) -> dict[str, float]:
        """The ``after_epoch`` of :func:`~tealeaves.models.neural._training.train_epochs`."""
        self.net.eval()
        value = completion_loss(self.net, self.halves[0], self.halves[1], self.batch_size)
        self.net.train()
        group = optimizer.param_groups[0]
        improved, group["lr"] = self.observe(epoch, value, group["lr"])
        if improved:
            self.state = copy_state(self.net)
        return {"completion_loss_per_word": value, "learning_rate": group["lr"]}

    def observe(self, epoch: int, value: float, rate: float) -> tuple[bool, float]:
        """Note epoch ``epoch``'s criterion ``value``: (whether it is the best so far, so that its
        weights are to be kept; the learning rate for the next epoch)."""
        improved = value < self.loss
        if improved:
            self.loss, self.epoch = value, epoch + 1
        elif self.anneal:
            rate = annealed_learning_rate([row[1] for row in self.criterion], value, rate)
        self.criterion.append([epoch + 1, value, rate])
        return improved, rate

    def restore(self) -> None:
        """Load the kept epoch's weights into the network."""
        if self.state is not None:
            self.net.load_state_dict(self.state)

    def record(self, split: str, documents: int) -> dict[str, Any]:
        """The checkpoint as the manifest records it, with the validation documents (``split``: which)."""
        return {
            "criterion": "document completion: loss per word of each document's second half, θ from its first",
            "split": split,
            "documents": documents,
            "epoch": self.epoch,
            "loss_per_word": float(self.loss),
            "perplexity": float(np.exp(self.loss)),
            "trace": self.criterion,
            "columns": ["epoch", "completion loss per word", "learning rate after the epoch"],
        }


def _validation_split(
    corpus: Corpus, validation: Corpus | str | os.PathLike[str] | None, share: float, seed: int
) -> tuple[np.ndarray, Corpus, str]:
    """(training document ids, the corpus scored by document completion, a description of it)."""
    everything = np.arange(len(corpus))
    if validation is not None:
        if share:
            raise InputError("etm takes a validation corpus or a validation_share, not both")
        scored = validation if isinstance(validation, Corpus) else Corpus.load(validation)
        if list(scored.vocab.words) != list(corpus.vocab.words):
            raise InputError(
                "the etm validation corpus must have the training vocabulary: prepare it with vocab_from=<the training corpus>"
            )
        return everything, scored, f"validation corpus {scored.fingerprint()[:16]}"
    if not share:
        return everything, corpus, "the training documents (in-sample)"
    n_valid = round(share * len(corpus))
    if n_valid < 1 or n_valid >= len(corpus):
        raise InputError(
            f"etm holds out validation_share of the {len(corpus)} documents: it must leave at least one "
            f"document on each side, got {share!r}"
        )
    order = family_generator(seed, "train etm validation").permutation(len(corpus))
    held = np.sort(order[:n_valid])
    return np.sort(order[n_valid:]), corpus.subset(held), f"{n_valid} training documents held out of training"


def minibatch_loss(net: Any, x: Batch) -> Any:
    """−ELBO_d of each document of minibatch ``x`` (module docstring):

    −Σ_v x_dv log(Σ_k θ_dk φ_kv + 10⁻⁶) − ½ Σ_k (1 + log σ²_dk − μ²_dk − σ²_dk),

    with θ_d = softmax(μ_d + σ_d ε), ε ~ N(0, I) drawn once. Dieng et al.'s training loop minimises
    the mean over the minibatch (their ``forward``: reconstruction and KL, each a batch mean);
    ``benchmarks/neural_vs_reference.py --parts step`` checks it and its gradients against their
    code, with the same weights and random draws."""
    torch = require_torch()
    mu, log_variance = net.encode(x)
    eta = mu + torch.exp(0.5 * log_variance) * torch.randn_like(mu)
    reconstruction = -x.row_sums(x.counts * net.log_word_probs(torch.softmax(eta, dim=-1), x))
    return reconstruction - 0.5 * (1 + log_variance - mu.pow(2) - log_variance.exp()).sum(dim=1)


def completion_halves(corpus: Corpus) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Counts of the first ⌊N_d/2⌋ tokens and of the rest of every document with N_d >= 2 (Dieng et
    al.'s cut: token i goes to the first half when i <= N_d/2 − 1), as float32 CSR matrices."""
    lengths = corpus.doc_lengths()
    keep = np.flatnonzero(lengths >= 2)
    rows, first = [], []
    tokens = []
    for row, d in enumerate(keep):
        doc = np.asarray(corpus.doc(int(d)), dtype=np.int64)
        tokens.append(doc)
        rows.append(np.full(len(doc), row))
        first.append(np.arange(len(doc)) < len(doc) // 2)
    shape = (len(keep), len(corpus.vocab))
    if not tokens:
        empty = sp.csr_matrix(shape, dtype=np.float32)
        return empty, empty
    t, r, f = np.concatenate(tokens), np.concatenate(rows), np.concatenate(first)
    ones = np.ones(len(t), dtype=np.float32)

    def counts(mask: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix((ones[mask], (r[mask], t[mask])), shape=shape, dtype=np.float32)

    return counts(f), counts(~f)


def completion_loss(net: Any, first: DocTerm, second: DocTerm, batch_size: int) -> float:
    """The document-completion criterion (module docstring): the mean over documents of
    −Σ_{v ∈ half 2} log(Σ_k θ_dk φ_kv + 10⁻⁶) / N_d^(2), θ_d = softmax(μ_d) encoded from half 1;
    infinity when there is no document to score."""
    torch = require_torch()
    if first.n_docs == 0:
        return float("inf")
    total = 0.0
    with torch.no_grad():
        for lo in range(0, first.n_docs, batch_size):
            rows = np.arange(lo, min(lo + batch_size, first.n_docs))
            theta = torch.softmax(net.encode(first.batch(rows))[0], dim=-1)
            x = second.batch(rows)
            total += float((-x.row_sums(x.counts * net.log_word_probs(theta, x)) / x.lengths).sum())
    return total / first.n_docs


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
    >>> import os, tempfile
    >>> from unittest import mock
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models.neural import etm
    >>> docs = [[0, 1, 2, 3, 0, 1] * 3 if d % 2 else [4, 5, 6, 7, 4, 5] * 3 for d in range(40)]
    >>> corpus = Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(8)]))
    >>> with tempfile.TemporaryDirectory() as cache, mock.patch.dict(os.environ, {"TEALEAVES_CACHE": cache}):
    ...     model = etm.fit(corpus, k=2, epochs=2, batch_size=20, encoder_dim=16, embedding_dim=8, device="cpu")
    >>> theta = etm.infer(model, corpus.subset([0, 1]))
    >>> theta.shape, theta.sum(axis=1).round(6).tolist()
    ((2, 2), [1.0, 1.0])
    """
    return infer_with_encoder(model, corpus, _network, _theta, progress, batch_size, device, threads)


def annealed_learning_rate(history: list[float], value: float, rate: float) -> float:
    """Dieng et al.'s rule: the learning rate divided by 4 when this epoch's validation criterion
    ``value`` is above the lowest of ``history`` (the earlier epochs) but its last 10, and the
    rate is above 10⁻⁵; otherwise unchanged."""
    earlier = history[:-NONMONO]
    if earlier and value > min(earlier) and rate > MIN_LR:
        return rate / LR_FACTOR
    return rate


def cached_skip_gram_embeddings(
    corpus: Corpus, dimensions: int, seed: int, cache_dir: str | os.PathLike[str] | None = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """:func:`skip_gram_embeddings` of ``corpus`` through the on-disk cache (module docstring):
    ``(vectors, {"cache": file, "cache_hit": bool})``. A cached file of the wrong shape is
    ignored and rewritten; the file is written under a temporary name and renamed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        gensim_version = version("gensim")
    except PackageNotFoundError as exc:
        raise MissingDependencyError(NEEDS_GENSIM) from exc
    identity = {
        "purpose": "etm skip-gram embeddings",
        "corpus_fingerprint": corpus.fingerprint(),
        "dimensions": int(dimensions),
        "seed": int(seed),
        "min_count": 1,
        "gensim": gensim_version,
        **SKIP_GRAM,
    }
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]
    path = Path(cache_dir) if cache_dir is not None else cache_root() / "etm-embeddings"
    path = path / f"{key}.npy"
    if path.is_file():
        try:
            vectors = np.load(path)
        except (OSError, ValueError):
            vectors = None
        if vectors is not None and vectors.shape == (len(corpus.vocab), dimensions):
            return vectors, {"cache": str(path), "cache_hit": True}
    vectors = skip_gram_embeddings(corpus, dimensions, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as tmp, open(tmp, "wb") as handle:
        np.save(handle, vectors)
    return vectors, {"cache": str(path), "cache_hit": False}


def skip_gram_embeddings(corpus: Corpus, dimensions: int, seed: int) -> np.ndarray:
    """Skip-gram vectors of the vocabulary learned on ``corpus`` (see the module docstring):
    gensim's ``Word2Vec`` with Dieng et al.'s settings, one worker; reproducible for a seed.

    Parameters
    ----------
    corpus : Corpus
        The documents the vectors are learned on (their tokens in order).
    dimensions : int
        The vectors' dimension (300 in Dieng et al.).
    seed : int
        The seed of the skip-gram training and of the vectors of words the corpus never uses.

    Returns
    -------
    numpy.ndarray
        float32, one row per vocabulary word, ``dimensions`` columns; a word the corpus never uses
        gets a N(0, 0.6²) vector.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.corpus import Corpus, Vocabulary
    >>> from tealeaves.models.neural.etm import skip_gram_embeddings
    >>> docs = [[0, 1, 2, 3, 0, 1] * 3 if d % 2 else [4, 5, 6, 7, 4, 5] * 3 for d in range(40)]
    >>> corpus = Corpus.from_documents(docs, Vocabulary([f"w{i}" for i in range(8)]))
    >>> vectors = skip_gram_embeddings(corpus, 8, seed=0)
    >>> vectors.shape, vectors.dtype
    ((8, 8), dtype('float32'))
    >>> np.array_equal(vectors, skip_gram_embeddings(corpus, 8, seed=0))
    True
    """
    try:
        from gensim.models import Word2Vec  # type: ignore[import-untyped]
    except ImportError as exc:
        raise MissingDependencyError(NEEDS_GENSIM) from exc
    words = corpus.vocab.words
    w2v = Word2Vec(
        corpus.texts(),
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
            self.encoder = nn.Sequential(
                sparse_linear(n_words, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
            )
            self.mean = nn.Linear(hidden, k)
            self.log_variance = nn.Linear(hidden, k)

        def encode(self, x: Batch) -> tuple[Any, Any]:
            """(μ, log σ²) of q(η_d | x_d) from the normalised counts x_d / N_d."""
            h = self.encoder[1:](self.encoder[0](x, x.shares))
            return self.mean(h), self.log_variance(h)

        def log_word_probs(self, theta: Any, x: Batch) -> Any:
            """log(Σ_k θ_dk φ_kv + 10⁻⁶) at the nonzero counts of ``x`` (all the loss needs): the
            product θ φ sampled at those entries (SDDMM), never the dense documents x words."""
            beta = torch.softmax(self.topic_embeddings(self.word_embeddings), dim=0)  # V x K
            mixture = torch.sparse.sampled_addmm(x.matrix(x.counts), theta, beta.t(), beta=0.0)
            return torch.log(mixture.values() + LOG_EPS)

    return EmbeddedTopicModel()


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
