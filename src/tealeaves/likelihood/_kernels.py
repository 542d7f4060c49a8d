"""Numba kernels of the likelihood package: plain arrays in, plain arrays out.

Every estimator kernel loops over a batch of documents and gives document ``d`` the random
stream ``stream(seed, base + d)`` (``base`` is the index of the batch's first document in the
whole corpus), so results do not depend on batching or on the threads that run the batches
(:func:`tealeaves.jit.map_threads`). The ``seed`` a kernel receives is already its caller's
stream family (:func:`tealeaves.rng.family_seed`), never the user's seed itself.

Shared conventions:

- ``phi_t`` is Φ transposed (V x K, C order): the K topic probabilities of a word are contiguous;
  each kernel first gathers ``f[n, k] = φ_{w_n | k}`` for the document (N x K).
- ``na[k]`` holds ``N_k + α m_k``, the topic count of the current assignment plus the prior, as
  float64, so a Gibbs site update (Wallach et al. 2009, eq. 7) is ``f[n, k] * na[k]`` after
  removing the site's own topic (the shared denominator ``N - 1 + α`` cancels).
- ``starts[d]`` (document completion, §5) is the number of leading tokens that are observed
  (``w^(1)``); only the remaining tokens (``w^(2)``) are scored. ``starts = 0`` scores all.
- Sums over topics use a fixed order (four accumulators, no fast-math reassociation) and draws
  scan the topics in order, so the same seed gives the same draws on every machine.
"""

from __future__ import annotations

import math

import numpy as np

from tealeaves.jit import kernel
from tealeaves.streams import dirichlet, stream, uniform

# arguments of the building blocks as typed values: a literal 0 or False would compile them once more
FIRST = np.int64(0)
FORWARD, REVERSE = np.bool_(False), np.bool_(True)
RESCALE = 1e-150  # running products of probabilities are folded into a log below this
SEARCH_STEPS = 64  # enough bisection steps for any vocabulary


# --------------------------------------------------------------------------- building blocks
@kernel(inline="always")
def gather(tokens, lo, hi, phi_t):
    """``f[n, k] = φ_{w_n | k}`` for the tokens ``tokens[lo:hi]``."""
    n_tokens = hi - lo
    k_topics = phi_t.shape[1]
    f = np.empty((n_tokens, k_topics))
    for n in range(n_tokens):
        row = phi_t[tokens[lo + n]]
        for k in range(k_topics):
            f[n, k] = row[k]
    return f


@kernel(inline="always")
def site_total(f, n, na):
    """``Σ_k f[n, k] na[k]`` with four accumulators (a fixed order, so the same result everywhere)."""
    k_topics = na.shape[0]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    k = 0
    while k + 4 <= k_topics:
        s0 += f[n, k] * na[k]
        s1 += f[n, k + 1] * na[k + 1]
        s2 += f[n, k + 2] * na[k + 2]
        s3 += f[n, k + 3] * na[k + 3]
        k += 4
    while k < k_topics:
        s0 += f[n, k] * na[k]
        k += 1
    return (s0 + s1) + (s2 + s3)


@kernel(inline="always")
def draw_site(f, n, na, total, state):
    """Draw ``k`` with probability ``f[n, k] na[k] / total`` (``total`` from :func:`site_total`)."""
    u = uniform(state) * total
    last = na.shape[0] - 1
    acc = 0.0
    for k in range(last):
        acc += f[n, k] * na[k]
        if u < acc:
            return k
    return last


@kernel(inline="always")
def fold(prod, log_total, x):
    """Multiply the running product ``exp(log_total) * prod`` by a probability ``x`` without underflow."""
    if x < RESCALE:
        return prod, log_total + math.log(x)
    prod *= x
    if prod < RESCALE:
        return 1.0, log_total + math.log(prod)
    return prod, log_total


