"""The engine API real PyTorch code uses, reached from programs: custom autograd Functions (the
program's forward and backward run through the interpreter, under its limits and with its lines),
legacy constructors, keyword aliases and grad modes."""
import pytest

from gradserve.engine.program import Limits

RELU = """
class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        ctx.scale = 2.0
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone() * ctx.scale
        grad_input[input < 0] = 0
        return grad_input
"""


def test_a_program_defines_and_applies_a_custom_function(run_ok):
    _, ns = run_ok(RELU + """
x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
y = MyReLU.apply(x)
name = y.grad_fn.name()
y.sum().backward()
g = x.grad.tolist()
""")
    assert ns.get("name") == "MyReLUBackward" and ns.get("g") == [0.0, 2.0, 2.0]


def test_a_program_custom_function_passes_gradcheck_and_gives_second_order(run_ok):
    _, ns = run_ok("""
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.k, None

x = torch.tensor([-1.0, 2.0], dtype=torch.float64, requires_grad=True)
ok = torch.autograd.gradcheck(lambda a: Cube.apply(a, 2.0), (x,))
g, = torch.autograd.grad(Cube.apply(x, 2.0).sum(), x, create_graph=True)
g2, = torch.autograd.grad(g.sum(), x)
out = (g.tolist(), g2.tolist(), ok)
""")
    assert ns.get("out") == ([6.0, 24.0], [-12.0, 24.0], True)


def test_an_error_in_a_program_backward_points_to_its_line(run_err):
    e = run_err("""
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * undefined_name

x = torch.ones(2, requires_grad=True)
Bad.apply(x).sum().backward()
""")
    assert e.type == "NameError" and e.line == 9
    assert [f["function"] for f in e.traceback] == ["<module>", "backward"]


def test_an_endless_program_backward_hits_the_step_limit(run_err):
    e = run_err("""
class Spin(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        while True:
            pass

x = torch.ones(2, requires_grad=True)
Spin.apply(x).sum().backward()
""", limits=Limits(steps=10_000))
    assert e.type == "LimitExceeded" and e.line in (9, 10)


def test_ctx_internals_stay_private(run_err):
    e = run_err(RELU.replace("ctx.scale = 2.0", "ctx._node") + """
MyReLU.apply(torch.ones(2, requires_grad=True))
""")
    assert e.type == "AttributeError"


def test_legacy_constructors_aliases_and_variable(run_ok):
    _, ns = run_ok("""
from_list = torch.LongTensor([1, 2]).tolist()
sized = list(torch.FloatTensor(2, 3).shape)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
s = x.sum(axis=0, keepdims=True).tolist()
r = list(torch.randn(size=(2, 5)).shape)
v = torch.autograd.Variable(torch.ones(2), requires_grad=True)
w = torch.ones(2)
w.add_(-0.5, torch.ones(2))
out = (from_list, sized, s, r, v.requires_grad, w.tolist(), isinstance(x, torch.FloatTensor))
""")
    assert ns.get("out") == ([1, 2], [2, 3], [[4.0, 6.0]], [2, 5], True, [0.5, 0.5], True)


def test_squeeze_of_a_dim_that_is_not_one_is_a_new_view(run_ok):
    _, ns = run_ok("""
w = torch.ones(2, 3, requires_grad=True)
v = w.squeeze(0)
(v * 2).sum().backward()
out = (v is w, v.grad is None, w.grad.sum().item())
""")
    assert ns.get("out") == (False, True, 12.0)


@pytest.mark.parametrize("deco", ["torch.no_grad()", "torch.no_grad", "torch.inference_mode()"])
def test_grad_mode_decorators_on_program_functions(run_ok, deco):
    _, ns = run_ok(f"""
@{deco}
def f(t):
    return (t * 2).requires_grad

x = torch.ones(2, requires_grad=True)
out = (f(x), (x * 2).requires_grad)
""")
    assert ns.get("out") == (False, True)


def test_a_program_dataset_loads_through_dataloader(run_ok):
    _, ns = run_ok("""
from torch.utils.data import Dataset, DataLoader, random_split

class Squares(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return torch.tensor([float(i)]), i * i

torch.manual_seed(0)
ds = Squares(7)
seen = []
shapes = []
for xb, yb in DataLoader(ds, batch_size=3, shuffle=True):
    seen.extend(yb.tolist())
    shapes.append(tuple(xb.shape))
train, test = random_split(ds, [5, 2])
sizes = [len(c) for c in DataLoader(train, batch_size=2, collate_fn=lambda batch: batch)]
out = (sorted(seen), shapes, len(train), len(test), sizes)
""")
    assert ns.get("out") == ([0, 1, 4, 9, 16, 25, 36], [(3, 1), (3, 1), (1, 1)], 5, 2, [2, 2, 1])


