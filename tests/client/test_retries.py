import asyncio

import httpx
import pytest

from gradserve.client import (APIConnectionError, AsyncClient, Client, RetryPolicy,
                              ServiceUnavailable)
from gradserve.client.retries import retry_after_seconds

FAST = RetryPolicy(max_retries=3, base_delay_s=0.0, max_delay_s=0.0)
SESSION = {"id": "s1", "token": "t1", "device": "cpu", "expires_at": None}
RUN_OK = {"values": {}, "grads": {}, "graph": None, "stdout": "", "elapsed_ms": 1}


def test_backoff_grows_exponentially_is_capped_and_jittered():
    policy = RetryPolicy(max_retries=10, base_delay_s=1.0, max_delay_s=8.0)
    assert [policy.delay(n, rand=lambda: 1.0) for n in range(5)] == [1, 2, 4, 8, 8]
    assert [policy.delay(n, rand=lambda: 0.0) for n in range(5)] == [0.5, 1, 2, 4, 4]
    assert policy.delay(0, retry_after=3.0) == 3.0
    assert policy.delay(0, retry_after=100.0) == 8.0


def test_only_503_and_connection_failures_are_retried():
    policy = RetryPolicy(max_retries=2)
    assert policy.should_retry(0, idempotent=False, status=503)
    for status in (400, 404, 408, 409, 422, 429, 500, 502):
        assert not policy.should_retry(0, idempotent=True, status=status)
    assert policy.should_retry(0, idempotent=False, error=httpx.ConnectError("refused"))
    assert policy.should_retry(0, idempotent=False, error=ConnectionRefusedError())
    # The request may have reached the server: only idempotent ones are repeated.
    assert not policy.should_retry(0, idempotent=False, error=httpx.ReadTimeout("slow"))
    assert not policy.should_retry(0, idempotent=False, error=httpx.RemoteProtocolError("x"))
    assert policy.should_retry(0, idempotent=True, error=httpx.ReadTimeout("slow"))
    assert not policy.should_retry(2, idempotent=True, status=503)


def test_retry_after_header_forms():
    assert retry_after_seconds("2") == 2.0
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert retry_after_seconds("soon") is None


class Script:
    """A mock transport answering from a list of responses or exceptions, recording requests."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []

    def __call__(self, request):
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_run_is_retried_after_503_and_refused_connection():
    script = Script(httpx.Response(201, json=SESSION), httpx.ConnectError("refused"),
                    httpx.Response(503, json={"detail": "busy"}), httpx.Response(200, json=RUN_OK))
    with Client("http://test", retry=FAST, transport=httpx.MockTransport(script)) as client:
        result = client.session().run("x = 1")
    assert result.elapsed_ms == 1
    assert [r.url.path for r in script.requests].count("/v1/sessions/s1/run") == 3


def test_run_is_not_retried_when_it_may_have_executed():
    script = Script(httpx.Response(201, json=SESSION), httpx.ReadTimeout("slow"))
    with Client("http://test", retry=FAST, transport=httpx.MockTransport(script)) as client:
        with pytest.raises(APIConnectionError):
            client.session().run("x = 1")
    assert len(script.requests) == 2


def test_reads_are_retried_after_a_broken_connection():
    info = {"id": "s1", "device": "cpu", "created_at": None, "expires_at": None,
            "variables": {"w": {"shape": [2], "dtype": "float32", "requires_grad": True,
                                "has_grad": False}}, "bytes": 8}
    script = Script(httpx.Response(201, json=SESSION), httpx.RemoteProtocolError("reset"),
                    httpx.Response(200, json=info))
    with Client("http://test", retry=FAST, transport=httpx.MockTransport(script)) as client:
        variables = client.session().variables()
    assert variables["w"].shape == (2,) and variables["w"].requires_grad


def test_retries_stop_after_max_retries():
    script = Script(*[httpx.Response(503, json={"detail": "down"})] * 4)
    with Client("http://test", retry=FAST, transport=httpx.MockTransport(script)) as client:
        with pytest.raises(ServiceUnavailable):
            client.session()
    assert len(script.requests) == 4


def test_async_client_retries_the_same_way():
    script = Script(httpx.Response(503), httpx.Response(201, json=SESSION),
                    httpx.ConnectError("refused"), httpx.Response(200, json=RUN_OK),
                    httpx.Response(204))

    async def main():
        async with AsyncClient("http://test", retry=FAST,
                               transport=httpx.MockTransport(script)) as client:
            async with client.session() as s:
                return await s.run("x = 1")
    assert asyncio.run(main()).stdout == ""
    assert [r.method for r in script.requests] == ["POST", "POST", "POST", "POST", "DELETE"]


def test_api_key_and_session_token_are_sent_as_bearer():
    script = Script(httpx.Response(201, json=SESSION), httpx.Response(200, json=RUN_OK))
    with Client("http://test", api_key="k", transport=httpx.MockTransport(script)) as client:
        client.session().run("x = 1")
    assert script.requests[0].headers["authorization"] == "Bearer k"
    assert script.requests[1].headers["authorization"] == "Bearer t1"
