"""MultivariateNormal (engine/distributions/multivariate_normal.py): log_prob, entropy and the
derived matrices against PyTorch's values and gradients, the PPO pattern (a batch of means with
one diagonal covariance), sample shapes, and PyTorch's argument errors."""
import numpy as np
import pytest

from op_check import values

PARAMS = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])


def _dist(lib, kind, batch=False):
    cov = lib.tensor(PARAMS, dtype=lib.float64, requires_grad=True)
    loc = lib.tensor(np.arange(6.0).reshape(2, 3) / 4 if batch else [0.5, -1.0, 0.25], dtype=lib.float64,
                     requires_grad=True)
    if kind == "covariance_matrix":
        d = lib.distributions.MultivariateNormal(loc, covariance_matrix=cov)
    elif kind == "precision_matrix":
        d = lib.distributions.MultivariateNormal(loc, precision_matrix=cov)
    else:
        d = lib.distributions.MultivariateNormal(loc, scale_tril=lib.linalg.cholesky(cov))
    return d, loc, cov


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("batch", [False, True])
def test_log_prob_and_entropy_values_and_gradients(lib, kind, batch):
    d, loc, cov = _dist(lib, kind, batch)
    x = lib.tensor([[0.1, 0.2, 0.3], [-1.0, 0.5, 2.0]], dtype=lib.float64)
    lp = d.log_prob(x)
    h = d.entropy()
    assert tuple(lp.shape) == (2,) and tuple(h.shape) == ((2,) if batch else ())
    (lp.sum() + h.sum()).backward()
    expected = _reference(kind, batch)
    np.testing.assert_allclose(values(lp), expected["lp"], rtol=1e-10)
    np.testing.assert_allclose(values(h), expected["h"], rtol=1e-10)
    np.testing.assert_allclose(values(loc.grad), expected["gloc"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(values(cov.grad), expected["gcov"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(values(d.variance), np.broadcast_to(expected["var"], values(d.variance).shape),
                               rtol=1e-10)
    np.testing.assert_allclose(values(d.covariance_matrix @ d.precision_matrix),
                               np.broadcast_to(np.eye(3), values(d.covariance_matrix).shape), atol=1e-10)


def _reference(kind, batch):
    """The same quantities from the closed forms, in NumPy (float64)."""
    sigma = {"covariance_matrix": PARAMS, "precision_matrix": np.linalg.inv(PARAMS),
             "scale_tril": PARAMS}[kind]
    loc = np.arange(6.0).reshape(2, 3) / 4 if batch else np.array([0.5, -1.0, 0.25])
    x = np.array([[0.1, 0.2, 0.3], [-1.0, 0.5, 2.0]])
    inv = np.linalg.inv(sigma)
    diff = x - loc
    _, logdet = np.linalg.slogdet(sigma)
    lp = -0.5 * (3 * np.log(2 * np.pi) + np.einsum("bi,ij,bj->b", diff, inv, diff)) - 0.5 * logdet
    h = 0.5 * 3 * (1 + np.log(2 * np.pi)) + 0.5 * logdet
    h = np.full(2, h) if batch else np.asarray(h)
    gloc = (diff @ inv) if batch else (diff @ inv).sum(0)
    # d/dSigma of sum(log_prob) + sum(entropy), as a symmetric matrix (PyTorch's Cholesky gradient);
    # through scale_tril = cholesky(Sigma) the gradient reaching Sigma is the same
    n = 2
    gsig = 0.5 * sum(inv @ np.outer(d_, d_) @ inv for d_ in diff) - 0.5 * n * inv + 0.5 * h.size * inv
    gcov = -(sigma @ gsig @ sigma) if kind == "precision_matrix" else gsig   # Sigma = P^-1 there
    return {"lp": lp, "h": h, "gloc": gloc, "gcov": gcov, "var": np.diag(sigma)}


def test_ppo_pattern_samples_scores_and_entropy(lib):
    """nikhilbarhate99/PPO-PyTorch: MultivariateNormal(action_mean, diag(action_var).unsqueeze(0))."""
    lib.manual_seed(0)
    action_mean = lib.tensor([[0.1, -0.2], [0.3, 0.0], [0.0, 0.5]], requires_grad=True)
    action_var = lib.full((2,), 0.36)
    cov_mat = lib.diag(action_var).unsqueeze(dim=0)
    dist = lib.distributions.MultivariateNormal(action_mean, cov_mat)
    assert tuple(dist.batch_shape) == (3,) and tuple(dist.event_shape) == (2,)
    action = dist.sample()
    assert tuple(action.shape) == (3, 2) and not action.requires_grad
    logp = dist.log_prob(action)
    assert tuple(logp.shape) == (3,) and logp.requires_grad
    entropy = dist.entropy()
    assert tuple(entropy.shape) == (3,)
    np.testing.assert_allclose(values(entropy), np.full(3, 1.0 + np.log(2 * np.pi) + np.log(0.36)), rtol=1e-6)
    logp.sum().backward()
    assert tuple(action_mean.grad.shape) == (3, 2)
    assert tuple(dist.sample((4,)).shape) == (4, 3, 2)
    assert tuple(dist.rsample((5,)).shape) == (5, 3, 2)


def test_exactly_one_matrix_is_required(lib):
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"):
        lib.distributions.MultivariateNormal(lib.zeros(2))
    with pytest.raises(ValueError, match="loc must be at least one-dimensional."):
        lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(2))


def test_a_covariance_that_is_not_positive_definite_is_refused(lib):
    with pytest.raises(ValueError, match=r"to satisfy the constraint PositiveDefinite\(\)"):
        lib.distributions.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]]))
