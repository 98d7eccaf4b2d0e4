"""Decorators in programs (SPEC section 2): ``@property``, ``@staticmethod``,
``@classmethod``, ``@dataclass``, ``@functools.wraps``, user-defined decorators, and the
engine's grad modes (``@torch.no_grad()``, ...) on functions and methods."""
import pytest

from python_oracle import assert_same_as_python

try:
    import torch as real_torch
except ImportError:  # the suite passes without PyTorch
    real_torch = None


def test_user_decorators_with_arguments_and_wraps_match_cpython():
    assert_same_as_python("""
    import functools
    calls = []
    def logged(prefix):
        def deco(fn):
            @functools.wraps(fn)
            def inner(*args, **kwargs):
                calls.append(prefix)
                return fn(*args, **kwargs)
            return inner
        return deco
    def twice(fn):
        def inner(x):
            return fn(fn(x))
        return inner
    @logged('a')
    @twice
    def inc(x):
        return x + 1
    class C:
        @logged('m')
        def m(self, v):
            return v * 2
        @property
        @logged('p')
        def p(self):
            return 7
    print(inc(1), C().m(3), C().p, calls)
    """)


GRAD_MODES = """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x)

    @torch.no_grad()
    def predict(self, x):
        return self.forward(x)

    @torch.inference_mode()
    def infer(self, x):
        return self.fc(x)

    @torch.enable_grad()
    def train_step(self, x):
        return self.fc(x)

@torch.no_grad
def plain(x):
    return x * 2

@torch.set_grad_enabled(False)
def off(x):
    return x * 2

net = Net()
x = torch.ones(3, 2)
print(net.predict(x).requires_grad, net.infer(x).requires_grad, net(x).requires_grad)
with torch.no_grad():
    print(net.train_step(x).requires_grad, torch.is_grad_enabled())
w = torch.ones(2, requires_grad=True)
print(plain(w).requires_grad, off(w).requires_grad, torch.is_grad_enabled())
print(torch.no_grad()(lambda t: t * 3)(w).requires_grad)
"""


def test_grad_mode_decorators_on_functions_and_methods():
    from python_oracle import program_stdout
    out = program_stdout(GRAD_MODES)
    assert out == "False False True\nTrue False\nFalse False True\nFalse\n"


@pytest.mark.skipif(real_torch is None, reason="needs PyTorch")
def test_grad_mode_decorators_match_pytorch():
    assert_same_as_python(GRAD_MODES)


def test_grad_mode_is_restored_when_a_decorated_function_raises(run_ok):
    _, ns = run_ok("""
    import torch
    @torch.no_grad()
    def bad(x):
        raise ValueError("no")
    try:
        bad(1)
    except ValueError:
        pass
    enabled = torch.is_grad_enabled()
    """)
    assert ns.get("enabled") is True


def test_an_error_in_a_decorated_method_points_to_its_line(run_err):
    e = run_err("""
    import torch
    class A:
        @torch.no_grad()
        def f(self, x):
            return x / 0
    A().f(1)
    """)
    assert e.type == "ZeroDivisionError" and e.line == 6


def test_dataclass_and_classmethod_decorators_together():
    assert_same_as_python("""
    from dataclasses import dataclass, field
    @dataclass
    class TrainConfig:
        lr: float = 1e-3
        layers: list = field(default_factory=lambda: [64, 64])
        @classmethod
        def small(cls):
            return cls(lr=1e-2, layers=[8])
        @property
        def depth(self):
            return len(self.layers)
        @staticmethod
        def describe():
            return 'cfg'
    c = TrainConfig.small()
    print(c, c.depth, TrainConfig().depth, TrainConfig.describe())
    """)