@kernel
def gibbs_sweep(f, z, na, state, lo, hi, reverse):
    """One Gibbs sweep (eq. 7) over positions ``lo..hi-1``, in reverse order when ``reverse``."""
    for i in range(hi - lo):
        n = hi - 1 - i if reverse else lo + i
        na[z[n]] -= 1.0
        total = site_total(f, n, na)
        k = draw_site(f, n, na, total, state)
        z[n] = k
        na[k] += 1.0


@kernel
def sequential_draws(f, z, na, state, lo, hi, present, alpha_sum):
    """Draw ``z_n ~ P(z_n | w_n, z_<n)`` for ``n = lo..hi-1`` given ``present`` tokens already counted.

    Returns ``Σ_n log P(w_n | z_<n, Φ, αm)`` with ``P(w_n | z_<n) = Σ_t φ_{w_n|t} (N_t + α m_t) / (present + α)``.
    """
    log_total = 0.0
    prod = 1.0
    for n in range(lo, hi):
        total = site_total(f, n, na)
        prod, log_total = fold(prod, log_total, total / (present + alpha_sum))
        k = draw_site(f, n, na, total, state)
        z[n] = k
        na[k] += 1.0
        present += 1
    return log_total + math.log(prod)


@kernel
def log_likelihood_given_z(logf, z, lo, hi):
    """``log P(w_lo..hi-1 | z, Φ) = Σ_n log φ_{w_n | z_n}`` (eq. 4)."""
    s = 0.0
    for n in range(lo, hi):
        s += logf[n, z[n]]
    return s


@kernel
def log_prior_of_counts(counts, alpha, alpha_sum, n_tokens):
    """``log P(z | αm)`` from the topic counts of z (eq. 5)."""
    s = math.lgamma(alpha_sum) - math.lgamma(n_tokens + alpha_sum)
    for k in range(alpha.shape[0]):
        if counts[k] > 0:
            s += math.lgamma(counts[k] + alpha[k]) - math.lgamma(alpha[k])
    return s


@kernel(inline="always")
def sum_of(x):
    """``Σ x`` in index order (as ``x.sum()``, whose implementation numba compiles at greater cost)."""
    s = 0.0
    for v in x:
        s += v
    return s


@kernel(inline="always")
def copy_into(out, x):
    """``out[:] = x`` for 1-d arrays of one length (a slice assignment compiles numba's broadcasting checks)."""
    for i in range(x.shape[0]):
        out[i] = x[i]


@kernel(inline="always")
def logsumexp(x):
    """``log Σ exp(x)`` with the maximum shifted out."""
    top = -np.inf
    for v in x:
        top = max(top, v)
    if top == -np.inf:
        return top
    s = 0.0
    for v in x:
        s += math.exp(v - top)
    return top + math.log(s)


