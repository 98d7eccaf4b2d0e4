"""CUDA sessions on Ray (SPEC 7): a worker node that offers a GPU, a session host that asks Ray for it,
and a training program that gives a CPU session's numbers. Where there is no GPU the node declares
one (``ray start --num-gpus 1``) and its processes run the fake CuPy (tests/fakecupy)."""
import sys
from pathlib import Path

import httpx
import numpy as np
import pytest

from cluster_harness import RayCluster, Replica, _wait_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from server_harness import open_session  # noqa: E402
from test_gpu_sessions import MORE, TRAIN, _inputs  # noqa: E402

pytestmark = [pytest.mark.cluster, pytest.mark.gpu]


class GpuRayCluster(RayCluster):
    """A head node and a worker node that offers one GPU to Ray."""

    def start_worker(self):
        self.worker = self._node("--address", self.address, "--resources", '{"worker_node": 1}', "--num-gpus", "1")
        _wait_for(lambda: self.nodes_alive() >= 2, 90, "the Ray cluster")


@pytest.fixture(scope="module")
def gpu_replica(cuda_device):
    cluster = GpuRayCluster().start()
    replica = None
    try:
        replica = Replica(cluster, limit_wall_time_s=60).start()
        yield replica
    finally:
        if replica is not None:
            replica.stop()
        cluster.stop()


def test_a_cuda_session_on_ray_trains_like_a_cpu_session(gpu_replica):
    with httpx.Client(base_url=gpu_replica.url, timeout=120) as client:
        results = {}
        for device in ("cpu", "cuda"):
            s = open_session(client, device=device)
            assert s.get().json()["device"] == device
            body = s.ok(TRAIN, inputs=_inputs(), outputs=["losses", "weight"])
            assert body["stdout"] == f"{device} 25\n"
            more = s.ok(MORE, outputs=["pred"])
            results[device] = (body["values"]["losses"], body["values"]["weight"]["data"],
                               more["values"]["pred"]["data"])
            assert s.delete().status_code == 204
    (losses_c, weight_c, pred_c), (losses_g, weight_g, pred_g) = results["cpu"], results["cuda"]
    assert losses_g[-1] < losses_g[0] / 2
    np.testing.assert_allclose(losses_g, losses_c, rtol=1e-10)
    np.testing.assert_allclose(weight_g, weight_c, rtol=1e-10)
    np.testing.assert_allclose(pred_g, pred_c, rtol=1e-10)


def test_cuda_sessions_on_ray_keep_their_own_state(gpu_replica):
    with httpx.Client(base_url=gpu_replica.url, timeout=120) as client:
        a, b = open_session(client, device="cuda"), open_session(client, device="cuda")
        a.ok("kept = torch.arange(3.0) + 1", outputs=[])
        b.ok("kept = torch.zeros(2)", outputs=[])
        assert a.ok("z = kept * 2", outputs=["z"])["values"]["z"]["data"] == [2.0, 4.0, 6.0]
        assert b.ok("z = kept + 1\nprint(z.device)", outputs=["z"])["stdout"] == "cpu\n"
        assert b.ok("z = kept.cuda() + 1\nprint(z.device)", outputs=["z"])["stdout"] == "cuda:0\n"
