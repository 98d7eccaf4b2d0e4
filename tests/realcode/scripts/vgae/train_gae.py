# realcode: DaehanKim/vgae_pytorch @ 568c20f5b88adeafd3b8bcfadffd340dc0bf06b8
# realcode: https://github.com/DaehanKim/vgae_pytorch/blob/568c20f5b88adeafd3b8bcfadffd340dc0bf06b8/model.py
# realcode: https://github.com/DaehanKim/vgae_pytorch/blob/568c20f5b88adeafd3b8bcfadffd340dc0bf06b8/train.py
# realcode: kept as written except for these adaptations:
#   - model.py and train.py as written, one after the other
#   - `import args` -> `class args:  # realcode-inlined: import args (args.py's settings as a class; input_dim 1433 -> 20 features, num_epoch 200 -> 12) / dataset = 'cora' / model = 'GAE' /  / input_dim = 20 / hidden1_dim = 32 / hidden2_dim = 16 / use_feature = True /  / num_epoch = 12 / learning_rate = 0.01`: args.py's settings as a class (the module is a list of constants); input_dim 1433 -> 20 features, num_epoch 200 -> 12
#   - `from sklearn.metrics import roc_auc_score, average_precision_score` -> `pass  # realcode-dropped: from sklearn.metrics import roc_auc_score, average_precision_score`: dropped (scikit-learn: get_scores, the ROC and AP of held-out edges, is not called)
#   - `import scipy.sparse as sp` -> `pass  # realcode-dropped: import scipy.sparse as sp`: dropped: SciPy is not installed beside the PyTorch that records the answers; it serves the Cora preprocessing, replaced by synthetic sparse tuples
#   - `from input_data import load_data / from preprocessing import * / import args / import model` -> `pass  # realcode-dropped: from input_data import load_data / pass  # realcode-dropped: from preprocessing import * / pass  # realcode-inlined: import args / import types; model = types.SimpleNamespace(VGAE=VGAE, GAE=GAE)  # realcode-inlined: import model`: the data loading and SciPy preprocessing modules dropped; the repository's own modules args and model pasted above, model bound as a namespace
#   - `adj, features = load_data(args.dataset) /  / # Store original adjacency matrix (without diagonal entries) for later / adj_orig = adj / adj_orig = adj_orig - sp.dia_matrix((adj_orig.diagonal()[np.newaxis, :], [0]), shape=adj_orig.shape) / adj_orig.eliminate_zeros() /  / adj_train, train_edges, val_edges, val_edges_false, test_edges, test_edges_false = mask_test_edges(adj) / adj = adj_train /  / # Some preprocessing / adj_norm = preprocess_graph(adj) /  /  / num_nodes = adj.shape[0] /  / features = sparse_to_tuple(features.tocoo()) / num_features = features[2][1] / features_nonzero = features[1].shape[0] /  / # Create Model / pos_weight = float(adj.shape[0] * adj.shape[0] - adj.sum()) / adj.sum() / norm = adj.shape[0] * adj.shape[0] / float((adj.shape[0] * adj.shape[0] - adj.sum()) * 2) /  /  / adj_label = adj_train + sp.eye(adj_train.shape[0]) / adj_label = sparse_to_tuple(adj_label)` -> `adj_norm = (adj_coords, adj_values, (12, 12))  # realcode: sparse_to_tuple's (coords, values, shape) of a synthetic graph / features = (feat_coords, np.ones(len(feat_coords), dtype=np.float32), (12, 20)) / adj_label = (label_coords, np.ones(len(label_coords), dtype=np.float32), (12, 12)) / num_nodes = 12 / num_features = features[2][1] / features_nonzero = features[1].shape[0] / pos_weight = float(12 * 12 - len(label_coords)) / len(label_coords) / norm = 12 * 12 / float((12 * 12 - len(label_coords)) * 2)`: the Cora loading, edge masking (np.random) and SciPy normalisation replaced by synthetic (coords, values, shape) tuples of a 12-node graph with 20 features, and pos_weight / norm from the label's edge count as the script computes them from adj.sum()
#   - `model = getattr(model,args.model)(adj_norm)` -> `model = getattr(model,args.model)(adj_norm) / # %% realcode-load: model`: cell marker: PyTorch's initial weights (glorot_init's torch.rand) are copied in
#   - `val_roc, val_ap = get_scores(val_edges, val_edges_false, A_pred)` -> `pass  # realcode-dropped: val_roc, val_ap = get_scores(val_edges, val_edges_false, A_pred)`: get_scores dropped (scikit-learn, and the held-out edges come from the dropped masking)
#   - `"train_acc=", "{:.5f}".format(train_acc), "val_roc=", "{:.5f}".format(val_roc), / "val_ap=", "{:.5f}".format(val_ap),` -> `"train_acc=", "{:.5f}".format(train_acc),  # realcode: val_roc and val_ap dropped`: the validation scores dropped from the log line
#   - `test_roc, test_ap = get_scores(test_edges, test_edges_false, A_pred) / print("End of training!", "test_roc=", "{:.5f}".format(test_roc), / "test_ap=", "{:.5f}".format(test_ap))` -> `pass  # realcode-dropped: test_roc, test_ap = get_scores(test_edges, test_edges_false, A_pred) and its print`: the test scores dropped (scikit-learn)
# realcode-input: adj_coords = np.argwhere(rand(12, 12) < 0.3)
# realcode-input: adj_values = rand(adj_coords.shape[0])
# realcode-input: feat_coords = np.argwhere(rand(12, 20) < 0.2)
# realcode-input: label_coords = np.argwhere(rand(12, 12) < 0.3)
# realcode-output: loss A_pred train_acc weight_tensor model.*
# %% realcode: model.py
import torch
import torch.nn as nn
import torch.nn.functional as F
import os
import numpy as np

