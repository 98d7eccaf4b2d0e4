"""``torch.func``: function transforms (``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``, ``hessian``, ``vmap``), ``functional_call`` and ``stack_module_state``, as PyTorch's
tutorials use them (per-sample gradients, model ensembles, MAML with explicit parameters).

They are built on this engine's autograd rather than on functorch's levels:
- ``grad`` differentiates a call of the function on the given arguments with ``autograd.grad``.
  Under grad mode the result stays connected to arguments that require grad, so transforms nest
  (``grad(grad(f))``, ``jacrev(grad(f))``) and an outer loss can differentiate through them.
- ``vmap`` runs the function once per index of the mapped dimension and stacks the results: the
  same values as PyTorch's batching rules, at a loop's speed. Each call is the program's own,
  counted as any other.

``randomness`` is not policed: random ops inside a vmapped function draw per call (as
``randomness='different'``)."""
from .limits import charge_steps, check_elements
from .tensor import Tensor

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "stack_module_state",
           "vjp", "vmap"]


def _torch():
    from .. import engine
    return engine


# ------------------------------------------------------------------ pytrees of tensors
def _leaves(tree, out):
    if isinstance(tree, Tensor):
        out.append(tree)
    elif isinstance(tree, (tuple, list)):
        for v in tree:
            _leaves(v, out)
    elif isinstance(tree, dict):
        for v in tree.values():
            _leaves(v, out)
    return out


def _map(fn, tree):
    """``tree`` with each tensor replaced by ``fn(tensor)`` (tuples, lists and dicts rebuilt)."""
    if isinstance(tree, Tensor):
        return fn(tree)
    if isinstance(tree, tuple):
        return tuple(_map(fn, v) for v in tree)
    if isinstance(tree, list):
        return [_map(fn, v) for v in tree]
    if isinstance(tree, dict):
        return {k: _map(fn, v) for k, v in tree.items()}
    return tree


