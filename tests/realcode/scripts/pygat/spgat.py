# realcode: Diego999/pyGAT @ 3664f2dc90cbf971564c0bf186dc794f12446d0c
# realcode: https://github.com/Diego999/pyGAT/blob/3664f2dc90cbf971564c0bf186dc794f12446d0c/utils.py
# realcode: https://github.com/Diego999/pyGAT/blob/3664f2dc90cbf971564c0bf186dc794f12446d0c/layers.py
# realcode: https://github.com/Diego999/pyGAT/blob/3664f2dc90cbf971564c0bf186dc794f12446d0c/models.py
# realcode: https://github.com/Diego999/pyGAT/blob/3664f2dc90cbf971564c0bf186dc794f12446d0c/train.py
# realcode: kept as written except for these adaptations:
#   - utils.py, layers.py, models.py and train.py, as written, one after the other
#   - `import scipy.sparse as sp` -> `pass  # realcode-dropped: import scipy.sparse as sp`: SciPy is not installed beside the PyTorch that records the answers; it serves only the Cora loader, replaced below
#   - `def load_data(path="./data/cora/", dataset="cora"): / """Load citation network dataset (cora only for now)""" / print('Loading {} dataset...'.format(dataset)) /  / idx_features_labels = np.genfromtxt("{}{}.content".format(path, dataset), dtype=np.dtype(str)) / features = sp.csr_matrix(idx_features_labels[:, 1:-1], dtype=np.float32) / labels = encode_onehot(idx_features_labels[:, -1]) /  / # build graph / idx = np.array(idx_features_labels[:, 0], dtype=np.int32) / idx_map = {j: i for i, j in enumerate(idx)} / edges_unordered = np.genfromtxt("{}{}.cites".format(path, dataset), dtype=np.int32) / edges = np.array(list(map(idx_map.get, edges_unordered.flatten())), dtype=np.int32).reshape(edges_unordered.shape) / adj = sp.coo_matrix((np.ones(edges.shape[0]), (edges[:, 0], edges[:, 1])), shape=(labels.shape[0], labels.shape[0]), dtype=np.float32) /  / # build symmetric adjacency matrix / adj = adj + adj.T.multiply(adj.T > adj) - adj.multiply(adj.T > adj) /  / features = normalize_features(features) / adj = normalize_adj(adj + sp.eye(adj.shape[0])) /  / idx_train = range(140) / idx_val = range(200, 500) / idx_test = range(500, 1500) /  / adj = torch.FloatTensor(np.array(adj.todense())) / features = torch.FloatTensor(np.array(features.todense())) / labels = torch.LongTensor(np.where(labels)[1]) /  / idx_train = torch.LongTensor(idx_train) / idx_val = torch.LongTensor(idx_val) / idx_test = torch.LongTensor(idx_test) /  / return adj, features, labels, idx_train, idx_val, idx_test` -> `def load_data(path="./data/cora/", dataset="cora"):  # realcode: Cora's files replaced by a synthetic graph passed as inputs / print('Loading {} dataset...'.format(dataset)) / idx_train = range(20) / idx_val = range(20, 40) / idx_test = range(40, 60) /  / adj = torch.FloatTensor(graph_adj) / features = torch.FloatTensor(graph_features) / labels = torch.LongTensor(graph_labels) /  / idx_train = torch.LongTensor(idx_train) / idx_val = torch.LongTensor(idx_val) / idx_test = torch.LongTensor(idx_test) /  / return adj, features, labels, idx_train, idx_val, idx_test`: load_data's reading and normalising of the Cora files replaced by synthetic inputs (60 nodes, 12 features, 3 classes, a symmetric 0/1 adjacency with self-loops); its conversion and index lines kept
#   - `from layers import GraphAttentionLayer, SpGraphAttentionLayer` -> `pass  # realcode-inlined: from layers import GraphAttentionLayer, SpGraphAttentionLayer`: the project's own import, the module is pasted above
#   - `import os / import glob` -> `pass  # realcode-dropped: import os / pass  # realcode-dropped: import glob`: dropped (checkpoint files)
#   - `import argparse` -> `pass  # realcode-dropped: import argparse`: dropped (argparse)
#   - `from utils import load_data, accuracy / from models import GAT, SpGAT` -> `pass  # realcode-inlined: from utils import load_data, accuracy / pass  # realcode-inlined: from models import GAT, SpGAT`: the project's own imports, the modules are pasted above
#   - `parser = argparse.ArgumentParser() / parser.add_argument('--no-cuda', action='store_true', default=False, help='Disables CUDA training.') / parser.add_argument('--fastmode', action='store_true', default=False, help='Validate during training pass.') / parser.add_argument('--sparse', action='store_true', default=False, help='GAT with sparse version or not.') / parser.add_argument('--seed', type=int, default=72, help='Random seed.') / parser.add_argument('--epochs', type=int, default=10000, help='Number of epochs to train.') / parser.add_argument('--lr', type=float, default=0.005, help='Initial learning rate.') / parser.add_argument('--weight_decay', type=float, default=5e-4, help='Weight decay (L2 loss on parameters).') / parser.add_argument('--hidden', type=int, default=8, help='Number of hidden units.') / parser.add_argument('--nb_heads', type=int, default=8, help='Number of head attentions.') / parser.add_argument('--dropout', type=float, default=0.6, help='Dropout rate (1 - keep probability).') / parser.add_argument('--alpha', type=float, default=0.2, help='Alpha for the leaky_relu.') / parser.add_argument('--patience', type=int, default=100, help='Patience') /  / args = parser.parse_args()` -> `class args:  # realcode: argparse's defaults; sparse False -> True, epochs 10000 -> 3, dropout 0.6 -> 0, hidden 8 -> 4, nb_heads 8 -> 2 / no_cuda = False; fastmode = False; sparse = True; seed = 72; epochs = 3; lr = 0.005 / weight_decay = 5e-4; hidden = 4; nb_heads = 2; dropout = 0.0; alpha = 0.2; patience = 100`: drop argparse: its defaults as a class (run with --sparse); 3 epochs, smaller hidden size and head count; dropout 0 so that the training values are comparable (the masks would come from the session's generator)
#   - `weight_decay=args.weight_decay)` -> `weight_decay=args.weight_decay) /  / # %% realcode-load: model`: a load marker after the model and optimizer are built (xavier init draws)
#   - `torch.save(model.state_dict(), '{}.pkl'.format(epoch))` -> ``: dropped (checkpoint files)
#   - `files = glob.glob('*.pkl') / for file in files: / epoch_nb = int(file.split('.')[0]) / if epoch_nb < best_epoch: / os.remove(file)` -> ``: dropped (checkpoint files)
#   - `files = glob.glob('*.pkl') / for file in files: / epoch_nb = int(file.split('.')[0]) / if epoch_nb > best_epoch: / os.remove(file)` -> ``: dropped (checkpoint files)
#   - `model.load_state_dict(torch.load('{}.pkl'.format(best_epoch)))` -> `pass  # realcode-dropped: model.load_state_dict(torch.load('{}.pkl'.format(best_epoch)))`: dropped (reads a checkpoint file; the loss falls at each of the 3 epochs, so the best epoch is the last and the model is the same)
# realcode-input: graph_adj = np.minimum(1, (rand(60, 60) > 0.85) + (rand(60, 60) > 0.85).T + np.eye(60)).astype('float32')
# realcode-input: graph_features = rand(60, 12)
# realcode-input: graph_labels = randint(0, 3, 60)
# realcode-output: loss_values best best_epoch model.*
# realcode-rtol: 2e-4 (loss_values and best are Python floats read by .item() from float32 losses, so float32's tolerance, not float64's: PyTorch's sparse matmul sums the edges in another order than a dense one)
# %% realcode: utils.py
import numpy as np
pass  # realcode-dropped: import scipy.sparse as sp
import torch