@kernel
def log_of(x):
    """Elementwise natural log of a 2-d array."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = math.log(x[i, j])
    return out


# --------------------------------------------------------------------------- importance sampling (§4.1)
@kernel
def is_prior_theta(tokens, offsets, phi_t, alpha, samples, seed, base):
    """IS-PT (eqs. 12-13): log of (1/S) Σ_s Π_n Σ_t θ_t^(s) φ_{w_n|t}, θ^(s) ~ Dir(αm)."""
    n_docs = offsets.shape[0] - 1
    k_topics = alpha.shape[0]
    out = np.zeros(n_docs)
    for d in range(n_docs):
        lo, hi = offsets[d], offsets[d + 1]
        if hi == lo:
            continue
        state = stream(seed, base + d)
        f = gather(tokens, lo, hi, phi_t)
        theta = np.empty(k_topics)
        logs = np.empty(samples)
        for s in range(samples):
            dirichlet(alpha, state, theta)
            total = 0.0
            prod = 1.0
            for n in range(hi - lo):
                prod, total = fold(prod, total, site_total(f, n, theta))
            logs[s] = total + math.log(prod)
        out[d] = logsumexp(logs) - math.log(samples)
    return out


@kernel
def is_topic_proposal(tokens, offsets, phi_t, alpha, iterations, samples, seed, base):
    """IS-PZW (``iterations = 0``) and IS-IP (eq. 11): importance sampling of z from a factorised Q.

    Q(z_n) ∝ α m_t φ_{w_n|t}, then ``iterations`` synchronous updates
    Q(z_n)^(i) ∝ (α m_t + Σ_{n' ≠ n} Q(z_{n'})^(i-1)) φ_{w_n|t}; the proposal is then fixed and
    log of (1/S) Σ_s P(w, z^(s) | Φ, αm) / Q(z^(s)) is returned.
    """
    n_docs = offsets.shape[0] - 1
    k_topics = alpha.shape[0]
    alpha_sum = sum_of(alpha)
    out = np.zeros(n_docs)
    for d in range(n_docs):
        lo, hi = offsets[d], offsets[d + 1]
        n_tokens = hi - lo
        if n_tokens == 0:
            continue
        state = stream(seed, base + d)
        f = gather(tokens, lo, hi, phi_t)
        q = np.empty((n_tokens, k_topics))
        for n in range(n_tokens):
            s = 0.0
            for k in range(k_topics):
                q[n, k] = alpha[k] * f[n, k]
                s += q[n, k]
            for k in range(k_topics):
                q[n, k] /= s
        column = np.empty(k_topics)
        previous = np.empty((n_tokens, k_topics))
        for _ in range(iterations):
            for n in range(n_tokens):
                copy_into(previous[n], q[n])
            column[:] = 0.0
            for n in range(n_tokens):
                for k in range(k_topics):
                    column[k] += previous[n, k]
            for n in range(n_tokens):
                s = 0.0
                for k in range(k_topics):
                    q[n, k] = (alpha[k] + column[k] - previous[n, k]) * f[n, k]
                    s += q[n, k]
                for k in range(k_topics):
                    q[n, k] /= s
        # log f - log Q per (n, t), and the cumulative rows of Q for drawing
        gain = np.empty((n_tokens, k_topics))
        cum = np.empty((n_tokens, k_topics))
        for n in range(n_tokens):
            acc = 0.0
            for k in range(k_topics):
                gain[n, k] = math.log(f[n, k]) - math.log(q[n, k])
                acc += q[n, k]
                cum[n, k] = acc
        # log Γ(c + α_t) - log Γ(α_t) for c = 0..N
        table = np.empty((k_topics, n_tokens + 1))
        for k in range(k_topics):
            base_k = math.lgamma(alpha[k])
            for c in range(n_tokens + 1):
                table[k, c] = math.lgamma(c + alpha[k]) - base_k
        constant = math.lgamma(alpha_sum) - math.lgamma(n_tokens + alpha_sum)
        counts = np.empty(k_topics, dtype=np.int64)
        logs = np.empty(samples)
        for s in range(samples):
            counts[:] = 0
            lw = constant
            for n in range(n_tokens):
                u = uniform(state) * cum[n, k_topics - 1]
                t = 0
                while t < k_topics - 1 and cum[n, t] <= u:
                    t += 1
                counts[t] += 1
                lw += gain[n, t]
            for k in range(k_topics):
                lw += table[k, counts[k]]
            logs[s] = lw
        out[d] = logsumexp(logs) - math.log(samples)
    return out


# --------------------------------------------------------------------------- harmonic mean (§4.2)
@kernel
def harmonic_mean(tokens, offsets, phi_t, alpha, burn_in, samples, seed, base):
    """HM (eq. 15): -log of (1/S) Σ_s 1 / P(w | z^(s), Φ) over Gibbs samples z^(s) after ``burn_in`` sweeps."""
    n_docs = offsets.shape[0] - 1
    alpha_sum = sum_of(alpha)
    out = np.zeros(n_docs)
    for d in range(n_docs):
        lo, hi = offsets[d], offsets[d + 1]
        n_tokens = hi - lo
        if n_tokens == 0:
            continue
        state = stream(seed, base + d)
        f = gather(tokens, lo, hi, phi_t)
        logf = log_of(f)
        z = np.empty(n_tokens, dtype=np.int64)
        na = alpha.copy()
        sequential_draws(f, z, na, state, FIRST, n_tokens, FIRST, alpha_sum)
        for _ in range(burn_in):
            gibbs_sweep(f, z, na, state, FIRST, n_tokens, FORWARD)
        neg = np.empty(samples)
        for s in range(samples):
            gibbs_sweep(f, z, na, state, FIRST, n_tokens, FORWARD)
            neg[s] = -log_likelihood_given_z(logf, z, 0, n_tokens)
        out[d] = math.log(samples) - logsumexp(neg)
    return out


# --------------------------------------------------------------------------- annealed importance sampling (§4.3, §5.2)
@kernel
def annealed_importance(tokens, offsets, starts, phi_t, alpha, taus, burn_in, seed, base):
    """AIS (Algorithm 1; Algorithm 4 when ``starts > 0``): one annealing run per document.

    z^(1) ~ P_0: for completion, z over w^(1) by sequential draws and ``burn_in`` Gibbs sweeps
    (approximately P(z^(1) | w^(1))), then z over w^(2) from the prior urn given z over w^(1).
    For s = 2..S, z^(s) ~ T_{s-1}: a Gibbs sweep with φ_{w_n|t} raised to τ_{s-1} at scored
    positions (eq. 16). Returns Σ_s (τ_s - τ_{s-1}) log P(w^(2) | z^(s), Φ).
    """
    n_docs = offsets.shape[0] - 1
    k_topics = alpha.shape[0]
    n_temps = taus.shape[0] - 1
    alpha_sum = sum_of(alpha)
    ones = np.ones((1, k_topics))
    out = np.zeros(n_docs)
    for d in range(n_docs):
        lo, hi = offsets[d], offsets[d + 1]
        n_tokens = hi - lo
        start = starts[d]
        if n_tokens == start:
            continue
        state = stream(seed, base + d)
        f = gather(tokens, lo, hi, phi_t)
        logf = log_of(f)
        z = np.empty(n_tokens, dtype=np.int64)
        na = alpha.copy()
        tempered = np.empty((1, k_topics))
        sequential_draws(f, z, na, state, FIRST, start, FIRST, alpha_sum)
        for _ in range(burn_in):
            gibbs_sweep(f, z, na, state, FIRST, start, FORWARD)
        for n in range(start, n_tokens):  # the prior urn: P(z_n = t | z_<n) ∝ N_t + α m_t
            total = site_total(ones, FIRST, na)
            k = draw_site(ones, FIRST, na, total, state)
            z[n] = k
            na[k] += 1.0
        log_weight = (taus[1] - taus[0]) * log_likelihood_given_z(logf, z, start, n_tokens)
        for s in range(1, n_temps):
            tau = taus[s]
            for n in range(n_tokens):
                na[z[n]] -= 1.0
                if n < start:
                    k = draw_site(f, n, na, site_total(f, n, na), state)
                else:
                    for k in range(k_topics):
                        tempered[0, k] = math.exp(tau * logf[n, k])
                    k = draw_site(tempered, FIRST, na, site_total(tempered, FIRST, na), state)
                z[n] = k
                na[k] += 1.0
            log_weight += (taus[s + 1] - tau) * log_likelihood_given_z(logf, z, start, n_tokens)
        out[d] = log_weight
    return out


# --------------------------------------------------------------------------- Chib-style estimator (§4.4)
@kernel
def log_transition_to(f, z, zstar, na, work):
    """``log T(z* <- z)`` (eq. 24): Π_n P(z*_n | z*_<n, z_>n, w, Φ, αm) for a forward sweep."""
    copy_into(work, na)
    log_total = 0.0
    prod = 1.0
    for n in range(z.shape[0]):
        work[z[n]] -= 1.0
        t = zstar[n]
        prod, log_total = fold(prod, log_total, f[n, t] * work[t] / site_total(f, n, work))
        work[t] += 1.0
    return log_total + math.log(prod)


@kernel
def chib(tokens, offsets, phi_t, alpha, samples, burn_in, icm_sweeps, seed, base):
    """Chib-style estimator (Algorithm 2) with Murray & Salakhutdinov's unbiased construction.

    z*: sequential draws, ``burn_in`` Gibbs sweeps, then iterated conditional modes (each site
    set to the mode of eq. 7, positions 1..N) until a sweep changes nothing or ``icm_sweeps``.
    s ~ Uniform{1..S}; z^(s) ~ T̃(· <- z*) (eq. 7 applied in reverse order); forward sweeps
    give z^(s+1..S) and reverse sweeps z^(s-1..1). Returns
    log P(z*, w) - log (1/S) Σ_s' T(z* <- z^(s')) and the number of ICM sweeps run (the last
    one changed nothing, unless the cap was reached), per document.
    """
    n_docs = offsets.shape[0] - 1
    k_topics = alpha.shape[0]
    alpha_sum = sum_of(alpha)
    out = np.zeros(n_docs)
    icm_done = np.zeros(n_docs, dtype=np.int64)
    for d in range(n_docs):
        lo, hi = offsets[d], offsets[d + 1]
        n_tokens = hi - lo
        if n_tokens == 0:
            continue
        state = stream(seed, base + d)
        f = gather(tokens, lo, hi, phi_t)
        z = np.empty(n_tokens, dtype=np.int64)
        na = alpha.copy()
        work = np.empty(k_topics)
        sequential_draws(f, z, na, state, FIRST, n_tokens, FIRST, alpha_sum)
        for _ in range(burn_in):
            gibbs_sweep(f, z, na, state, FIRST, n_tokens, FORWARD)
        for _ in range(icm_sweeps):
            icm_done[d] += 1
            changed = False
            for n in range(n_tokens):
                na[z[n]] -= 1.0
                best = 0
                best_w = f[n, 0] * na[0]
                for k in range(1, k_topics):
                    x = f[n, k] * na[k]
                    if x > best_w:
                        best, best_w = k, x
                if best != z[n]:
                    changed = True
                z[n] = best
                na[best] += 1.0
            if not changed:
                break
        zstar = z.copy()
        counts = np.zeros(k_topics, dtype=np.int64)
        log_joint = 0.0
        for n in range(n_tokens):
            counts[zstar[n]] += 1
            log_joint += math.log(f[n, zstar[n]])
        log_joint += log_prior_of_counts(counts, alpha, alpha_sum, n_tokens)

        chosen = min(int(uniform(state) * samples), samples - 1)
        log_t = np.empty(samples)
        gibbs_sweep(f, z, na, state, FIRST, n_tokens, REVERSE)  # z^(s) ~ T̃(. <- z*)
        middle = z.copy()
        middle_na = na.copy()
        log_t[chosen] = log_transition_to(f, z, zstar, na, work)
        for s in range(chosen + 1, samples):
            gibbs_sweep(f, z, na, state, FIRST, n_tokens, FORWARD)
            log_t[s] = log_transition_to(f, z, zstar, na, work)
        copy_into(z, middle)
        copy_into(na, middle_na)
        for s in range(chosen - 1, -1, -1):
            gibbs_sweep(f, z, na, state, FIRST, n_tokens, REVERSE)
            log_t[s] = log_transition_to(f, z, zstar, na, work)
        out[d] = log_joint - (logsumexp(log_t) - math.log(samples))
    return out, icm_done


# --------------------------------------------------------------------------- left-to-right (§4.5, §5.3)
@kernel(inline="always")
def particles_start(tokens, offsets, phi_t, alpha, seed, base, d):
    """What left-to-right starts document ``d`` from: ``f`` (N x K), room for z (N) and for
    ``N_k + α m_k`` (K), and the document's stream."""
    lo, hi = offsets[d], offsets[d + 1]
    return (
        gather(tokens, lo, hi, phi_t),
        np.empty(hi - lo, dtype=np.int64),
        np.empty(alpha.shape[0]),
        stream(seed, base + d),
    )