def _argnums(argnums, n, fn_name):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise RuntimeError(f"{fn_name}: argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"{fn_name}: argnums must be int or Tuple[int, ...], got: {type(a).__name__}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnums={a}, but only {n} positional inputs")
    return tuple(a % n for a in nums)


# ------------------------------------------------------------------ grad
def _differentiate(func, argnums, has_aux, fn_name, args, kwargs):
    """(grads shaped as the arguments at argnums, value, aux)."""
    torch = _torch()
    keep_graph = torch.is_grad_enabled()
    nums = _argnums(argnums, len(args), fn_name)
    args = list(args)
    outer = False
    for i in nums:
        for t in _leaves(args[i], []):
            outer = outer or t.requires_grad

    def local(t):   # connected to the caller's graph where it has one, else a fresh leaf
        return t.view_as(t) if keep_graph and t.requires_grad else t.detach().requires_grad_()
    with torch.enable_grad():
        for i in nums:
            args[i] = _map(local, args[i])
        out = func(*args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(f"{fn_name}(f, ...)(*args): output of function f should be a tuple: (output, aux) "
                                   f"if has_aux is True")
            out, aux = out
        if not isinstance(out, Tensor):
            raise RuntimeError(f"{fn_name}(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}")
        if out.dim() != 0:
            raise RuntimeError(f"{fn_name}(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                               f"{out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        inputs = _leaves([args[i] for i in nums], [])
        create = keep_graph and outer
        if out.requires_grad:
            grads = torch.autograd.grad(out, inputs, create_graph=create, allow_unused=True)
        else:
            grads = (None,) * len(inputs)
    grads = iter([torch.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)])
    shaped = tuple(_map(lambda _: next(grads), args[i]) for i in nums)
    if not create:
        shaped, out = _map(lambda t: t.detach(), shaped), out.detach()
    return (shaped if isinstance(argnums, tuple) else shaped[0]), out, aux


def grad(func, argnums=0, has_aux=False):
    """``grad(f)(*args)``: the gradient of scalar ``f(*args)`` with respect to the arguments at
    ``argnums`` (tensors, or tuples, lists and dicts of them); with ``has_aux`` f returns
    ``(output, aux)`` and ``(grads, aux)`` comes back."""
    def wrapper(*args, **kwargs):
        grads, _, aux = _differentiate(func, argnums, has_aux, "grad", args, kwargs)
        return (grads, aux) if has_aux else grads
    return wrapper


def grad_and_value(func, argnums=0, has_aux=False):
    """``grad_and_value(f)(*args)``: ``(grads, value)``, or ``(grads, (value, aux))`` with ``has_aux``."""
    def wrapper(*args, **kwargs):
        grads, value, aux = _differentiate(func, argnums, has_aux, "grad_and_value", args, kwargs)
        return (grads, (value, aux)) if has_aux else (grads, value)
    return wrapper


# ------------------------------------------------------------------ vjp, jvp, jacobians
def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)``, or ``(output, vjp_fn, aux)``: ``vjp_fn(cotangents)`` gives the tuple of
    the cotangents pulled back to each primal."""
    torch = _torch()
    keep_graph = torch.is_grad_enabled()
    with torch.enable_grad():
        inputs = tuple(_map(lambda t: t.view_as(t) if keep_graph and t.requires_grad else t.detach().requires_grad_(),
                            p) for p in primals)
        out = func(*inputs)
        aux = None
        if has_aux:
            out, aux = out
    flat_in = _leaves(list(inputs), [])
    flat_out = _leaves(out, [])

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        cts = _leaves(cotangents, [])
        if len(cts) != len(flat_out):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function: {len(flat_out)} tensors, got {len(cts)}")
        create = keep_graph if create_graph is None else create_graph
        pairs = [(o, c) for o, c in zip(flat_out, cts) if o.requires_grad]
        with torch.enable_grad():
            grads = torch.autograd.grad([o for o, _ in pairs], flat_in, [c for _, c in pairs], retain_graph=True,
                                        create_graph=create, allow_unused=True) if pairs else (None,) * len(flat_in)
        grads = iter([torch.zeros_like(x) if g is None else g for g, x in zip(grads, flat_in)])
        return tuple(_map(lambda _: next(grads), p) for p in inputs)
    shown = _map(lambda t: t if keep_graph else t.detach(), out)
    return (shown, vjp_fn, aux) if has_aux else (shown, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(output, jvp_out)``: the function's output and its derivative along ``tangents``."""
    torch = _torch()
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples")
    if len(primals) != len(tangents):
        raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {len(primals)} and tangents with structure {len(tangents)}")
    aux = []

    def plain(*xs):
        out = func(*xs)
        if has_aux:
            out, a = out
            aux.append(a)
        return out
    out, jvp_out = torch.autograd.functional.jvp(plain, primals, tangents, create_graph=torch.is_grad_enabled())
    return (out, jvp_out, aux[0]) if has_aux else (out, jvp_out)


def _jacobian(func, argnums, has_aux, fn_name):
    torch = _torch()

    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), fn_name)
        aux = []

        def at(*xs):
            full = list(args)
            for i, x in zip(nums, xs):
                full[i] = x
            out = func(*full, **kwargs)
            if has_aux:
                out, a = out
                aux.append(a)
            return out
        create = torch.is_grad_enabled() and any(t.requires_grad for i in nums for t in _leaves(args[i], []))
        jac = torch.autograd.functional.jacobian(at, tuple(args[i] for i in nums), create_graph=create)
        # autograd.functional answers a tuple over the inputs (per output, for several outputs); torch.func
        # gives the one input's Jacobian alone unless argnums is a tuple
        if not isinstance(argnums, tuple):
            jac = tuple(j[0] for j in jac) if isinstance(jac[0], tuple) else jac[0]
        return (jac, aux[0]) if has_aux else jac
    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of ``func`` with respect to the arguments at ``argnums``, shaped output.shape +
    input.shape (by reverse mode)."""
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """As ``jacrev`` (the same values; computed here by reverse mode)."""
    return _jacobian(func, argnums, has_aux, "jacfwd")


def hessian(func, argnums=0):
    """The Hessian of scalar ``func`` at the arguments at ``argnums``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------------ vmap