def test_an_error_in_a_program_getitem_points_to_its_line(run_err):
    e = run_err("""
import torch.utils.data as data

class Broken(data.Dataset):
    def __len__(self):
        return 3
    def __getitem__(self, i):
        return [1, 2][i]

for batch in data.DataLoader(Broken(), batch_size=3):
    pass
""")
    assert e.type == "IndexError" and e.line == 8


def test_a_program_model_derives_from_nn_transformer_and_trains_with_new_optimizers(run_ok):
    _, ns = run_ok("""
import math
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import LinearLR, ExponentialLR, SequentialLR, ReduceLROnPlateau, OneCycleLR

class TransformerModel(nn.Transformer):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers):
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers, dropout=0.0)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

    def forward(self, src):
        mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        src = self.input_emb(src) * math.sqrt(self.ninp)
        return F.log_softmax(self.decoder(self.encoder(src, mask=mask)), dim=-1)

torch.manual_seed(0)
model = TransformerModel(20, 8, 2, 16, 2)
data = torch.randint(0, 20, (6, 3))
target = torch.randint(0, 20, (18,))
losses = []
for make in (torch.optim.Adadelta, torch.optim.Adamax, torch.optim.NAdam, torch.optim.RAdam):
    opt = make(model.parameters(), lr=0.01)
    sched = SequentialLR(opt, [LinearLR(opt, start_factor=0.5, total_iters=2), ExponentialLR(opt, 0.9)],
                         milestones=[2])
    plateau = ReduceLROnPlateau(opt, patience=0)
    for step in range(3):
        opt.zero_grad()
        loss = F.nll_loss(model(data).view(-1, 20), target)
        loss.backward()
        opt.step()
        sched.step()
        plateau.step(loss)
    losses.append(loss.item())
lazy = nn.LazyLinear(3)
out = (len(losses), all(l == l for l in losses), len(model.state_dict()), tuple(lazy(torch.ones(2, 5)).shape))
""")
    assert ns.get("out") == (4, True, 29, (2, 3))   # 2 x 12 encoder layer tensors, its norm, embedding, decoder


def test_lazy_modules_padding_layers_range_indexing_and_accelerator(run_ok):
    _, ns = run_ok("""
from torch import nn
net = nn.Sequential(nn.LazyConv2d(4, 3, padding=1), nn.ReflectionPad2d(1), nn.Flatten(), nn.LazyLinear(2))
y = net(torch.ones(2, 3, 5, 5))
x = torch.arange(12.).reshape(3, 4)
device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
out = (tuple(y.shape), net[3].in_features, x[range(3), torch.tensor([0, 1, 2])].tolist(), device.type in ("cpu", "cuda"))
""")
    assert ns.get("out") == ((2, 2), 196, [0.0, 5.0, 10.0], True)


def test_lbfgs_with_a_program_closure(run_ok):
    out, ns = run_ok("""
import torch.optim as optim
w = torch.zeros(3, requires_grad=True)
target = torch.tensor([1.0, -2.0, 0.5])
optimizer = optim.LBFGS([w], lr=0.8, line_search_fn="strong_wolfe")
def closure():
    optimizer.zero_grad()
    loss = ((w - target) ** 2).sum()
    print('loss:', loss.item())
    loss.backward()
    return loss
for i in range(2):
    optimizer.step(closure)
result = [round(v, 4) for v in w.tolist()]
""")
    assert ns.get("result") == [1.0, -2.0, 0.5] and "loss:" in out.stdout


def test_data_submodules_import_as_scripts_spell_them(run_ok):
    _, ns = run_ok("""
from torch.utils.data.dataloader import DataLoader
from torch.utils.data.dataset import TensorDataset
from torch.utils.data import sampler
loader = DataLoader(TensorDataset(torch.arange(6.)), batch_size=4, sampler=sampler.SequentialSampler(range(6)))
out = [b[0].tolist() for b in loader]
""")
    assert ns.get("out") == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0]]


