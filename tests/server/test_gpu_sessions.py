"""CUDA sessions (SPEC 7): they share the one worker process of their GPU, keep their own state there,
and train to the same numbers as a CPU session. Runs on the fake CuPy where there is no GPU."""
import numpy as np
import pytest

from server_harness import LiveServer, open_session

pytestmark = pytest.mark.gpu

TRAIN = """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Dropout(0.2),
                            torch.nn.Linear(8, 1)).double().to(x.device)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
losses = []
for step in range(25):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
weight = model[0].weight.detach()
print(weight.device.type, len(losses))
"""

MORE = """
for step in range(5):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
model.eval()
pred = model(x).detach()
"""


@pytest.fixture(scope="module")
def gpu_server(cuda_device):
    server = LiveServer(workers=1, gpu_workers=None).start()
    yield server
    server.stop()


@pytest.fixture
def http(gpu_server):
    import httpx
    with httpx.Client(base_url=gpu_server.url, timeout=60) as client:
        yield client


def _pid(server, session):
    return server.backend.worker_pid(server.app.state.sessions.sessions[session.id].placement)


def _inputs():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 3))
    y = np.sin(x.sum(1, keepdims=True))
    return {"x": {"data": x.tolist(), "dtype": "float64"}, "y": {"data": y.tolist(), "dtype": "float64"}}


def test_cuda_sessions_share_the_gpu_worker_and_keep_their_own_state(gpu_server, http):
    assert "cuda" in gpu_server.backend.devices()
    a, b = open_session(http, device="cuda"), open_session(http, device="cuda")
    assert _pid(gpu_server, a) == _pid(gpu_server, b) and _pid(gpu_server, a) is not None
    a.ok("kept = torch.arange(3.0) + 1", outputs=[])
    b.ok("kept = torch.zeros(2)", outputs=[])
    body = a.ok("z = kept * 2", outputs=["z", "kept"])
    assert body["values"]["z"]["data"] == [2.0, 4.0, 6.0]
    assert b.ok("z = kept + 1", outputs=["z"])["values"]["z"]["data"] == [1.0, 1.0]
    assert a.delete().status_code == 204
    assert b.ok("z = kept - 1", outputs=["z"])["values"]["z"]["data"] == [-1.0, -1.0]


def test_training_in_a_cuda_session_matches_a_cpu_session(http):
    results = {}
    for device in ("cpu", "cuda"):
        s = open_session(http, device=device)
        assert s.get().json()["device"] == device
        body = s.ok(TRAIN, inputs=_inputs(), outputs=["losses", "weight"])
        assert body["stdout"] == f"{device} 25\n"
        more = s.ok(MORE, outputs=["pred", "weight"])      # the model and optimizer live on in the session
        variable = s.get("/variables/weight")
        assert variable.status_code == 200, variable.text
        results[device] = (body["values"]["losses"], body["values"]["weight"]["data"],
                           more["values"]["pred"]["data"], variable.json())
        s.delete()
    cpu, cuda = results["cpu"], results["cuda"]
    losses = [v["data"] if isinstance(v, dict) else v for v in cuda[0]]
    assert losses[-1] < losses[0] / 2
    np.testing.assert_allclose(losses, [v["data"] if isinstance(v, dict) else v for v in cpu[0]], rtol=1e-10)
    np.testing.assert_allclose(cuda[1], cpu[1], rtol=1e-10)
    np.testing.assert_allclose(cuda[2], cpu[2], rtol=1e-10)
    np.testing.assert_allclose(cuda[3]["value"]["data"], cpu[3]["value"]["data"], rtol=1e-10)


def test_a_failing_cuda_program_leaves_its_neighbour_alone(http):
    a, b = open_session(http, device="cuda"), open_session(http, device="cuda")
    b.ok("kept = torch.ones(2) * 7", outputs=[])
    bad = a.run("w = torch.ones(2) + torch.ones(3)")
    assert bad.status_code in (400, 422), bad.text
    mixed = a.run("w = x + torch.ones(2)", inputs={"x": {"data": [1.0, 2.0]}})
    assert mixed.status_code in (400, 422), mixed.text          # x is on cuda, torch.ones on the cpu
    assert b.ok("z = kept", outputs=["z"])["values"]["z"]["data"] == [7.0, 7.0]


def test_tensors_travel_in_and_out_of_a_cuda_session(http):
    import base64
    a, c = open_session(http, device="cuda"), open_session(http, device="cpu")
    raw = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert a.put("/variables/w", json={"b64": base64.b64encode(raw.tobytes()).decode(), "shape": [2, 3],
                                       "dtype": "float32", "requires_grad": True}).status_code in (200, 204)
    assert a.put("/variables/k", json=[[1, 2, 3]]).status_code in (200, 204)
    body = a.ok("print(w.device.type, k.device.type)\nloss = (w * k).sum()\nloss.backward()",
                outputs=["loss"], encoding="base64")
    assert body["stdout"] == "cuda cuda\n"
    got = a.get("/variables/w", params={"encoding": "base64"}).json()
    grad = np.frombuffer(base64.b64decode(got["grad"]["b64"]), dtype=np.float32).reshape(2, 3)
    assert grad.tolist() == [[1.0, 2.0, 3.0]] * 2
    graph = a.get("/graph", params={"of": "loss"})
    assert graph.status_code == 200 and graph.json()["nodes"], graph.text
    saved = a.get("/checkpoint")                       # a cuda session's checkpoint, restored on the cpu
    assert saved.status_code == 200
    assert c.put("/checkpoint", content=saved.content).status_code == 204
    assert c.ok("print(w.device.type)\nz = w.sum()", outputs=["z"])["values"]["z"]["data"] == 15.0
    c.ok("w = w * 2", outputs=[])                      # and back from the cpu onto the gpu
    assert a.put("/checkpoint", content=c.get("/checkpoint").content).status_code == 204
    body = a.ok("print(w.device.type)\nz = w.sum()", outputs=["z"])
    assert body["stdout"] == "cuda\n" and body["values"]["z"]["data"] == 30.0
