"""TopicModel: the artifact every evaluation reads.

On disk a model is a folder with

- ``phi.npy``    float64[K, V]: topic-word distributions, rows sum to 1, strictly positive
  after the model's own smoothing;
- ``alpha.npy``  float64[K]: the Dirichlet prior αm over topic proportions (absent for
  models without one, such as pLSI);
- ``theta.npy``  float64[D, K]: topic proportions of the training documents, when known;
- ``extra/*.npy`` model-specific arrays (e.g. a logistic-normal prior) that inference needs,
  and ``extra/training_documents.npy``, the training documents' keys (``Corpus.document_hashes``);
- ``vocab.txt`` and ``manifest.json`` (model kind, hyperparameters, training trace, the
  fingerprint of the training corpus).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves import display
from tealeaves.artifacts import new_manifest, read_manifest, write_artifact, write_json
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import ArtifactError, InputError, as_numbers, is_count
from tealeaves.missing import OnMissingSkip
from tealeaves.models.topics import Topics

ROW_SUM_TOLERANCE = 1e-9
TRAINING_DOCUMENTS = "training_documents"  # the extra array of the training documents' keys
SEEN_LIMIT = 0.1  # the share of a corpus' documents seen in training above which it is not held out


class TopicModel:
    """Topic-word distributions over a vocabulary, with the prior and training θ when known.

    Attributes
    ----------
    vocab : Vocabulary
    phi : float64[K, V]
    alpha : float64[K] or None
        The asymmetric Dirichlet αm (None for models without a Dirichlet prior).
    theta : float64[D, K] or None
        Topic proportions of the training documents.
    kind : str
        The model kind (``"lda-gibbs"``, ...).
    params : dict
        Hyperparameters and settings (JSON-safe).
    extra : dict of str to ndarray
        Model-specific arrays needed for inference.
    manifest : dict
        Provenance: training trace, time, corpus fingerprint.

    Examples
    --------
    >>> import numpy as np
    >>> from tealeaves.corpus import Vocabulary
    >>> from tealeaves.models import TopicModel
    >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
    >>> phi = np.array([[0.5, 0.4, 0.05, 0.05], [0.05, 0.05, 0.4, 0.5]])
    >>> model = TopicModel(vocab, phi, alpha=np.array([0.1, 0.1]), kind="example")
    >>> model
    TopicModel(kind='example', K=2, V=4)
    >>> model.top_words(2)
    [['tax', 'budget'], ['peace', 'war']]

    In a notebook the model displays its kind, K, V and its first topics' top words
    (``_repr_html_``).
    """

    def __init__(
        self,
        vocab: Vocabulary,
        phi: np.ndarray,
        alpha: np.ndarray | None = None,
        theta: np.ndarray | None = None,
        kind: str = "unknown",
        params: dict[str, Any] | None = None,
        extra: dict[str, np.ndarray] | None = None,
        manifest: dict[str, Any] | None = None,
    ):
        self.vocab = vocab if isinstance(vocab, Vocabulary) else Vocabulary(vocab)
        self.phi = as_numbers(phi, "phi")
        self.alpha = None if alpha is None else as_numbers(alpha, "alpha")
        self.theta = None if theta is None else as_numbers(theta, "theta")
        self.kind = kind
        self.params = dict(params or {})
        self.extra = {k: np.asarray(v) for k, v in (extra or {}).items()}
        self.manifest = dict(manifest) if manifest is not None else new_manifest("topic-model", model=kind)
        self.validate()

    # ----------------------------------------------------------------- checks
    def validate(self) -> None:
        """Check shapes, positivity and normalisation; raise :class:`ArtifactError` otherwise."""
        phi = self.phi
        if phi.ndim != 2 or phi.shape[0] < 1:
            raise ArtifactError(f"phi must be a K x V matrix with K >= 1, got shape {phi.shape}")
        k, v = phi.shape
        if v != len(self.vocab):
            raise ArtifactError(f"phi has {v} columns but the vocabulary has {len(self.vocab)} words")
        if not np.all(np.isfinite(phi)) or np.any(phi <= 0):
            raise ArtifactError(
                "phi must be strictly positive and finite (smooth zero probabilities, e.g. with the model's beta)"
            )
        worst = float(np.max(np.abs(phi.sum(axis=1) - 1.0)))
        if worst > ROW_SUM_TOLERANCE:
            raise ArtifactError(f"phi rows must sum to 1 within {ROW_SUM_TOLERANCE:g}; the worst is off by {worst:.3g}")
        alpha = self.alpha
        if alpha is not None and (alpha.shape != (k,) or not np.all(np.isfinite(alpha)) or np.any(alpha <= 0)):
            raise ArtifactError(f"alpha must hold {k} positive finite values, got shape {alpha.shape}")
        if self.theta is not None:
            theta = self.theta
            if theta.ndim != 2 or theta.shape[1] != k:
                raise ArtifactError(f"theta must be a D x {k} matrix, got shape {theta.shape}")
            if not np.all(np.isfinite(theta)) or np.any(theta < 0):
                raise ArtifactError("theta must be non-negative and finite")
            worst = float(np.max(np.abs(theta.sum(axis=1) - 1.0))) if len(theta) else 0.0
            if worst > ROW_SUM_TOLERANCE:
                raise ArtifactError(
                    f"theta rows must sum to 1 within {ROW_SUM_TOLERANCE:g}; the worst is off by {worst:.3g}"
                )

    # ----------------------------------------------------------------- views
    @property
    def k(self) -> int:
        """Number of topics."""
        return int(self.phi.shape[0])

    @property
    def training_fingerprint(self) -> str | None:
        """The fingerprint of the corpus the model was trained on (``manifest["training"]``), None where unknown
        (an imported model): what tells the training documents from held-out ones."""
        return self.manifest.get("training", {}).get("corpus_fingerprint")

    def seen_documents(self, corpus: Corpus) -> np.ndarray | None:
        """Which documents of ``corpus`` the model was trained on (bool[D]); None where that is unknown.

        All of them when ``corpus`` is the training corpus (:attr:`training_fingerprint`); otherwise
        the non-empty documents whose key (:meth:`~tealeaves.corpus.Corpus.document_hashes`) is a
        training document's, which :func:`~tealeaves.models.train` records in
        ``extra["training_documents"]``. The keys of prepared documents are their ids and texts, so a
        held-out split of another ``prepare`` run (another seed or share), whose vocabulary differs a
        little, still shows the training documents it holds. None for a model that records neither
        (one imported from another library).

        Examples
        --------
        >>> from tealeaves.corpus import Corpus, Vocabulary
        >>> from tealeaves.models import train
        >>> vocab = Vocabulary(["tax", "budget", "war", "peace"])
        >>> corpus = Corpus.from_documents([[0, 1, 0], [2, 3, 2], [0, 1, 1], [3, 2, 3]], vocab)
        >>> model = train(corpus.subset([0, 1, 2]), "lda-gibbs", k=2, iterations=10)
        >>> model.seen_documents(corpus).tolist()
        [True, True, True, False]
        """
        if self.training_fingerprint is not None and self.training_fingerprint == corpus.fingerprint():
            return np.ones(len(corpus), dtype=bool)
        keys = self.extra.get(TRAINING_DOCUMENTS)
        if keys is None:
            return None
        return np.isin(corpus.document_hashes(), keys) & (corpus.doc_lengths() > 0)

    def __repr__(self) -> str:
        return f"TopicModel(kind={self.kind!r}, K={self.k}, V={len(self.vocab)})"

    def _repr_html_(self) -> str:
        """The notebook display: kind, K, V, the parameters and the first topics' top words (and α)."""
        shown = slice(0, display.MAX_ROWS)
        table: dict[str, Any] = {"topic": list(range(self.k))[shown]}
        if self.alpha is not None:
            table["alpha"] = self.alpha[shown]
        words = self.vocab.words
        table["top words"] = [
            display.words([words[i] for i in row]) for row in _top_ids(self.phi[shown], display.MAX_WORDS)
        ]
        summary = {
            "kind": self.kind,
            "topics (K)": self.k,
            "words (V)": len(self.vocab),
            "training documents": None if self.theta is None else len(self.theta),
            "parameters": ", ".join(f"{k}={display.number(v)}" for k, v in self.params.items()),
        }
        return display.html("TopicModel", summary, table, rows=self.k)

    def top_word_ids(self, n: int = 10) -> np.ndarray:
        """Ids of each topic's ``n`` most probable words, most probable first (ties by id); all of them where
        ``n`` is more than the vocabulary."""
        if not is_count(n, minimum=0):
            raise InputError(f"n must be a number of words (0 or more), got {n!r}")
        return _top_ids(self.phi, n)

    def top_words(self, n: int = 10) -> list[list[str]]:
        """Each topic's ``n`` most probable words, most probable first."""
        words = self.vocab.words
        return [[words[i] for i in row] for row in self.top_word_ids(n)]

    def topics(self, n: int = 10) -> Topics:
        """The top ``n`` words of every topic as a :class:`Topics` object."""
        return Topics(tuple(tuple(t) for t in self.top_words(n)), name=self.kind, meta={"model": self.kind})

    def infer(
        self,
        corpus: Corpus | Any,
        seed: int | np.random.Generator = 0,
        on_missing: OnMissingSkip = "error",
        **options: Any,
    ) -> np.ndarray:
        """θ̂ (float64[D, K]) for the documents of ``corpus``.

        ``corpus`` is a Corpus (prepared with the model's vocabulary, or another: its words are
        mapped onto the model's), a corpus folder, or gensim's texts (token lists, or a Dictionary
        with its bags of words); a word the model lacks is refused, or with ``on_missing="skip"``
        left out of its document. Uses the model kind's own inference when it has one, otherwise
        collapsed Gibbs sampling with Φ fixed under the Dirichlet prior (see
        :mod:`tealeaves.models.inference`).
        """
        from tealeaves.models.inference import infer

        return infer(self, corpus, seed=seed, on_missing=on_missing, **options)

    # ----------------------------------------------------------------- persistence
    def save(self, out: str | os.PathLike[str], force: bool = False) -> Path:
        """Write the model folder atomically (refuses an existing folder unless ``force``)."""
        manifest = {**self.manifest, "kind": "topic-model", "model": self.kind, "params": self.params}
        manifest["stats"] = {"k": self.k, "vocab_size": len(self.vocab), "has_alpha": self.alpha is not None}
        manifest["stats"]["n_training_docs"] = None if self.theta is None else len(self.theta)

        def write(tmp: Path) -> None:
            np.save(tmp / "phi.npy", self.phi)
            if self.alpha is not None:
                np.save(tmp / "alpha.npy", self.alpha)
            if self.theta is not None:
                np.save(tmp / "theta.npy", self.theta)
            if self.extra:
                (tmp / "extra").mkdir()
                for name, array in self.extra.items():
                    np.save(tmp / "extra" / f"{name}.npy", array)
            self.vocab.save(tmp / "vocab.txt")
            write_json(tmp / "manifest.json", manifest)

        write_artifact(out, write, force=force)
        self.manifest = manifest
        return Path(out)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TopicModel:
        """Load and validate a model folder."""
        path = Path(path)
        manifest = read_manifest(path, kind="topic-model")

        def optional(name: str) -> np.ndarray | None:
            return np.load(path / name) if (path / name).is_file() else None

        try:
            phi = np.load(path / "phi.npy")
            alpha, theta = optional("alpha.npy"), optional("theta.npy")
            extra = {p.stem: np.load(p) for p in sorted((path / "extra").glob("*.npy"))}
        except (OSError, ValueError) as exc:
            raise ArtifactError(f"model {path} is incomplete or corrupt ({exc}); train or import it again") from exc
        return cls(
            Vocabulary.load(path / "vocab.txt"),
            phi,
            alpha=alpha,
            theta=theta,
            kind=manifest.get("model", "unknown"),
            params=manifest.get("params", {}),
            extra=extra,
            manifest=manifest,
        )