@kernel
def left_to_right_sis(tokens, offsets, starts, phi_t, alpha, particles, seed, base):
    """Algorithm 3 with R particles, ``sis``: log of (1/R) Σ_r Π_n p_n^(r).

    Each particle draws z_n ~ P(z_n | w_n, z_<n) left to right and records
    p_n^(r) = P(w_n | z_<n^(r)) = Σ_t φ_{w_n|t} (N_t + α m_t) / (n - 1 + α). With ``starts > 0``
    (positions ``>= starts[d]`` scored): the ratio of the particle averages over all positions
    and over the observed positions.
    """
    alpha_sum = sum_of(alpha)
    out = np.zeros(offsets.shape[0] - 1)
    for d in range(out.shape[0]):
        start = starts[d]
        if offsets[d + 1] - offsets[d] == start:
            continue
        f, z, na, state = particles_start(tokens, offsets, phi_t, alpha, seed, base, d)
        n_tokens = f.shape[0]
        observed = np.zeros(particles)
        scored = np.zeros(particles)
        for r in range(particles):
            copy_into(na, alpha)
            observed[r] = sequential_draws(f, z, na, state, FIRST, start, FIRST, alpha_sum)
            scored[r] = sequential_draws(f, z, na, state, start, n_tokens, start, alpha_sum) + observed[r]
        out[d] = logsumexp(scored) - logsumexp(observed)
    return out


