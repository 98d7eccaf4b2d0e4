"""Hostile pass 17 (tests/hostile_attack17_log.md): server findings.

F1: a WebSocket run refused before admission with a 422 (an output name that is not a name or dotted
path, a private one, one past 256 characters, more than 10,000 outputs, too many input values) got no
event at all: the stream route sent an error only for 409, 413 and 429, so the client waited for a run
that never started. Every refusal before admission now gets its one error event.

F4: a request with two Host headers was served when the first named this server (the check reads the
first; a proxy in front may route by another). RFC 9112 section 3.2: a server MUST answer 400 to more
than one Host header field line. It is refused now, over HTTP and at a WebSocket handshake.

F6: a paused debug run's ``eval`` with ``"full": true`` (a tensor of up to 2^22 elements: a 22 MB event)
was held in the API process, uncharged, for every connection that had not read it: up to ws_queue_bytes
(256 MiB) a session, and nothing bounded how many sessions did that (three sessions whose clients did not
read held 400 MB). It is charged to the answer budget now, as a result is; past it the event goes without
its tensor, saying why in ``full_error``, and the run stays paused.
"""
import asyncio
import json

import httpx
import pytest

from test_hostile_attack16 import _events_until_quiet


@pytest.mark.parametrize("outputs, field", [
    (["_x"], "outputs.0"),
    (["a[0]"], "outputs.0"),
    (["y", "class"], "outputs.1"),
    (["a." * 200 + "b"], "outputs.0"),
    (["y.__class__"], "outputs.0"),
    ([f"x{i}" for i in range(10_001)], "outputs"),
])
def test_a_websocket_run_with_a_bad_output_name_gets_its_error_event(live_server, session, outputs, field):
    from websockets.sync.client import connect
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": "y = 1", "outputs": outputs}))
        events = _events_until_quiet(ws)
        ws.send(json.dumps({"type": "run", "id": "r2", "program": "y = 2", "outputs": ["y"], "trace": False}))
        after = _events_until_quiet(ws)
    assert [(e["type"], e["run"], e["status"]) for e in events] == [("error", "r1", 422)], events
    assert events[0]["error"]["field"] == field
    assert [(e["type"], e["run"]) for e in after] == [("started", "r2"), ("result", "r2")], after
    assert after[1]["values"] == {"y": 2}


def _raw_status(live_server, request):
    import socket
    with socket.create_connection(("127.0.0.1", live_server.settings.port)) as sock:
        sock.sendall(request)
        sock.settimeout(10)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
    status = int(head.split(b" ")[1])
    body = head.partition(b"\r\n\r\n")[2]
    return status, body


@pytest.mark.parametrize("hosts", [("127.0.0.1", "evil.example"), ("evil.example", "127.0.0.1"),
                                   ("127.0.0.1", "127.0.0.1")])
def test_a_request_with_two_host_headers_is_refused(live_server, session, hosts):
    port = live_server.settings.port
    lines = "".join(f"Host: {h}:{port}\r\n" for h in hosts)
    status, body = _raw_status(live_server, f"GET /healthz HTTP/1.1\r\n{lines}Connection: close\r\n\r\n".encode())
    assert status == 400 and b"more than one Host header" in body, body
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    status, _ = _raw_status(live_server, (
        f"GET /v1/sessions/{session.id}/stream?token={session.token} HTTP/1.1\r\n{lines}"
        f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        f"Sec-WebSocket-Version: 13\r\n\r\n").encode())
    assert status == 400
    one = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    assert _raw_status(live_server, one)[0] == 200


def test_an_evals_whole_tensor_waiting_for_its_reader_is_charged_to_the_answer_budget():
    from websockets.asyncio.client import connect

    from server_harness import server_process

    async def events_until(ws, kinds):
        while True:
            event = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if event["type"] in kinds:
                return event

    async def main(url):
        async with httpx.AsyncClient(base_url=url, timeout=60) as c:
            created = (await c.post("/v1/sessions")).json()
        stream = f"{url.replace('http', 'ws')}/v1/sessions/{created['id']}/stream?token={created['token']}"
        async with connect(stream, max_size=None) as ws:
            await ws.send(json.dumps({"type": "run", "id": "r", "program": "x = torch.ones(2**22)\nb = 2",
                                      "debug": True, "breakpoints": [{"line": 2}], "trace": False,
                                      "outputs": ["b"]}))
            await events_until(ws, ("paused",))
            full = json.dumps({"type": "debug", "id": "r", "command": "eval", "expr": "x", "full": True})
            ws.transport.pause_reading()   # the first answer (22 MB) waits for this reader, charged
            await ws.send(full)
            await asyncio.sleep(1.5)
            await ws.send(full)
            await asyncio.sleep(1.5)
            ws.transport.resume_reading()
            answers = [await events_until(ws, ("evaluated",)) for _ in range(2)]
            await ws.send(full)   # both sent: the budget was given back
            answers.append(await events_until(ws, ("evaluated",)))
            await ws.send(json.dumps({"type": "debug", "id": "r", "command": "continue"}))
            end = await events_until(ws, ("result", "error"))
        return answers, end

    with server_process(GRADSERVE_WORKERS="1", GRADSERVE_ANSWER_BUDGET_BYTES=str(80 << 20)) as (url, _):
        answers, end = asyncio.run(main(url))
    first, second, third = (a["value"] for a in answers)
    assert len(first["tensor"]["b64"]) > 20 << 20 and third["tensor"] == first["tensor"]
    assert "tensor" not in second and "answer_budget_bytes" in second["full_error"], second.get("full_error")
    assert second["shape"] == [2 ** 22] and second["max"] == 1.0   # the summary still comes
    assert end["type"] == "result", end
