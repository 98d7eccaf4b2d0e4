"""Process-wide run state read on every op: grad mode, anomaly mode, the
observer that streams graph events, and the program line being executed.

One object with slots keeps the hot path to a single global lookup. The engine
runs one program at a time per worker process, so this state is not per thread.

``generator``, ``default_dtype``, ``print_options`` and ``settings`` are a session's own
(SPEC: programs cannot observe each other): whoever runs a session's program
swaps its values in before the run and keeps them after it.
"""


class _State:
    __slots__ = ("grad_enabled", "anomaly", "observer", "line", "node_count", "node_limit",
                 "element_limit", "generator", "default_dtype", "print_options", "value_check", "charge",
                 "settings")

    def __init__(self):
        self.grad_enabled = True
        self.anomaly = False
        self.observer = None   # object with on_node(node, out, inputs) and on_backward(node, grad)
        self.line = None       # 1-based program line, set by the interpreter
        self.node_count = 0    # graph nodes created since the counter was last reset
        self.node_limit = None  # raise LimitExceeded past this many nodes
        self.element_limit = None  # largest tensor, in elements, an op may allocate
        self.generator = None   # the random Generator in use (ops.creation.Generator)
        self.default_dtype = None  # torch.get_default_dtype(): dtypes.float32 unless set
        self.print_options = None  # printing.PrintOptions
        self.value_check = None    # a debug run's anomaly check of ops that record no node: f(node, out, inputs)
        self.charge = None   # during a program run: f(n) counts n steps of an engine loop (limits.charge_steps)
        self.settings = {}   # torch.set_num_threads and the like: a session's own dict (engine/settings.py)


state = _State()
