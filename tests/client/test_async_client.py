"""AsyncClient and AsyncSession against a real server: the same surface as the sync client."""
import asyncio

import numpy as np
import pytest

from gradserve.client import (AsyncClient, Error, LimitExceeded, Log, NotFound, ProgramError,
                              Result, SessionNotFound, Started, Stdout)


def run(coroutine):
    return asyncio.run(coroutine)


def test_async_session_lifecycle_run_and_variables(server_url, tmp_path):
    async def main():
        async with AsyncClient(server_url) as client:
            assert (await client.health())["status"] == "ok" and await client.ready()
            async with client.session() as s:
                await s.put("x", np.array([1.0, 2.0, 3.0], dtype=np.float64), requires_grad=True)
                result = await s.run("y = (x ** 3).sum()\ny.backward()\nprint('done')",
                                     outputs=["x", "y"], graph=True, encoding="base64")
                assert result.stdout == "done\n" and result["y"] == 36.0
                assert result["y"].dtype == np.float64
                np.testing.assert_allclose(result.grads["x"], [3.0, 12.0, 27.0])
                assert result.graph["nodes"]
                info = await s.info()
                assert info.variables["x"].has_grad and (await s.variables())["y"].shape == ()
                np.testing.assert_array_equal(await s.get("x"), [1.0, 2.0, 3.0])
                np.testing.assert_allclose(await s.get_grad("x"), [3.0, 12.0, 27.0])
                assert (await s.graph(of="y"))["nodes"]
                path = await s.save_checkpoint(tmp_path / "a.safetensors")
                with pytest.raises(NotFound):
                    await s.get("nope")
            with pytest.raises(SessionNotFound):
                await client.attach(s.id, s.token).info()
            restored = await client.session()
            try:
                await restored.restore_checkpoint(path)
                np.testing.assert_array_equal(await restored.get("x"), [1.0, 2.0, 3.0])
            finally:
                await restored.close()
    run(main())


def test_async_errors_carry_line_and_column(server_url):
    async def main():
        async with AsyncClient(server_url) as client, client.session() as s:
            with pytest.raises(ProgramError) as info:
                await s.run("a = 1\n\nb = a + nothing")
            assert (info.value.type, info.value.line, info.value.col) == ("NameError", 3, 9)
            with pytest.raises(LimitExceeded):
                await s.run("t = torch.ones(2 ** 28)")
    run(main())


def test_async_stream_and_error_stream(server_url):
    async def main():
        async with AsyncClient(server_url) as client, client.session() as s:
            events = []
            async with s.stream("print('a')\nlog(step=1, total=1)\nz = torch.zeros(1)",
                                outputs=["z"]) as stream:
                async for event in stream:
                    events.append(event)
            assert isinstance(events[0], Started) and isinstance(events[-1], Result)
            assert any(isinstance(e, Stdout) and e.text == "a\n" for e in events)
            assert any(isinstance(e, Log) and e.metrics == {"step": 1, "total": 1} for e in events)
            assert stream.result.values["z"].tolist() == [0.0]
            seen = []
            with pytest.raises(ProgramError) as info:
                async for event in s.stream("x = 1\ny = x + 'a'"):
                    seen.append(event)
            assert isinstance(seen[-1], Error) and info.value.type == "TypeError"
            assert info.value.line == 2
            assert (await s.stream("q = torch.ones(1)", outputs=["q"]).wait()).values["q"] == 1
            async with s.stream("i = 0\nwhile True:\n    i += 1\n    log(step=i)") as stream:
                async for event in stream:
                    if isinstance(event, Log) and event.step > 100:
                        break
            assert (await s.run("after = 2", outputs=["after"])).values["after"] == 2
            async with await s.watch().open() as watcher:
                await s.run("print('watched')")
                async for event in watcher:
                    if isinstance(event, Stdout):
                        assert event.text == "watched\n"
                        break
    run(main())
