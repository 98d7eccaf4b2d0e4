"""A module's own private names (``self._encoder = Encoder(...)``, zalandoresearch/pytorch-vq-vae's
models) are state_dict names, as in PyTorch: GET /checkpoint writes them, PUT /checkpoint takes them
back, and run outputs may name them. They are found in the module's registries only: other private
names (an engine tensor's ``_data``, a module's plain private attribute) and dunder parts stay refused."""

import numpy as np
import pytest
from safetensors.numpy import load as load_safetensors, save as save_safetensors

MODEL = """
class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self._conv_1 = nn.Linear(2, 3)
        self.register_buffer('_ema_size', torch.zeros(3))
        self._ema_w = nn.Parameter(torch.ones(3, 2))
        self._note = torch.ones(1)      # a plain attribute, not registered: not a state_dict name

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self._encoder = Inner()

model = Model()
"""
NAMES = {"model._encoder._conv_1.weight", "model._encoder._conv_1.bias", "model._encoder._ema_w",
         "model._encoder._ema_size"}


def _checkpoint(session):
    r = session.get("/checkpoint")
    assert r.status_code == 200, r.text
    return load_safetensors(r.content)


def _put(session, arrays):
    return session.client.put(session.path + "/checkpoint", content=save_safetensors(arrays),
                              headers={**session.headers, "Content-Type": "application/octet-stream"})


def test_checkpoint_round_trip_keeps_private_submodule_names(session):
    session.ok(MODEL)
    saved = _checkpoint(session)
    assert set(saved) == NAMES
    new = {k: np.full_like(v, 0.25) for k, v in saved.items()}
    r = _put(session, new)
    assert r.status_code == 204, r.text
    again = _checkpoint(session)
    assert all(np.all(again[k] == 0.25) for k in NAMES)
    body = session.ok("s = model._encoder._ema_w.sum() + model._encoder._ema_size.sum()", outputs=["s"])
    assert body["values"]["s"]["data"] == pytest.approx(0.25 * 9)


def test_outputs_may_name_a_modules_private_parameters_and_buffers(session):
    session.ok(MODEL)
    body = session.ok("model._encoder._ema_size.add_(2.0)",
                      outputs=["model._encoder._ema_w", "model._encoder._ema_size"])
    assert body["values"]["model._encoder._ema_size"]["data"] == [2.0, 2.0, 2.0]
    assert body["values"]["model._encoder._ema_w"]["shape"] == [3, 2]


@pytest.mark.parametrize("name", ["model._encoder._note", "model._encoder.__dict__", "model.__class__",
                                  "model._encoder._parameters", "model._modules"])
def test_other_private_names_stay_unreachable_as_outputs(session, name):
    session.ok(MODEL)
    r = session.run("y = 1", outputs=[name])
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == "outputs.0"


@pytest.mark.parametrize("name", ["model._encoder._note", "model._modules._encoder.weight", "_x", "model.__dict__"])
def test_checkpoint_names_outside_the_registries_are_refused(session, name):
    session.ok(MODEL)
    r = _put(session, {name: np.zeros(1, dtype=np.float32)})
    assert r.status_code == 422, r.text


def test_variables_routes_keep_the_strict_names(session):
    session.ok(MODEL)
    assert session.get("/variables/model._encoder._ema_w").status_code == 422


def test_registry_keys_that_begin_with_a_digit_are_state_dict_names(session):
    """SAM's WideResNet registers ``nn.Sequential(OrderedDict([("1_block", ...)]))``: its state_dict names
    (``model.f.1_block.weight``) round-trip through the checkpoint; elsewhere such a part stays refused."""
    session.ok("from collections import OrderedDict\n"
               "model = nn.Module()\n"
               "model.f = nn.Sequential(OrderedDict([('0_conv', nn.Linear(2, 2)), ('1_block', nn.Linear(2, 1))]))\n")
    saved = _checkpoint(session)
    assert set(saved) == {"model.f.0_conv.weight", "model.f.0_conv.bias", "model.f.1_block.weight",
                          "model.f.1_block.bias"}
    r = _put(session, {k: np.full_like(v, 0.5) for k, v in saved.items()})
    assert r.status_code == 204, r.text
    body = session.ok("s = model.f(torch.ones(1, 2)).sum()", outputs=["s", "model.f.1_block.bias"])
    assert body["values"]["s"]["data"] == pytest.approx(2.0)   # 0.5 * (1.5 + 1.5) + 0.5, with 1.5 = 0.5 * 2 + 0.5
    assert body["values"]["model.f.1_block.bias"]["data"] == [0.5]
    for bad in ("model.f.1_block.__dict__", "model.f.1-block.weight"):
        assert _put(session, {bad: np.zeros(1, dtype=np.float32)}).status_code == 422
    assert session.get("/variables/model.f.1_block.bias").status_code == 422


@pytest.mark.parametrize("name, problem", [
    ("model.f.1_block.weight", None), ("model.0.weight", None), ("model..weight", "is not a name"),
    ("model.f.", "is not a name"), ("model.1-b.w", "is not a name"), ("1_block.w", "is not a name"),
    ("model.f.1_block.__dict__", "private"),
])
def test_state_dict_name_rules(name, problem):
    from gradserve.server.names import name_problem
    got = name_problem(name, dotted=True, module_private=True)
    assert (got is None) if problem is None else (got is not None and problem in got), got
