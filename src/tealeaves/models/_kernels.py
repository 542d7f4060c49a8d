"""Numba kernels of the models package: plain arrays in, plain arrays out.

Each kernel handles a batch of documents (a CSR slice, or tokens with their offsets); the
Python layer runs batches on threads (:func:`tealeaves.jit.by_documents`) and joins their
outputs, which never depend on the batching.
"""

from __future__ import annotations

import math

import numpy as np

from tealeaves.jit import kernel
from tealeaves.streams import categorical, stream


@kernel
def gibbs_theta_fixed_phi(
    tokens: np.ndarray,
    offsets: np.ndarray,
    phi_t: np.ndarray,
    alpha: np.ndarray,
    burn_in: int,
    samples: int,
    seed: int,
    base: int,
) -> np.ndarray:
    """θ̂ per document by collapsed Gibbs sampling of z with Φ fixed (θ integrated out).

    ``phi_t`` is Φ transposed (V x K). Document ``d`` of the batch (``base + d`` of the corpus)
    has its own random stream, so the result depends neither on batching nor on threads.
    """
    n_docs = offsets.shape[0] - 1
    k_topics = alpha.shape[0]
    alpha_sum = alpha.sum()
    theta = np.zeros((n_docs, k_topics))
    for d in range(n_docs):
        state = stream(seed, base + d)
        start = offsets[d]
        n = offsets[d + 1] - start
        if n == 0:
            theta[d, :] = alpha / alpha_sum
            continue
        z = np.empty(n, dtype=np.int64)
        n_dk = np.zeros(k_topics)
        weights = np.empty(k_topics)
        for i in range(n):
            w = tokens[start + i]
            for k in range(k_topics):
                weights[k] = alpha[k] * phi_t[w, k]
            z[i] = categorical(weights, state)
            n_dk[z[i]] += 1.0
        for sweep in range(burn_in + samples):
            for i in range(n):
                w = tokens[start + i]
                n_dk[z[i]] -= 1.0
                for k in range(k_topics):
                    weights[k] = phi_t[w, k] * (n_dk[k] + alpha[k])
                z[i] = categorical(weights, state)
                n_dk[z[i]] += 1.0
            if sweep >= burn_in:
                for k in range(k_topics):
                    theta[d, k] += (n_dk[k] + alpha[k]) / (n + alpha_sum)
        for k in range(k_topics):
            theta[d, k] /= samples
    return theta


# --------------------------------------------------------------------------- special functions
@kernel
def digamma(x: float) -> float:
    """ψ(x) for x > 0: the recurrence ψ(x) = ψ(x + 1) - 1/x up to x >= 10, then the asymptotic series."""
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))))
    return result + np.log(x) - 0.5 / x - series


@kernel
def _expected_log_dirichlet(gamma: np.ndarray, out: np.ndarray) -> float:
    """Fill ``out`` with exp(E[log θ_k] - m) under Dirichlet(γ), E[log θ_k] = ψ(γ_k) - ψ(Σγ); return m."""
    total = 0.0
    for k in range(gamma.shape[0]):
        total += gamma[k]
    psi_total = digamma(total)
    top = -np.inf
    for k in range(gamma.shape[0]):
        out[k] = digamma(gamma[k]) - psi_total
        top = max(top, out[k])
    for k in range(gamma.shape[0]):
        out[k] = np.exp(out[k] - top)
    return top


@kernel
def _word_normalisers(
    indices: np.ndarray, start: int, end: int, weights: np.ndarray, word_t: np.ndarray, phinorm: np.ndarray
) -> None:
    """phinorm[j] = Σ_k weights_k word_t[w_j, k] for the document's entries j in [start, end)."""
    k_topics = weights.shape[0]
    for j in range(start, end):
        w = indices[j]
        s = 0.0
        for k in range(k_topics):
            s += weights[k] * word_t[w, k]
        phinorm[j] = s


@kernel
def _expected_topic_counts(
    indices: np.ndarray,
    counts: np.ndarray,
    start: int,
    end: int,
    weights: np.ndarray,
    word_t: np.ndarray,
    phinorm: np.ndarray,
    out: np.ndarray,
) -> None:
    """out_k = weights_k Σ_j c_j word_t[w_j, k] / phinorm_j: the expected topic counts Σ_n φ_nk."""
    k_topics = weights.shape[0]
    out[:] = 0.0
    for j in range(start, end):
        w = indices[j]
        r = counts[j] / phinorm[j]
        for k in range(k_topics):
            out[k] += r * word_t[w, k]
    for k in range(k_topics):
        out[k] *= weights[k]