def test_a_program_reaches_the_torch_aliases_of_functional_ops(run_ok):
    """torch.conv_transpose2d, torch.prelu, torch.pixel_shuffle, ... are F's functions under
    PyTorch's top-level names (their signatures are F's)."""
    _, ns = run_ok("""
import torch.nn.functional as F
x = torch.arange(16.0).reshape(1, 4, 2, 2).requires_grad_()
w = torch.ones(4, 2, 3, 3, requires_grad=True)
y = torch.conv_transpose2d(x, w, stride=2)
same = torch.equal(y, F.conv_transpose2d(x, w, stride=2))
z = torch.prelu(y - 100.0, torch.tensor([0.5]))
z.sum().backward()
shape = list(y.shape)
shuffled = list(torch.pixel_shuffle(torch.zeros(1, 8, 3, 3), 2).shape)
shrunk = torch.hardshrink(torch.tensor([-1.0, 0.2, 3.0]), 0.5).tolist()
wgrad = list(w.grad.shape)
""")
    assert ns.get("same") is True
    assert ns.get("shape") == [1, 2, 5, 5] and ns.get("shuffled") == [1, 2, 6, 6]
    assert ns.get("shrunk") == [-1.0, 0.0, 3.0] and ns.get("wgrad") == [4, 2, 3, 3]


def test_torch_constants_versions_and_rms_norm_in_programs(run_ok, run_err):
    import math

    import numpy as np
    # rasbt/LLMs-from-scratch: masked_fill(mask, -torch.inf), torch.pi in GELU, print(torch.__version__)
    out, ns = run_ok("""
import math
import numpy as np
import torch
scores = torch.zeros(3, 3).masked_fill(torch.triu(torch.ones(3, 3), 1).bool(), -torch.inf)
consts = [torch.pi == math.pi, torch.e == math.e, torch.inf == math.inf, math.isnan(torch.nan)]
wide = torch.ones(2, 3)[:, torch.newaxis].shape
norm = torch.nn.RMSNorm(4)(torch.tensor([[1.0, 2.0, 3.0, 4.0]]))
print(torch.__version__, np.__version__)
""")
    assert ns.get("consts") == [True] * 4 and tuple(ns.get("wide")) == (2, 1, 3)
    assert ns.get("scores").numpy()[0].tolist() == [0.0, float("-inf"), float("-inf")]
    torch_version, numpy_version = out.stdout.split()
    assert torch_version == "2.13.0+gradserve" and numpy_version == np.__version__
    assert abs(float(ns.get("norm").detach().numpy()[0, 3]) - 4 / math.sqrt(7.5)) < 1e-5
    for source in ("import torch\ntorch.nn.__version__\n", "import torch\ntorch.ones(1).__version__\n"):
        assert "private to the host" in run_err(source).message


def test_tensor_resize_and_new_in_programs(run_ok):
    _, ns = run_ok("import torch\nx = torch.ones(64, 1, 28, 28)\nx.resize_(64, 784)\ny = x.new(3, 4).zero_()\n"
                   "z = x.new([[1, 2]])\n")
    assert tuple(ns.get("x").shape) == (64, 784) and tuple(ns.get("y").shape) == (3, 4)
    assert ns.get("z").dtype.name == "float32" and ns.get("z").tolist() == [[1.0, 2.0]]


def test_unique_index_fill_and_matrix_power_in_programs(run_ok, run_err):
    _, ns = run_ok("import torch\nx = torch.tensor([[3, 1], [1, 2]])\nu, c = x.unique(return_counts=True)\n"
                   "a = torch.tensor([[1.0, 1.0], [0.0, 1.0]])\np = a.matrix_power(3)\nq = torch.linalg.matrix_power(a, 2)\n"
                   "m = torch.ones(3, 2)\nm.index_fill_(1, torch.tensor([0]), 5.0)\n")
    assert ns.get("u").tolist() == [1, 2, 3] and ns.get("c").tolist() == [2, 1, 1]
    assert ns.get("p").tolist() == [[1.0, 3.0], [0.0, 1.0]] and ns.get("q").tolist() == [[1.0, 2.0], [0.0, 1.0]]
    assert ns.get("m").tolist() == [[5.0, 1.0]] * 3
    for source in ("import torch\nb = torch.ones(2000, 2000).matrix_power(2 ** 40)\n",
                   "import torch\nb = torch.linalg.matrix_power(torch.ones(2000, 2000), 2 ** 40)\n"):
        e = run_err(source)
        assert e.type == "LimitExceeded" and "matrix_power" in e.message, e.to_dict()