@kernel
def left_to_right(tokens, offsets, starts, phi_t, alpha, particles, resample, seed, base):
    """Algorithm 3 with R particles, the per-position averages: Σ_n log (1/R) Σ_r p_n^(r) over
    positions ``>= starts[d]`` (p_n^(r) as in :func:`left_to_right_sis`).

    With ``resample`` (``wallach``) each particle resamples z_<n by one Gibbs sweep over
    positions 1..n-1 given w_<n before scoring position n (lines 5-7); without (``mallet``) it
    does not.
    """
    alpha_sum = sum_of(alpha)
    out = np.zeros(offsets.shape[0] - 1)
    for d in range(out.shape[0]):
        start = starts[d]
        if offsets[d + 1] - offsets[d] == start:
            continue
        f, z, na, state = particles_start(tokens, offsets, phi_t, alpha, seed, base, d)
        n_tokens = f.shape[0]
        position_sum = np.zeros(n_tokens)
        for _ in range(particles):
            copy_into(na, alpha)
            for n in range(n_tokens):
                if resample and n > 0:
                    gibbs_sweep(f, z, na, state, FIRST, n, FORWARD)
                total = site_total(f, n, na)
                position_sum[n] += total / (n + alpha_sum)
                k = draw_site(f, n, na, total, state)
                z[n] = k
                na[k] += 1.0
        s = 0.0
        for n in range(start, n_tokens):
            s += math.log(position_sum[n] / particles)
        out[d] = s
    return out