class args:  # realcode-inlined: import args (args.py's settings as a class; input_dim 1433 -> 20 features, num_epoch 200 -> 12)
	dataset = 'cora'
	model = 'GAE'

	input_dim = 20
	hidden1_dim = 32
	hidden2_dim = 16
	use_feature = True

	num_epoch = 12
	learning_rate = 0.01

class VGAE(nn.Module):
	def __init__(self, adj):
		super(VGAE,self).__init__()
		self.base_gcn = GraphConvSparse(args.input_dim, args.hidden1_dim, adj)
		self.gcn_mean = GraphConvSparse(args.hidden1_dim, args.hidden2_dim, adj, activation=lambda x:x)
		self.gcn_logstddev = GraphConvSparse(args.hidden1_dim, args.hidden2_dim, adj, activation=lambda x:x)

	def encode(self, X):
		hidden = self.base_gcn(X)
		self.mean = self.gcn_mean(hidden)
		self.logstd = self.gcn_logstddev(hidden)
		gaussian_noise = torch.randn(X.size(0), args.hidden2_dim)
		sampled_z = gaussian_noise*torch.exp(self.logstd) + self.mean
		return sampled_z

	def forward(self, X):
		Z = self.encode(X)
		A_pred = dot_product_decode(Z)
		return A_pred

class GraphConvSparse(nn.Module):
	def __init__(self, input_dim, output_dim, adj, activation = F.relu, **kwargs):
		super(GraphConvSparse, self).__init__(**kwargs)
		self.weight = glorot_init(input_dim, output_dim) 
		self.adj = adj
		self.activation = activation

	def forward(self, inputs):
		x = inputs
		x = torch.mm(x,self.weight)
		x = torch.mm(self.adj, x)
		outputs = self.activation(x)
		return outputs


def dot_product_decode(Z):
	A_pred = torch.sigmoid(torch.matmul(Z,Z.t()))
	return A_pred

def glorot_init(input_dim, output_dim):
	init_range = np.sqrt(6.0/(input_dim + output_dim))
	initial = torch.rand(input_dim, output_dim)*2*init_range - init_range
	return nn.Parameter(initial)


class GAE(nn.Module):
	def __init__(self,adj):
		super(GAE,self).__init__()
		self.base_gcn = GraphConvSparse(args.input_dim, args.hidden1_dim, adj)
		self.gcn_mean = GraphConvSparse(args.hidden1_dim, args.hidden2_dim, adj, activation=lambda x:x)

	def encode(self, X):
		hidden = self.base_gcn(X)
		z = self.mean = self.gcn_mean(hidden)
		return z

	def forward(self, X):
		Z = self.encode(X)
		A_pred = dot_product_decode(Z)
		return A_pred
		

# class GraphConv(nn.Module):
# 	def __init__(self, input_dim, hidden_dim, output_dim):
# 		super(VGAE,self).__init__()
# 		self.base_gcn = GraphConvSparse(args.input_dim, args.hidden1_dim, adj)
# 		self.gcn_mean = GraphConvSparse(args.hidden1_dim, args.hidden2_dim, adj, activation=lambda x:x)
# 		self.gcn_logstddev = GraphConvSparse(args.hidden1_dim, args.hidden2_dim, adj, activation=lambda x:x)

# 	def forward(self, X, A):
# 		out = A*X*self.w0
# 		out = F.relu(out)
# 		out = A*X*self.w0
# 		return out