# --------------------------------------------------------------------------- variational LDA
@kernel
def vb_e_step(
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
    exp_elog_beta_t: np.ndarray,
    word_shift: np.ndarray,
    alpha: np.ndarray,
    max_iter: int,
    tol: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Variational E-step of LDA (Blei et al. 2003, eqs. 6-7) for every document of a CSR matrix.

    ``exp_elog_beta_t[w, k] = exp(E[log β_kw] - word_shift[w])`` (V x K); γ_d starts from
    α + N_d / K. Returns γ (D x K),
    the per-document weights exp(E[log θ_dk] - s_d) (D x K), the per-entry normalisers
    φ-norm (nnz, in the same shifted units) and the per-document evidence lower bound (D).
    """
    n_docs = indptr.shape[0] - 1
    k_topics = alpha.shape[0]
    gamma = np.empty((n_docs, k_topics))
    weights = np.empty((n_docs, k_topics))
    phinorm = np.empty(indices.shape[0])
    bound = np.empty(n_docs)
    alpha_sum = 0.0
    prior_norm = 0.0
    for k in range(k_topics):
        alpha_sum += alpha[k]
        prior_norm -= math.lgamma(alpha[k])
    prior_norm += math.lgamma(alpha_sum)
    for d in range(n_docs):
        start, end = indptr[d], indptr[d + 1]
        n = 0.0
        for j in range(start, end):
            n += counts[j]
        g = gamma[d]
        e = weights[d]
        for k in range(k_topics):
            g[k] = alpha[k] + n / k_topics
        shift = _expected_log_dirichlet(g, e)
        expected = np.empty(k_topics)
        for _ in range(max_iter):
            _word_normalisers(indices, start, end, e, exp_elog_beta_t, phinorm)
            _expected_topic_counts(indices, counts, start, end, e, exp_elog_beta_t, phinorm, expected)
            change = 0.0
            for k in range(k_topics):
                new = alpha[k] + expected[k]
                change += abs(new - g[k])
                g[k] = new
            shift = _expected_log_dirichlet(g, e)
            if change / k_topics < tol:
                break
        _word_normalisers(indices, start, end, e, exp_elog_beta_t, phinorm)
        b = prior_norm
        for j in range(start, end):
            b += counts[j] * (np.log(phinorm[j]) + word_shift[indices[j]] + shift)
        g_sum = 0.0
        for k in range(k_topics):
            g_sum += g[k]
        psi_sum = digamma(g_sum)
        for k in range(k_topics):
            b += (alpha[k] - g[k]) * (digamma(g[k]) - psi_sum) + math.lgamma(g[k])
        bound[d] = b - math.lgamma(g_sum)
    return gamma, weights, phinorm, bound


# --------------------------------------------------------------------------- pLSI
@kernel
def plsi_e_step(
    indptr: np.ndarray, indices: np.ndarray, counts: np.ndarray, theta: np.ndarray, phi_t: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One pLSI E-step (Hofmann 1999) over a CSR matrix.

    With P(w | d) = Σ_k θ_dk φ_kw, returns P(w | d) for every stored entry (nnz), the expected
    counts n_dk = θ_dk Σ_w n_dw φ_kw / P(w | d) (D x K) and each document's log-likelihood
    Σ_w n_dw log P(w | d) (D). The topic-word counts n_kw = φ_kw Σ_d θ_dk n_dw / P(w | d) follow
    from the same P(w | d).
    """
    n_docs = indptr.shape[0] - 1
    k_topics = theta.shape[1]
    prob = np.empty(indices.shape[0])
    n_dk = np.empty((n_docs, k_topics))
    loglik = np.empty(n_docs)
    for d in range(n_docs):
        start, end = indptr[d], indptr[d + 1]
        t = theta[d]
        _word_normalisers(indices, start, end, t, phi_t, prob)
        ll = 0.0
        for j in range(start, end):
            ll += counts[j] * np.log(prob[j])
        loglik[d] = ll
        _expected_topic_counts(indices, counts, start, end, t, phi_t, prob, n_dk[d])
    return prob, n_dk, loglik


@kernel
def plsi_fold_in(
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
    phi_t: np.ndarray,
    smoothing: float,
    max_iter: int,
    tol: float,
) -> np.ndarray:
    """θ_d by EM with Φ fixed ("folding in", Hofmann 1999 §3.3), with pseudo-count smoothing λ.

    Iterates θ_dk <- (θ_dk Σ_w n_dw φ_kw / P(w | d) + λ) / (N_d + Kλ) from the uniform θ until
    the largest change is below ``tol`` or ``max_iter`` iterations; an empty document keeps
    the uniform θ.
    """
    n_docs = indptr.shape[0] - 1
    k_topics = phi_t.shape[1]
    theta = np.empty((n_docs, k_topics))
    for d in range(n_docs):
        start, end = indptr[d], indptr[d + 1]
        t = theta[d]
        t[:] = 1.0 / k_topics
        n = 0.0
        for j in range(start, end):
            n += counts[j]
        if n == 0.0:
            continue
        norm = np.empty(end - start)
        expected = np.empty(k_topics)
        for _ in range(max_iter):
            _word_normalisers(indices[start:end], 0, end - start, t, phi_t, norm)
            _expected_topic_counts(indices[start:end], counts[start:end], 0, end - start, t, phi_t, norm, expected)
            change = 0.0
            for k in range(k_topics):
                new = (expected[k] + smoothing) / (n + k_topics * smoothing)
                change = max(change, abs(new - t[k]))
                t[k] = new
            if change < tol:
                break
    return theta


# --------------------------------------------------------------------------- correlated topic model
@kernel
def _cholesky_solve(matrix: np.ndarray, rhs: np.ndarray, lower: np.ndarray, out: np.ndarray) -> None:
    """Solve matrix @ out = rhs for a symmetric positive definite matrix (Cholesky, in place)."""
    n = matrix.shape[0]
    for i in range(n):
        for j in range(i + 1):
            s = matrix[i, j]
            for m in range(j):
                s -= lower[i, m] * lower[j, m]
            if i == j:
                lower[i, i] = np.sqrt(s)
            else:
                lower[i, j] = s / lower[j, j]
    for i in range(n):
        s = rhs[i]
        for m in range(i):
            s -= lower[i, m] * out[m]
        out[i] = s / lower[i, i]
    for i in range(n - 1, -1, -1):
        s = out[i]
        for m in range(i + 1, n):
            s -= lower[m, i] * out[m]
        out[i] = s / lower[i, i]


@kernel
def _ctm_lambda_objective(
    lam: np.ndarray, mu: np.ndarray, precision: np.ndarray, expected: np.ndarray, nu2: np.ndarray, scale: float
) -> float:
    """-(λ-μ)ᵀΣ⁻¹(λ-μ)/2 + Σ_k n̂_k λ_k - (N/ζ) Σ_k exp(λ_k + ν²_k/2): the λ part of the CTM bound."""
    k_topics = lam.shape[0]
    quad = 0.0
    for i in range(k_topics):
        row = 0.0
        for j in range(k_topics):
            row += precision[i, j] * (lam[j] - mu[j])
        quad += (lam[i] - mu[i]) * row
    value = -0.5 * quad
    for k in range(k_topics):
        value += expected[k] * lam[k] - scale * np.exp(lam[k] + 0.5 * nu2[k])
    return value


@kernel
def _ctm_log_zeta(lam: np.ndarray, nu2: np.ndarray) -> float:
    """log ζ with ζ = Σ_k exp(λ_k + ν²_k/2), the optimal value of the bound's auxiliary ζ."""
    top = -np.inf
    for k in range(lam.shape[0]):
        top = max(top, lam[k] + 0.5 * nu2[k])
    s = 0.0
    for k in range(lam.shape[0]):
        s += np.exp(lam[k] + 0.5 * nu2[k] - top)
    return top + np.log(s)


@kernel
def _ctm_nu2(a: float, log_b: float, start: float) -> float:
    """The ν² maximising -aν²/2 - exp(log_b + ν²/2) + log(ν²)/2 (guarded Newton on t = log ν²)."""
    t = np.log(start)
    lo, hi = -60.0, 20.0
    for _ in range(100):
        v = np.exp(t)
        e = np.exp(log_b + 0.5 * v)
        grad = -0.5 * a * v - 0.5 * v * e + 0.5
        if grad > 0:
            lo = t
        else:
            hi = t
        hess = -0.5 * a * v - 0.5 * e * (v + 0.5 * v * v)
        step = -grad / hess
        new = t + step
        if not (lo < new < hi):
            new = 0.5 * (lo + hi)
        if abs(new - t) < 1e-10:
            t = new
            break
        t = new
    return np.exp(t)


@kernel
def ctm_e_step(
    indptr: np.ndarray,
    indices: np.ndarray,
    counts: np.ndarray,
    beta_t: np.ndarray,
    mu: np.ndarray,
    precision: np.ndarray,
    logdet_precision: float,
    lam_init: np.ndarray,
    nu2_init: np.ndarray,
    max_iter: int,
    tol: float,
    newton_steps: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Variational inference of the correlated topic model (Blei & Lafferty 2007, §3) per document.

    q(η_d) = N(λ_d, diag(ν²_d)), q(z_n) = Categorical(φ_n). Coordinate ascent on the bound
    with ζ = Σ_k exp(λ_k + ν²_k/2): φ_nk ∝ exp(λ_k) β_k,w_n; λ by damped Newton steps (the
    λ-objective is concave); each ν²_k by a guarded one-dimensional Newton search. Stops when
    the bound changes by less than ``tol`` (relative) or after ``max_iter`` rounds.
    Returns λ, ν² (D x K), the weights exp(λ_dk - max_k λ_dk) (D x K), the per-entry
    normalisers Σ_k weights_k β_kw (nnz) and the per-document bound (D).
    """
    n_docs = indptr.shape[0] - 1
    k_topics = mu.shape[0]
    lam = np.empty((n_docs, k_topics))
    nu2 = np.empty((n_docs, k_topics))
    weights = np.empty((n_docs, k_topics))
    phinorm = np.empty(indices.shape[0])
    bound = np.empty(n_docs)
    for d in range(n_docs):
        start, end = indptr[d], indptr[d + 1]
        n = 0.0
        for j in range(start, end):
            n += counts[j]
        lm = lam[d]
        v = nu2[d]
        e = weights[d]
        for k in range(k_topics):
            lm[k] = lam_init[d, k]
            v[k] = nu2_init[d, k]
        expected = np.empty(k_topics)
        grad = np.empty(k_topics)
        step = np.empty(k_topics)
        trial = np.empty(k_topics)
        hess = np.empty((k_topics, k_topics))
        lower = np.empty((k_topics, k_topics))
        old = -np.inf
        b = 0.0
        for _ in range(max_iter):
            # φ given λ: expected topic counts n̂_k
            top = lm.max()
            for k in range(k_topics):
                e[k] = np.exp(lm[k] - top)
            _word_normalisers(indices, start, end, e, beta_t, phinorm)
            _expected_topic_counts(indices, counts, start, end, e, beta_t, phinorm, expected)
            # λ given φ, ν², ζ: damped Newton steps on a concave function
            log_zeta = _ctm_log_zeta(lm, v)
            scale = n * np.exp(-log_zeta)
            for _ in range(newton_steps):
                for i in range(k_topics):
                    row = 0.0
                    for j in range(k_topics):
                        row += precision[i, j] * (lm[j] - mu[j])
                        hess[i, j] = precision[i, j]
                    curv = scale * np.exp(lm[i] + 0.5 * v[i])
                    grad[i] = -row + expected[i] - curv
                    hess[i, i] += curv
                _cholesky_solve(hess, grad, lower, step)
                current = _ctm_lambda_objective(lm, mu, precision, expected, v, scale)
                size = 1.0
                for _ in range(30):
                    for k in range(k_topics):
                        trial[k] = lm[k] + size * step[k]
                    if _ctm_lambda_objective(trial, mu, precision, expected, v, scale) >= current:
                        break
                    size *= 0.5
                else:
                    for k in range(k_topics):
                        trial[k] = lm[k]
                for k in range(k_topics):
                    lm[k] = trial[k]
            # ν² given λ, ζ
            log_zeta = _ctm_log_zeta(lm, v)
            for k in range(k_topics):
                v[k] = _ctm_nu2(precision[k, k], np.log(n) - log_zeta + lm[k] if n > 0 else -np.inf, v[k])
            log_zeta = _ctm_log_zeta(lm, v)
            # the bound, with φ optimal for λ and ζ optimal for (λ, ν²)
            top = lm.max()
            for k in range(k_topics):
                e[k] = np.exp(lm[k] - top)
            _word_normalisers(indices, start, end, e, beta_t, phinorm)
            b = 0.5 * logdet_precision - n * log_zeta
            for j in range(start, end):
                b += counts[j] * (np.log(phinorm[j]) + top)
            for i in range(k_topics):
                row = 0.0
                for j in range(k_topics):
                    row += precision[i, j] * (lm[j] - mu[j])
                b += -0.5 * (lm[i] - mu[i]) * row - 0.5 * precision[i, i] * v[i] + 0.5 * (np.log(v[i]) + 1.0)
            if abs(b - old) <= tol * abs(b):
                break
            old = b
        bound[d] = b
    return lam, nu2, weights, phinorm, bound
