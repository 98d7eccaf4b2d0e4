"""torch.amp / torch.cuda.amp / torch.cpu.amp (engine/amp.py): GradScaler's dynamic loss scaling step
for step against PyTorch's, its errors and state dict, the disabled scaler and autocast of a machine
without CUDA, autocast's warnings and errors, and a mixed-precision training loop as a program."""
import warnings

import pytest

import gradserve.engine as gs
from gradserve.engine.program import Limits, Namespace, run
from op_check import torch

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch")


def _scaler_trace(T):
    """Four SGD steps under a cpu GradScaler (growth every 2 clean steps), the second with an inf loss."""
    scaler = T.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    p = T.nn.Parameter(T.tensor([1.0, 2.0]))
    opt = T.optim.SGD([p], lr=0.1)
    rows = [scaler.state_dict()]
    for step in range(4):
        opt.zero_grad()
        loss = (p * p).sum() * (float("inf") if step == 1 else 1.0)
        scaler.scale(loss).backward()
        rows.append((scaler.step(opt), p.tolist(), scaler.get_scale()))
        scaler.update()
        rows.append((scaler.get_scale(), scaler.state_dict()))
    rows.append([float(t) for t in (scaler.scale(T.tensor(2.0)), *scaler.scale([T.tensor(1.0), (T.tensor(2.0),)])[:1])])
    return rows


@needs_torch
def test_grad_scaler_steps_skips_backs_off_and_grows_as_pytorchs():
    assert _scaler_trace(gs) == _scaler_trace(torch)


def _misuse(T):
    scaler = T.amp.GradScaler("cpu")
    p = T.nn.Parameter(T.tensor([1.0]))
    opt = T.optim.SGD([p], lr=0.1)
    out = []
    for call in (lambda: scaler.update(),
                 lambda: (scaler.scale((p * p).sum()).backward(), scaler.unscale_(opt), scaler.unscale_(opt)),
                 lambda: (scaler.step(opt), scaler.step(opt)),
                 lambda: (scaler.update(), scaler.unscale_(opt), scaler.step(opt), scaler.unscale_(opt)),
                 lambda: scaler.step(opt, closure=lambda: None),
                 lambda: T.amp.GradScaler("cpu", growth_factor=0.5)):
        try:
            call()
            out.append(None)
        except (RuntimeError, AssertionError) as e:
            out.append((type(e).__name__, str(e)))
    return out


@needs_torch
def test_grad_scaler_misuse_raises_pytorchs_errors():
    assert _misuse(gs) == _misuse(torch)