def _dims_for(in_dims, args):
    if isinstance(in_dims, int) or in_dims is None:
        return (in_dims,) * len(args)
    if not isinstance(in_dims, (tuple, list)):
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a (potentially "
                         f"nested) tuple matching the structure of inputs, got: {type(in_dims).__name__}.")
    if len(in_dims) != len(args):
        raise ValueError(f"vmap(f, in_dims={tuple(in_dims)}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {len(in_dims)} but inputs has structure "
                         f"{len(args)}.")
    return tuple(in_dims)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``vmap(f)(*args)``: f applied to each slice of the arguments along their ``in_dims`` (None: not
    mapped), its results stacked along ``out_dims``."""
    torch = _torch()
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")

    def wrapper(*args, **kwargs):
        dims = _dims_for(in_dims, args)
        sizes = set()
        for a, d in zip(args, dims):
            if d is None:
                continue
            for t in _leaves(a, []):
                if t.dim() == 0 or not -t.dim() <= d < t.dim():
                    raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but "
                                     f"that input is a Tensor of dimensionality {t.dim()} so expected in_dim to "
                                     f"satisfy -{t.dim()} <= in_dim < {t.dim()}.")
                sizes.add(t.shape[d])
        if not sizes:
            raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): at least one input must be a Tensor "
                             f"mapped over a dimension (in_dims not None)")
        if len(sizes) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sorted(sizes)} for the mapped dimension")
        n = sizes.pop()
        if n == 0:   # PyTorch answers empty batches shaped as one pass's results: one pass on zeros tells them
            sliced = [a if d is None else _map(lambda t, d=d: t.new_zeros(t.shape[:d % t.dim()] + t.shape[d % t.dim() + 1:]), a)
                      for a, d in zip(args, dims)]
            return _stack_empty(func(*sliced, **kwargs), out_dims, torch)
        results = []
        for b in range(n):
            charge_steps()   # each pass counts, and holds a result: a 10**8-long dimension is a program's loop
            sliced = [a if d is None else _map(lambda t, d=d: t.select(d, b), a) for a, d in zip(args, dims)]
            results.append(func(*sliced, **kwargs))
            if b == 0:   # the stacked result must fit the element limit: refused before the other passes run
                for t in _leaves(results[0], []):
                    check_elements((n,) + tuple(t.shape), "vmap result")
        return _stack(results, out_dims, torch)
    return wrapper


def _stack_empty(one, out_dims, torch):
    if isinstance(one, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(one)
        return type(one)(_stack_empty(o, d, torch) for o, d in zip(one, dims))
    if isinstance(one, dict):
        return {k: _stack_empty(v, out_dims, torch) for k, v in one.items()}
    if not isinstance(one, Tensor):
        return _stack([one], out_dims, torch)[:0]
    empty = one.new_empty((0,) + tuple(one.shape))
    return empty if out_dims in (0, None) else empty.movedim(0, out_dims)


def _stack(results, out_dims, torch):
    first = results[0]
    if isinstance(first, Tensor):
        if out_dims is None:
            return first
        return torch.stack(results, out_dims)
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
        stacked = [_stack([r[i] for r in results], d, torch) for i, d in enumerate(dims)]
        return tuple(stacked) if isinstance(first, tuple) else stacked
    if isinstance(first, dict):
        return {k: _stack([r[k] for r in results], out_dims, torch) for k in first}
    if isinstance(first, (int, float, bool)):
        return torch.tensor(results)
    raise ValueError(f"vmap: `{type(first).__name__}` is not a Tensor: the function must return tensors "
                     f"(or tuples, lists and dicts of them)")


# ------------------------------------------------------------------ modules as functions
def _locate(module, path):
    *parents, name = path.split(".")
    owner = module
    for part in parents:
        sub = owner._modules.get(part) if hasattr(owner, "_modules") else None
        if sub is None:
            raise AttributeError(f"{type(owner).__name__} has no attribute `{part}`")
        owner = sub
    return owner, name


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Calls ``module`` with the tensors of ``parameter_and_buffer_dicts`` (a dict, or a tuple of
    dicts, from dotted names) in place of its own parameters and buffers, restored afterwards."""
    from .nn.module import Module
    if not isinstance(module, Module):
        raise AttributeError(f"'{type(module).__name__}' object has no attribute 'named_parameters'")
    if isinstance(parameter_and_buffer_dicts, dict):
        given = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        given = {}
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                if k in given:
                    raise ValueError(f"{k} appeared in multiple dictionaries; behavior of functional call is "
                                     f"ambiguous")
                given[k] = v
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    if strict:
        known = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing, unexpected = sorted(known - set(given)), sorted(set(given) - known)
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + (f"Unexpected key(s): {', '.join(repr(k) for k in unexpected)}." if unexpected else "")
                               + (f"Missing key(s): {', '.join(repr(k) for k in missing)}." if missing else ""))
    saved = []
    try:
        for path, tensor in given.items():
            if not isinstance(tensor, Tensor):
                raise TypeError(f"functional_call: the value for '{path}' must be a Tensor, got "
                                f"{type(tensor).__name__}")
            owner, name = _locate(module, path)
            d = owner.__dict__
            for key in ("_parameters", "_buffers"):
                if name in d[key]:
                    saved.append((d[key], name, d[key][name]))
                    d[key][name] = tensor
                    break
            else:
                raise AttributeError(f"{type(owner).__name__} has no parameter or buffer `{name}` ({path})")
        if args is None:
            args = ()
        elif not isinstance(args, tuple):
            args = (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for registry, name, old in reversed(saved):
            registry[name] = old


def stack_module_state(models):
    """``(params, buffers)``: each named parameter and buffer of the models stacked along a new first
    dimension (the ensemble's state for ``vmap`` over ``functional_call``); the stacked parameters
    are new leaves that require grad."""
    torch = _torch()
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    kinds = {type(m) for m in models}
    if len(kinds) > 1:
        raise RuntimeError(f"stack_module_state: Expected all models to be of the same class, got {kinds}")
    params = {name: torch.stack([dict(m.named_parameters())[name].detach() for m in models]).requires_grad_()
              for name, _ in models[0].named_parameters()}
    buffers = {name: torch.stack([dict(m.named_buffers())[name] for m in models])
               for name, _ in models[0].named_buffers()}
    return params, buffers
