"""torch.autograd.Function, PyTorch's contract: static forward/backward with ctx, saved tensors,
needs_input_grad, non-differentiable and dirty outputs, materialized gradients, setup_context,
once_differentiable, several outputs, create_graph and gradcheck. Each test runs on gradserve
and, where installed, on PyTorch (the ``lib`` fixture)."""
import numpy as np
import pytest


def _relu(lib):
    class MyReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input
    return MyReLU


def _scaled_cube(lib):
    class ScaledCube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x ** 3 * k

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2 * ctx.k, None
    return ScaledCube


def _x(lib):
    return lib.tensor([-1.0, 2.0, 0.5], dtype=lib.float64, requires_grad=True)


def test_the_tutorial_relu_gives_its_gradient_and_names_its_node(lib):
    MyReLU = _relu(lib)
    x = _x(lib)
    y = MyReLU.apply(x)
    assert y.requires_grad and y.grad_fn.name() == "MyReLUBackward"
    assert y.tolist() == [0.0, 2.0, 0.5]
    (y * lib.arange(3.0, dtype=lib.float64)).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 2.0]


def test_backward_written_with_differentiable_ops_gives_second_order_gradients(lib):
    Cube = _scaled_cube(lib)
    x = _x(lib)
    g, = lib.autograd.grad(Cube.apply(x, 2.0).sum(), x, create_graph=True)
    g2, = lib.autograd.grad(g.sum(), x)
    assert g.tolist() == [6.0, 24.0, 1.5] and g2.tolist() == [-12.0, 24.0, 6.0]


def test_gradcheck_and_gradgradcheck_pass_on_a_right_function(lib):
    Cube = _scaled_cube(lib)
    x = _x(lib)
    assert lib.autograd.gradcheck(lambda a: Cube.apply(a, 2.0), (x,))
    assert lib.autograd.gradgradcheck(lambda a: Cube.apply(a, 2.0), (x,))


def test_gradcheck_catches_a_wrong_backward(lib):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x
    assert lib.autograd.gradcheck(Wrong.apply, (_x(lib),), raise_exception=False) is False


def test_needs_input_grad_and_no_recording_without_grad(lib):
    seen = []

    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            seen.append(ctx.needs_input_grad)
            return a * b * scale

        @staticmethod
        def backward(ctx, g):
            return g, g, None
    x = _x(lib)
    y = Mul.apply(x, lib.ones(3, dtype=lib.float64), 2.0)
    assert seen[-1] == (True, False, False) and y.requires_grad
    with lib.no_grad():
        z = Mul.apply(x, x, 2.0)
    assert not z.requires_grad and z.grad_fn is None


def test_a_second_backward_without_retain_graph_raises_when_saved_tensors_are_read(lib):
    MyReLU = _relu(lib)
    y = MyReLU.apply(_x(lib)).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def _doubling(lib, save):
    class Doubling(lib.autograd.Function):
        contexts = []

        @staticmethod
        def forward(ctx, x):
            if save:
                ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            Doubling.contexts.append(ctx)
            return g * 2
    return Doubling


@pytest.mark.parametrize("save", [True, False])
def test_saved_tensors_after_backward_freed_them_raise_even_when_nothing_was_saved(lib, save):
    """Hostile pass 16 left it open: a ctx that saved nothing answered () after backward; PyTorch raises."""
    Doubling = _doubling(lib, save)
    x = _x(lib)
    y = Doubling.apply(x)
    y.sum().backward(retain_graph=True)
    assert len(Doubling.contexts[0].saved_tensors) == (1 if save else 0)   # retained: still readable
    y.sum().backward()
    with pytest.raises(RuntimeError, match="directly access saved tensors after they have already been freed"):
        Doubling.contexts[0].saved_tensors
    y.sum().backward()   # a backward that does not read them still runs, as in PyTorch
    assert x.grad.tolist() == [6.0, 6.0, 6.0]


def test_retain_graph_allows_a_second_backward(lib):
    MyReLU = _relu(lib)
    x = _x(lib)
    y = MyReLU.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0]


def test_a_wrong_number_of_gradients_raises(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g
    x = _x(lib)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Bad.apply(x, x).sum().backward()


def test_a_saved_tensor_changed_in_place_raises(lib):
    MyReLU = _relu(lib)
    x = _x(lib)
    h = x * 1
    y = MyReLU.apply(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_several_outputs_each_route_their_gradient(lib):
    class SinCos(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, gs, gc):
            x, = ctx.saved_tensors
            return gs * x.cos() - gc * x.sin()
    x = _x(lib)
    s, c = SinCos.apply(x)
    (s.sum() * 2 + (c * 3).sum()).backward()
    expected = 2 * np.cos(x.detach().numpy()) - 3 * np.sin(x.detach().numpy())
    assert np.allclose(x.grad.numpy(), expected)
    x.grad = None
    s, c = SinCos.apply(x)
    s.sum().backward()   # c got no gradient: materialized as zeros
    assert np.allclose(x.grad.numpy(), np.cos(x.detach().numpy()))
    assert s.grad_fn.name() == "SinCosBackward"


def test_without_materialized_grads_a_missing_gradient_is_none(lib):
    got = []

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            got.append(g2)
            return g1 * 2
    x = _x(lib)
    a, _ = Two.apply(x)
    a.sum().backward()
    assert got == [None] and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_non_differentiable_outputs_do_not_require_grad(lib):
    class SortIdx(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            values, idx = x.sort()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return values, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            idx, = ctx.saved_tensors
            out = lib.zeros_like(g)
            out[idx] = g
            return out
    x = _x(lib)
    v, i = SortIdx.apply(x)
    assert v.requires_grad and not i.requires_grad
    (v * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
    assert x.grad.tolist() == [1.0, 3.0, 2.0]


def test_mark_dirty_rebases_the_modified_input(lib):
    class Double_(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2
    x = _x(lib)
    h = x * 1
    out = Double_.apply(h)
    assert out is h and h.grad_fn.name() == "Double_Backward"
    (out * out).sum().backward()
    assert x.grad.tolist() == [-8.0, 16.0, 4.0]


def test_setup_context_style(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            result, = ctx.saved_tensors
            return g * result
    x = _x(lib)
    Exp.apply(x).sum().backward()
    assert np.allclose(x.grad.numpy(), np.exp(x.detach().numpy()))


def test_once_differentiable_backward_runs_without_recording(lib):
    recorded = []

    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            out = 2 * x * g
            recorded.append(out.requires_grad)
            return out
    x = _x(lib)
    g, = lib.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    assert recorded == [False] and g.tolist() == [-2.0, 4.0, 1.0]


def test_returning_an_input_gives_a_new_output_tensor(lib):
    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5
    x = _x(lib)
    y = Ident.apply(x)
    assert y is not x and y.grad_fn.name() == "IdentBackward"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0, 5.0]


def test_hooks_on_a_custom_output_see_its_gradient(lib):
    MyReLU = _relu(lib)
    x = _x(lib)
    y = MyReLU.apply(x)
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    (y * 3).sum().backward()
    assert seen == [[3.0, 3.0, 3.0]]