def _warned(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = make()
    return made, [(w.category.__name__, str(w.message)) for w in caught]


@needs_torch
@pytest.mark.skipif(gs.cuda.is_available(), reason="the CPU-only behaviour")
def test_without_cuda_cuda_scalers_and_autocast_disable_themselves_with_pytorchs_warnings():
    for make in (lambda T: T.cuda.amp.GradScaler(), lambda T: T.amp.GradScaler("cuda"),
                 lambda T: T.amp.GradScaler(), lambda T: T.autocast("cuda"), lambda T: T.cuda.amp.autocast(),
                 lambda T: T.cpu.amp.autocast(enabled=False), lambda T: T.autocast("cpu", dtype=T.float64)):
        (ours, our_warnings), (theirs, their_warnings) = _warned(lambda: make(gs)), _warned(lambda: make(torch))
        assert our_warnings == their_warnings
    scaler, _ = _warned(lambda: gs.cuda.amp.GradScaler())
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    loss = gs.tensor(3.0, requires_grad=True)
    assert scaler.scale(loss) is loss
    p = gs.nn.Parameter(gs.tensor([1.0]))
    opt = gs.optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    scaler.step(opt)   # passes through to the optimizer
    scaler.update()
    assert p.tolist() == [0.0]


@needs_torch
def test_autocast_errors_are_pytorchs_and_cpu_autocast_computes_at_full_precision():
    for T in (gs, torch):
        with pytest.raises(RuntimeError, match="device type at start of device string: tpu"):
            T.autocast("tpu")
    x = gs.tensor([1.0, 2.0, 3.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with gs.autocast("cpu", dtype=gs.float16):
            y = (x @ x) / 3
        f = gs.autocast("cpu")(lambda a: a * 2)
        z = f(x)
    assert y.dtype == gs.float32 and y.item() == pytest.approx(14 / 3, rel=1e-7)
    assert z.tolist() == [2.0, 4.0, 6.0]
    assert [str(w.message) for w in caught] == [
        "autocast: this engine computes each op in its inputs' dtype; ops under autocast are not lowered to torch.float16",
        "autocast: this engine computes each op in its inputs' dtype; ops under autocast are not lowered to "
        "torch.bfloat16"]


def test_state_dict_round_trip_and_empty_source():
    a = gs.amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
    b = gs.amp.GradScaler("cpu")
    b.load_state_dict(a.state_dict())
    assert b.state_dict() == {"scale": 8.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 3,
                              "_growth_tracker": 0}
    with pytest.raises(RuntimeError, match="saved from a disabled instance of GradScaler"):
        b.load_state_dict({})


def test_a_mixed_precision_training_loop_runs_as_a_program():
    ns = Namespace()
    out = run("import torch\n"
              "from contextlib import nullcontext\n"
              "torch.manual_seed(0)\n"
              "model = torch.nn.Linear(4, 1)\n"
              "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
              "scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())\n"
              "cpu_scaler = torch.amp.GradScaler('cpu', init_scale=1024.0)\n"
              "x, y = torch.randn(8, 4), torch.randn(8, 1)\n"
              "ctx = nullcontext() if not torch.cuda.is_available() else torch.autocast('cuda')\n"
              "losses = []\n"
              "for step in range(3):\n"
              "    with ctx:\n"
              "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
              "    opt.zero_grad(set_to_none=True)\n"
              "    cpu_scaler.scale(loss).backward()\n"
              "    cpu_scaler.unscale_(opt)\n"
              "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
              "    cpu_scaler.step(opt)\n"
              "    cpu_scaler.update()\n"
              "    losses.append(loss.item())\n"
              "with torch.autocast(device_type='cpu', dtype=torch.float16):\n"
              "    out = model(x)\n"
              "dtype = str(out.dtype)\n", ns, Limits())
    assert out.ok, out.error.to_dict()
    losses = ns.globals["losses"]
    assert losses[2] < losses[0] and ns.globals["dtype"] == "torch.float32"
    assert ns.globals["cpu_scaler"].get_scale() == 1024.0
    assert "not lowered to torch.float16" in out.stdout


def _unscaled_trace(T, dtype, init_scale, growth_factor, steps):
    warnings.simplefilter("ignore")
    p = T.nn.Parameter(T.tensor([1.0, -2.0], dtype=getattr(T, dtype)))
    opt = T.optim.SGD([p], lr=0.1)
    scaler = T.amp.GradScaler("cpu", init_scale=init_scale, growth_factor=growth_factor, growth_interval=1)
    rows = []
    for _ in range(steps):
        opt.zero_grad()
        scaler.scale((p * T.tensor([0.1, 0.7], dtype=getattr(T, dtype))).sum()).backward()
        scaler.unscale_(opt)
        rows.append(p.grad.tolist())
        scaler.step(opt)
        scaler.update()
        rows.append(scaler.get_scale())
    return rows


@needs_torch
def test_scaler_unscales_by_pytorchs_float32_inverse_and_never_grows_past_float32():
    """Hostile pass 12: unscale_ divided by the exact double 1/scale where PyTorch multiplies by its
    float32 rounding (float64 gradients under init_scale=3 differed in the 8th digit), and update grew
    the scale past float32's range to inf, after which every loss scaled to inf and every step was
    skipped for good; PyTorch keeps the scale where growing it would overflow (a float32-only model
    never overflows its gradients, so with the defaults that is 224,000 clean steps away)."""
    with warnings.catch_warnings():
        assert _unscaled_trace(gs, "float64", 3.0, 2.0, 2) == _unscaled_trace(torch, "float64", 3.0, 2.0, 2)
        ours, theirs = _unscaled_trace(gs, "float32", 2.0 ** 100, 1e30, 3), _unscaled_trace(torch, "float32", 2.0 ** 100, 1e30, 3)
    assert ours == theirs and ours[-1] == 2.0 ** 100


def test_scale_tests_for_a_tensor_without_reading_a_program_objects_attributes():
    """Hostile pass 12: GradScaler.scale decided what a tensor was by hasattr(value, 'grad_fn'), running a
    program object's property on the host, then failed with AttributeError 'device'; PyTorch tests
    isinstance(value, Tensor) and raises its ValueError."""
    ns = Namespace()
    out = run("import torch\nclass Box:\n    @property\n    def grad_fn(self):\n        print('read')\n        return None\n"
              "sc = torch.amp.GradScaler('cpu')\ntry:\n    sc.scale(Box())\nexcept ValueError as e:\n    msg = str(e)\n"
              "pair = sc.scale((torch.ones(1), [torch.ones(2)]))", ns, Limits())
    assert out.ok, out.error.to_dict()
    assert out.stdout == "" and ns.globals["msg"] == "outputs must be a Tensor or an iterable of Tensors"
    pair = ns.globals["pair"]
    assert type(pair) is tuple and pair[0].tolist() == [65536.0] and pair[1][0].tolist() == [65536.0, 65536.0]


@needs_torch
def test_step_without_scale_and_update_with_a_new_scale_check_as_pytorch():
    """Hostile pass 12: step() before any scale() named unscale_ in its AssertionError (PyTorch: step),
    and update(new_scale) took anything float() took (a 2-element tensor's ValueError, a tensor
    requiring grad, an int) where PyTorch asserts a float or a 1-element tensor without grad."""
    def outcome(T, call):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = T.nn.Parameter(T.ones(1))
            opt = T.optim.SGD([p], lr=0.1)
            scaler = T.amp.GradScaler("cpu")
            try:
                return ("ok", call(T, scaler, opt))
            except Exception as e:   # noqa: BLE001 - type and message compared
                return (type(e).__name__, str(e))

    calls = [
        lambda T, s, o: s.step(o),
        lambda T, s, o: (s.scale(T.ones(1)), s.update(T.tensor([3.0, 1.0]))),
        lambda T, s, o: (s.scale(T.ones(1)), s.update(T.tensor(3.0, requires_grad=True))),
        lambda T, s, o: (s.scale(T.ones(1)), s.update(5)),
        lambda T, s, o: (s.scale(T.ones(1)), s.update(T.tensor([4.0]))),
        lambda T, s, o: (s.scale(T.ones(1)), s.update(T.tensor(4.0, dtype=T.float64)), s.get_scale())[2],
        lambda T, s, o: (s.scale(T.ones(1)), s.update(0.25), s.get_scale())[2],
    ]
    for call in calls:
        assert outcome(gs, call) == outcome(torch, call)


@needs_torch
def test_custom_fwd_and_bwd_signatures_and_warnings_are_pytorchs():
    """Hostile pass 12: torch.amp.custom_fwd/custom_bwd defaulted device_type to 'cuda' (PyTorch requires
    it, and refuses a non-string), torch.cuda.amp's spellings gave no FutureWarning, and torch.cpu.amp
    had them (PyTorch's has not)."""
    def outcome(T, call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = call(T)
                result = "ok" if callable(result) else result
            except Exception as e:   # noqa: BLE001 - type and message compared
                result = (type(e).__name__, str(e))
        return result, [(m.category.__name__, str(m.message)) for m in caught]

    calls = [
        lambda T: T.amp.custom_bwd(lambda ctx, g: g),
        lambda T: T.amp.custom_fwd(lambda ctx, x: x, device_type=1),
        lambda T: T.amp.custom_fwd(cast_inputs=T.float32),
        lambda T: T.amp.custom_fwd(device_type="cpu")(lambda ctx, x: x),
        lambda T: T.cuda.amp.custom_fwd(lambda ctx, x: x),
        lambda T: T.cuda.amp.custom_bwd(lambda ctx, g: g),
        lambda T: T.cuda.amp.custom_fwd(cast_inputs=T.float32),
        lambda T: hasattr(T.cpu.amp, "custom_fwd"),
    ]
    for call in calls:
        assert outcome(gs, call) == outcome(torch, call)