# %% realcode: train.py
import torch
import torch.nn.functional as F
from torch.optim import Adam
pass  # realcode-dropped: from sklearn.metrics import roc_auc_score, average_precision_score
pass  # realcode-dropped: import scipy.sparse as sp
import numpy as np
import os
import time

pass  # realcode-dropped: from input_data import load_data
pass  # realcode-dropped: from preprocessing import *
pass  # realcode-inlined: import args
import types; model = types.SimpleNamespace(VGAE=VGAE, GAE=GAE)  # realcode-inlined: import model

# Train on CPU (hide GPU) due to memory constraints
os.environ['CUDA_VISIBLE_DEVICES'] = ""

adj_norm = (adj_coords, adj_values, (12, 12))  # realcode: sparse_to_tuple's (coords, values, shape) of a synthetic graph
features = (feat_coords, np.ones(len(feat_coords), dtype=np.float32), (12, 20))
adj_label = (label_coords, np.ones(len(label_coords), dtype=np.float32), (12, 12))
num_nodes = 12
num_features = features[2][1]
features_nonzero = features[1].shape[0]
pos_weight = float(12 * 12 - len(label_coords)) / len(label_coords)
norm = 12 * 12 / float((12 * 12 - len(label_coords)) * 2)
adj_norm = torch.sparse.FloatTensor(torch.LongTensor(adj_norm[0].T), 
                            torch.FloatTensor(adj_norm[1]), 
                            torch.Size(adj_norm[2]))
adj_label = torch.sparse.FloatTensor(torch.LongTensor(adj_label[0].T), 
                            torch.FloatTensor(adj_label[1]), 
                            torch.Size(adj_label[2]))
features = torch.sparse.FloatTensor(torch.LongTensor(features[0].T), 
                            torch.FloatTensor(features[1]), 
                            torch.Size(features[2]))

weight_mask = adj_label.to_dense().view(-1) == 1
weight_tensor = torch.ones(weight_mask.size(0)) 
weight_tensor[weight_mask] = pos_weight

# init model and optimizer
model = getattr(model,args.model)(adj_norm)
# %% realcode-load: model
optimizer = Adam(model.parameters(), lr=args.learning_rate)


def get_scores(edges_pos, edges_neg, adj_rec):

    def sigmoid(x):
        return 1 / (1 + np.exp(-x))

    # Predict on test set of edges
    preds = []
    pos = []
    for e in edges_pos:
        # print(e)
        # print(adj_rec[e[0], e[1]])
        preds.append(sigmoid(adj_rec[e[0], e[1]].item()))
        pos.append(adj_orig[e[0], e[1]])

    preds_neg = []
    neg = []
    for e in edges_neg:

        preds_neg.append(sigmoid(adj_rec[e[0], e[1]].data))
        neg.append(adj_orig[e[0], e[1]])

    preds_all = np.hstack([preds, preds_neg])
    labels_all = np.hstack([np.ones(len(preds)), np.zeros(len(preds_neg))])
    roc_score = roc_auc_score(labels_all, preds_all)
    ap_score = average_precision_score(labels_all, preds_all)

    return roc_score, ap_score

def get_acc(adj_rec, adj_label):
    labels_all = adj_label.to_dense().view(-1).long()
    preds_all = (adj_rec > 0.5).view(-1).long()
    accuracy = (preds_all == labels_all).sum().float() / labels_all.size(0)
    return accuracy

# train model
for epoch in range(args.num_epoch):
    t = time.time()

    A_pred = model(features)
    optimizer.zero_grad()
    loss = log_lik = norm*F.binary_cross_entropy(A_pred.view(-1), adj_label.to_dense().view(-1), weight = weight_tensor)
    if args.model == 'VGAE':
        kl_divergence = 0.5/ A_pred.size(0) * (1 + 2*model.logstd - model.mean**2 - torch.exp(model.logstd)**2).sum(1).mean()
        loss -= kl_divergence

    loss.backward()
    optimizer.step()

    train_acc = get_acc(A_pred,adj_label)

    pass  # realcode-dropped: val_roc, val_ap = get_scores(val_edges, val_edges_false, A_pred)
    print("Epoch:", '%04d' % (epoch + 1), "train_loss=", "{:.5f}".format(loss.item()),
          "train_acc=", "{:.5f}".format(train_acc),  # realcode: val_roc and val_ap dropped
          "time=", "{:.5f}".format(time.time() - t))


pass  # realcode-dropped: test_roc, test_ap = get_scores(test_edges, test_edges_false, A_pred) and its print
