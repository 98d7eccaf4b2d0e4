"""Fixtures for the cluster tests: one Ray cluster (head + worker node), two replicas and nginx per module.

These tests need a network namespace of their own with only loopback in it, so that every address
the cluster uses is 127.0.0.1: ``make test`` runs them under ``unshare --net`` (as root, as CI does).
Started anywhere else they are skipped with that reason.
"""
import importlib.util
import sys

import pytest

from cluster_harness import Nginx, RayCluster, Replica, only_loopback


def pytest_collection_modifyitems(config, items):
    if importlib.util.find_spec("ray") is None:
        reason = "the cluster tests need Ray: pip install -e '.[ray]' (make test does this)"
    elif not only_loopback():
        reason = "cluster tests run in a loopback-only network namespace: unshare --net (make test does this)"
    else:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "cluster" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="module")
def cluster():
    c = RayCluster().start()
    yield c
    # A test that asked the cluster directly made this process a Ray driver: disconnect it first. Left
    # connected, it loses the GCS with the cluster and Ray ends this whole process 60 s later, in the
    # middle of the next module's tests.
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()
    c.stop()


@pytest.fixture(scope="module")
def replicas(cluster):
    started = []
    try:
        for _ in range(2):
            # few sessions per host, so that a handful of sessions spreads over hosts on both nodes
            started.append(Replica(cluster, sweep_interval_s=0.5, limit_wall_time_s=3, limit_steps=10**10,
                                   ray_sessions_per_host=3).start())
        yield started
    finally:
        for r in started:
            r.stop()


@pytest.fixture(scope="module")
def nginx(replicas):
    n = Nginx(replicas).start()
    yield n
    n.stop()
