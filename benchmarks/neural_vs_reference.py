"""tealeaves' dvae and etm beside the authors' own code: Hoyle et al.'s D-VAE (ahoho/dvae at commit
267cff1, as their ``runs/dvae-sweep.yml`` in ahoho/topics configures it) and their ETM (ahoho/ETM,
Dieng et al.'s ``main.py``), trained on the same data with the same settings, seeds and epochs.

    python benchmarks/neural_vs_reference.py --dvae-ref PATH --etm-ref PATH
        [--parts prepare planted news speed flops step device collect] [--sets etm ours] [--models dvae etm] [--impls ours reference]
        [--seeds 0 1 2] [--dvae-epochs 500] [--etm-epochs 500] [--scale-annealing]
        [--checkpoints 50 100 ...] [--speed-epochs 4] [--setting best|drawn] [--threads 2]
        [--device cpu|auto|cuda] [--jobs 1] [--reference-ftz] [--data DIR] [--work DIR]

The reference implementations are checkouts passed as paths and run as they are, never copied:
``git --git-dir=<ahoho/dvae> archive 267cff1 | tar -x -C PATH`` and the same for ahoho/ETM. The
D-VAE needs ``pip install pyro-ppl`` (1.9 ran it beside torch 2.13; not a tealeaves requirement),
the ETM matplotlib. Every run is a child process of this one (``_worker``), so the peak memory
(its maximum resident set, from ``wait4``) and the threads (``torch.set_num_threads(--threads)``,
``OMP_NUM_THREADS`` and ``OMP_WAIT_POLICY=PASSIVE``, which tealeaves sets when it is the first to
import torch) are the same for both; the runs alternate ours / reference, seed by
seed, so that the load of the machine hits both alike. Small patches make the reference code run
on today's libraries, applied in the child at run time, the checkout untouched:

- ETM: ``np.float`` (removed in NumPy 1.24) is set to ``float``; ``torch.load`` of its whole-model
  checkpoint gets ``weights_only=False`` (the default changed in torch 2.6); ``nearest_neighbors``
  of its ``visualize`` is a no-op (it looks up fixed English words such as *andrew* in the
  vocabulary and fails on a corpus without them; it only prints);
- D-VAE: none to its training; its progress bar (``tqdm.trange``) is replaced by one that notes
  the time of each epoch.

Parts:

- ``planted``: the K = 10, V = 500 LDA corpus of ``tests/models/planted.py``; the worst and the
  median Hellinger distance from each planted topic to its matched learned topic, ours and the
  reference's, with the settings of ``tests/models/test_neural.py`` (dvae: 100 epochs, γ_BN = 1,
  γ_KL = 20, β_reg = 0; etm: 60 epochs, batches of 200, 100 hidden units, 100-dimensional
  skip-gram embeddings, in-sample document completion as the checkpoint criterion).
- ``news``: 20 Newsgroups, K = 50, in two preparations: ``etm``, the ETM repository's
  ``data/20ng`` (Dieng et al.'s: 11,214 training and 7,531 test posts, V = 3,072, bags of words;
  the reader below turns its ``.mat`` files into a Corpus), and ``ours``, ``../shared/data/20news``
  prepared as ``benchmarks/sweep.py`` prepares it (30% of the posts held out). Table 8's best NYT
  settings (``--setting best``) or one setting drawn from Table 8's grid (``drawn``). Scores, the
  same for both implementations: NPMI over the top 10 words and C_V against the held-out posts
  (10-token and 110-token windows on ``ours``; document windows on ``etm``, whose posts keep no
  word order), topic uniqueness over the top 10 (Nan et al.), and for etm the document-completion
  perplexity of the held-out posts' second halves (θ from the first halves), which is also the
  checkpoint criterion of both ETMs. The reference D-VAE, as configured in ``dvae-sweep.yml``
  (``target_metric: npmi``, ``eval_step: 2``), also saves the topics of the epoch with the best
  NPMI on its training posts: scored too, as "ref@best"; our dvae keeps that epoch itself
  (``checkpoint="npmi"``), and its last epoch is scored too, as "ours@last". NPMI of one seed at
  a few epochs shows whether it has stopped rising.
- ``speed``: seconds per epoch (wall time between epochs, in the child, its evaluation
  included: the reference D-VAE's NPMI every 2 epochs, both ETMs' document completion) and peak
  memory, a few epochs per run, interleaved.
- ``step``: one minibatch of training posts, the loss and its gradients, ours
  (``dvae.minibatch_loss``, ``etm.minibatch_loss``: what ``fit`` minimises) and the authors'
  (the D-VAE's SVI loss with its L1 penalty, the ETM's ``forward``), with the same weights and
  the same random draws: they agree to float32 rounding, or the implementations differ.
- ``flops``: the multiply-adds of one epoch's encoder and decoder products (forward 2mnk, backward
  twice that), divided by the measured seconds per epoch, against a plain ``torch.matmul`` of
  the same shapes on the same threads.
- ``device``: on the etm set, one trial's epoch and the epochs of batches of ``--batch-sizes``
  trials (``batched.fit_many``, settings drawn from Table 8) on ``--device``, for each of
  ``--models``, against the device's matmul rate and (etm) the authors' training loop; wall
  seconds and the process's CPU seconds per trial-epoch (on a busy CPU the second is the fair one).

``--scale-annealing`` cuts dvae's γ_BN and γ_KL in proportion to ``--dvae-epochs`` (200 of 500
becomes 8 of 20), as ``benchmarks/neural.py`` does for short runs. ``--jobs N`` runs N at a time
(for quality runs on a GPU; timings take 1). ``collect`` scores every finished run kept under
``--work``/runs, also runs copied from another machine, and prints the tables. Writes
``--work``/results-PARTS-TIME.json. ``--reference-ftz`` runs the reference code with subnormal
floats flushed to zero (``torch.set_flush_denormal(True)`` in its child before any thread
starts), as tealeaves' trainers run: not the code as shipped, so its seconds per epoch then say
what that one setting is worth, and its scores are those of the same arithmetic but for numbers
below 1.2e-38 (rows labelled "(FTZ)").
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from neural import matmul_gflops  # a plain matmul's GFLOP/s on the same threads
from shared_data import ROOT, add_data_option, data_path

sys.path.insert(0, str(ROOT / "tests" / "models"))
from planted import PLANTED_NEURAL as PLANTED  # the tests' settings, run by both implementations

HERE = Path(__file__).resolve()
# Table 8 of Hoyle et al. 2021: the best NYT setting (†) and the grid a second setting is drawn from
BEST = {
    "dvae": {"alpha": 0.01, "learning_rate": 0.01, "beta_reg": 0.1, "gamma_bn": 200, "gamma_kl": 200},
    "etm": {"learning_rate": 0.02, "weight_decay": 1.2e-6, "anneal_lr": 0},
}
GRID = {
    "dvae": {
        "alpha": [0.001, 0.01, 0.1],
        "learning_rate": [0.001, 0.01],
        "beta_reg": [0.0, 0.01, 0.1, 1.0],
        "gamma_bn": [0, 1, 100, 200],
        "gamma_kl": [100, 200],
    },
    "etm": {"learning_rate": [0.001, 0.002, 0.01, 0.02], "weight_decay": [1.2e-5, 1.2e-6, 1.2e-7], "anneal_lr": [0, 1]},
}


def drawn_setting(model: str, seed: int = 2021) -> dict[str, Any]:
    """One setting of Table 8's grid, drawn with ``seed`` (γ_BN and γ_KL below the epochs, as the authors' constraints)."""
    rng = np.random.default_rng(seed)
    return {name: values[int(rng.integers(len(values)))] for name, values in GRID[model].items()}


# ------------------------------------------------------------------------------------------ data


def read_etm_data(folder: Path) -> dict[str, Any]:
    """Dieng et al.'s preprocessed corpus (``vocab.pkl``, ``bow_{tr,ts,ts_h1,ts_h2}_{tokens,counts}.mat``)
    as tealeaves corpora: ``train``, ``test`` and ``test_halves`` (each test post as the tokens of its
    first half followed by those of its second, so that a cut at ⌊N/2⌋ falls about where theirs did).
    A post is a bag of words there: its tokens are each word repeated by its count, in word order."""
    import scipy.io

    from tealeaves.corpus import Corpus, Vocabulary

    with open(folder / "vocab.pkl", "rb") as handle:
        vocab = Vocabulary(list(pickle.load(handle)))

    def bags(name: str) -> list[np.ndarray]:
        tokens = scipy.io.loadmat(folder / f"bow_{name}_tokens.mat")["tokens"].squeeze()
        counts = scipy.io.loadmat(folder / f"bow_{name}_counts.mat")["counts"].squeeze()
        return [np.repeat(np.ravel(t).astype(np.int64), np.ravel(c).astype(np.int64)) for t, c in zip(tokens, counts)]

    first, second = bags("ts_h1"), bags("ts_h2")
    return {
        "train": Corpus.from_documents(bags("tr"), vocab),
        "test": Corpus.from_documents(bags("ts"), vocab),
        "validation": Corpus.from_documents([np.concatenate([a, b]) for a, b in zip(first, second)], vocab),
    }


def write_reference_inputs(out: Path, train: Any, validation: Any, embeddings: np.ndarray | None) -> None:
    """The files the reference code reads: ``train.dtm.npz`` and ``vocab.json`` (D-VAE) and, in
    ``etm/``, the ``.mat`` files and ``vocab.pkl`` of Dieng et al.'s format with ``validation``'s
    halves as the test halves (the documents both ETMs score for their checkpoint), and the word
    embeddings as a text file (``embeddings.txt``; ours, so that both ETMs start from the same ρ)."""
    import scipy.io
    import scipy.sparse as sp

    from tealeaves.models.neural.etm import completion_halves

    out.mkdir(parents=True, exist_ok=True)
    words = list(train.vocab.words)
    sp.save_npz(out / "train.dtm.npz", train.doc_term_matrix().astype(np.float32).tocsr())
    (out / "vocab.json").write_text(json.dumps({w: i for i, w in enumerate(words)}))
    etm = out / "etm"
    etm.mkdir(exist_ok=True)
    with open(etm / "vocab.pkl", "wb") as handle:
        pickle.dump(words, handle)
    first, second = completion_halves(validation)
    full = validation.doc_term_matrix()[np.flatnonzero(validation.doc_lengths() >= 2)]
    for name, matrix in {
        "tr": train.doc_term_matrix(),
        "va": full[: min(100, full.shape[0])],
        "ts": full,
        "ts_h1": first,
        "ts_h2": second,
    }.items():
        matrix = sp.csr_matrix(matrix)
        tokens = np.empty(matrix.shape[0], dtype=object)
        counts = np.empty(matrix.shape[0], dtype=object)
        for d in range(matrix.shape[0]):
            row = matrix[d]
            tokens[d] = row.indices.astype(np.int64).reshape(1, -1)
            counts[d] = row.data.astype(np.int64).reshape(1, -1)
        scipy.io.savemat(etm / f"bow_{name}_tokens.mat", {"tokens": tokens})
        scipy.io.savemat(etm / f"bow_{name}_counts.mat", {"counts": counts})
    if embeddings is not None:
        with open(out / "embeddings.txt", "w") as handle:
            for word, vector in zip(words, embeddings):
                handle.write(word + " " + " ".join(f"{x:.6g}" for x in vector) + "\n")


def prepare_set(name: str, args: argparse.Namespace, dims: int) -> dict[str, Any]:
    """A data set's corpora, reference index and reference-format files (kept under ``--work``)."""
    from tealeaves.coherence import RefIndex
    from tealeaves.corpus import Corpus
    from tealeaves.models.neural.etm import cached_skip_gram_embeddings

    folder = args.work / f"data-{name}-e{dims}"
    if name == "planted":
        sys.path.insert(0, str(ROOT / "tests" / "models"))
        from planted import lda_corpus

        corpus, phi, _ = lda_corpus()
        train, validation, reference, window, true_phi = corpus, corpus, None, None, phi
    elif name == "etm":
        data = read_etm_data(args.etm_ref / "data" / "20ng")
        train, validation, reference, window, true_phi = (
            data["train"],
            data["validation"],
            data["test"],
            "document",
            None,
        )
    else:
        from tealeaves import prepare

        prepared = args.work / "20news-prepared"
        if not prepared.exists():
            print(f"# preparing {data_path(args.data, '20news')} as benchmarks/sweep.py does (not timed)", flush=True)
            prepare(data_path(args.data, "20news"), out=prepared, heldout=0.3, seed=0, workers=os.cpu_count())
        train, validation = Corpus.load(prepared / "train"), Corpus.load(prepared / "heldout")
        reference, window, true_phi = validation, 10, None
    if not (folder / "done").exists():
        train.save(folder / "train", force=True)
        validation.save(folder / "validation", force=True)
        embeddings, _ = cached_skip_gram_embeddings(train, dims, 0)
        write_reference_inputs(folder / "reference", train, validation, embeddings)
        if reference is not None:
            RefIndex.build(reference, out=folder / "index", force=True)
        (folder / "done").write_text("")
    return {
        "name": name,
        "folder": folder,
        "train": train,
        "index": RefIndex.load(folder / "index") if reference is not None else None,
        "window": window,
        "true_phi": true_phi,
    }


