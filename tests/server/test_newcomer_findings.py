"""Findings of a newcomer's first hour with the product (tests/newcomer_log.md), one test each."""
import json
import struct


def _checkpoint(entries):
    """safetensors bytes of {name: (shape, float32 values)}."""
    header, data = {}, b""
    for name, (shape, values) in entries.items():
        raw = struct.pack(f"<{len(values)}f", *values)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    head = json.dumps(header).encode()
    return struct.pack("<Q", len(head)) + head + data


def test_h1_a_checkpoint_into_a_fresh_session_says_which_module_is_missing_and_what_to_do(http, session):
    """H1: GET a trained session's checkpoint, PUT it into a new session: the answer was
    {"type": "KeyError", "message": "head"}, naming neither the entry nor the cause."""
    session.ok("torch.manual_seed(0)\nkeep = torch.ones(2)\nhead = nn.Linear(2, 1)\nmodel = nn.Sequential(nn.Linear(2, 2))")
    saved = session.get("/checkpoint")
    assert saved.status_code == 200
    from server_harness import open_session
    fresh = open_session(http)
    try:
        r = fresh.put("/checkpoint", content=saved.content)
        assert r.status_code == 422, r.text
        error = r.json()["error"]
        assert error["type"] == "KeyError"
        assert error["field"] == "checkpoint"
        assert error["name"] in ("head.weight", "head.bias", "model.0.weight", "model.0.bias"), error
        top = error["name"].partition(".")[0]
        assert f"run the program that builds {top!r} first" in error["message"], error
        assert "nothing was restored" in error["message"], error
        assert fresh.get("").json()["variables"] == {}            # all or nothing, as before
        # once the program has built the modules, the same file restores
        fresh.ok("head = nn.Linear(2, 1)\nmodel = nn.Sequential(nn.Linear(2, 2))")
        assert fresh.put("/checkpoint", content=saved.content).status_code == 204
        assert fresh.get("/variables/head.weight").json() == session.get("/variables/head.weight").json()
    finally:
        fresh.delete()


def test_h1_a_checkpoint_naming_a_missing_tensor_of_an_existing_module_names_it(session):
    session.ok("m = nn.Linear(2, 2)")
    r = session.put("/checkpoint", content=_checkpoint({"m.nope": ([1], [1.0])}))
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["name"] == "m.nope" and "'m' holds no parameter, buffer or tensor 'nope'" in error["message"], error


def test_h1_a_dotted_variable_put_into_a_missing_module_says_so(session):
    r = session.put("/variables/enc.weight", json=[1.0, 2.0])
    assert r.status_code == 422, r.text
    error = r.json()["error"]                   # was {"type": "KeyError", "message": "enc"}
    assert error["name"] == "enc.weight" and "run the program that builds 'enc' first" in error["message"], error