def encode_onehot(labels):
    # The classes must be sorted before encoding to enable static class encoding.
    # In other words, make sure the first class always maps to index 0.
    classes = sorted(list(set(labels)))
    classes_dict = {c: np.identity(len(classes))[i, :] for i, c in enumerate(classes)}
    labels_onehot = np.array(list(map(classes_dict.get, labels)), dtype=np.int32)
    return labels_onehot


def load_data(path="./data/cora/", dataset="cora"):  # realcode: Cora's files replaced by a synthetic graph passed as inputs
    print('Loading {} dataset...'.format(dataset))
    idx_train = range(20)
    idx_val = range(20, 40)
    idx_test = range(40, 60)

    adj = torch.FloatTensor(graph_adj)
    features = torch.FloatTensor(graph_features)
    labels = torch.LongTensor(graph_labels)

    idx_train = torch.LongTensor(idx_train)
    idx_val = torch.LongTensor(idx_val)
    idx_test = torch.LongTensor(idx_test)

    return adj, features, labels, idx_train, idx_val, idx_test


def normalize_adj(mx):
    """Row-normalize sparse matrix"""
    rowsum = np.array(mx.sum(1))
    r_inv_sqrt = np.power(rowsum, -0.5).flatten()
    r_inv_sqrt[np.isinf(r_inv_sqrt)] = 0.
    r_mat_inv_sqrt = sp.diags(r_inv_sqrt)
    return mx.dot(r_mat_inv_sqrt).transpose().dot(r_mat_inv_sqrt)


