"""Hostile input through the wire (issue 9): outputs, encodings, inputs, checkpoints, names.

Each case must answer a 4xx that names what is wrong, never a 500 or a dead worker, and
another session on the same server keeps its variables and answers (the neighbour check).
"""
import base64
import json
import struct

import numpy as np
import pytest

from server_harness import open_session


@pytest.fixture
def neighbour(http):
    """Another session holding a variable; ``check()`` asserts it is still there and answers."""
    s = open_session(http)
    s.ok("keep = torch.arange(4.0)")

    def check():
        body = s.ok("twice = keep * 2", outputs=["twice"])
        assert body["values"]["twice"]["data"] == [0.0, 2.0, 4.0, 6.0]

    s.check = check
    yield s
    s.delete()


def _refused(r, status, *fragments):
    assert r.status_code == status, r.text
    error = r.json()["error"]
    for fragment in fragments:
        assert fragment in error["message"] or fragment == error.get("field") or fragment == error.get("name"), error
    return error


# ------------------------------------------------------------ class 2: outputs walked before encoding
@pytest.mark.parametrize("program", [
    "a = [1]\na.append(a)",                                  # a list holding itself
    "b = [1]\na = [b, [b]]",                                  # a list shared within one output
    "a = [[[0] * 1000] * 1000] * 100",                        # 10^8 numbers from a small structure
    "t = torch.ones(3)\ninner = [t]\na = (inner, inner)",     # a shared list in a tuple
])
def test_cyclic_or_shared_outputs_are_refused_naming_the_output(session, neighbour, program):
    error = _refused(session.run(program, outputs=["a"]), 422, "a")
    assert error["name"] == "a"
    assert "twice" in error["message"] or "shared" in error["message"]
    neighbour.check()
    assert session.ok("ok = 1", outputs=["ok"])["values"]["ok"] == 1   # the session itself goes on


@pytest.mark.parametrize("depth", [33, 500, 5000])
def test_deeply_nested_outputs_are_refused(session, neighbour, depth):
    r = session.run(f"a = [0]\nfor i in range({depth}):\n    a = [a]", outputs=["a"])
    error = _refused(r, 422, "a")
    assert error["limit"] == "output_depth"
    neighbour.check()


def test_nesting_up_to_the_depth_limit_is_answered(session):
    body = session.ok("a = 1.5\nfor i in range(31):\n    a = [a]", outputs=["a"])
    value = body["values"]["a"]
    for _ in range(31):
        value = value[0]
    assert value == 1.5


def test_many_list_entries_are_refused_before_encoding(session, neighbour, live_server):
    with live_server.setting(output_max_items=1000):
        error = _refused(session.run("a = [[0] * 600 for i in range(2)]", outputs=["a"]), 413, "a")
    assert error["limit"] == "output_items"
    neighbour.check()


@pytest.mark.parametrize("program, kind", [
    ("class C:\n    pass\na = C()", "C"),
    ("class C:\n    def __repr__(self):\n        while True:\n            pass\na = [1, C()]", "C"),
    ("a = {'k': torch.ones(2)}", "dict"),
    ("a = 'text'", "str"),
    ("a = [torch.ones(2), None]", "NoneType"),
    ("class M(nn.Module):\n    pass\na = M()", "M"),
])
def test_outputs_of_other_kinds_are_refused_by_their_kind(session, neighbour, program, kind):
    error = _refused(session.run(program, outputs=["a"]), 422, "a")
    assert kind in error["message"]
    neighbour.check()


def test_a_huge_integer_output_is_refused_but_a_big_one_answers(session, neighbour):
    assert session.ok("n = 2 ** 100", outputs=["n"])["values"]["n"] == 2 ** 100
    _refused(session.run("n = 2 ** 20000", outputs=["n"]), 422, "n")
    neighbour.check()


def test_the_same_tensor_under_two_names_is_answered_twice(session):
    body = session.ok("x = torch.ones(2)\ny = x", outputs=["x", "y"])
    assert body["values"]["x"]["data"] == body["values"]["y"]["data"] == [1.0, 1.0]


def test_mixed_outputs_keep_their_structure(session):
    body = session.ok("a = [torch.ones(2), 2, (3.5, float('nan'))]", outputs=["a"])
    assert body["values"]["a"] == [{"shape": [2], "dtype": "float32", "data": [1.0, 1.0]}, 2, [3.5, "NaN"]]


# ------------------------------------------------------------ class 4: every input validated first
def _b64(array):
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode()