# --------------------------------------------------------------------------- estimated θ (§5.1)
@kernel
def estimated_theta(tokens, offsets, starts, phi_t, alpha, burn_in, samples, seed, base):
    """Eq. 27: log of (1/S) Σ_s Π_{n in w^(2)} Σ_t φ_{w_n|t} θ̂_t^(s), θ̂^(s) from Gibbs samples on w^(1)."""
    n_docs = offsets.shape[0] - 1
    k_topics = alpha.shape[0]
    alpha_sum = sum_of(alpha)
    out = np.zeros(n_docs)
    for d in range(n_docs):
        lo, hi = offsets[d], offsets[d + 1]
        n_tokens = hi - lo
        start = starts[d]
        if n_tokens == start:
            continue
        state = stream(seed, base + d)
        f = gather(tokens, lo, hi, phi_t)
        z = np.empty(n_tokens, dtype=np.int64)
        na = alpha.copy()
        theta = np.empty(k_topics)
        sequential_draws(f, z, na, state, FIRST, start, FIRST, alpha_sum)
        for _ in range(burn_in):
            gibbs_sweep(f, z, na, state, FIRST, start, FORWARD)
        logs = np.empty(samples)
        for s in range(samples):
            gibbs_sweep(f, z, na, state, FIRST, start, FORWARD)
            for k in range(k_topics):
                theta[k] = na[k] / (start + alpha_sum)
            total = 0.0
            prod = 1.0
            for n in range(start, n_tokens):
                prod, total = fold(prod, total, site_total(f, n, theta))
            logs[s] = total + math.log(prod)
        out[d] = logsumexp(logs) - math.log(samples)
    return out