def test_linalg_norms_in_programs(run_ok):
    # rasbt/machine-learning-book ch12: torch.linalg.norm(t1, ord=2, dim=1)
    out, ns = run_ok("""
    import torch
    from torch.linalg import vector_norm
    t = torch.tensor([[3.0, 4.0], [6.0, 8.0]], requires_grad=True)
    n = torch.linalg.norm(t, ord=2, dim=1)
    n.sum().backward()
    print(n.tolist(), torch.linalg.matrix_norm(t, ord=1).item(), vector_norm(t, ord=float('inf')).item())
    """)
    assert out.stdout == "[5.0, 10.0] 12.0 8.0\n"
    assert ns.get("t").grad.tolist() == [pytest.approx([0.6, 0.8])] * 2


def test_cross_kron_dist_in_programs(run_ok, run_err):
    out, ns = run_ok("""
    import torch
    a = torch.tensor([[1.0, 0.0, 0.0]], requires_grad=True)
    c = torch.linalg.cross(a, torch.tensor([[0.0, 1.0, 0.0]]))
    d = a.cross(torch.tensor([[0.0, 0.0, 1.0]]), dim=1)
    k = torch.kron(torch.tensor([1, 2]), torch.tensor([1, 10]))
    n = torch.dist(a, torch.zeros(3))
    (c.sum() + n).backward()
    print(c.tolist(), d.tolist(), k.tolist(), a.kron(a).shape, n.item(), torch.cross(a, a, dim=1).tolist())
    """)
    assert out.stdout == ("[[0.0, 0.0, 1.0]] [[0.0, -1.0, 0.0]] [1, 10, 2, 20] torch.Size([1, 9]) 1.0 "
                          "[[0.0, 0.0, 0.0]]\n")
    assert ns.get("a").grad.tolist() == [[2.0, 0.0, -1.0]]  # sum(a x e2) = a0 - a2, plus a / |a|
    for source in ("import torch\nb = torch.kron(torch.ones(3000, 3000), torch.ones(3000, 3000))\n",
                   "import torch\nb = torch.ones(3000, 3000).kron(torch.ones(3000, 3000))\n"):
        e = run_err(source)
        assert e.type == "LimitExceeded", e.to_dict()


def test_cdist_in_programs(run_ok, run_err):
    out, _ = run_ok("import torch\nd = torch.cdist(torch.tensor([[0.0, 0.0], [3.0, 4.0]]), torch.zeros(1, 2))\n"
                    "print(d.tolist())\n")
    assert out.stdout == "[[0.0], [5.0]]\n"
    e = run_err("import torch\nd = torch.cdist(torch.ones(20000, 2), torch.ones(20000, 2))\n")
    assert e.type == "LimitExceeded", e.to_dict()


def test_tensor_unfold_in_programs(run_ok, run_err):
    out, ns = run_ok("import torch\nx = torch.arange(6.0, requires_grad=True)\nw = x.unfold(0, 3, 1)\n"
                     "w.sum().backward()\nprint(w.tolist())\n")
    assert out.stdout == "[[0.0, 1.0, 2.0], [1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [3.0, 4.0, 5.0]]\n"
    assert ns.get("x").grad.tolist() == [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]
    e = run_err("import torch\nw = torch.ones(200000).unfold(0, 100000, 1)\n")
    assert e.type == "LimitExceeded", e.to_dict()


def test_kthvalue_in_programs(run_ok):
    out, ns = run_ok("import torch\nx = torch.tensor([[3.0, 1.0, 2.0]], requires_grad=True)\n"
                     "v, i = torch.kthvalue(x, 2, dim=1)\nr = x.kthvalue(3)\nv.sum().backward()\n"
                     "print(v.tolist(), i.tolist(), r.values.tolist(), r.indices.tolist())\n")
    assert out.stdout == "[2.0] [2] [3.0] [0]\n"
    assert ns.get("x").grad.tolist() == [[0.0, 0.0, 1.0]]


def test_float_power_and_copysign_in_programs(run_ok):
    out, ns = run_ok("import torch\nx = torch.tensor([2.0, -3.0], requires_grad=True)\n"
                     "p = torch.float_power(x, 2)\nc = x.copysign(torch.tensor([-1.0, 1.0]))\n"
                     "(p.sum() + c.sum()).backward()\nprint(p.dtype, p.tolist(), c.tolist())\n")
    assert out.stdout == "torch.float64 [4.0, 9.0] [-2.0, 3.0]\n"
    assert ns.get("x").grad.tolist() == [3.0, -7.0]   # 2x, plus sign(x) * sign(c)