ENORMOUS_ZERO_SIZE = [
    {"b64": "", "shape": [0, 2 ** 64], "dtype": "float32"},
    {"b64": "", "shape": [0, 2 ** 62], "dtype": "float32"},
    {"b64": "", "shape": [2 ** 40, 0], "dtype": "int64"},
    {"name": "x", "shape": [0, 2 ** 64], "datatype": "FP32", "data": []},
    {"name": "x", "shape": [0, 2 ** 40], "datatype": "INT64", "data": []},
    {"data": [], "shape": [0, 2 ** 64], "dtype": "float32"},
]


@pytest.mark.parametrize("tensor", ENORMOUS_ZERO_SIZE)
def test_zero_element_inputs_with_enormous_dimensions_are_refused(session, neighbour, tensor):
    error = _refused(session.run("y = x", inputs={"x": tensor}), 422)
    assert error["field"] == "inputs.x.shape" and error["limit"] == "tensor_elements", error
    neighbour.check()


@pytest.mark.parametrize("tensor", ENORMOUS_ZERO_SIZE)
def test_put_variable_with_enormous_dimensions_is_refused(session, neighbour, tensor):
    error = _refused(session.put("/variables/x", json=tensor), 422)
    assert error["field"] == "body.shape", error
    assert "x" not in session.get().json()["variables"]
    neighbour.check()


@pytest.mark.parametrize("tensor, field, fragment", [
    ({"b64": _b64(np.zeros(3, np.float32)), "shape": [4], "dtype": "float32"}, "inputs.x", "needs 16"),
    ({"b64": _b64(np.zeros(3, np.float32)), "shape": [3], "dtype": "bfloat16"}, "inputs.x", "unknown dtype"),
    ({"b64": "!!!", "shape": [1], "dtype": "float32"}, "inputs.x", "base64"),
    ({"b64": _b64(np.array([2], np.uint8)), "shape": [1], "dtype": "bool"}, "inputs.x", "0 or 1"),
    ({"b64": "AAAAAA==", "shape": [1], "dtype": "int32", "requires_grad": True}, "inputs.x", "floating-point"),
    ({"b64": "AAAAAA==", "shape": [True], "dtype": "int32"}, "inputs.x.shape", "non-negative"),
    ({"b64": "AAAAAA==", "shape": [-1], "dtype": "int32"}, "inputs.x.shape", "non-negative"),
    ({"b64": "AAAAAA==", "shape": [1] * 33, "dtype": "int32"}, "inputs.x.shape", "32 dimensions"),
    ({"name": "x", "shape": [3], "datatype": "FP32", "data": [1.0, 2.0]}, "inputs.x.data", "needs 3"),
    ({"name": "x", "shape": [2], "datatype": "BYTES", "data": ["a", "b"]}, "inputs.x.datatype", "datatype"),
    ({"name": "x", "shape": [2], "datatype": "FP32", "data": "ab"}, "inputs.x", "nested list"),
    ({"data": [1, 2], "shape": [3]}, "inputs.x.shape", "needs 3"),
    ({"data": [[1, 2], [3]]}, "inputs.x", "ragged"),
    ([[1, 2], 3], "inputs.x", "ragged"),
    ({"data": [2 ** 63], "dtype": "int64"}, "inputs.x", "does not fit"),
    ([2 ** 64], "inputs.x", "out of range"),
    ({"data": [300], "dtype": "uint8"}, "inputs.x", "does not fit"),
    ({"data": [-1], "dtype": "uint8"}, "inputs.x", "does not fit"),
    ({"data": [1e39], "dtype": "float32"}, "inputs.x", "does not fit"),
    ({"data": [1.5], "dtype": "int32"}, "inputs.x", "non-integer"),
    (["NaN", "Inf"], "inputs.x", "not a number"),
    (["NaN", [1.0]], "inputs.x", "ragged"),
    ({"data": ["NaN"], "dtype": "int64"}, "inputs.x", "non-integer"),
    ({"data": [None]}, "inputs.x", "not a number"),
    ({"data": 1.0, "requires_grad": "yes"}, "inputs.x.requires_grad", "true or false"),
    ({"data": [1, 2], "requires_grad": True}, "inputs.x", "floating-point"),
    ({"shape": [1]}, "inputs.x", "needs 'data'"),
])
def test_malformed_inputs_answer_422_naming_the_field(session, neighbour, tensor, field, fragment):
    error = _refused(session.run("y = x", inputs={"x": tensor}), 422, fragment)
    assert error["field"] == field, error
    neighbour.check()


