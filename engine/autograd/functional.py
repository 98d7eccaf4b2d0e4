"""``torch.autograd.functional``: jacobian, hessian, vjp, jvp, hvp and vhp of a function, as
PyTorch's reverse-mode implementations compute them (forward products by the double-backward
trick), built on ``autograd.grad``. Results keep a graph only with ``create_graph=True``."""

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _torch():
    from ... import engine
    return engine


def _as_tuple(value, what, fn_name):
    """(whether ``value`` was a tuple, it as a tuple); PyTorch's TypeError for what is not a tensor."""
    from ..tensor import Tensor
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            if is_tuple:
                raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                                f"value at index {i} has type {type(v)}.")
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"given {what} has type {type(v)}.")
    return is_tuple, values


def _prepare(inputs, create_graph, need_graph):
    """The inputs the function is called with: views of them under create_graph (so the result
    stays connected to the caller's graph), else fresh leaves."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in inputs)


def _finish(values, create_graph):
    if isinstance(values, tuple):
        return tuple(_finish(v, create_graph) for v in values)
    if values is None or create_graph:
        return values
    return values.detach()


def _shape(values, is_tuple):
    return values if is_tuple else values[0]


def _check_v(v, like, like_is_tuple, fn_name):
    """v as a tuple matching ``like`` in length and shapes, with PyTorch's errors."""
    is_tuple, v = _as_tuple(v, "v", fn_name)
    if len(v) != len(like):
        if not like_is_tuple:
            raise RuntimeError("The given v should contain a single Tensor.")
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got {len(v)}.")
    for i, (a, b) in enumerate(zip(like, v)):
        if a.size() != b.size():
            where = f"Entry {i} in v" if is_tuple else "v"
            raise RuntimeError(f"{where} has invalid size: should be {a.size()} but got {b.size()}.")
    return v


def _grad(outputs, inputs, grad_outputs, create_graph, strict, fn_name, stage=""):
    """``autograd.grad`` that gives zeros (or, under ``strict``, PyTorch's error) for what does not depend on an input."""
    torch = _torch()
    outputs = tuple(outputs)
    keep = [i for i, o in enumerate(outputs) if o is not None and o.requires_grad]
    if keep:
        grads = torch.autograd.grad([outputs[i] for i in keep], inputs,
                                    [grad_outputs[i] for i in keep] if grad_outputs is not None else None,
                                    retain_graph=True, create_graph=create_graph, allow_unused=True)
    else:
        grads = (None,) * len(inputs)
    out = []
    for i, (g, inp) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The {stage}output of the user-provided function is independent of input {i}. "
                                   f"This is not allowed in strict mode.")
            g = torch.zeros_like(inp)
        out.append(g)
    return tuple(out)


def _check_requires_grad(outputs, strict, what="outputs"):
    if strict:
        for i, o in enumerate(outputs):
            if not o.requires_grad and what == "jacobian":
                raise RuntimeError(_HESSIAN_STRICT.format(i))
            if not o.requires_grad:
                raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                                   f"must be computed in a differentiable manner from the input when running in strict "
                                   f"mode.")