def training_share(model: Any, corpus: Any) -> str | None:
    """How many documents of ``corpus`` ``model`` was trained on, in words (``"all 4,064"``, ``"3,292 of
    the 4,064 (81%)"``), where they are at least :data:`SEEN_LIMIT` of them: a corpus that is not held
    out from the model (:meth:`TopicModel.seen_documents`). None otherwise, and for anything but a
    TopicModel and a Corpus. A random split of a prepared corpus puts none of its held-out documents among
    the training ones (SOTU, AP, 20 Newsgroups), of a corpus built from token ids under 1% (the same bag of
    words twice: 0.4% of SOTU's and 20 Newsgroups'); a held-out split of another ``prepare`` run, about
    1 − its share (81% of SOTU's at 0.2)."""
    if not (isinstance(model, TopicModel) and isinstance(corpus, Corpus)):
        return None
    seen = model.seen_documents(corpus)
    if seen is None or not seen.any() or seen.mean() < SEEN_LIMIT:
        return None
    n, total = int(seen.sum()), len(seen)
    return f"all {total:,}" if n == total else f"{n:,} of the {total:,} ({n / total:.0%})"


def _top_ids(phi: np.ndarray, n: int) -> np.ndarray:
    """Ids of the ``n`` largest values of each row of ``phi``, largest first (ties by id)."""
    k, v = phi.shape
    n = min(n, v)
    if n == 0:
        return np.empty((k, 0), dtype=np.int64)
    # the n-th largest value of each row bounds the candidates; sorting only those (by row,
    # then value descending, then id) gives what a stable argsort of the whole row gives
    nth = np.partition(phi, v - n, axis=1)[:, v - n]
    rows, cols = np.nonzero(phi >= nth[:, None])
    order = np.lexsort((cols, -phi[rows, cols], rows))
    starts = np.searchsorted(rows[order], np.arange(k))
    return cols[order][starts[:, None] + np.arange(n)].astype(np.int64)