def normalize_features(mx):
    """Row-normalize sparse matrix"""
    rowsum = np.array(mx.sum(1))
    r_inv = np.power(rowsum, -1).flatten()
    r_inv[np.isinf(r_inv)] = 0.
    r_mat_inv = sp.diags(r_inv)
    mx = r_mat_inv.dot(mx)
    return mx


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)

# %% realcode: layers.py
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphAttentionLayer(nn.Module):
    """
    Simple GAT layer, similar to https://arxiv.org/abs/1710.10903
    """
    def __init__(self, in_features, out_features, dropout, alpha, concat=True):
        super(GraphAttentionLayer, self).__init__()
        self.dropout = dropout
        self.in_features = in_features
        self.out_features = out_features
        self.alpha = alpha
        self.concat = concat

        self.W = nn.Parameter(torch.empty(size=(in_features, out_features)))
        nn.init.xavier_uniform_(self.W.data, gain=1.414)
        self.a = nn.Parameter(torch.empty(size=(2*out_features, 1)))
        nn.init.xavier_uniform_(self.a.data, gain=1.414)

        self.leakyrelu = nn.LeakyReLU(self.alpha)

    def forward(self, h, adj):
        Wh = torch.mm(h, self.W) # h.shape: (N, in_features), Wh.shape: (N, out_features)
        e = self._prepare_attentional_mechanism_input(Wh)

        zero_vec = -9e15*torch.ones_like(e)
        attention = torch.where(adj > 0, e, zero_vec)
        attention = F.softmax(attention, dim=1)
        attention = F.dropout(attention, self.dropout, training=self.training)
        h_prime = torch.matmul(attention, Wh)

        if self.concat:
            return F.elu(h_prime)
        else:
            return h_prime

    def _prepare_attentional_mechanism_input(self, Wh):
        # Wh.shape (N, out_feature)
        # self.a.shape (2 * out_feature, 1)
        # Wh1&2.shape (N, 1)
        # e.shape (N, N)
        Wh1 = torch.matmul(Wh, self.a[:self.out_features, :])
        Wh2 = torch.matmul(Wh, self.a[self.out_features:, :])
        # broadcast add
        e = Wh1 + Wh2.T
        return self.leakyrelu(e)

    def __repr__(self):
        return self.__class__.__name__ + ' (' + str(self.in_features) + ' -> ' + str(self.out_features) + ')'


class SpecialSpmmFunction(torch.autograd.Function):
    """Special function for only sparse region backpropataion layer."""
    @staticmethod
    def forward(ctx, indices, values, shape, b):
        assert indices.requires_grad == False
        a = torch.sparse_coo_tensor(indices, values, shape)
        ctx.save_for_backward(a, b)
        ctx.N = shape[0]
        return torch.matmul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_values = grad_b = None
        if ctx.needs_input_grad[1]:
            grad_a_dense = grad_output.matmul(b.t())
            edge_idx = a._indices()[0, :] * ctx.N + a._indices()[1, :]
            grad_values = grad_a_dense.view(-1)[edge_idx]
        if ctx.needs_input_grad[3]:
            grad_b = a.t().matmul(grad_output)
        return None, grad_values, None, grad_b


