"""What the neural trainers share: PyTorch, the device, seeding, minibatches of the document-term
matrix as sparse tensors, the encoders' first layer on sparse counts, the epoch loop (progress bar
and loss trace), encoding every document, and the network's weights as the model's ``extra`` arrays.

Speed. A document of 20 Newsgroups uses about 70 of its 8,393 vocabulary words, so the networks
never see the dense counts: a minibatch is a CSR matrix (:class:`Batch`), the encoders' first
layer multiplies it as such (:func:`sparse_linear`, forward and backward), and the reconstruction
term Σ_v x_dv log p_dv is evaluated at the nonzero counts only. The objective and its gradient
are those of the dense computation; only the order of the sums differs (last bits).

PyTorch is imported inside the functions (``pip install 'tealeaves[neural]'``), so importing
this module costs nothing.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from tealeaves.corpus import Corpus
from tealeaves.errors import ArtifactError, InputError, MissingDependencyError, is_count
from tealeaves.progress import ProgressCallback, notify
from tealeaves.rng import family_generator, family_seed

if TYPE_CHECKING:
    import torch

    from tealeaves.models.topic_model import TopicModel

PREFIX = "net."  # names of the network's weights in TopicModel.extra


def require_torch() -> Any:
    """PyTorch, imported on first use, for the neural topic models.

    When tealeaves is the first to import PyTorch and ``OMP_WAIT_POLICY`` is unset, it is set to
    ``PASSIVE`` first: OpenMP's worker threads then sleep between parallel operations instead of
    spinning. On a machine whose cores are busy with other work, a spinning worker takes the time
    its own main thread needs, and each of the hundreds of small operations of a training step
    waits for a time slice: one elementwise product of 1,000 x 50 numbers took 12 ms with two
    threads instead of 0.02 ms (20 Newsgroups, ETM, 2 busy cores: about 11 s per epoch instead of 4 s).
    Set the variable yourself to choose otherwise.

    Returns
    -------
    module
        The ``torch`` module.

    Raises
    ------
    MissingDependencyError
        PyTorch is not installed; the message names the extra to install
        (``pip install 'tealeaves[neural]'``).

    Examples
    --------
    >>> from tealeaves.models.neural import require_torch
    >>> torch = require_torch()
    >>> float(torch.tensor([1.0, 2.0]).sum())
    3.0
    """
    if "torch" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import torch
    except ImportError as exc:
        raise MissingDependencyError("the neural topic models need PyTorch: pip install 'tealeaves[neural]'") from exc
    return torch


def resolve_device(device: str) -> torch.device:
    """``"auto"`` (CUDA when available, else the CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``."""
    torch = require_torch()
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device != "cpu" and not (device == "cuda" or device.startswith("cuda:")):
        raise InputError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if device != "cpu" and not torch.cuda.is_available():
        raise InputError(f'device {device!r} asks for CUDA, which this PyTorch cannot use; pass device="cpu"')
    return torch.device(device)


@contextmanager
def torch_session(seed: int, purpose: str, threads: int) -> Iterator[None]:
    """Run the block with PyTorch's global generators seeded from the ``purpose`` stream family of
    ``seed`` (weight initialisation, dropout and the reparameterised samples draw from them),
    ``threads`` CPU threads and subnormal numbers flushed to zero; all three are restored afterwards.

    One thread by default: the sums of a matrix product are then added in one order on every
    machine, so a seed gives the same model anywhere (more threads can change the last bits), and
    PyTorch's spinning worker threads do not stall on a machine whose cores are busy.

    Subnormal floats (below 1.2e-38 in float32) are flushed to zero (``torch.set_flush_denormal``,
    the CPU's FTZ and DAZ modes, TensorFlow's default). As training sharpens the topics, softmax
    outputs (θ, etm's β) underflow into that range, and every arithmetic operation on such a
    number takes a slow path on x86 CPUs: an etm epoch on 20 Newsgroups rose from 1.5 s to 13 s
    between epochs 80 and 120 (one thread), and one 1,000 × 50 × 7,316 product with sharp
    softmax rows took 0.31 s instead of 0.014 s. Numbers that small change no loss here (the
    likelihoods add 10⁻⁶ or 10⁻¹⁰ before the log). The mode is per thread: set first in a new
    process, it is inherited by PyTorch's worker threads, started later; in a process whose
    worker threads already exist, only the main thread's work is flushed.
    """
    torch = require_torch()
    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    with cpu_mode(threads), torch.random.fork_rng(devices=devices):
        torch.manual_seed(family_seed(seed, purpose))
        yield


@contextmanager
def cpu_mode(threads: int) -> Iterator[None]:
    """Run the block with ``threads`` PyTorch CPU threads and subnormal floats flushed to zero
    (:func:`torch_session`, which seeds as well); both are restored afterwards."""
    torch = require_torch()
    flushing = _flushes_subnormals(torch)
    torch.set_flush_denormal(True)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)
        torch.set_flush_denormal(flushing)


def _flushes_subnormals(torch: Any) -> bool:
    """Whether this thread flushes subnormal floats to zero now (PyTorch can set the mode, not read it)."""
    tiny = torch.tensor([1e-39], dtype=torch.float32)  # subnormal: 0 once converted under FTZ
    return bool((tiny * 1.0).item() == 0.0)


@dataclass(frozen=True)
class DocTerm:
    """The document-term counts as float32 CSR (duplicates summed, words sorted in each row),
    handed to the network a minibatch at a time."""

    counts: sp.csr_matrix
    device: Any

    def __post_init__(self) -> None:
        counts = sp.csr_matrix(self.counts, dtype=np.float32)
        counts.sum_duplicates()
        object.__setattr__(self, "counts", counts)

    @classmethod
    def of(cls, corpus: Corpus, device: Any) -> DocTerm:
        return cls(corpus.doc_term_matrix(), device)

    @property
    def n_docs(self) -> int:
        return int(self.counts.shape[0])

    @functools.cached_property
    def lengths(self) -> np.ndarray:
        return np.asarray(self.counts.sum(axis=1), dtype=np.float64).ravel()

    def batch(self, rows: np.ndarray) -> Batch:
        """The counts of documents ``rows`` (in that order) on the device."""
        return _batch_of(self.counts[rows], self.lengths[rows], self.device)

    @functools.cached_property
    def resident(self) -> dict[str, Any]:
        """The whole CSR matrix and the documents' lengths, copied to the device once."""
        torch = require_torch()

        def put(array: np.ndarray, dtype: Any) -> Any:
            return torch.from_numpy(np.ascontiguousarray(array)).to(device=self.device, dtype=dtype)

        counts = self.counts
        return {
            "indptr": put(counts.indptr, torch.int64),
            "indices": put(counts.indices, torch.int64),
            "data": put(counts.data, torch.float32),
            "lengths": put(self.lengths, torch.float32),
        }

    def stacked(self, rows: list[np.ndarray]) -> Batch:
        """The minibatches ``rows`` of several trials (each of B documents) as one :class:`Batch`:
        trial t's documents become rows t·B to (t+1)·B − 1 and its words columns t·V to
        (t+1)·V − 1 of a block-diagonal matrix (T·B x T·V). A product with the T weight matrices
        stacked (T·V rows) is then every trial's own product at once, each row summed in the order
        of its own batch. Built on the device from :attr:`resident` (only the row numbers are
        copied there), with the entries of each row in the order of :meth:`batch`."""
        torch = require_torch()
        on = self.resident
        order = np.concatenate(rows)
        sizes = np.diff(self.counts.indptr)[order]
        nonzeros, n_docs, n_words = int(sizes.sum()), len(order), int(self.counts.shape[1])
        picked = torch.from_numpy(order.astype(np.int64)).to(self.device)
        starts, counts = on["indptr"][picked], on["indptr"][picked + 1] - on["indptr"][picked]
        row_starts = torch.zeros(n_docs + 1, dtype=torch.int64, device=self.device)
        row_starts[1:] = torch.cumsum(counts, dim=0)
        doc = torch.repeat_interleave(torch.arange(n_docs, device=self.device), counts, output_size=nonzeros)
        at = torch.arange(nonzeros, device=self.device) - row_starts[doc] + starts[doc]
        word = on["indices"][at] + (doc // len(rows[0])) * n_words
        values, lengths = on["data"][at], on["lengths"][picked]
        return Batch(
            n_docs=n_docs,
            n_words=n_words * len(rows),
            row_starts=row_starts.int(),
            columns=word.int(),
            word=word,
            doc=doc,
            counts=values,
            shares=values / lengths.clamp(min=1.0)[doc],
            lengths=lengths,
            _cache={},
        )


def _batch_of(part: sp.csr_matrix, lengths: np.ndarray, device: Any) -> Batch:
    """A :class:`Batch` of the CSR rows ``part`` (documents of ``lengths`` tokens) on ``device``."""
    torch = require_torch()
    n_docs = int(part.shape[0])
    doc = np.repeat(np.arange(n_docs), np.diff(part.indptr))

    def put(array: np.ndarray, dtype: Any) -> Any:
        return torch.from_numpy(np.ascontiguousarray(array)).to(device=device, dtype=dtype)

    return Batch(
        n_docs=n_docs,
        n_words=int(part.shape[1]),
        row_starts=put(part.indptr, torch.int32),
        columns=put(part.indices, torch.int32),
        word=put(part.indices, torch.int64),
        doc=put(doc, torch.int64),
        counts=put(part.data, torch.float32),
        shares=put(part.data / np.maximum(lengths, 1.0)[doc], torch.float32),
        lengths=put(lengths, torch.float32),
        _cache={},
    )


@dataclass(frozen=True)
class Batch:
    """A minibatch of documents as the nonzero counts of its document-term matrix x (n_docs x
    n_words): nonzero i is ``counts[i]`` occurrences of word ``word[i]`` in document ``doc[i]``,
    ordered by document and, within one, by word (CSR order: ``row_starts`` are the row pointers,
    ``columns`` the words as int32); ``shares`` are the counts divided by the documents' token
    counts N_d (at least 1), x_dv / N_d, and ``lengths`` the N_d. All on the training device."""

    n_docs: int
    n_words: int
    row_starts: Any
    columns: Any
    word: Any
    doc: Any
    counts: Any
    shares: Any
    lengths: Any
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def matrix(self, values: Any) -> Any:
        """The sparse CSR matrix (n_docs x n_words) with ``values`` at the nonzeros."""
        return _csr(self.row_starts, self.columns, values, (self.n_docs, self.n_words))

    def transposed(self, values: Any) -> Any:
        """The sparse CSR matrix (n_words x n_docs) of the transpose, ``values`` given in CSR order
        of the batch (the reordering is computed once per batch, on its device)."""
        cache = self._cache
        if "order" not in cache:  # on the device: a stable sort of the words, counted into row pointers
            torch = require_torch()
            order = torch.argsort(self.word, stable=True)
            starts = torch.zeros(self.n_words + 1, dtype=torch.int32, device=self.word.device)
            starts[1:] = torch.cumsum(torch.bincount(self.word, minlength=self.n_words), dim=0)
            cache["order"], cache["starts"], cache["docs"] = order, starts, self.doc[order].int()
        return _csr(cache["starts"], cache["docs"], values[cache["order"]], (self.n_words, self.n_docs))

    def row_sums(self, values: Any) -> Any:
        """Σ over each document's nonzeros of ``values`` (one per nonzero): a vector of n_docs."""
        torch = require_torch()
        return torch.zeros(self.n_docs, dtype=values.dtype, device=values.device).index_add(0, self.doc, values)


def _csr(starts: Any, columns: Any, values: Any, size: tuple[int, int]) -> Any:
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta state")
        return torch.sparse_csr_tensor(starts, columns, values, size=size, device=values.device, check_invariants=False)


@functools.cache
def _sparse_product() -> Any:
    """The autograd function (W^T, c, batch, values) ↦ x W^T + c for the sparse x of ``batch``
    with ``values`` (c one bias row, or one row per document); its backward gives the gradient of W^T as x^T G, a sparse-dense product too
    (PyTorch's own backward of a sparse product goes through a slower column-major path)."""
    torch = require_torch()

    function: Any = torch.autograd.Function

    class SparseProduct(function):
        @staticmethod
        def forward(ctx: Any, weight_t: Any, bias: Any, batch: Batch, values: Any) -> Any:
            ctx.batch, ctx.values, ctx.rows = batch, values, bias.dim() == 2
            return torch.addmm(bias, batch.matrix(values), weight_t)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> tuple[Any, Any, None, None]:
            grad = grad.contiguous()
            bias = grad if ctx.rows else grad.sum(dim=0)  # a bias per row (stacked trials) or one for all
            return torch.mm(ctx.batch.transposed(ctx.values), grad), bias, None, None

    return SparseProduct


def sparse_linear(n_words: int, n_out: int) -> Any:
    """A layer x ↦ x W^T + c for the sparse counts of a :class:`Batch`: ``layer(batch, values)``
    with ``values`` the entries of x at the batch's nonzeros. Built and initialised as
    ``nn.Linear(n_words, n_out)`` (the same random draws), and its ``state_dict`` shows W and c
    as that layer's ``weight`` (n_out x n_words) and ``bias``; W is held as W^T (n_words x n_out),
    so that the sparse products, forward and backward, read and write whole rows of it, and
    Adam's fused step sees a contiguous parameter."""
    torch = require_torch()
    nn = torch.nn
    module: Any = nn.Module

    class SparseLinear(module):
        def __init__(self) -> None:
            super().__init__()
            linear = nn.Linear(n_words, n_out)
            self.weight_t = nn.Parameter(linear.weight.detach().t().contiguous())
            self.bias = linear.bias

        def forward(self, batch: Batch, values: Any) -> Any:
            return _sparse_product().apply(self.weight_t, self.bias, batch, values)

        def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "weight"] = destination.pop(prefix + "weight_t").t()

        def _load_from_state_dict(self, state: dict[str, Any], prefix: str, *args: Any) -> None:
            if prefix + "weight" in state:
                state[prefix + "weight_t"] = state.pop(prefix + "weight").t()
            super()._load_from_state_dict(state, prefix, *args)

    return SparseLinear()


def minibatches(n_docs: int, batch_size: int, rng: np.random.Generator, *, drop_last: bool) -> list[np.ndarray]:
    """A random order of the documents cut into minibatches of ``batch_size``. With ``drop_last``
    the last, partial batch is dropped (as Hoyle et al.'s D-VAE does), unless there is no full batch
    at all; without it the last batch is what remains (as Dieng et al.'s ETM, ``torch.split``)."""
    order = rng.permutation(n_docs)
    full = n_docs // batch_size
    if full == 0:
        return [order]
    if not drop_last:
        return [order[i : i + batch_size] for i in range(0, n_docs, batch_size)]
    return [order[i * batch_size : (i + 1) * batch_size] for i in range(full)]


def minibatch_rng(seed: int, task: str) -> np.random.Generator:
    """The generator of the minibatch order of ``task`` trained from ``seed`` (its ``"<task> minibatches"`` stream family)."""
    return family_generator(seed, f"{task} minibatches")


def annealing_factor(batch: int, epoch: int, epochs_to_anneal: int, batches_per_epoch: int) -> float:
    """The weight of an annealed term at ``batch`` of ``epoch`` (both from 0): it rises linearly
    from 0.01 to 1 over the first ``epochs_to_anneal`` epochs, step by step, and stays at 1;
    0 when ``epochs_to_anneal`` is 0 (the term is never switched on). As Hoyle et al.'s D-VAE
    (``calculate_annealing_factor``, after Pyro's deep Markov model example)."""
    if epochs_to_anneal <= 0:
        return 0.0
    step = batch + epoch * batches_per_epoch + 1
    return min(1.0, 0.01 + 0.99 * step / (epochs_to_anneal * batches_per_epoch))


# (per-document losses, penalty) for the documents ``rows`` at ``batch`` of ``epoch`` of ``n_batches``
LossFunction = Callable[[np.ndarray, int, int, int], "tuple[torch.Tensor, torch.Tensor | None]"]


def train_epochs(
    parameters: Any,
    loss: LossFunction,
    data: DocTerm,
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    reduction: str,
    drop_last: bool,
    seed: int,
    task: str,
    progress: ProgressCallback | None,
    weight_decay: float = 0.0,
    after_epoch: Callable[[int, float, Any], dict[str, float]] | None = None,
    docs: np.ndarray | None = None,
) -> list[list[float]]:
    """Minimise ``loss`` with Adam (β = 0.9, 0.999; PyTorch's fused step) for ``epochs`` passes over ``docs`` (all by
    default) in shuffled minibatches; returns the trace, one row ``[epoch, loss per word]`` per epoch.

    Each step minimises the sum (``reduction="sum"``, Hoyle et al.'s D-VAE) or the mean
    (``"mean"``, Dieng et al.'s ETM) of the minibatch's per-document losses, plus the penalty;
    ``drop_last`` drops each epoch's last, partial minibatch (the D-VAE's, not the ETM's, convention).
    The traced loss is the epoch's per-document losses (with the annealing weights in force,
    without the penalty) summed and divided by the tokens of those documents. The minibatch
    order comes from the ``"<task> minibatches"`` stream family of ``seed``. ``after_epoch(epoch,
    loss, optimizer)`` may change the optimizer (learning-rate annealing) and returns figures
    shown in the progress bar.
    """
    torch = require_torch()
    optimizer = torch.optim.Adam(
        parameters, lr=learning_rate, betas=(0.9, 0.999), weight_decay=weight_decay, fused=True
    )
    rng = minibatch_rng(seed, task)
    docs = np.arange(data.n_docs) if docs is None else docs
    lengths = data.lengths
    trace: list[list[float]] = []
    notify(progress, task, 0, epochs)
    for epoch in range(epochs):
        batches = minibatches(len(docs), batch_size, rng, drop_last=drop_last)
        total: Any = 0.0  # a tensor after the first batch: no wait for the device within the epoch
        tokens = 0.0
        for b, positions in enumerate(batches):
            rows = docs[positions]
            per_doc, penalty = loss(rows, epoch, b, len(batches))
            objective = per_doc.sum() if reduction == "sum" else per_doc.mean()
            if penalty is not None:
                objective = objective + penalty
            optimizer.zero_grad()
            objective.backward()
            optimizer.step()
            total = total + per_doc.detach().sum()
            tokens += float(lengths[rows].sum())
        per_word = float(total) / max(tokens, 1.0)
        if not np.isfinite(per_word):
            raise InputError(f"{task}: the loss became {per_word} in epoch {epoch + 1}; lower the learning rate")
        trace.append([epoch + 1, per_word])
        info = after_epoch(epoch, per_word, optimizer) if after_epoch is not None else {}
        notify(progress, task, epoch + 1, epochs, loss_per_word=per_word, **info)
    return trace


def encode_all(encode: Callable[[Batch], torch.Tensor], data: DocTerm, batch_size: int) -> np.ndarray:
    """``encode`` (a function of a :class:`Batch`, without gradients) over every document, in
    order, as float64 rows."""
    torch = require_torch()
    parts = []
    with torch.no_grad():
        for lo in range(0, data.n_docs, batch_size):
            rows = np.arange(lo, min(lo + batch_size, data.n_docs))
            parts.append(encode(data.batch(rows)).double().cpu().numpy())
    if not parts:
        return np.zeros((0, 0))
    return np.concatenate(parts)


def infer_with_encoder(
    model: TopicModel,
    corpus: Corpus,
    build: Callable[[int, dict[str, Any]], Any],
    theta_of: Callable[[Any, DocTerm, int], np.ndarray],
    progress: ProgressCallback | None,
    batch_size: int,
    device: str,
    threads: int,
) -> np.ndarray:
    """θ̂ of ``corpus`` by a trained model's encoder: the network ``build(V, params)`` with the
    model's weights, in evaluation mode, then ``theta_of(network, documents, batch_size)``.
    Deterministic (the network's starting weights are replaced by the model's)."""
    check_count(model.kind, 1, batch_size=batch_size, threads=threads)
    resolved = resolve_device(device)
    notify(progress, "infer", 0, len(corpus))
    with torch_session(0, f"{model.kind} network", threads):
        net = build(len(model.vocab), model.params).to(resolved)
        weights_from_extra(net, model.extra, model.kind)
        net.eval()
        theta = theta_of(net, DocTerm.of(corpus, resolved), batch_size)
    notify(progress, "infer", len(corpus), len(corpus))
    return theta if len(corpus) else np.zeros((0, model.k))


def copy_state(net: Any) -> dict[str, Any]:
    """A copy of the network's weights (a checkpoint in memory)."""
    return {name: value.detach().clone() for name, value in net.state_dict().items()}


def normalise_rows(values: np.ndarray) -> np.ndarray:
    """Rows divided by their sums in float64, so they sum to 1 within rounding."""
    values = np.asarray(values, dtype=np.float64)
    return values / values.sum(axis=1, keepdims=True)


def weights_to_extra(network: Any) -> dict[str, np.ndarray]:
    """The network's parameters and buffers as named arrays for ``TopicModel.extra`` (saved as
    ``extra/net.<name>.npy``; no pickle)."""
    return {
        PREFIX + name: value.detach().cpu().numpy().copy()
        for name, value in network.state_dict().items()
        if not name.endswith("num_batches_tracked")
    }


def weights_from_extra(network: Any, extra: dict[str, np.ndarray], kind: str) -> None:
    """Load the arrays of :func:`weights_to_extra` into ``network``; an :class:`ArtifactError` when
    the model lacks them or they do not fit."""
    torch = require_torch()
    state = network.state_dict()
    wanted = [name for name in state if not name.endswith("num_batches_tracked")]
    missing = [name for name in wanted if PREFIX + name not in extra]
    if missing:
        raise ArtifactError(
            f"this {kind} model lacks its network weights ({', '.join(missing[:3])}, ...); train it again with tealeaves"
        )
    for name in wanted:
        array = np.asarray(extra[PREFIX + name])
        if tuple(array.shape) != tuple(state[name].shape):
            raise ArtifactError(
                f"the {kind} weight {name} has shape {array.shape}, expected {tuple(state[name].shape)}; "
                "its parameters do not match its arrays"
            )
        state[name] = torch.from_numpy(array.copy()).to(state[name].dtype)
    network.load_state_dict(state)


def check_count(kind: str, minimum: int, **values: int) -> None:
    """Refuse any of ``values`` that is not an integer >= ``minimum``, naming it."""
    for name, value in values.items():
        if not is_count(value, minimum):
            raise InputError(f"{kind} needs {name} to be an integer >= {minimum}, got {value!r}")
