"""What corpus13's public scripts needed from programs."""


def test_clip_grad_norm_deprecated_spelling(run_ok):
    # kaushalshetty/Structured-Self-Attention's train()
    out, _ = run_ok(
        "w = torch.tensor([3.0, 4.0], requires_grad=True)\n"
        "(w * w / 2).sum().backward()\n"
        "total = torch.nn.utils.clip_grad_norm([w], 1.0)\n"
        "print(round(total.item(), 4), [round(g, 4) for g in w.grad.tolist()])\n")
    assert out.stdout == ("<program>:3: FutureWarning: `torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                          "`torch.nn.utils.clip_grad_norm_`.\n5.0 [0.6, 0.8]\n")


def test_staticmethod_over_once_differentiable(run_ok):
    # pytorch/tutorials' custom_function_conv_bn_tutorial: @staticmethod above @once_differentiable on backward
    out, _ = run_ok(
        "from torch.autograd.function import once_differentiable\n"
        "class Square(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * x\n"
        "    @staticmethod\n"
        "    @once_differentiable\n"
        "    def backward(ctx, grad_out):\n"
        "        x, = ctx.saved_tensors\n"
        "        g = 2 * x * grad_out\n"
        "        print(torch.is_grad_enabled(), g.requires_grad)\n"
        "        return g\n"
        "x = torch.tensor([1.0, -3.0], requires_grad=True)\n"
        "Square.apply(x).sum().backward()\n"
        "print(x.grad.tolist())\n")
    assert out.stdout == "False False\n[2.0, -6.0]\n"


def test_staticmethod_of_a_refused_value_stays_refused(run_err):
    err = run_err("s = staticmethod(print)\n")
    assert err.to_dict()["type"] == "TypeError"
    assert "a value of type 'staticmethod' is not available in programs" in err.to_dict()["message"]


def test_cuda_memory_statistic_is_zero_without_a_gpu(run_ok):
    out, _ = run_ok("print(torch.cuda.max_memory_allocated(device=None) / 1024**3, torch.cuda.memory_allocated())\n")
    assert out.stdout == "0.0 0\n"


def test_optimizer_modules(run_ok):
    # ildoonet/pytorch-gradual-warmup-lr's run.py
    out, _ = run_ok(
        "from torch.optim.sgd import SGD\n"
        "from torch.optim.adamw import AdamW\n"
        "import torch.optim.rmsprop as rms\n"
        "w = torch.nn.Parameter(torch.ones(2))\n"
        "opt = SGD([w], 0.5)\n"
        "(w * 2).sum().backward()\n"
        "opt.step()\n"
        "print(w.tolist(), SGD is torch.optim.SGD, AdamW is torch.optim.AdamW, rms.RMSprop is torch.optim.RMSprop)\n")
    assert out.stdout == "[0.0, 0.0] True True True\n"


def test_addmm_deprecated_scales_first(run_ok):
    # KaiyangZhou/pytorch-center-loss's CenterLoss.forward
    out, _ = run_ok(
        "d = torch.ones(2, 3)\n"
        "d.addmm_(1, -2, torch.ones(2, 1), torch.ones(1, 3))\n"
        "print(d.tolist())\n")
    assert out.stdout.endswith("[[-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]]\n")
    assert "UserWarning: This overload of addmm_ is deprecated" in out.stdout


def test_datetime_timedelta_as_cpython(run_ok):
    # KaiyangZhou/pytorch-center-loss's main(): str(datetime.timedelta(seconds=elapsed))
    src = ("import datetime\n"
           "print(str(datetime.timedelta(seconds=round(3725.4))))\n"
           "d = datetime.timedelta(days=1, hours=2, minutes=3, seconds=4.5, milliseconds=6)\n"
           "print(d, repr(d), d.days, d.seconds, d.microseconds, d.total_seconds())\n"
           "print(d + d, d - 2 * d, d / 2, d // datetime.timedelta(hours=1), -d, abs(-d), d > datetime.timedelta(0))\n"
           "print(d == d * 1, isinstance(d, datetime.timedelta), datetime.timedelta.max, "
           "datetime.timedelta(weeks=1) % datetime.timedelta(days=3))\n")
    out, _ = run_ok(src)
    assert out.stdout == (   # CPython's output for the same lines
        "1:02:05\n"
        "1 day, 2:03:04.506000 datetime.timedelta(days=1, seconds=7384, microseconds=506000) 1 7384 506000 93784.506\n"
        "2 days, 4:06:09.012000 -2 days, 21:56:55.494000 13:01:32.253000 26 -2 days, 21:56:55.494000 "
        "1 day, 2:03:04.506000 True\n"
        "True True 999999999 days, 23:59:59.999999 1 day, 0:00:00\n")


def test_datetime_timedelta_takes_numbers_only(run_err):
    err = run_err("import datetime\n"
                  "class N:\n"
                  "    def __float__(self):\n"
                  "        return 1.0\n"
                  "datetime.timedelta(seconds=N())\n").to_dict()
    assert err["type"] == "TypeError" and "unsupported type for timedelta seconds component: N" in err["message"]


def test_datetime_timedelta_keeps_its_state(run_err):
    err = run_err("import datetime\nd = datetime.timedelta(1)\nd._td\n").to_dict()
    assert err["type"] == "AttributeError"
    err = run_err("import datetime\ndatetime.datetime.now()\n").to_dict()
    assert err["type"] == "AttributeError"


def test_abs_of_a_numpy_scalar(run_ok):
    # sksq96/pytorch-summary's summary_string: abs(np.prod(...) * batch_size * 4. / (1024 ** 2.))
    out, _ = run_ok(
        "import numpy as np\n"
        "x = np.prod([2, 3]) * -1.5\n"
        "print(abs(x), type(abs(x)).__name__, abs(np.int64(-3)), type(abs(np.int64(-3))).__name__,\n"
        "      abs(np.float32(-2.5)))\n")
    assert out.stdout == "9.0 np_float64 3 np_int64 2.5\n"


def test_multinomial_from_its_module(run_ok):
    # d2l's probability chapter: from torch.distributions.multinomial import Multinomial
    out, _ = run_ok(
        "from torch.distributions.multinomial import Multinomial\n"
        "fair_probs = torch.tensor([0.5, 0.5])\n"
        "counts = Multinomial(1, fair_probs).sample((100,))\n"
        "cum_counts = counts.cumsum(dim=0)\n"
        "estimates = cum_counts / cum_counts.sum(dim=1, keepdims=True)\n"
        "m = torch.distributions.Multinomial(10, fair_probs)\n"
        "print(tuple(estimates.shape), bool((counts.sum(1) == 1).all()), m, m.total_count, m.mean.tolist(),\n"
        "      round(m.log_prob(torch.tensor([5., 5.])).item(), 4))\n")
    assert out.stdout == "(100, 2) True Multinomial() 10 [5.0, 5.0] -1.402\n"