# ---------------------------------------------------------------------------------------- worker


class EpochTimes:
    """Wall-clock times at which epochs end, from a progress callback or a wrapped iterator."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.ends: list[float] = []
        self.cpu: list[float] = [time.process_time()]  # this process's CPU seconds at the start and each end

    def start(self) -> None:
        self.started, self.cpu = time.perf_counter(), [time.process_time()]

    def end(self) -> None:
        self.ends.append(time.perf_counter())
        self.cpu.append(time.process_time())

    def per_epoch(self) -> list[float]:
        return list(np.diff([self.started, *self.ends]))

    def cpu_per_epoch(self) -> list[float]:
        """CPU seconds of each epoch (this process's threads): what other jobs on the machine do not stretch."""
        return list(np.diff(self.cpu))


def top_ids(weights: np.ndarray, n: int = 25) -> list[list[int]]:
    return np.argsort(-weights, axis=1)[:, :n].tolist()


def softmax_rows(weights: np.ndarray) -> np.ndarray:
    shifted = np.exp(weights - weights.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def network_of(frame_locals: dict[str, Any]) -> Any:
    """Our trainer's network, found in the closure of the loss function that its epoch loop holds
    (read only, for the NPMI at checkpoint epochs; None when the loop's shape changed)."""
    loss = frame_locals.get("loss")
    for cell in getattr(loss, "__closure__", None) or ():
        value = cell.cell_contents
        if hasattr(value, "state_dict") and (hasattr(value, "topics") or hasattr(value, "topic_embeddings")):
            return value
    return None


def run_ours(spec: dict[str, Any]) -> dict[str, Any]:
    import inspect

    import torch

    from tealeaves.corpus import Corpus
    from tealeaves.models import train

    folder = Path(spec["folder"])
    corpus = Corpus.load(folder / "train")
    params = dict(spec["params"], epochs=spec["epochs"], threads=spec["threads"], device=spec["device"])
    if spec["model"] == "etm":
        params["validation"] = Corpus.load(folder / "validation")
    clock, checkpoints = EpochTimes(), {}
    task = f"train {spec['model']}"
    last = spec["epochs"]  # its topics too, when a checkpoint keeps an earlier epoch

    def progress(update: Any) -> None:
        if update.task != task or update.done == 0:
            return
        clock.ends.append(time.perf_counter())
        if update.done in spec["checkpoints"] or update.done == last:
            frame = inspect.currentframe()
            while frame is not None and "loss" not in frame.f_locals:
                frame = frame.f_back
            net = network_of(frame.f_locals) if frame is not None else None
            if net is not None:
                with torch.no_grad():
                    if spec["model"] == "dvae":
                        weights = net.topics.weight.detach().cpu().numpy().T
                    else:
                        weights = (net.topic_embeddings.weight @ net.word_embeddings.T).detach().cpu().numpy()
                checkpoints[update.done] = top_ids(weights)

    model = train(corpus, spec["model"], k=spec["k"], seed=spec["seed"], progress=progress, **params)
    result: dict[str, Any] = {"per_epoch": clock.per_epoch(), "phi": model.phi}
    result["last_topics"] = checkpoints.get(last)
    result["checkpoints"] = {e: top for e, top in checkpoints.items() if e in spec["checkpoints"]}
    if model.params.get("checkpoint") == "npmi":
        result["kept_epoch"] = model.manifest["training"]["checkpoint"]["epoch"]
    if spec["model"] == "etm":
        result["completion_perplexity"] = model.manifest["training"]["checkpoint"]["perplexity"]
        result["kept_epoch"] = model.manifest["training"]["checkpoint"]["epoch"]
    return result


def run_reference_dvae(spec: dict[str, Any]) -> dict[str, Any]:
    ref = Path(spec["dvae_ref"])
    sys.path.insert(0, str(ref))
    import warnings

    import dvae  # the reference checkout's module
    import torch

    warnings.filterwarnings("ignore", message=".*was not registered in the param store.*")
    warnings.filterwarnings("ignore", message=".*torch.tensor results are registered as constants.*")
    clock = EpochTimes()

    class TimedRange:
        """Stands in for ``tqdm.trange``: yields the epochs and notes when each ends."""

        def __init__(self, n: int, **_: Any) -> None:
            self.n = n

        def __iter__(self) -> Any:
            for epoch in range(self.n):
                yield epoch
                clock.ends.append(time.perf_counter())

        def set_postfix(self, *_: Any, **__: Any) -> None:
            pass

    dvae.tqdm.trange = TimedRange
    p, folder = spec["params"], Path(spec["folder"]) / "reference"
    out = Path(tempfile.mkdtemp(prefix="ref-dvae-"))
    vae, _ = dvae.run_dvae(
        output_dir=out,
        train_path=folder / "train.dtm.npz",
        eval_path=folder / "train.dtm.npz",  # dvae-sweep.yml: eval_path train.dtm.npz
        vocab_path=folder / "vocab.json",
        num_topics=spec["k"],
        to_dense=False,
        encoder_embeddings_dim=100,
        encoder_hidden_dim=0,
        dropout=0.25,
        alpha_prior=p["alpha"],
        learning_rate=p["learning_rate"],
        topic_word_regularization=p["beta_reg"] or None,
        batch_size=p.get("batch_size", 200),
        num_epochs=spec["epochs"],
        epochs_to_anneal_bn=p["gamma_bn"],
        epochs_to_anneal_kl=p["gamma_kl"],
        target_metric=spec.get("target_metric"),
        eval_step=2,
        save_all_topics=bool(spec["checkpoints"]),
        seed=spec["seed"],
        gpu=spec["device"] != "cpu" and torch.cuda.is_available(),  # main.py of the ETM: CUDA whenever there is one
    )
    beta = vae.decoder.beta  # K x V, the decoder weights
    vocab = json.loads((folder / "vocab.json").read_text())
    result: dict[str, Any] = {"per_epoch": clock.per_epoch(), "phi": softmax_rows(beta.astype(np.float64))}
    checkpoints = {}
    for epoch in spec["checkpoints"]:
        # the topics after e epochs are those of 0-based epoch e - 1; with eval_step 2 the files are
        # of the even ones, so an odd one is read from the epoch before it
        path = out / "topics" / f"{(epoch - 1) // 2 * 2}.txt"
        if path.exists():
            checkpoints[epoch] = [[vocab[w] for w in line.split()[:25]] for line in path.read_text().splitlines()]
    result["checkpoints"] = checkpoints
    if (out / "topics.txt").exists() and spec.get("target_metric"):
        lines = (out / "topics.txt").read_text().splitlines()
        result["best_npmi_topics"] = [[vocab[w] for w in line.split()[:25]] for line in lines]
    return result


class StampedOutput:
    """Stands in for ``sys.stdout`` of the reference ETM: keeps each line with its time."""

    def __init__(self) -> None:
        self.lines: list[tuple[float, str]] = []
        self.partial = ""

    def write(self, text: str) -> int:
        self.partial += text
        while "\n" in self.partial:
            line, self.partial = self.partial.split("\n", 1)
            self.lines.append((time.perf_counter(), line))
        return len(text)

    def flush(self) -> None:
        pass


def run_reference_etm(spec: dict[str, Any]) -> dict[str, Any]:
    import ast
    import runpy

    import torch

    ref = Path(spec["etm_ref"])
    sys.path.insert(0, str(ref))
    np.float = float  # type: ignore[attr-defined]  # patch: removed in NumPy 1.24, used by main.py
    load = torch.load
    torch.load = lambda *a, **kw: load(*a, **{"weights_only": False, **kw})  # patch: torch >= 2.6 default
    import utils  # the reference checkout's module

    utils.nearest_neighbors = lambda *a, **kw: []  # patch: looks up English words, only prints

    p, folder = spec["params"], Path(spec["folder"]) / "reference"
    save = Path(tempfile.mkdtemp(prefix="ref-etm-"))
    visualize = min(spec["checkpoints"]) if spec["checkpoints"] else 10**9
    sys.argv = [
        "main.py",
        "--data_path", str(folder / "etm"),
        "--emb_path", str(folder / "embeddings.txt"),
        "--save_path", str(save),
        "--num_topics", str(spec["k"]),
        "--epochs", str(spec["epochs"] + 1),  # main.py runs range(1, epochs)
        "--lr", str(p["learning_rate"]),
        "--wdecay", str(p["weight_decay"]),
        "--anneal_lr", str(int(p["anneal_lr"])),
        "--batch_size", str(p.get("batch_size", 1000)),
        "--t_hidden_size", str(p.get("encoder_dim", 800)),
        "--rho_size", str(p.get("embedding_dim", 300)),
        "--emb_size", str(p.get("embedding_dim", 300)),
        "--seed", str(spec["seed"]),
        "--num_words", "26",  # visualize prints num_words - 1 words
        "--visualize_every", str(visualize),
        "--log_interval", str(10**9),
    ]  # fmt: skip
    stamped, real = StampedOutput(), sys.stdout
    sys.stdout = stamped
    started = time.perf_counter()
    try:
        namespace = runpy.run_path(str(ref / "main.py"), run_name="__main__")
    finally:
        sys.stdout = real
    model = namespace["model"]  # the checkpoint main.py reloads at the end
    with torch.no_grad():
        beta = model.get_beta().double().cpu().numpy()
    ends = [t for t, line in stamped.lines if "VAL Doc Completion PPL" in line]
    ppl = [float(line.rsplit(":", 1)[1]) for t, line in stamped.lines if "VAL Doc Completion PPL" in line]
    vocab = list(namespace["vocab"])
    checkpoints: dict[int, list[list[int]]] = {}
    epoch = 0
    for _, line in stamped.lines:
        if line.startswith("Epoch----->"):
            epoch = int(line.split(">")[1].split()[0])
        if line.startswith("Topic ") and epoch in spec["checkpoints"]:
            words = ast.literal_eval(line.split(": ", 1)[1])  # the list main.py printed
            checkpoints.setdefault(epoch, []).append([vocab.index(w) for w in words])
    return {
        "per_epoch": list(np.diff([started, *ends[:-1]])),  # the last line is the reloaded checkpoint's
        "phi": beta,
        "checkpoints": checkpoints,
        "completion_perplexity": ppl[-1],
    }


def worker(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    os.environ["OMP_NUM_THREADS"] = str(spec["threads"])
    import torch

    if spec["impl"] == "reference" and spec.get("reference_ftz"):
        torch.set_flush_denormal(True)  # a CPU mode, as tealeaves sets it; set before any worker thread starts
    torch.set_num_threads(spec["threads"])
    started = time.perf_counter()
    if spec["impl"] == "ours":
        result = run_ours(spec)
    elif spec["model"] == "dvae":
        result = run_reference_dvae(spec)
    else:
        result = run_reference_etm(spec)
    result["seconds"] = time.perf_counter() - started
    result["device"] = f"torch {torch.__version__}, " + (
        torch.cuda.get_device_name() if spec["device"] != "cpu" and torch.cuda.is_available() else "cpu"
    )
    phi = np.asarray(result.pop("phi"), dtype=np.float64)
    np.save(Path(spec["out"]).with_suffix(".npy"), phi if spec["keep_phi"] else np.argsort(-phi, axis=1)[:, :25])
    Path(spec["out"]).write_text(json.dumps(result, default=float))


def launch(spec: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """Run one training in a child process; its result, with the child's peak resident memory."""
    tag = f"{spec['set']}-{spec['model']}-{spec['impl']}-s{spec['seed']}-e{spec['epochs']}-{spec['setting']}"
    spec["out"] = str(args.work / "runs" / f"{tag}.json")
    (args.work / "runs").mkdir(parents=True, exist_ok=True)
    spec_path = args.work / "runs" / f"{tag}.spec.json"
    spec_path.write_text(json.dumps(spec))
    env = dict(os.environ, OMP_NUM_THREADS=str(spec["threads"]), MKL_NUM_THREADS=str(spec["threads"]))
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # what tealeaves sets when it imports torch first; here for both
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    with open(args.work / "runs" / f"{tag}.log", "w") as log:
        child = subprocess.Popen(
            [sys.executable, str(HERE), "_worker", str(spec_path)], stdout=log, stderr=log, env=env
        )
        _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        tail = (args.work / "runs" / f"{tag}.log").read_text()[-3000:]
        raise SystemExit(f"{tag} failed:\n{tail}")
    result = json.loads(Path(spec["out"]).read_text())
    result["peak_mib"] = usage.ru_maxrss / 1024
    Path(spec["out"]).write_text(json.dumps(result))
    result["phi"] = np.load(Path(spec["out"]).with_suffix(".npy"))
    result["tag"] = tag
    return result


# ------------------------------------------------------------------------------------------ scores


def scores(top: list[list[int]], data: dict[str, Any]) -> dict[str, float]:
    """NPMI, C_V and TU of the top words. A top word that never occurs in the held-out posts (a
    training word; it happens to degenerate D-VAE topics on ``ours``) is left out of its topic and
    counted in ``missing``: neither ``on_missing="zero"`` (0) nor the authors' code (0 for any pair
    that never co-occurs) agrees with NPMI's -1 for a pair that never co-occurs."""
    from tealeaves.coherence import diversity, score

    words = data["train"].vocab.words
    topics = [[words[i] for i in row[:25]] for row in top]
    window = data["window"]
    cv_window = "document" if window == "document" else 110
    npmi = score(topics, data["index"], measure="npmi", window=window, topn=10, on_missing="skip")
    return {
        "npmi": npmi.model_mean,
        "c_v": score(topics, data["index"], measure="cv", window=cv_window, topn=10, on_missing="skip").model_mean,
        "tu": diversity(topics).topic_uniqueness,
        "missing": len({(t, w) for t, w, *_ in npmi.missing if w != "*"}),
    }


def join3(values: Any) -> str:
    return ", ".join(f"{v:.3f}" for v in values)


def mean_se(values: list[float]) -> tuple[float, float]:
    values = [v for v in values if v is not None and np.isfinite(v)]
    if not values:
        return float("nan"), float("nan")
    se = float(np.std(values, ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")
    return float(np.mean(values)), se


def fmt(values: list[float], digits: int = 3) -> str:
    m, se = mean_se(values)
    if not np.isfinite(m):
        return "—"
    return f"{m:.{digits}f} ± {se:.{digits}f}" if np.isfinite(se) else f"{m:.{digits}f}"


def within(ours: list[float], ref: list[float]) -> str:
    """'yes' when our mean is at least the reference's minus 2 standard errors of the difference."""
    (mo, so), (mr, sr) = mean_se(ours), mean_se(ref)
    if not (np.isfinite(mo) and np.isfinite(mr)):
        return "—"
    se = np.hypot(so if np.isfinite(so) else 0, sr if np.isfinite(sr) else 0)
    return "yes" if mo >= mr - 2 * se else f"no ({(mo - mr) / se:+.1f} SE)" if se > 0 else "no"


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


# ------------------------------------------------------------------------------------------- parts


def spec_for(args: argparse.Namespace, data: dict[str, Any], model: str, impl: str, seed: int, **extra: Any) -> dict:
    return {
        "set": data["name"],
        "folder": str(data["folder"]),
        "model": model,
        "impl": impl,
        "seed": seed,
        "k": extra.pop("k", 50),
        "threads": args.threads,
        "device": args.device,
        "dvae_ref": str(args.dvae_ref),
        "etm_ref": str(args.etm_ref),
        "checkpoints": extra.pop("checkpoints", []),
        "keep_phi": extra.pop("keep_phi", False),
        "setting": extra.pop("setting", "best"),
        "reference_ftz": args.reference_ftz and impl == "reference",
        **extra,
    }


def run_all(specs: list[dict[str, Any]], args: argparse.Namespace) -> list[dict[str, Any]]:
    """The runs in order (alternating ours and the reference), ``--jobs`` at a time."""
    if args.jobs <= 1:
        return [launch(spec, args) for spec in specs]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(args.jobs) as pool:
        return list(pool.map(lambda s: launch(s, args), specs))


def prepare(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Only the data sets' files (a run that trains later reads them)."""
    for name in args.sets:
        prepare_set(name, args, 300)


def planted(args: argparse.Namespace, report: dict[str, Any]) -> None:
    data = prepare_set("planted", args, PLANTED["etm"]["embedding_dim"])
    specs = []
    for model in args.models:
        params = {k: v for k, v in PLANTED[model].items() if k != "epochs"}
        if model == "etm":
            params |= {"weight_decay": 1.2e-6, "anneal_lr": 0}
        for seed in args.seeds:
            for impl in ("ours", "reference"):
                specs.append(
                    spec_for(
                        args, data, model, impl, seed, k=10, keep_phi=True, params=params,
                        epochs=PLANTED[model]["epochs"], setting="planted",
                    )
                )  # fmt: skip
    rows = [planted_row(spec, result, data["true_phi"]) for spec, result in zip(specs, run_all(specs, args))]
    report["planted"] = rows
    print_planted(rows)


def planted_row(spec: dict[str, Any], result: dict[str, Any], true_phi: np.ndarray) -> dict[str, Any]:
    from tealeaves.models.compare import match_topics

    _, distances = match_topics(true_phi, result["phi"])
    return {
        "model": spec["model"],
        "impl": spec["impl"],
        "seed": spec["seed"],
        "worst": float(distances.max()),
        "median": float(np.median(distances)),
        "distances": np.sort(distances).round(3).tolist(),
        "s_per_epoch": float(np.median(result["per_epoch"])),
    }


def print_planted(rows: list[dict[str, Any]]) -> None:
    print("\n## Planted topics (K = 10, V = 500, 2,000 documents): matched Hellinger distance")
    print(
        "| model | implementation | seeds | worst per seed | median per seed | worst, mean ± SE | median, mean ± SE |"
    )
    print("|---|---|---|---|---|---|---|")
    for model in ("dvae", "etm"):
        for impl in ("ours", "reference"):
            sel = sorted((r for r in rows if r["model"] == model and r["impl"] == impl), key=lambda r: r["seed"])
            if sel:
                print(
                    f"| {model} | {impl} | {', '.join(str(r['seed']) for r in sel)} | "
                    f"{join3(r['worst'] for r in sel)} | {join3(r['median'] for r in sel)} | "
                    f"{fmt([r['worst'] for r in sel])} | {fmt([r['median'] for r in sel])} |"
                )


def news(args: argparse.Namespace, report: dict[str, Any]) -> None:
    rows = report.setdefault("news", [])
    for name in args.sets:
        data = prepare_set(name, args, 300)
        print(f"\n# {name}: {len(data['train'])} training documents, V = {len(data['train'].vocab)}; {load_line()}")
        specs = []
        for model in args.models:
            epochs = args.dvae_epochs if model == "dvae" else args.etm_epochs
            params = dict(BEST[model] if args.setting == "best" else drawn_setting(model))
            if (
                model == "dvae" and args.scale_annealing
            ):  # as benchmarks/neural.py: annealing ends where 200 of 500 would
                params |= {
                    g: max(1, round(params[g] * epochs / 500)) for g in ("gamma_bn", "gamma_kl") if params[g] > 1
                }
            for seed in args.seeds:
                for impl in args.impls:
                    extra = {"target_metric": "npmi"} if model == "dvae" and impl == "reference" else {}
                    checkpoints = args.checkpoints if seed == args.seeds[0] else []
                    specs.append(
                        spec_for(
                            args, data, model, impl, seed, params=params, epochs=epochs,
                            checkpoints=[c for c in checkpoints if c <= epochs], setting=args.setting, **extra,
                        )
                    )  # fmt: skip
        for spec, result in zip(specs, run_all(specs, args)):
            rows.append(news_row(spec, result, data))
    print_news(rows)


def news_row(spec: dict[str, Any], result: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    by_epoch = sorted(result["checkpoints"].items(), key=lambda item: int(item[0]))
    row = {
        "set": spec["set"],
        "model": spec["model"],
        "impl": spec["impl"],
        "seed": spec["seed"],
        "epochs": spec["epochs"],
        "setting": spec["setting"],
        "params": spec["params"],
        "device": result.get("device", spec["device"]),
        "ftz": bool(spec.get("reference_ftz")),
        **scores(np.asarray(result["phi"]).tolist(), data),
        "perplexity": result.get("completion_perplexity"),
        "s_per_epoch": float(np.median(result["per_epoch"][1:] or result["per_epoch"])),
        "seconds": result["seconds"],
        "peak_mib": result.get("peak_mib", float("nan")),
        "checkpoints": {int(e): scores(top, data)["npmi"] for e, top in by_epoch},
    }
    if "best_npmi_topics" in result:
        row["at_best"] = scores(result["best_npmi_topics"], data)
    if spec["model"] == "dvae" and "kept_epoch" in result:  # ours with the NPMI checkpoint: its last epoch too
        row["kept_epoch"], row["at_last"] = result["kept_epoch"], scores(result["last_topics"], data)
    print(
        f"{row['set']} {row['model']} {row['impl']:9s} seed {row['seed']}: NPMI {row['npmi']:.3f} C_V {row['c_v']:.3f} "
        f"TU {row['tu']:.3f} ppl {row['perplexity']} {row['s_per_epoch']:.2f} s/epoch ({row['device']}) "
        f"{row['peak_mib']:.0f} MiB; NPMI by epoch {row['checkpoints']}",
        flush=True,
    )
    parts = {"kept": row, "at_best": row.get("at_best"), "at_last": row.get("at_last")}
    unseen = {name: part["missing"] for name, part in parts.items() if part is not None}
    if any(unseen.values()):
        print(f"  top words never in the held-out posts, left out of their topics: {unseen}", flush=True)
    return row


def collect(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """The tables of every finished run under ``--work``/runs (of earlier invocations too, here or
    copied from another machine), scored here."""
    planted_rows, news_rows, data = [], [], {}
    for spec_path in sorted((args.work / "runs").glob("*.spec.json")):
        spec = json.loads(spec_path.read_text())
        out = spec_path.with_name(spec_path.name.replace(".spec.json", ".json"))
        if not out.exists() or spec["model"] not in args.models:
            continue
        result = json.loads(out.read_text())
        result["phi"] = np.load(out.with_suffix(".npy"))
        if spec["set"] == "planted":
            data.setdefault("planted", prepare_set("planted", args, PLANTED["etm"]["embedding_dim"]))
            planted_rows.append(planted_row(spec, result, data["planted"]["true_phi"]))
        elif spec["set"] in args.sets:
            data.setdefault(spec["set"], prepare_set(spec["set"], args, 300))
            news_rows.append(news_row(spec, result, data[spec["set"]]))
    report["planted"], report["news"] = planted_rows, news_rows
    if planted_rows:
        print_planted(planted_rows)
    if news_rows:
        print_news(news_rows)


def scored(row: dict[str, Any], at: str | None) -> dict[str, Any]:
    """A run's scores: of the model it returned, or of another epoch's topics (``at_best``, ``at_last``)."""
    return row if at is None else row[at]


def print_news(rows: list[dict[str, Any]]) -> None:
    print("\n## 20 Newsgroups, K = 50: mean ± SE over seeds; 'within 2 SE': ours ≥ reference − 2 SE of the difference")
    print(
        "| data | model | setting | epochs | implementation | seeds | NPMI | C_V | TU | completion ppl "
        "| s/epoch | peak MiB | NPMI within 2 SE | TU within 2 SE |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    keys = sorted({(r["set"], r["model"], r["setting"], r["epochs"]) for r in rows})
    for name, model, setting, epochs in keys:
        group = [r for r in rows if (r["set"], r["model"], r["setting"], r["epochs"]) == (name, model, setting, epochs)]
        ref = [r for r in group if r["impl"] == "reference"]
        checkpointed = any("kept_epoch" in r for r in group)  # ours kept its best training-NPMI epoch
        # (label, implementation, the scores of another epoch than the returned model's, the reference row
        # it is held to: like for like, the returned model to the reference's saved checkpoint)
        for label, impl, at, versus in (
            ("ours", "ours", None, "at_best" if checkpointed else None),
            ("ours@last", "ours", "at_last", None),
            ("reference", "reference", None, ""),
            ("ref@best", "reference", "at_best", ""),
        ):
            sel = [r for r in group if r["impl"] == impl and (at is None or at in r)]
            if not sel:
                continue
            npmi, tu = [scored(r, at)["npmi"] for r in sel], [scored(r, at)["tu"] for r in sel]
            near = ("", "")
            if versus != "":
                held = [scored(r, versus) for r in ref if versus is None or versus in r]
                near = (within(npmi, [r["npmi"] for r in held]), within(tu, [r["tu"] for r in held]))
            timing = (
                (fmt([r["s_per_epoch"] for r in sel], 2), f"{np.mean([r['peak_mib'] for r in sel]):.0f}")
                if at is None
                else ("", "")
            )
            ppl = fmt([r["perplexity"] for r in sel], 0) if model == "etm" and at is None else "—"
            if any(r.get("ftz") for r in sel):
                label += " (FTZ)"
            print(
                f"| {name} | {model} | {setting} | {epochs} | {label} | {len(sel)} | {fmt(npmi)} | "
                f"{fmt([scored(r, at)['c_v'] for r in sel])} | {fmt(tu)} | {ppl} | {timing[0]} | {timing[1]} | {near[0]} | {near[1]} |"
            )
    traced = [r for r in rows if r["checkpoints"]]
    if traced:
        print("\nNPMI of the first seed's topics after e epochs:")
        for r in traced:
            print(
                f"  {r['set']} {r['model']} {r['impl']}: "
                + ", ".join(f"{e}: {v:.3f}" for e, v in r["checkpoints"].items())
            )


def speed(args: argparse.Namespace, report: dict[str, Any]) -> None:
    rows = report.setdefault("speed", [])
    for name in args.sets:
        data = prepare_set(name, args, 300)
        specs = []
        for model in args.models:
            params = dict(BEST[model])
            for seed in args.seeds:
                for impl in ("ours", "reference"):
                    specs.append(spec_for(args, data, model, impl, seed, params=params, epochs=args.speed_epochs))
        before = load_line()
        for spec, result in zip(specs, run_all(specs, args)):
            per_epoch = result["per_epoch"][1:] or result["per_epoch"]  # the first epoch warms up
            rows.append(
                {
                    "set": name,
                    "model": spec["model"],
                    "impl": spec["impl"],
                    "seed": spec["seed"],
                    "s_per_epoch": float(np.median(per_epoch)),
                    "peak_mib": result["peak_mib"],
                    "load": before,
                }
            )
            print(
                f"{name} {spec['model']} {spec['impl']}: {rows[-1]['s_per_epoch']:.2f} s/epoch, {result['peak_mib']:.0f} MiB",
                flush=True,
            )
        print(f"# load before: {before}; after: {load_line()}")
    print(
        f"\n## Seconds per epoch and peak memory, {args.threads} threads, {args.speed_epochs} epochs per run (median over epochs 2+)"
    )
    print(
        "| data | model | ours s/epoch | reference s/epoch | ours / reference epochs per second | ours MiB | reference MiB |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in args.sets:
        for model in args.models:
            o = [r for r in rows if (r["set"], r["model"], r["impl"]) == (name, model, "ours")]
            f = [r for r in rows if (r["set"], r["model"], r["impl"]) == (name, model, "reference")]
            if not o or not f:
                continue
            so, sf = np.mean([r["s_per_epoch"] for r in o]), np.mean([r["s_per_epoch"] for r in f])
            print(
                f"| {name} | {model} | {fmt([r['s_per_epoch'] for r in o], 2)} | {fmt([r['s_per_epoch'] for r in f], 2)} "
                f"| {sf / so:.2f}x | {np.mean([r['peak_mib'] for r in o]):.0f} | {np.mean([r['peak_mib'] for r in f]):.0f} |"
            )


def step(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """One minibatch's loss and gradients, ours against the authors' code: the same weights (our
    network's, moved off their initial values, copied into their modules), the same training
    documents (200 for the D-VAE, 1,000 for the ETM, their batch sizes), the same random draws
    (dropout, θ ~ q or η ~ q) from one seed. Ours is ``dvae.minibatch_loss`` and ``etm.minibatch_loss``
    (what ``fit`` minimises); theirs the D-VAE's ``L1RegularizedTraceMeanField_ELBO`` over its
    model and guide, and the ETM's ``forward`` (reconstruction and KL, means over the batch), as
    their training loops sum them. Gradients are compared where they are not 0 in exact
    arithmetic (the bias before the D-VAE encoder's batch norm is rounding only; with λ_BN = 1
    ours skips the batch-normed branch, whose gradients are then 0 in theirs)."""
    import warnings

    import pyro
    import torch

    from tealeaves.models.neural import dvae, etm
    from tealeaves.models.neural._training import DocTerm

    sys.path[:0] = [str(args.dvae_ref), str(args.etm_ref)]
    warnings.filterwarnings("ignore", message=".*was not registered in the param store.*")
    import dvae as reference_dvae  # the reference checkouts' modules
    import etm as reference_etm

    def moved(net: Any) -> dict[str, Any]:
        with torch.no_grad():
            for weight in net.parameters():
                if weight.requires_grad:
                    weight.add_(0.05 * torch.randn_like(weight))
        return net.state_dict()

    def copied(state: dict[str, Any], pairs: dict[str, Any]) -> dict[str, Any]:
        """Our weights into their parameters (``pairs``: our name -> their parameter)."""
        with torch.no_grad():
            for ours_name, param in pairs.items():
                param.copy_(state[ours_name])
        return pairs

    def worst_gradient(net: Any, pairs: dict[str, Any]) -> tuple[float, str]:
        grads = {  # our sparse layers hold W transposed, as "weight_t"
            n.replace("weight_t", "weight"): w.grad.t() if n.endswith("weight_t") else w.grad
            for n, w in net.named_parameters()
            if w.grad is not None
        }
        return max(
            (float(torch.linalg.norm(grads.get(n, torch.zeros_like(w.grad)) - w.grad) / torch.linalg.norm(w.grad)), n)
            for n, w in pairs.items()
            if n != "concentration.bias" and float(w.grad.abs().max()) > 0
        )

    def row(name: str, model: str, setting: str, weights: str, ours: Any, theirs: Any, net: Any, pairs: dict) -> None:
        ours, theirs = float(ours.detach()), float(theirs.detach())
        relative, (gradient, parameter) = abs(ours - theirs) / abs(theirs), worst_gradient(net, pairs)
        rows.append({"data": name, "model": model, "setting": setting, "annealing": weights, "ours": ours,
                     "reference": theirs, "relative": relative, "gradient": gradient, "parameter": parameter})  # fmt: skip
        print(
            f"| {name} | {model} | {setting} | {weights} | {ours:,.3f} | {theirs:,.3f} | {relative:.1e} | "
            f"{gradient:.1e} ({parameter}) |"
        )

    rows = report.setdefault("step", [])
    print("\n## One minibatch: loss and gradients, tealeaves against the authors' code")
    print(
        "| data | model | setting | λ_BN, w_KL | loss, tealeaves | loss, authors' | relative difference | gradients: largest ‖ours − theirs‖ / ‖theirs‖ (parameter) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.sets:
        corpus = prepare_set(name, args, 300)["train"]
        v, k, data = len(corpus.vocab), 50, DocTerm.of(corpus, torch.device("cpu"))
        dense = torch.tensor(corpus.doc_term_matrix()[:1000].toarray(), dtype=torch.float32)
        for setting in ("best", "drawn"):
            p = BEST["dvae"] if setting == "best" else drawn_setting("dvae")
            for bn_weight, kl_weight in ((0.3, 0.5), (1.0, 1.0)):
                torch.manual_seed(0)
                net = dvae._network(v, {"k": k, "encoder_dim": 100, "dropout": 0.25})
                state = moved(net)
                theirs = reference_dvae.DVAE(v, k, p["alpha"], 100, 0, 0.25, cuda=False)
                encoder, decoder = theirs.encoder, theirs.decoder
                pairs = copied(state, {  # our parameter: theirs
                    "hidden.weight": encoder.embedding_layer.weight, "hidden.bias": encoder.embedding_layer.bias,
                    "concentration.weight": encoder.alpha_layer.weight, "concentration.bias": encoder.alpha_layer.bias,
                    "concentration_bn.bias": encoder.alpha_bn_layer.bias,
                    "topics.weight": decoder.eta_layer.weight, "topics.bias": decoder.eta_layer.bias,
                    "topics_bn.bias": decoder.eta_bn_layer.bias,
                })  # fmt: skip
                torch.manual_seed(1)
                prior = torch.distributions.Dirichlet(torch.full((k,), float(p["alpha"])))
                batch = data.batch(np.arange(200))
                per_doc, penalty = dvae.minibatch_loss(net, prior, batch, bn_weight, kl_weight, p["beta_reg"])
                ours = per_doc.sum() + (penalty if penalty is not None else 0.0)
                ours.backward()
                pyro.clear_param_store()
                elbo = reference_dvae.L1RegularizedTraceMeanField_ELBO(
                    l1_params=["decoder$$$eta_layer.weight", "decoder$$$eta_layer.bias"], l1_weight=p["beta_reg"]
                )
                x = dense[:200]
                torch.manual_seed(1)
                loss = elbo.differentiable_loss(
                    theirs.model, theirs.guide, x, torch.tensor(bn_weight), torch.tensor(kl_weight)
                )
                loss = loss + elbo.l1_regularize(elbo.l1_params, elbo.l1_weight)
                loss.backward()
                row(name, "dvae", setting, f"{bn_weight}, {kl_weight}", ours, loss, net, pairs)
        # the ETM's loss does not depend on the setting (learning rate, weight decay, annealing)
        for draw in (0, 1, 2):  # three sets of weights
            torch.manual_seed(draw)
            net = etm._network(v, {"k": k, "encoder_dim": 800, "embedding_dim": 300})
            net.word_embeddings.copy_(torch.randn(v, 300))
            state = moved(net)
            theirs = reference_etm.ETM(k, v, 800, 300, 300, "relu", net.word_embeddings.clone(), False, 0.0)
            pairs = copied(state, {
                "encoder.0.weight": theirs.q_theta[0].weight, "encoder.0.bias": theirs.q_theta[0].bias,
                "encoder.2.weight": theirs.q_theta[2].weight, "encoder.2.bias": theirs.q_theta[2].bias,
                "mean.weight": theirs.mu_q_theta.weight, "mean.bias": theirs.mu_q_theta.bias,
                "log_variance.weight": theirs.logsigma_q_theta.weight, "log_variance.bias": theirs.logsigma_q_theta.bias,
                "topic_embeddings.weight": theirs.alphas.weight,
            })  # fmt: skip
            torch.manual_seed(1)
            ours = etm.minibatch_loss(net, data.batch(np.arange(1000))).mean()
            ours.backward()
            torch.manual_seed(1)
            reconstruction, kl = theirs(dense, dense / dense.sum(1, keepdim=True))
            loss = reconstruction + kl
            loss.backward()
            row(name, "etm", f"any (weights {draw})", "—", ours, loss, net, pairs)


def epoch_flops(model: str, n_docs: int, v: int, k: int, batch: int) -> float:
    """Multiply-add FLOPs (2mnk per product, forward; backward twice the forward) of one epoch's
    encoder and decoder matrix products, with the dense count matrix as the encoder's input."""
    docs = (n_docs // batch) * batch if model == "dvae" else n_docs
    if model == "dvae":  # V -> 100 -> K encoder, K -> V decoder
        forward = 2 * docs * (v * 100 + 100 * k + k * v)
    else:  # V -> 800 -> 800 -> 2K encoder; β = softmax(ρ α) (V x 300 x K) per batch; θ β (K x V)
        batches = -(-n_docs // batch)
        forward = 2 * docs * (v * 800 + 800 * 800 + 800 * 2 * k + k * v) + batches * 2 * v * 300 * k
    return 3.0 * forward


def flops(args: argparse.Namespace, report: dict[str, Any]) -> None:
    rows = report.get("speed", [])
    print(
        f"\n## Achieved GFLOP/s of an epoch (matrix products counted) against torch.matmul, {args.threads} threads; {load_line()}"
    )
    print(
        "| data | model | GFLOP per epoch | ours GFLOP/s | reference GFLOP/s | matmul GFLOP/s (same shape as the encoder's first layer) |"
    )
    print("|---|---|---|---|---|---|")
    for name in args.sets:
        data = prepare_set(name, args, 300)
        n, v = len(data["train"]), len(data["train"].vocab)
        for model in args.models:
            batch = 200 if model == "dvae" else 1000
            work = epoch_flops(model, n, v, 50, batch)
            peak = matmul_gflops(args.threads, batch, 100 if model == "dvae" else 800, v)
            cells = []
            for impl in ("ours", "reference"):
                sel = [r["s_per_epoch"] for r in rows if (r["set"], r["model"], r["impl"]) == (name, model, impl)]
                cells.append(f"{work / np.mean(sel) / 1e9:.1f}" if sel else "—")
            report.setdefault("flops", []).append({"set": name, "model": model, "gflop": work / 1e9, "matmul": peak})
            print(f"| {name} | {model} | {work / 1e9:.1f} | {cells[0]} | {cells[1]} | {peak:.1f} |")


# ---------------------------------------------------------------------------------- many trials


def etm_embeddings(folder: Path, words: list[str]) -> np.ndarray:
    """ρ of a prepared set as both ETMs read it (``reference/embeddings.txt``), kept beside it as
    ``rho.npy``: on a machine without gensim the trainers are handed these instead of learning them."""
    saved = folder / "rho.npy"
    if saved.exists():
        return np.load(saved)
    table = np.loadtxt(folder / "reference" / "embeddings.txt", dtype=str, comments=None, ndmin=2)
    rows = {word: i for i, word in enumerate(table[:, 0])}
    vectors = table[[rows[w] for w in words], 1:].astype(np.float32)
    np.save(saved, vectors)
    return vectors


def given_embeddings(vectors: np.ndarray) -> Any:
    """A patch of ``etm.cached_skip_gram_embeddings`` that returns ``vectors`` (no gensim needed)."""
    from unittest import mock

    from tealeaves.models.neural import etm

    return mock.patch.object(etm, "cached_skip_gram_embeddings", lambda *_: (vectors, {"cache": "given"}))


def synchronize(device: str) -> None:
    import torch

    if device != "cpu":
        torch.cuda.synchronize()


def device_matmul_gflops(args: argparse.Namespace, m: int, n: int, inner: int, repeat: int = 50) -> float:
    """A plain float32 ``torch.mm`` (m x inner)(inner x n) on ``--device``: its GFLOP/s."""
    import torch

    if args.device == "cpu":
        return matmul_gflops(args.threads, m, n, inner)
    a, b = torch.randn(m, inner, device=args.device), torch.randn(inner, n, device=args.device)
    torch.mm(a, b)
    synchronize(args.device)
    started = time.perf_counter()
    for _ in range(repeat):
        torch.mm(a, b)
    synchronize(args.device)
    return 2.0 * m * n * inner * repeat / (time.perf_counter() - started) / 1e9


def reference_etm_epochs(args: argparse.Namespace, data: dict[str, Any], rho: np.ndarray, epochs: int) -> list[float]:
    """Seconds of each epoch of the authors' training loop (their ``main.py``'s ``train``: their
    ``data.get_batch`` of dense counts, their ``ETM`` module's forward, Adam), evaluation left out:
    a lower bound of their epoch, which also scores document completion."""
    import torch

    sys.path[:0] = [str(args.etm_ref)]
    import data as reference_data  # the reference checkout's modules
    import etm as reference_etm
    import scipy.io

    folder = data["folder"] / "reference" / "etm"
    tokens = scipy.io.loadmat(folder / "bow_tr_tokens.mat")["tokens"].squeeze()  # as their data.py reads them
    counts = scipy.io.loadmat(folder / "bow_tr_counts.mat")["counts"].squeeze()
    v = len(data["train"].vocab)
    torch.manual_seed(0)
    model = reference_etm.ETM(50, v, 800, 300, 300, "relu", torch.from_numpy(rho).to(args.device), False, 0.0)
    model = model.to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005, weight_decay=1.2e-6)
    times = []
    for _ in range(epochs):
        started = time.perf_counter()
        for ind in torch.split(torch.randperm(len(tokens)), 1000):
            optimizer.zero_grad()
            batch = reference_data.get_batch(tokens, counts, ind, v, args.device)
            recon, kl = model(batch, batch / batch.sum(1).unsqueeze(1))
            (recon + kl).backward()
            optimizer.step()
            float(recon.sum().item())  # their loop reads the loss every minibatch
        synchronize(args.device)
        times.append(time.perf_counter() - started)
    return times


def trial_settings(n: int, epochs: int, model: str = "etm") -> list[dict[str, Any]]:
    """``n`` trials of one shape (k = 50, the authors' network sizes), settings drawn from Table 8
    (``model``'s part: 8c for etm, 8b for dvae), all trained for ``epochs``."""
    return [{"k": 50, "seed": i, **drawn_setting(model, seed=i), "epochs": epochs} for i in range(n)]


def batched_epochs(
    args: argparse.Namespace, corpus: Any, trials: list[dict[str, Any]], rho: np.ndarray | None, model: str = "etm"
) -> EpochTimes:
    """The epochs of ``trials`` trained as one batch (``batched.fit_many``), its evaluation
    included (etm: document completion; dvae: the training NPMI every 2 epochs)."""
    from contextlib import nullcontext

    from tealeaves.models.neural import batched

    clock = EpochTimes()
    task = f"train {model} (batched)"

    def progress(update: Any) -> None:
        if update.task == task and update.done == 0:
            clock.start()
        elif update.task == task:
            clock.end()

    with given_embeddings(rho) if rho is not None else nullcontext():
        batched.fit_many(corpus, trials, model=model, device=args.device, threads=args.threads, progress=progress)
    return clock


def device(args: argparse.Namespace, report: dict[str, Any]) -> None:
    """``device``: one trial's epoch and a batch of T trials' epochs on ``--device``, for each of
    ``--models``, against its matmul rate and (etm) against the authors' training loop on the
    same device (``--batch-sizes``)."""
    from tealeaves.corpus import Corpus

    folder = args.work / "data-etm-e300"  # prepare_set's, read without its index (the device needs no more)
    if not (folder / "done").exists():
        prepare_set("etm", args, 300)
    corpus = Corpus.load(folder / "train")
    n, v, e = len(corpus), len(corpus.vocab), args.speed_epochs
    peak = device_matmul_gflops(args, 1000, 800, v)
    report["matmul_gflops"] = peak
    rows = report.setdefault("device", [])
    print(
        f"\nmatmul rate on {args.device}: {peak:,.0f} GFLOP/s (float32, 1,000 x {v:,} times {v:,} x 800); {load_line()}"
    )
    for model in args.models:
        batch = 1000 if model == "etm" else 200
        rho = etm_embeddings(folder, list(corpus.vocab.words)) if model == "etm" else None

        def row(name: str, trials: int, times: Any, model: str = model, batch: int = batch) -> None:
            """A table row of ``times`` (an EpochTimes, or wall seconds per epoch), the first epoch left out (warm-up)."""
            per_epoch = times.per_epoch() if isinstance(times, EpochTimes) else times
            seconds = float(np.median(per_epoch[1:] or per_epoch))
            cpu = times.cpu_per_epoch() if isinstance(times, EpochTimes) else []
            cpu_cell = f"{float(np.median(cpu[1:] or cpu)) / trials:.3f}" if cpu else "—"
            work = trials * epoch_flops(model, n, v, 50, batch)
            rows.append(
                {
                    "model": model,
                    "run": name,
                    "trials": trials,
                    "s_per_epoch": seconds,
                    "cpu_s_per_trial_epoch": cpu_cell,
                    "gflop_per_s": work / seconds / 1e9,
                }
            )
            print(
                f"| {name} | {trials} | {seconds:.3f} | {seconds / trials:.4f} | {cpu_cell} | {work / seconds / 1e9:.0f} |",
                flush=True,
            )

        print(
            f"\n## {model} epochs on {args.device} (etm set, V = {v:,}, K = 50, batches of {batch:,}; {e} epochs, median of 2+)"
        )
        print("| run | trials | s per epoch | s per trial-epoch | CPU s per trial-epoch | GFLOP/s |")
        print("|---|---|---|---|---|---|")
        if model == "etm" and args.etm_ref is not None and (args.etm_ref / "etm.py").exists():
            row(
                "authors' ETM training loop (no evaluation)",
                1,
                reference_etm_epochs(args, {"folder": folder, "train": corpus}, rho, e),
            )
        row(f"{model}.fit, one trial", 1, single_epochs(args, corpus, trial_settings(1, e, model)[0], rho, model))
        for size in args.batch_sizes:
            row(
                f"batched.fit_many, {size} trials",
                size,
                batched_epochs(args, corpus, trial_settings(size, e, model), rho, model),
            )


def single_epochs(
    args: argparse.Namespace, corpus: Any, trial: dict[str, Any], rho: np.ndarray | None, model: str
) -> EpochTimes:
    """The epochs of one trial trained alone (``etm.fit`` or ``dvae.fit``), its evaluation included."""
    from contextlib import nullcontext

    from tealeaves.models.neural import dvae, etm

    clock = EpochTimes()

    def progress(update: Any) -> None:
        if update.task == f"train {model}" and update.done:
            clock.end()

    with given_embeddings(rho) if rho is not None else nullcontext():
        clock.start()
        (etm if model == "etm" else dvae).fit(
            corpus, **trial, device=args.device, threads=args.threads, progress=progress
        )
    return clock


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "_worker":
        worker(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--dvae-ref", type=Path, required=True, help="checkout of ahoho/dvae at 267cff1")
    parser.add_argument("--etm-ref", type=Path, required=True, help="checkout of ahoho/ETM")
    parser.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "results" / "neural_vs_reference")
    parser.add_argument("--parts", nargs="+", default=["planted", "news", "speed", "flops"])
    parser.add_argument("--sets", nargs="+", default=["etm", "ours"], choices=["etm", "ours"])
    parser.add_argument("--models", nargs="+", default=["dvae", "etm"])
    parser.add_argument(
        "--impls", nargs="+", default=["ours", "reference"], choices=["ours", "reference"],
        help="news: whose runs to train (collect then pairs them with runs kept from before)",
    )  # fmt: skip
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--dvae-epochs", type=int, default=500)
    parser.add_argument("--etm-epochs", type=int, default=500)
    parser.add_argument("--speed-epochs", type=int, default=4)
    parser.add_argument("--checkpoints", type=int, nargs="*", default=[50, 100, 200, 300, 400, 500])
    parser.add_argument(
        "--scale-annealing", action="store_true", help="dvae's γ_BN and γ_KL scaled by --dvae-epochs / 500"
    )
    parser.add_argument("--setting", choices=["best", "drawn"], default="best")
    parser.add_argument(
        "--reference-ftz",
        action="store_true",
        help="run the reference implementations with subnormals flushed to zero, as tealeaves trains (not as shipped)",
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time (1 for timings)")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[8, 32], help="device: trials per batch")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"argv": sys.argv, "load_before": load_line()}
    print(f"# {load_line()}; threads {args.threads}; device {args.device}", flush=True)
    for part in args.parts:
        parts = {
            "prepare": prepare,
            "planted": planted,
            "news": news,
            "speed": speed,
            "flops": flops,
            "step": step,
            "collect": collect,
            "device": device,
        }
        parts[part](args, report)
    report["load_after"] = load_line()
    out = args.work / f"results-{'-'.join(args.parts)}-{int(time.time())}.json"
    out.write_text(json.dumps(report, indent=1, default=float))
    print(f"\n# {load_line()}; written {out}")


if __name__ == "__main__":
    main()
