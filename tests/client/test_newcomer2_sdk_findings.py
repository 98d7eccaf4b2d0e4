"""Findings of the second newcomer pass (tests/newcomer2_log.md) on the client SDK, against a real server."""
import asyncio
import warnings

import numpy as np
import pytest

from gradserve.client import AsyncClient, Event, Module, Names, Node
from gradserve.client.events import parse_event

PROGRAM = """
head = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
y = head(torch.ones(1, 2)).sum()
y.backward()
"""


def test_c1_module_and_names_events_are_typed():
    module = parse_event({"type": "module", "run": "r", "seq": 1, "call": 2, "path": "0", "class": "Linear",
                          "parent": 1})
    assert isinstance(module, Module) and (module.call, module.path, module.class_name, module.parent,
                                           module.name) == (2, "0", "Linear", 1, None)
    assert module.type == "module"
    names = parse_event({"type": "names", "run": "r", "seq": 9, "names": {"4": "y", "0": "x"}})
    assert isinstance(names, Names) and names.names == {4: "y", 0: "x"}


def test_c1_a_traced_run_streams_no_event_of_an_unknown_type(session):
    """Every event this server sends in a traced run with modules is one the client knows (none is the
    catch-all ``Event``, whose content only ``.raw`` shows), and they say what the viewer draws."""
    events = list(session.stream(PROGRAM, outputs=["y"]))
    assert [e.type for e in events if type(e) is Event] == []
    modules = [e for e in events if isinstance(e, Module)]
    assert [(m.path, m.class_name, m.name) for m in modules] == [("", "Sequential", "head"), ("0", "Linear", None),
                                                               ("1", "ReLU", None)]
    assert modules[1].parent == modules[0].call
    (names,) = [e for e in events if isinstance(e, Names)]
    nodes = {e.node["id"]: e.node for e in events if isinstance(e, Node)}
    (y_id,) = [i for i, name in names.names.items() if name == "y"]
    assert nodes[y_id]["op"] == "sum"
    assert "class_name='Linear'" in repr(modules[1])


def test_c2_an_async_property_used_before_it_is_awaited_says_to_await_it(server_url):
    """``x.grad.numpy()`` in an async session failed with "'coroutine' object has no attribute 'numpy'"
    (and a never-awaited warning); the properties that ask the server now say how to await them, and
    awaiting them works as before."""
    async def main():
        async with AsyncClient(server_url) as c:
            async with c.session() as s:
                x = s.tensor([1.0, 2.0, 3.0], requires_grad=True)
                await (x * x).sum().backward()
                with pytest.raises(TypeError, match=r"await it before using \.numpy.*\(await tensor\.grad\)\.numpy"):
                    x.grad.numpy()
                with pytest.raises(TypeError, match=r"tensor\.shape.*\(await tensor\.shape\)\[\.\.\.\]"):
                    x.shape[0]
                with pytest.raises(TypeError, match=r"if await tensor\.requires_grad"):
                    bool(x.requires_grad)
                assert (await (await x.grad).numpy()).tolist() == [2.0, 4.0, 6.0]
                assert (await x.shape, await x.ndim, await x.dtype) == ((3,), 1, np.float32)
                assert (await x.requires_grad, await x.is_leaf) == (True, True)
                assert await asyncio.gather(x.shape, x.is_leaf) == [(3,), True]
                assert await s.tensor([1.0]).grad is None

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "coroutine ... was never awaited" either
        asyncio.run(main())


def test_c2_sync_properties_are_plain_values(session):
    x = session.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    assert x.grad.numpy().tolist() == [3.0, 3.0]
    assert (x.shape, x.ndim, x.dtype, x.requires_grad, x.is_leaf) == ((2,), 1, np.float32, True, True)


def test_h1_session_info_carries_the_lifetime_and_the_idle_timeout(session):
    info = session.info()
    assert info.ttl_expires_at and info.ttl_expires_at >= info.expires_at  # ISO 8601 in UTC: ordered as text
    assert info.idle_timeout_s > 0