def test_inputs_nested_past_the_dimension_limit_are_refused(session, neighbour):
    deep = "[" * 3000 + "1.0" + "]" * 3000
    body = '{"program": "y = x", "inputs": {"x": ' + deep + "}}"
    r = session.client.post(session.path + "/run", content=body,
                            headers={**session.headers, "Content-Type": "application/json"})
    assert r.status_code in (400, 422), r.text
    assert r.status_code != 500
    deep = 1.0
    for _ in range(40):
        deep = [deep]
    _refused(session.run("y = x", inputs={"x": deep}), 422, "32 dimensions")
    neighbour.check()


def test_a_valid_kserve_input_and_an_object_with_its_shape_still_work(session):
    body = session.ok("y = x * 2", inputs={"x": {"name": "x", "shape": [2, 1], "datatype": "FP64",
                                                 "data": [1.0, 2.0]}}, outputs=["y"])
    assert body["values"]["y"] == {"shape": [2, 1], "dtype": "float64", "data": [[2.0], [4.0]]}
    body = session.ok("y = x", inputs={"x": {"data": [1, 2, 3, 4], "shape": [2, 2], "dtype": "int32"}},
                      outputs=["y"])
    assert body["values"]["y"]["shape"] == [2, 2]


# ------------------------------------------------------------ class 4: checkpoints
def _safetensors(header, data=b""):
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def _put_checkpoint(session, content):
    return session.client.put(session.path + "/checkpoint", content=content,
                              headers={**session.headers, "Content-Type": "application/octet-stream"})


