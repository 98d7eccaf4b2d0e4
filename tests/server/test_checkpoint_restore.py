"""A checkpoint PUT (and a PUT of a dotted variable) is all or nothing, and fills a module's
parameters only with tensors of their own shape (hostile pass 7, F1 and F2).

Before, a checkpoint was applied entry by entry: one that named a missing part after others
answered 422 with the others already overwritten, so a refused request had changed the session.
And a parameter took a tensor of any shape (``m.weight`` of a Linear(2, 2) became a [3] tensor):
204, and the model failed at its next forward. PyTorch's load_state_dict raises RuntimeError
"size mismatch for weight: copying a param with shape ... from checkpoint, the shape in current
model is ..." for that; the session now answers it as a 422 RuntimeError and changes nothing.
"""
from server_harness import safetensors_bytes


def _state(session):
    return session.ok("pass", outputs=["keep", "m.weight", "m.bias"])["values"]


SETUP = "torch.manual_seed(0)\nkeep = torch.tensor([3.0])\nm = nn.Linear(2, 2)"


def test_a_checkpoint_naming_a_missing_part_changes_nothing(session):
    session.ok(SETUP)
    before = _state(session)
    r = session.put("/checkpoint", content=safetensors_bytes({"keep": ([1], [99.0]), "m.weight": ([2, 2], [7.0] * 4),
                                                        "m.nope": ([1], [1.0])}))
    assert r.status_code == 422, r.text
    assert r.json()["error"]["type"] == "KeyError" and "m.nope" in r.json()["error"]["message"]
    assert _state(session) == before


def test_a_parameter_of_another_shape_is_a_size_mismatch_and_changes_nothing(session):
    session.ok(SETUP)
    before = _state(session)
    r = session.put("/checkpoint", content=safetensors_bytes({"keep": ([1], [99.0]), "m.weight": ([3], [0.0] * 3)}))
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["type"] == "RuntimeError", error
    assert error["message"] == ("size mismatch for m.weight: copying a param with shape torch.Size([3]) from "
                                "checkpoint, the shape in current model is torch.Size([2, 2])."), error
    assert _state(session) == before
    session.ok("y = m(torch.ones(2))")


def test_a_dotted_variable_put_of_another_shape_is_refused_too(session):
    session.ok(SETUP)
    before = _state(session)
    r = session.put("/variables/m.weight", json=[1.0, 2.0, 3.0])
    assert r.status_code == 422 and r.json()["error"]["type"] == "RuntimeError", r.text
    assert _state(session) == before


def test_a_matching_checkpoint_still_restores_in_place_and_rebinds_top_level_names(session):
    session.ok(SETUP + "\nopt = optim.SGD(m.parameters(), lr=0.1)")
    r = session.put("/checkpoint", content=safetensors_bytes({"keep": ([2], [1.0, 2.0]), "m.weight": ([2, 2], [0.5] * 4),
                                                        "m.bias": ([2], [0.0, 0.0])}))
    assert r.status_code == 204, r.text
    values = _state(session)
    assert values["keep"]["data"] == [1.0, 2.0]              # a top-level name takes the new shape
    assert values["m.weight"]["data"] == [[0.5, 0.5], [0.5, 0.5]]
    out = session.ok("print(opt.param_groups[0]['params'][0] is m.weight)")
    assert out["stdout"] == "True\n"


def test_a_put_into_a_computed_attribute_is_refused_instead_of_changing_nothing(session):
    """PUT /variables/x.T wrote into a transposed copy made for the occasion: 204, and x unchanged."""
    session.ok("x = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward()")
    for name in ("x.T", "x.data"):
        r = session.put(f"/variables/{name}", json=[1.0, 2.0, 3.0])
        assert r.status_code == 422 and r.json()["error"]["type"] == "TypeError", (name, r.text)
        assert "computed on each access" in r.json()["error"]["message"]
    assert session.get("/variables/x").json()["value"]["data"] == [1.0, 1.0, 1.0]
    assert session.put("/variables/x.grad", json=[1.0, 2.0, 3.0]).status_code == 204   # a stored tensor
    assert session.get("/variables/x.grad").json()["value"]["data"] == [1.0, 2.0, 3.0]