_HESSIAN_STRICT = ("While computing the hessian, found that the jacobian of the user-provided function with respect to "
                   "input {} is independent of the input. This is not allowed in strict mode. You should ensure that "
                   "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
                   "violated by a linear function for example).")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), the vector-Jacobian product v^T J)."""
    torch = _torch()
    with torch.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, strict)
        if v is not None:
            v = _check_v(v, outputs, is_outputs_tuple, "vjp")
        else:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            v = (torch.ones_like(outputs[0]),)
        grads = _grad(outputs, inputs, v, create_graph, strict, "vjp")
    return _shape(_finish(outputs, create_graph), is_outputs_tuple), _shape(_finish(grads, create_graph),
                                                                             is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), the Jacobian-vector product J v), by the double-backward trick."""
    torch = _torch()
    with torch.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, True)
        if v is not None:
            v = _check_v(v, inputs, is_inputs_tuple, "jvp")
        else:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            v = (torch.ones_like(inputs[0]),)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, strict)
        dummies = tuple(torch.zeros_like(o, requires_grad=True) for o in outputs)
        grads = _grad(outputs, inputs, dummies, True, strict, "jvp")
        result = _grad(grads, dummies, v, create_graph, strict, "jvp", "backward ")
    return _shape(_finish(outputs, create_graph), is_outputs_tuple), _shape(_finish(result, create_graph),
                                                                             is_outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: a tensor of shape output.shape + input.shape, or tuples
    of them (outer: outputs, inner: inputs) where either was a tuple. Reverse mode, one backward per
    output element (``vectorize`` and forward mode compute the same)."""
    torch = _torch()
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                         'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                         'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    with torch.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, strict)
        from ..limits import charge_steps, check_elements
        for out in outputs:   # each block is sized before its rows are gathered (they are held until stacked)
            for inp in inputs:
                check_elements(tuple(out.shape) + tuple(inp.shape), "jacobian")
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(flat.numel()):
                charge_steps()   # a backward per element, its row held: counted and checked as a program's loop
                element = flat[j]
                if element.requires_grad:
                    grads = torch.autograd.grad(element, inputs, retain_graph=True, create_graph=create_graph,
                                                allow_unused=True)
                else:
                    grads = (None,) * len(inputs)
                for k, (g, inp) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input {k}. "
                                               f"This is not allowed in strict mode.")
                        g = torch.zeros_like(inp)
                    rows[k].append(g)
            jac.append(tuple(torch.stack(rows[k], 0).reshape(tuple(out.shape) + tuple(inp.shape)) if rows[k]
                             else torch.zeros(tuple(out.shape) + tuple(inp.shape), dtype=inp.dtype)
                             for k, inp in enumerate(inputs)))
    jac = _finish(tuple(jac), create_graph)
    if not is_outputs_tuple:
        return jac[0] if is_inputs_tuple else jac[0][0]
    return jac if is_inputs_tuple else tuple(j[0] for j in jac)


def _scalar_output(func, fn_name):
    torch = _torch()

    def single(*inp):
        out = func(*inp)
        is_tuple, out = _as_tuple(out, "outputs of the user-provided function", fn_name)
        if is_tuple or not isinstance(out[0], torch.Tensor):
            raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
        if out[0].numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single "
                               f"element")
        return out[0].squeeze()
    return single


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func`` at ``inputs``: the Jacobian of its gradient."""
    torch = _torch()
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    single = _scalar_output(func, "hessian")

    def gradient(*inp):
        out = single(*inp)
        if not out.requires_grad:
            _check_requires_grad((out,), strict)
            return tuple(torch.zeros_like(t) for t in inp)
        grads = torch.autograd.grad(out, inp, create_graph=True, allow_unused=True)
        grads = tuple(torch.zeros_like(t) if g is None else g for g, t in zip(grads, inp))
        _check_requires_grad(grads, strict, "jacobian")
        return grads
    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, strategy=outer_jacobian_strategy)
    return res if is_inputs_tuple else res[0][0]   # inputs went in as a tuple: the gradient's parts by inputs


def _second_order(func, inputs, v, create_graph, strict, fn_name, hessian_vector):
    torch = _torch()
    with torch.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
        inputs = _prepare(inputs, create_graph, True)
        if v is not None:
            v = _check_v(v, inputs, is_inputs_tuple, fn_name)
        else:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            v = (torch.ones_like(inputs[0]),)
        out = _scalar_output(func, fn_name)(*inputs)
        _check_requires_grad((out,), strict)
        jac = _grad((out,), inputs, None, True, strict, fn_name)
        _check_requires_grad(jac, strict, "jacobian")
        if hessian_vector:   # H v by the double-backward trick, as PyTorch's hvp
            dummies = tuple(torch.zeros_like(t, requires_grad=True) for t in inputs)
            double = _grad(jac, inputs, dummies, True, strict, fn_name, "jacobian ")
            result = _grad(double, dummies, v, create_graph, strict, fn_name, "double back ")
        else:                # v^T H
            result = _grad(jac, inputs, v, create_graph, strict, fn_name, "jacobian ")
    return _finish(out, create_graph), _shape(_finish(result, create_graph), is_inputs_tuple)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), the vector-Hessian product v^T H) of scalar ``func``."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp", False)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), the Hessian-vector product H v) of scalar ``func``."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp", True)
