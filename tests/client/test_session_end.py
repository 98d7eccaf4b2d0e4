"""A session that ends while the client watches it or streams a run from it: the server closes
the stream with 4404 after an error event (tests/server/test_session_end_closes_streams.py), and
the client raises SessionNotFound, the error every other call on an ended session raises, rather
than a connection error that a retry loop would take for a network fault."""
import asyncio
import threading

import pytest

from gradserve.client import AsyncClient, Error, SessionNotFound


def test_watch_raises_session_not_found_when_the_session_is_deleted(client):
    s = client.session()
    deleter = threading.Timer(0.5, s.close)
    deleter.start()
    events = []
    with pytest.raises(SessionNotFound) as info:
        for event in s.watch():
            events.append(event)
    deleter.join()
    assert "ended" in str(info.value)
    assert [type(e) for e in events] == [Error]       # the server's notice, yielded before the raise


def test_async_watch_raises_session_not_found_when_the_session_is_deleted(server_url):
    async def main():
        async with AsyncClient(server_url) as c:
            s = await c.session()
            seen = []

            async def watch():
                async for event in s.watch():
                    seen.append(event)

            task = asyncio.create_task(watch())
            await asyncio.sleep(0.5)
            await s.close()
            with pytest.raises(SessionNotFound):
                await asyncio.wait_for(task, 30)

    asyncio.run(main())
