"""Many sessions at once: no lost or crossed results."""
import asyncio

import httpx
import numpy as np
import pytest

pytestmark = pytest.mark.slow

TRAIN = """
w = torch.zeros(3, requires_grad=True)
for step in range(40):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
log(step=step, loss=loss)
"""


def _expected(x, y):
    w = np.zeros(3, np.float32)
    for _ in range(40):
        r = x @ w - y
        grad = (2.0 / len(y)) * (x.T @ r)
        w = w - np.float32(0.1) * grad.astype(np.float32)
    return w


async def _train(client, k):
    rng = np.random.default_rng(k)
    x = rng.standard_normal((16, 3)).astype(np.float32)
    true_w = np.array([k, -k / 2, 1.0], np.float32)
    y = (x @ true_w).astype(np.float32)
    r = await client.post("/v1/sessions", json={})
    assert r.status_code == 201, r.text
    sid, token = r.json()["id"], r.json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    r = await client.post(f"/v1/sessions/{sid}/run", headers=headers, json={
        "program": TRAIN, "inputs": {"x": x.tolist(), "y": y.tolist(), "k": k}, "outputs": ["w", "k"]})
    assert r.status_code == 200, r.text
    body = r.json()
    await client.delete(f"/v1/sessions/{sid}", headers=headers)
    return k, body, _expected(x, y)


def test_fifty_sessions_train_concurrently_without_crossing(live_server):
    async def main():
        limits = httpx.Limits(max_connections=60)
        async with httpx.AsyncClient(base_url=live_server.url, timeout=120, limits=limits) as client:
            return await asyncio.gather(*(_train(client, k) for k in range(50)))

    results = asyncio.run(main())
    assert len(results) == 50
    for k, body, expected in results:
        assert body["values"]["k"]["data"] == k  # this session's own input came back
        np.testing.assert_allclose(body["values"]["w"]["data"], expected, rtol=1e-4, atol=1e-5)
