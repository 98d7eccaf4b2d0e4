"""How tensors print: PyTorch's format (torch/_tensor_str.py) over NumPy arrays.

``tensor([1.0000, 2.5000])``, ``tensor(3.)``, scientific notation when values
span more than three decades, summaries with ``...`` past the threshold. The
options are per session: they live in the engine state, which each session
swaps in while its program runs.
"""
import math

import numpy as np

from . import dtypes as _dt
from .autograd.state import state

__all__ = ["set_printoptions", "get_printoptions", "PrintOptions"]


class PrintOptions:
    """torch.set_printoptions' settings."""
    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self, precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None):
        self.precision = precision
        self.threshold = threshold
        self.edgeitems = edgeitems
        self.linewidth = linewidth
        self.sci_mode = sci_mode

    def as_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}


_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Set options for printing."""
    opts = state.print_options
    if profile is not None:
        for name, value in _PROFILES[profile].items():
            setattr(opts, name, value)
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(opts, name, value)
    opts.sci_mode = sci_mode


def get_printoptions():
    """Gets the current options for printing, as a dictionary."""
    return state.print_options.as_dict()


if state.print_options is None:
    state.print_options = PrintOptions()


class _Formatter:
    """Chooses one width and notation for every element of a tensor, as PyTorch does."""

    def __init__(self, values, floating, opts):
        self.floating = floating
        self.precision = opts.precision
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitude = np.abs(finite)
        lo, hi = float(magnitude.min()), float(magnitude.max())
        self.int_mode = bool((finite == np.ceil(finite)).all())
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) \
            if opts.sci_mode is None else opts.sci_mode
        items = finite.tolist()
        if self.sci_mode:
            widths = (len(f"{v:.{self.precision}e}") for v in items)
        elif self.int_mode:
            widths = (len(f"{v:.0f}") + 1 for v in items)
        else:
            widths = (len(f"{v:.{self.precision}f}") for v in items)
        self.max_width = max(widths)

    def format(self, value):
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{self.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{self.precision}f}"
        return (self.max_width - len(text)) * " " + text


def _summarized(values, edge):
    """The elements a summarised print shows: ``edge`` at each end of every dimension."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * edge:
        values = np.concatenate([values[:edge], values[-edge:]])
    if values.ndim == 1:
        return values
    return np.stack([_summarized(row, edge) for row in values]) if len(values) else values


def _body(values, indent, summarize, fmt, opts):
    if values.ndim == 0:
        return fmt.format(values.item())
    edge = opts.edgeitems
    if values.ndim == 1:
        per_line = max(1, math.floor((opts.linewidth - indent) / (fmt.max_width + 2)))
        if summarize and not edge:
            items = ["..."]
        elif summarize and values.shape[0] > 2 * edge:
            items = ([fmt.format(v) for v in values[:edge].tolist()] + [" ..."]
                     + [fmt.format(v) for v in values[-edge:].tolist()])
        else:
            items = [fmt.format(v) for v in values.tolist()]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = values.shape[0]
    if summarize and n > 2 * edge:
        rows = ([_body(values[i], indent + 1, summarize, fmt, opts) for i in range(edge)] + ["..."]
                + [_body(values[i], indent + 1, summarize, fmt, opts) for i in range(n - edge, n)])
    else:
        rows = [_body(values[i], indent + 1, summarize, fmt, opts) for i in range(n)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def format_tensor(t, values, dtype, device):
    """``repr`` of a tensor: ``values`` is its data on the host, ``dtype`` its engine dtype."""
    opts = state.print_options
    default_dtype = state.default_dtype
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if device.type != "cpu":
        suffixes.append(f"device='{device}'")
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype is not default_dtype:
            suffixes.append(f"dtype={dtype!r}")
        body = "[]"
    else:
        if dtype not in (default_dtype, _dt.int64, _dt.bool):
            suffixes.append(f"dtype={dtype!r}")
        summarize = values.size > opts.threshold
        floating = values.dtype.kind == "f"
        shown = _summarized(values, opts.edgeitems) if summarize else values
        fmt = _Formatter(shown, floating, opts)
        body = _body(values, indent, summarize, fmt, opts)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent, opts.linewidth)


def _add_suffixes(text, suffixes, indent, linewidth):
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)