@pytest.mark.parametrize("content, field, fragment", [
    (_safetensors({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4),
     "checkpoint.w.dtype", "BF16"),
    (_safetensors({"w": {"dtype": "U16", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4),
     "checkpoint.w.dtype", "U16"),
    (_safetensors({"w": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]}}, b"\0" * 2),
     "checkpoint.w.dtype", "F8_E4M3"),
    (_safetensors({"w": {"dtype": "F32", "shape": [0, 2 ** 64], "data_offsets": [0, 0]}}),
     "checkpoint.w.shape", "tensor_elements"),
    (_safetensors({"w": {"dtype": "F32", "shape": [0, 2 ** 62], "data_offsets": [0, 0]}}),
     "checkpoint.w.shape", "tensor_elements"),
    (_safetensors({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 4]}}, b"\0" * 4),
     "checkpoint.w.data_offsets", "needs 12"),
    (_safetensors({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 4),
     "checkpoint.w.data_offsets", "within"),
    (_safetensors({"v": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                   "w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4),
     "checkpoint.w.data_offsets", "overlap"),
    (_safetensors({"w": {"dtype": "BOOL", "shape": [1], "data_offsets": [0, 1]}}, b"\2"), "checkpoint.w", "0 or 1"),
    (_safetensors({"w": {"dtype": "F32", "shape": -1, "data_offsets": [0, 4]}}, b"\0" * 4),
     "checkpoint.w.shape", "non-negative"),
    (_safetensors({"w": [1, 2]}), "checkpoint.w", "object"),
    (_safetensors({"__builtins__": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4),
     "checkpoint.__builtins__", "private"),
    (_safetensors({"a..b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4),
     "checkpoint.a..b", "not a name"),
    (struct.pack("<Q", 5) + b"{abc}", "checkpoint", "not JSON"),
    (struct.pack("<Q", 2 ** 62) + b"{}", "checkpoint", "runs past"),
    (struct.pack("<Q", 2) + b"[]", "checkpoint", "JSON object"),
    (b"\1\2", "checkpoint", "8-byte"),
    (b"", "checkpoint", "8-byte"),
])
def test_malformed_checkpoints_answer_422_naming_the_field(session, neighbour, content, field, fragment):
    session.ok("w0 = torch.ones(2)")
    error = _refused(_put_checkpoint(session, content), 422, fragment)
    assert error["field"] == field, error
    assert set(session.get().json()["variables"]) == {"w0"}   # nothing half-restored
    neighbour.check()


def test_a_supported_checkpoint_of_every_engine_dtype_restores(session):
    dtypes = {"F16": np.float16, "F32": np.float32, "F64": np.float64, "U8": np.uint8, "I8": np.int8,
              "I16": np.int16, "I32": np.int32, "I64": np.int64, "BOOL": np.bool_}
    header, data = {}, b""
    for i, (name, dt) in enumerate(dtypes.items()):
        raw = np.array([1, 0], dtype=dt).tobytes()
        header[f"t{i}"] = {"dtype": name, "shape": [2], "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    header["__metadata__"] = {"format": "pt"}
    r = _put_checkpoint(session, _safetensors(header, data))
    assert r.status_code == 204, r.text
    variables = session.get().json()["variables"]
    assert [variables[f"t{i}"]["dtype"] for i in range(len(dtypes))] == [
        "float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64", "bool"]


# ------------------------------------------------------------ class 9: names a program could not bind
BAD_NAMES = ["__builtins__", "_private", "__class__", "class", "lambda", "None", "a..b", "a.", ".a", "a._b",
             "a.__dict__", "1abc", "a-b", "x.y..z"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_put_variable_refuses_names_a_program_could_not_bind(session, neighbour, name):
    r = session.put(f"/variables/{name}", json=[1.0])
    assert r.status_code == 422, r.text
    assert name not in session.get().json()["variables"]
    neighbour.check()


@pytest.mark.parametrize("name", BAD_NAMES)
def test_get_variable_and_graph_refuse_the_same_names(session, name):
    assert session.get(f"/variables/{name}").status_code == 422
    assert session.get("/graph", params={"of": name}).status_code == 422


@pytest.mark.parametrize("name", ["__builtins__", "_x", "class", "a.b", "1x"])
def test_run_inputs_refuse_names_a_program_could_not_bind(session, neighbour, name):
    error = _refused(session.run("y = 1", inputs={name: [1.0]}), 422, name)
    assert error["field"] == f"inputs.{name}"
    neighbour.check()


@pytest.mark.parametrize("name", ["__builtins__", "x.__class__", "x._data", "a..b", "for"])
def test_run_outputs_refuse_paths_a_program_could_not_read(session, name):
    error = _refused(session.run("x = torch.ones(1)", outputs=[name]), 422)
    assert error["field"] == "outputs.0", error


@pytest.mark.parametrize("name", ["x", "model.fc.weight", "layers.0.bias", "match", "type", "x_1"])
def test_names_a_program_can_bind_are_accepted(session, name):
    if "." in name:
        session.ok("model = nn.Module()\nmodel.fc = nn.Linear(1, 1)\nlayers = nn.ModuleList([nn.Linear(1, 1)])")
        r = session.put(f"/variables/{name}", json=[[0.5]] if name.endswith("weight") else [0.5])
    else:
        r = session.put(f"/variables/{name}", json=[1.0])
    assert r.status_code == 204, r.text
    assert session.get(f"/variables/{name}").status_code == 200


# ------------------------------------------------------------ class 6: metric labels from fixed sets
def test_program_chosen_error_types_never_become_metric_labels(http, session, neighbour):
    for i in range(20):
        program = f"class Forged{i}_label(Exception):\n    pass\nraise Forged{i}_label('x')"
        assert session.run(program).status_code == 422
    forged = "class ValueError_{injected=\"1\"}(Exception):\n    pass"   # not even a valid name: a 422 first
    assert session.run(forged).status_code == 422
    session.run("raise ValueError('a real one')")
    text = http.get("/metrics").text
    assert "Forged" not in text and "injected" not in text
    assert 'gradserve_run_errors_total{type="ProgramError"}' in text
    assert 'gradserve_run_errors_total{type="ValueError"}' in text
    neighbour.check()


def test_a_program_class_named_like_a_service_verdict_is_not_counted_or_reported_as_one(http, session, neighbour):
    def count(kind):
        for line in http.get("/metrics").text.splitlines():
            if line.startswith(f'gradserve_run_errors_total{{type="{kind}"}}'):
                return float(line.split()[-1])
        return 0.0
    before = {k: count(k) for k in ("LimitExceeded", "SessionGone", "ProgramError")}
    for kind in ("LimitExceeded", "SessionGone"):
        r = session.run(f"class {kind}(Exception):\n    pass\nraise {kind}('wall_time')")
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["type"] == f"__main__.{kind}" and "limit" not in error
    assert count("LimitExceeded") == before["LimitExceeded"]
    assert count("SessionGone") == before["SessionGone"]
    assert count("ProgramError") == before["ProgramError"] + 2
    neighbour.check()


def test_every_metric_label_value_comes_from_a_fixed_set(http, session):
    session.run("raise RuntimeError('x')")
    session.run("class Mine(Exception):\n    pass\nraise Mine()")
    allowed = {
        "transport": {"http", "ws"}, "outcome": {"ok", "error", "timeout", "gone", "cancelled"},
        "reason": {"session_busy", "queue_full"}, "device": {"cpu", "cuda"},
    }
    from gradserve.server.metrics import ERROR_TYPES
    allowed["type"] = ERROR_TYPES | {"ProgramError"}
    import re
    for line in http.get("/metrics").text.splitlines():
        if line.startswith("#") or "{" not in line:
            continue
        for key, value in re.findall(r'(\w+)="([^"]*)"', line[line.index("{"):line.index("}")]):
            if key == "le" or key == "worker" and (value.isdigit() or value == "sessions"):
                continue
            assert value in allowed[key], line


# ------------------------------------------------------------ class 8: Host allowlist, Origin not judged by Host
@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1.evil.example", "localhost.evil",
                                  "", "[::2]"])
def test_requests_naming_a_foreign_host_are_refused(live_server, host):
    import httpx
    with httpx.Client(base_url=live_server.url) as c:
        for path in ("/healthz", "/v1/sessions", "/metrics"):
            r = c.get(path, headers={"Host": host})
            assert r.status_code == 400, (host, path, r.status_code)
            # the same JSON error body as every other refusal, not Starlette's plain text
            assert r.headers["content-type"].startswith("application/json")
            assert r.json()["error"]["type"] == "BadRequest"
            assert "Host" in r.json()["error"]["message"]
        assert c.post("/v1/sessions", headers={"Host": host}).status_code == 400


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "LOCALHOST"])
def test_loopback_host_names_are_served(live_server, host):
    import httpx
    port = live_server.settings.port
    with httpx.Client(base_url=live_server.url) as c:
        assert c.get("/healthz", headers={"Host": f"{host}:{port}"}).status_code == 200


def _ws_handshake(live_server, session, host, origin):
    """The status line of a raw WebSocket handshake with a chosen Host and Origin."""
    import base64
    import os
    import socket
    with socket.create_connection(("127.0.0.1", live_server.settings.port)) as sock:
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((f"GET /v1/sessions/{session.id}/stream?token={session.token} HTTP/1.1\r\nHost: {host}\r\n"
                      f"Origin: {origin}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        sock.settimeout(10)
        head = b""
        while b"\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
    return int(head.split(b" ")[1])


def test_a_rebinding_page_cannot_open_a_stream(live_server, session, neighbour):
    port = live_server.settings.port
    # The attacker's page: its origin and the Host its browser sends both name the attacker's domain.
    assert _ws_handshake(live_server, session, f"evil.example:{port}", f"http://evil.example:{port}") == 400
    # Host passes (a loopback name) but the page is foreign: the Origin is judged on its own.
    assert _ws_handshake(live_server, session, f"127.0.0.1:{port}", f"http://evil.example:{port}") == 403
    assert _ws_handshake(live_server, session, f"127.0.0.1:{port}", "null") == 403
    assert _ws_handshake(live_server, session, f"127.0.0.1:{port}", f"http://127.0.0.1:{port}") == 101
    assert _ws_handshake(live_server, session, f"localhost:{port}", f"http://localhost:{port}") == 101
    neighbour.check()


def test_with_the_host_check_off_the_origin_still_does_not_trust_host():
    from server_harness import LiveServer
    import httpx
    server = LiveServer(workers=1, allowed_hosts=("*",)).start()
    try:
        with httpx.Client(base_url=server.url) as c:
            s = open_session(c)
            port = server.settings.port
            assert c.get("/healthz", headers={"Host": "anything.example"}).status_code == 200
            assert _ws_handshake(server, s, f"evil.example:{port}", f"http://evil.example:{port}") == 403
            assert _ws_handshake(server, s, f"127.0.0.1:{port}", f"http://127.0.0.1:{port}") == 101
    finally:
        server.stop()


def test_allowed_hosts_are_configurable_from_the_environment():
    from gradserve.server.settings import Settings
    settings = Settings.from_env(env={"GRADSERVE_ALLOWED_HOSTS": "api.example.com, *.internal"})
    assert settings.allowed_hosts == ("api.example.com", "*.internal")
    assert "10.1.2.3" in Settings.from_env(env={}, host="10.1.2.3").trusted_hosts()
    assert "0.0.0.0" not in Settings.from_env(env={}, host="0.0.0.0").trusted_hosts()
    with pytest.raises(ValueError):
        Settings.from_env(env={"GRADSERVE_ALLOWED_HOSTS": "api.*.com"})


# ------------------------------------------------------------ class 3: bounded answers, binary both ways
BIG = "x = torch.arange(300000.0).reshape(1000, 300)\nx[0, 0] = float('nan')\nx[999, 299] = float('-inf')"


def _binary(r):
    n = int(r.headers["inference-header-content-length"])
    return json.loads(r.content[:n]), r.content[n:]


def test_a_json_answer_past_json_max_elements_is_413_naming_the_limit(session, neighbour, live_server):
    with live_server.setting(json_max_elements=1000):
        error = _refused(session.run(BIG, outputs=["x"]), 413, "base64", "binary")
        assert error["limit"] == "json_max_elements" and error["name"] == "x"
        error = _refused(session.get("/variables/x"), 413, "base64", "binary")
        assert error["limit"] == "json_max_elements"
        # numbers count too, and the same answer as base64 or binary is fine
        assert session.run("a = [1.0] * 2000", outputs=["a"]).status_code == 413
        assert session.run("y = x", outputs=["y"], encoding="base64").status_code == 200
        r = session.get("/variables/x", params={"encoding": "binary"})
        assert r.status_code == 200 and len(_binary(r)[1]) == 1_200_000
    neighbour.check()


@pytest.mark.parametrize("encoding", ["json", "base64", "binary"])
def test_large_answers_stream_with_the_same_content_in_each_encoding(session, encoding):
    r = session.run(BIG + "\ny = torch.arange(10.0)\nn = 3", outputs=["x", "y", "n"], encoding=encoding)
    assert r.status_code == 200, r.text[:300]
    if encoding == "binary":
        assert r.headers["content-type"] == "application/octet-stream"
        head, raw = _binary(r)
        assert head["values"]["x"] == {"shape": [1000, 300], "dtype": "float32", "binary_data_size": 1_200_000}
        assert head["values"]["n"] == 3
        x = np.frombuffer(raw[:1_200_000], np.float32).reshape(1000, 300)
        y = np.frombuffer(raw[1_200_000:], np.float32)
    else:
        body = r.json()
        if encoding == "json":
            data = body["values"]["x"]["data"]
            assert data[0][0] == "NaN" and data[999][299] == "-Infinity"
            data[0][0], data[999][299] = float("nan"), float("-inf")
            x = np.array(data, np.float32)
            y = np.array(body["values"]["y"]["data"], np.float32)
        else:
            x = np.frombuffer(base64.b64decode(body["values"]["x"]["b64"]), np.float32).reshape(1000, 300)
            y = np.frombuffer(base64.b64decode(body["values"]["y"]["b64"]), np.float32)
    expected = np.arange(300000.0, dtype=np.float32).reshape(1000, 300)
    expected[0, 0], expected[999, 299] = np.nan, -np.inf
    np.testing.assert_array_equal(x, expected)
    np.testing.assert_array_equal(y, np.arange(10.0, dtype=np.float32))


@pytest.mark.parametrize("shape", [[1, 70000], [70000], [3, 1, 40000], [2, 0, 5], []])
def test_streamed_json_keeps_every_shape(session, shape):
    n = int(np.prod(shape))
    program = f"x = torch.arange({float(n)}).reshape({shape})" if shape else "x = torch.tensor(2.5)"
    body = session.ok(program, outputs=["x"])
    x = body["values"]["x"]
    assert x["shape"] == shape
    np.testing.assert_array_equal(np.array(x["data"], np.float32).reshape(shape),
                                  np.arange(float(n), dtype=np.float32).reshape(shape) if shape else 2.5)


def _binary_run(session, header, raw, length=None):
    head = json.dumps(header).encode()
    return session.client.post(session.path + "/run", content=head + raw, headers={
        **session.headers, "Content-Type": "application/octet-stream",
        "Inference-Header-Content-Length": str(len(head) if length is None else length)})


def test_a_binary_request_binds_raw_inputs_and_answers_binary(session):
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    k = np.array([1, 2], np.int32)
    r = _binary_run(session, {
        "program": "y = (x * w).sum()\ny.backward()\nk2 = k * 2",
        "inputs": {"x": {"shape": [2, 3], "dtype": "float64", "binary_data_size": 48, "requires_grad": True},
                   "w": 2.0,
                   "k": {"name": "k", "shape": [2], "datatype": "INT32", "parameters": {"binary_data_size": 8}}},
        "outputs": ["y", "k2"], "encoding": "binary"}, x.tobytes() + k.tobytes())
    assert r.status_code == 200, r.text
    head, raw = _binary(r)
    assert head["values"]["y"] == {"shape": [], "dtype": "float64", "binary_data_size": 8}
    assert head["grads"]["x"]["binary_data_size"] == 48
    assert np.frombuffer(raw[:8], np.float64)[0] == 30.0
    np.testing.assert_array_equal(np.frombuffer(raw[8:16], np.int32), [2, 4])
    np.testing.assert_array_equal(np.frombuffer(raw[16:], np.float64), np.full(6, 2.0))


@pytest.mark.parametrize("header, raw, length, status, fragment", [
    ({"program": "y = x", "inputs": {"x": {"shape": [2], "dtype": "float32", "binary_data_size": 8}}},
     b"\0" * 7, None, 422, "runs past"),
    ({"program": "y = x", "inputs": {"x": {"shape": [2], "dtype": "float32", "binary_data_size": 8}}},
     b"\0" * 9, None, 422, "belong to no tensor"),
    ({"program": "y = x", "inputs": {"x": {"shape": [3], "dtype": "float32", "binary_data_size": 8}}},
     b"\0" * 8, None, 422, "needs 12"),
    ({"program": "y = x", "inputs": {"x": {"shape": [0, 2 ** 64], "dtype": "float32", "binary_data_size": 0}}},
     b"", None, 422, "tensor_elements"),
    ({"program": "y = x", "inputs": {"x": {"shape": [2], "dtype": "bfloat16", "binary_data_size": 4}}},
     b"\0" * 4, None, 422, "unknown dtype"),
    ({"program": "y = x", "inputs": {"x": {"shape": [1], "dtype": "float32", "binary_data_size": -4}}},
     b"", None, 422, "non-negative"),
    ({"program": "y = x", "inputs": {"x": {"shape": [1], "dtype": "bool", "binary_data_size": 1}}},
     b"\7", None, 422, "0 or 1"),
    ({"program": "y = x", "inputs": {}}, b"", 0, 400, "Inference-Header-Content-Length"),
    ({"program": "y = x", "inputs": {}}, b"", 10 ** 6, 400, "Inference-Header-Content-Length"),
    ({"program": "y = x", "inputs": {}}, b"", 3, 400, "not JSON"),
    ({"program": 5, "inputs": {}}, b"", None, 422, "program"),
    ({"program": "y = 1", "inputs": {"_x": {"shape": [], "dtype": "float32", "binary_data_size": 4}}},
     b"\0" * 4, None, 422, "private"),
])
def test_malformed_binary_requests_are_refused(session, neighbour, header, raw, length, status, fragment):
    r = _binary_run(session, header, raw, length)
    assert r.status_code == status, r.text
    assert fragment in r.text, r.text
    neighbour.check()


def test_binary_data_size_outside_a_binary_request_is_refused(session):
    error = _refused(session.run("y = x", inputs={"x": {"shape": [1], "dtype": "float32", "binary_data_size": 4}}),
                     422, "binary request")
    assert error["field"] == "inputs.x"


def test_websocket_runs_asking_binary_get_exact_base64(live_server, session):
    from websockets.sync.client import connect
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": "y = torch.tensor([0.1, 2.0])",
                            "outputs": ["y"], "encoding": "binary", "trace": False}))
        while True:
            event = json.loads(ws.recv(timeout=30))
            if event["type"] in ("result", "error"):
                break
    assert event["type"] == "result", event
    y = event["values"]["y"]
    np.testing.assert_array_equal(np.frombuffer(base64.b64decode(y["b64"]), np.float32), np.float32([0.1, 2.0]))


# ------------------------------------------------------------ the schema tells the truth about this server
def test_creating_a_session_needs_no_authorization_without_api_keys(http):
    operation = http.get("/openapi.json").json()["paths"]["/v1/sessions"]["post"]
    assert "security" not in operation and "401" not in operation["responses"]
    assert http.post("/v1/sessions").status_code == 201


def test_with_api_keys_the_schema_asks_for_one():
    from server_harness import LiveServer
    import httpx
    server = LiveServer(workers=1, api_keys=("k1",)).start()
    try:
        with httpx.Client(base_url=server.url) as c:
            operation = c.get("/openapi.json").json()["paths"]["/v1/sessions"]["post"]
            assert operation["security"] == [{"HTTPBearer": []}] and "401" in operation["responses"]
            assert c.post("/v1/sessions").status_code == 401
    finally:
        server.stop()


def test_session_routes_are_linked_from_session_creation_with_id_and_token(http):
    schema = http.get("/openapi.json").json()
    links = schema["paths"]["/v1/sessions"]["post"]["responses"]["201"]["links"]
    targets = {(path, method) for path, item in schema["paths"].items() if path.startswith("/v1/sessions/{")
               for method in item}
    assert len(links) == len(targets) >= 8
    for link in links.values():
        assert link["parameters"] == {"path.session_id": "$response.body#/id",
                                      "header.Authorization": "Bearer {$response.body#/token}"}


@pytest.mark.parametrize("ttl", [5e-324, 0, -1, 0.5, True, "60", None and 1])
def test_ttl_s_takes_at_least_a_second_and_only_numbers(http, ttl):
    if ttl is None:
        assert http.post("/v1/sessions", json={"ttl_s": None}).status_code == 201
        return
    r = http.post("/v1/sessions", json={"ttl_s": ttl})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["details"][0]["field"] == "body.ttl_s"


def test_ttl_s_of_infinity_or_nan_is_refused(http):
    for text in ('{"ttl_s": Infinity}', '{"ttl_s": NaN}', '{"ttl_s": 1e999}'):
        r = http.post("/v1/sessions", content=text, headers={"Content-Type": "application/json"})
        assert r.status_code == 422, (text, r.text)


def test_the_schema_offers_only_the_devices_this_server_has(http):
    device = http.get("/openapi.json").json()["components"]["schemas"]["CreateSession"]["properties"]["device"]
    assert device["enum"] == ["cpu"]


@pytest.mark.parametrize("method, path, allowed", [
    ("OPTIONS", "/v1/sessions/abc", "DELETE, GET, HEAD"),
    ("PATCH", "/v1/sessions/abc", "DELETE, GET, HEAD"),
    ("OPTIONS", "/v1/sessions/abc/variables/x", "GET, HEAD, PUT"),
    ("POST", "/v1/sessions/abc/checkpoint", "GET, HEAD, PUT"),
    ("DELETE", "/v1/sessions", "POST"),
    ("PUT", "/healthz", "GET, HEAD"),
])
def test_405_lists_every_method_the_path_takes(http, method, path, allowed):
    r = http.request(method, path)
    assert r.status_code == 405
    assert r.headers["allow"] == allowed


def test_every_answered_status_is_documented(http, session):
    schema = http.get("/openapi.json").json()["paths"]
    run = schema["/v1/sessions/{session_id}/run"]["post"]["responses"]
    assert {"200", "400", "401", "404", "408", "409", "410", "413", "422", "429"} <= set(run)
    assert set(run["200"]["content"]) == {"application/json", "application/octet-stream"}
    # a body that is not JSON answers 400, as documented
    r = session.client.post(session.path + "/run", content=b"{not json", headers={**session.headers,
                                                                                   "Content-Type": "application/json"})
    assert r.status_code in (400, 422) and str(r.status_code) in run


@pytest.mark.parametrize("program, limit", [
    ("a = [1]\na.append(a)", None),
    ("a = [0]\nfor i in range(5000):\n    a = [a]", "output_depth"),
    ("a = [[[0] * 1000] * 1000] * 100", None),
])
def test_hostile_outputs_over_the_websocket_are_an_error_event(live_server, session, neighbour, program, limit):
    from websockets.sync.client import connect
    with connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": program, "outputs": ["a"], "trace": False}))
        while True:
            event = json.loads(ws.recv(timeout=30))
            if event["type"] in ("result", "error"):
                break
    assert event["type"] == "error" and event["status"] == 422, event
    assert event["error"]["name"] == "a" and event["error"].get("limit") == limit
    neighbour.check()
    assert session.ok("b = 1", outputs=["b"])["values"]["b"] == 1


def test_a_json_websocket_result_past_the_cap_is_an_error_event(live_server, session):
    from websockets.sync.client import connect
    with live_server.setting(json_max_elements=100), \
            connect(f"{live_server.ws_url}/v1/sessions/{session.id}/stream?token={session.token}") as ws:
        ws.send(json.dumps({"type": "run", "id": "r1", "program": "x = torch.ones(1000)", "trace": False}))
        while True:
            event = json.loads(ws.recv(timeout=30))
            if event["type"] in ("result", "error"):
                break
    assert event["type"] == "error" and event["status"] == 413
    assert event["error"]["limit"] == "json_max_elements"