class SpecialSpmm(nn.Module):
    def forward(self, indices, values, shape, b):
        return SpecialSpmmFunction.apply(indices, values, shape, b)

    
class SpGraphAttentionLayer(nn.Module):
    """
    Sparse version GAT layer, similar to https://arxiv.org/abs/1710.10903
    """

    def __init__(self, in_features, out_features, dropout, alpha, concat=True):
        super(SpGraphAttentionLayer, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.alpha = alpha
        self.concat = concat

        self.W = nn.Parameter(torch.zeros(size=(in_features, out_features)))
        nn.init.xavier_normal_(self.W.data, gain=1.414)
                
        self.a = nn.Parameter(torch.zeros(size=(1, 2*out_features)))
        nn.init.xavier_normal_(self.a.data, gain=1.414)

        self.dropout = nn.Dropout(dropout)
        self.leakyrelu = nn.LeakyReLU(self.alpha)
        self.special_spmm = SpecialSpmm()

    def forward(self, input, adj):
        dv = 'cuda' if input.is_cuda else 'cpu'

        N = input.size()[0]
        edge = adj.nonzero().t()

        h = torch.mm(input, self.W)
        # h: N x out
        assert not torch.isnan(h).any()

        # Self-attention on the nodes - Shared attention mechanism
        edge_h = torch.cat((h[edge[0, :], :], h[edge[1, :], :]), dim=1).t()
        # edge: 2*D x E

        edge_e = torch.exp(-self.leakyrelu(self.a.mm(edge_h).squeeze()))
        assert not torch.isnan(edge_e).any()
        # edge_e: E

        e_rowsum = self.special_spmm(edge, edge_e, torch.Size([N, N]), torch.ones(size=(N,1), device=dv))
        # e_rowsum: N x 1

        edge_e = self.dropout(edge_e)
        # edge_e: E

        h_prime = self.special_spmm(edge, edge_e, torch.Size([N, N]), h)
        assert not torch.isnan(h_prime).any()
        # h_prime: N x out
        
        h_prime = h_prime.div(e_rowsum)
        # h_prime: N x out
        assert not torch.isnan(h_prime).any()

        if self.concat:
            # if this layer is not last layer,
            return F.elu(h_prime)
        else:
            # if this layer is last layer,
            return h_prime

    def __repr__(self):
        return self.__class__.__name__ + ' (' + str(self.in_features) + ' -> ' + str(self.out_features) + ')'

# %% realcode: models.py
import torch
import torch.nn as nn
import torch.nn.functional as F
pass  # realcode-inlined: from layers import GraphAttentionLayer, SpGraphAttentionLayer


class GAT(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout, alpha, nheads):
        """Dense version of GAT."""
        super(GAT, self).__init__()
        self.dropout = dropout

        self.attentions = [GraphAttentionLayer(nfeat, nhid, dropout=dropout, alpha=alpha, concat=True) for _ in range(nheads)]
        for i, attention in enumerate(self.attentions):
            self.add_module('attention_{}'.format(i), attention)

        self.out_att = GraphAttentionLayer(nhid * nheads, nclass, dropout=dropout, alpha=alpha, concat=False)

    def forward(self, x, adj):
        x = F.dropout(x, self.dropout, training=self.training)
        x = torch.cat([att(x, adj) for att in self.attentions], dim=1)
        x = F.dropout(x, self.dropout, training=self.training)
        x = F.elu(self.out_att(x, adj))
        return F.log_softmax(x, dim=1)


class SpGAT(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout, alpha, nheads):
        """Sparse version of GAT."""
        super(SpGAT, self).__init__()
        self.dropout = dropout

        self.attentions = [SpGraphAttentionLayer(nfeat, 
                                                 nhid, 
                                                 dropout=dropout, 
                                                 alpha=alpha, 
                                                 concat=True) for _ in range(nheads)]
        for i, attention in enumerate(self.attentions):
            self.add_module('attention_{}'.format(i), attention)

        self.out_att = SpGraphAttentionLayer(nhid * nheads, 
                                             nclass, 
                                             dropout=dropout, 
                                             alpha=alpha, 
                                             concat=False)

    def forward(self, x, adj):
        x = F.dropout(x, self.dropout, training=self.training)
        x = torch.cat([att(x, adj) for att in self.attentions], dim=1)
        x = F.dropout(x, self.dropout, training=self.training)
        x = F.elu(self.out_att(x, adj))
        return F.log_softmax(x, dim=1)

# %% realcode: train.py
from __future__ import division
from __future__ import print_function

pass  # realcode-dropped: import os
pass  # realcode-dropped: import glob
import time
import random
pass  # realcode-dropped: import argparse
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable

pass  # realcode-inlined: from utils import load_data, accuracy
pass  # realcode-inlined: from models import GAT, SpGAT

# Training settings
class args:  # realcode: argparse's defaults; sparse False -> True, epochs 10000 -> 3, dropout 0.6 -> 0, hidden 8 -> 4, nb_heads 8 -> 2
    no_cuda = False; fastmode = False; sparse = True; seed = 72; epochs = 3; lr = 0.005
    weight_decay = 5e-4; hidden = 4; nb_heads = 2; dropout = 0.0; alpha = 0.2; patience = 100
args.cuda = not args.no_cuda and torch.cuda.is_available()

random.seed(args.seed)
np.random.seed(args.seed)
torch.manual_seed(args.seed)
if args.cuda:
    torch.cuda.manual_seed(args.seed)

# Load data
adj, features, labels, idx_train, idx_val, idx_test = load_data()

# Model and optimizer
if args.sparse:
    model = SpGAT(nfeat=features.shape[1], 
                nhid=args.hidden, 
                nclass=int(labels.max()) + 1, 
                dropout=args.dropout, 
                nheads=args.nb_heads, 
                alpha=args.alpha)
else:
    model = GAT(nfeat=features.shape[1], 
                nhid=args.hidden, 
                nclass=int(labels.max()) + 1, 
                dropout=args.dropout, 
                nheads=args.nb_heads, 
                alpha=args.alpha)
optimizer = optim.Adam(model.parameters(), 
                       lr=args.lr, 
                       weight_decay=args.weight_decay)

# %% realcode-load: model

if args.cuda:
    model.cuda()
    features = features.cuda()
    adj = adj.cuda()
    labels = labels.cuda()
    idx_train = idx_train.cuda()
    idx_val = idx_val.cuda()
    idx_test = idx_test.cuda()

features, adj, labels = Variable(features), Variable(adj), Variable(labels)


def train(epoch):
    t = time.time()
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()

    if not args.fastmode:
        # Evaluate validation set performance separately,
        # deactivates dropout during validation run.
        model.eval()
        output = model(features, adj)

    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    acc_val = accuracy(output[idx_val], labels[idx_val])
    print('Epoch: {:04d}'.format(epoch+1),
          'loss_train: {:.4f}'.format(loss_train.data.item()),
          'acc_train: {:.4f}'.format(acc_train.data.item()),
          'loss_val: {:.4f}'.format(loss_val.data.item()),
          'acc_val: {:.4f}'.format(acc_val.data.item()),
          'time: {:.4f}s'.format(time.time() - t))

    return loss_val.data.item()


def compute_test():
    model.eval()
    output = model(features, adj)
    loss_test = F.nll_loss(output[idx_test], labels[idx_test])
    acc_test = accuracy(output[idx_test], labels[idx_test])
    print("Test set results:",
          "loss= {:.4f}".format(loss_test.data.item()),
          "accuracy= {:.4f}".format(acc_test.data.item()))

# Train model
t_total = time.time()
loss_values = []
bad_counter = 0
best = args.epochs + 1
best_epoch = 0
for epoch in range(args.epochs):
    loss_values.append(train(epoch))

    if loss_values[-1] < best:
        best = loss_values[-1]
        best_epoch = epoch
        bad_counter = 0
    else:
        bad_counter += 1

    if bad_counter == args.patience:
        break



print("Optimization Finished!")
print("Total time elapsed: {:.4f}s".format(time.time() - t_total))

# Restore best model
print('Loading {}th epoch'.format(best_epoch))
pass  # realcode-dropped: model.load_state_dict(torch.load('{}.pkl'.format(best_epoch)))

# Testing
compute_test()