def test_sparse_coo_tensors_and_spmm_in_programs(run_ok):
    # pygcn: torch.sparse.FloatTensor(indices, values, size) and torch.spmm(adj, support)
    _, ns = run_ok("""
    import torch
    i = torch.tensor([[0, 1, 1], [1, 0, 2]])
    adj = torch.sparse.FloatTensor(i, torch.tensor([1.0, 2.0, 3.0]), torch.Size([2, 3]))
    x = torch.ones(3, 2, requires_grad=True)
    y = torch.spmm(adj, x)
    y.sum().backward()
    e = torch.eye(2).to_sparse()
    ok = (adj.is_sparse, isinstance(adj, torch.sparse.FloatTensor), y.tolist(), x.grad.tolist(),
          e.coalesce().values().tolist(), torch.sparse_coo_tensor(i, torch.ones(3)).to_dense().shape == (2, 3))
    """)
    assert ns.get("ok") == (True, True, [[1.0, 1.0], [5.0, 5.0]], [[2.0, 2.0], [1.0, 1.0], [3.0, 3.0]],
                            [1.0, 1.0], True)


def test_a_program_uses_dense_linear_algebra_and_multivariate_normal(run_ok):
    """torch.linalg's inverse, solves and factorizations, the Tensor methods, a singular input's
    error (a RuntimeError: torch.linalg.LinAlgError itself is not offered to programs), and the
    PPO-PyTorch pattern MultivariateNormal(action_mean, cov_mat), reached from a program."""
    _, ns = run_ok("""
from torch.distributions import MultivariateNormal
a = torch.tensor([[4.0, 1.0], [1.0, 3.0]], requires_grad=True)
b = torch.tensor([1.0, 2.0])
x = torch.linalg.solve(a, b)
inv_ok = torch.allclose(a.inverse() @ b, x)
L = torch.linalg.cholesky(a)
vals, vecs = torch.linalg.eigh(a)
U, S, Vh = torch.linalg.svd(a)
Q, R = torch.linalg.qr(a)
sign, logabsdet = torch.linalg.slogdet(a)
loss = x.sum() + a.det() + L.sum() + vals.sum() + S.sum() + R.sum() + logabsdet + torch.linalg.pinv(a).sum()
loss.backward()
names = [x.grad_fn.name(), L.grad_fn.name(), vals.grad_fn.name(), S.grad_fn.name(), Q.grad_fn.name()]
rank = torch.linalg.matrix_rank(a).item()
try:
    torch.linalg.inv(torch.zeros(2, 2))
    caught = None
except RuntimeError as e:
    caught = str(e)
cov_mat = torch.diag(torch.full((2,), 0.25)).unsqueeze(dim=0)
dist = MultivariateNormal(torch.zeros(3, 2), cov_mat)
action = dist.sample()
logp_shape = list(dist.log_prob(action).shape)
entropy_shape = list(dist.entropy().shape)
grad_finite = bool(torch.isfinite(a.grad).all())
""")
    assert ns.get("inv_ok") is True and ns.get("rank") == 2 and ns.get("grad_finite") is True
    assert ns.get("names") == ["LinalgSolveExBackward0", "LinalgCholeskyExBackward0", "LinalgEighBackward0",
                               "LinalgSvdBackward0", "LinalgQrBackward0"]
    assert (ns.get("caught") or "").startswith("linalg.inv: The diagonal element 1 is zero")
    assert ns.get("logp_shape") == [3] and ns.get("entropy_shape") == [3]


def test_a_program_uses_lu_factorizations(run_ok):
    """torch.lu, torch.lu_unpack and torch.linalg's lu, lu_factor and lu_factor_ex, with their named
    results, as Glow's LU-decomposed invertible 1x1 convolution builds its weight (y0ast/Glow-PyTorch)."""
    _, ns = run_ok("""
w_init = torch.tensor([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]], requires_grad=True)
p, lower, upper = torch.lu_unpack(*torch.lu(w_init))
lu = torch.linalg.lu_factor(w_init)
ex = torch.linalg.lu_factor_ex(w_init)
f = torch.linalg.lu(w_init)
rebuilt = torch.allclose(torch.matmul(p, torch.matmul(lower, upper)), w_init)
(f.L.sum() + f.U.sum() + lu.LU.sum()).backward()
ok = (rebuilt, lu.pivots.tolist(), ex.info.item(), f.P.tolist() == p.tolist(), w_init.lu()[1].dtype == torch.int32,
      f.L.grad_fn.name(), lu.LU.grad_fn.name(), list(w_init.grad.shape))
""")
    assert ns.get("ok") == (True, [3, 3, 3], 0, True, True, "LinalgLuBackward0", "LinalgLuFactorExBackward0", [3, 3])