# --------------------------------------------------------------------------- synthetic data (§6.1)
@kernel
def search_cumulative(cum, u):
    """The first index i with ``u < cum[i]`` (``cum`` non-decreasing, ``u < cum[-1]``)."""
    lo = 0
    hi = cum.shape[0] - 1
    for _ in range(SEARCH_STEPS):
        if lo >= hi:
            break
        mid = (lo + hi) // 2
        if u < cum[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@kernel
def sample_documents(phi_cum, alpha, lengths, seed, base):
    """LDA's generative process: θ_d ~ Dir(αm), z_n ~ θ_d, w_n ~ φ_{z_n} (``phi_cum``: cumulative rows of Φ).

    Document ``d`` of the batch (``base + d`` of the corpus) has ``lengths[d]`` tokens; returns
    the batch's tokens, document after document.
    """
    k_topics = alpha.shape[0]
    n_tokens = 0
    for d in range(lengths.shape[0]):
        n_tokens += lengths[d]
    tokens = np.empty(n_tokens, dtype=np.int32)
    theta = np.empty(k_topics)
    n = 0
    for d in range(lengths.shape[0]):
        state = stream(seed, base + d)
        dirichlet(alpha, state, theta)
        cum = np.cumsum(theta)
        for _ in range(lengths[d]):
            t = search_cumulative(cum, uniform(state) * cum[k_topics - 1])
            row = phi_cum[t]
            tokens[n] = search_cumulative(row, uniform(state) * row[row.shape[0] - 1])
            n += 1
    return tokens


# --------------------------------------------------------------------------- Chang et al. 2009 §4.2
@kernel
def plug_in_predictive(tokens, offsets, theta, phi):
    """Per document: Σ_n log p(w_n | θ̂_d) and Σ over distinct words of their rank under p(· | θ̂_d).

    p(w | θ̂_d) = Σ_z φ_{w|z} θ̂_{d,z}; rank 1 is the most probable word of the vocabulary, and a
    word's rank is one plus the number of words with strictly higher probability.
    """
    n_docs = offsets.shape[0] - 1
    k_topics, n_words = phi.shape
    log_lik = np.zeros(n_docs)
    rank_sum = np.zeros(n_docs)
    n_terms = np.zeros(n_docs, dtype=np.int64)
    for d in range(n_docs):
        lo, hi = offsets[d], offsets[d + 1]
        if hi == lo:
            continue
        p = np.zeros(n_words)
        for k in range(k_topics):
            weight = theta[d, k]
            for v in range(n_words):
                p[v] += weight * phi[k, v]
        s = 0.0
        for n in range(lo, hi):
            s += math.log(p[tokens[n]])
        log_lik[d] = s
        ascending = np.sort(p)
        terms = np.unique(tokens[lo:hi])
        for v in terms:
            rank_sum[d] += 1.0 + (n_words - np.searchsorted(ascending, p[v], side="right"))
        n_terms[d] = terms.shape[0]
    return log_lik, rank_sum, n_terms
