#!/usr/bin/env bash
# The GPU measurements of issue 40 in one run (a few minutes), from a folder that holds this
# checkout's src/ and benchmarks/, tests/models/planted.py, the authors' ETM checkout (ETM/), the
# etm set prepared by neural_vs_reference.py (work/data-etm-e300: train/, rho.npy,
# reference/etm/bow_tr_*.mat, done) and the sweep's 20 Newsgroups corpus and index with its ρ
# (sweepwork/corpus/train, sweepwork/reference-index, rho-sweep.npy). Results go to $OUT.
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
# no gensim there: ETM gets the ρ learned here (--embeddings); an empty gensim package satisfies
# the trainer registry's check, and nothing imports from it
mkdir -p /tmp/stub/gensim && touch /tmp/stub/gensim/__init__.py
export PYTHONPATH=src:/tmp/stub TEALEAVES_CACHE=/tmp/tealeaves-cache
nvidia-smi --query-gpu=name,memory.total --format=csv | tee "$OUT/gpu.txt"
# 1. one trial's epoch and batches of 8 and 32 (dvae, then etm) against the matmul rate and the authors' loop
timeout 150 python3 benchmarks/neural_vs_reference.py --dvae-ref none --etm-ref ETM --work work \
    --parts device --speed-epochs 5 --batch-sizes 8 32 --device cuda --threads 4 2>&1 | tee "$OUT/device.txt"
# 2. the full sweep's neural part measured on a slice on the GPU, packs of 32 D-VAE and of 32 ETM trials
timeout 90 python3 benchmarks/sweep.py --full --work sweepwork --models dvae etm --slice-steps 4 \
    --device cuda --batch-trials 32 --batch-memory-gb 60 --embeddings rho-sweep.npy 2>&1 | tee "$OUT/full.txt"
# 3. eight planted ETM trials trained to their budget (500 epochs) as one batch: their topics
timeout 170 python3 benchmarks/sweep.py --full --work sweepwork --models etm --device cuda \
    --budget-trials 8 --budget-out "$OUT/budget" --embeddings rho-sweep.npy 2>&1 | tee "$OUT/budget.txt"
