"""torch.nn: Module and the layers, torch.nn.functional, torch.nn.init and torch.nn.utils."""
from . import _reduction, functional, init, parallel, utils
from .parameter import Parameter, UninitializedParameter
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear, Bilinear, Flatten, Unflatten
from .activation import (ReLU, ReLU6, LeakyReLU, ELU, SELU, CELU, GELU, SiLU, Mish, Softplus, Softsign, Sigmoid,
                         Tanh, Hardtanh, Hardsigmoid, Hardswish, LogSigmoid, Tanhshrink, Threshold, GLU, Softmax,
                         LogSoftmax, Softmin)
from .dropout import Dropout, Dropout1d, Dropout2d, Dropout3d
from .sparse import Embedding
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm, LayerNorm, RMSNorm, GroupNorm
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .parallel import DataParallel
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .conv import Conv1d, Conv2d, Conv3d
from .convtranspose import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .activation_extra import PReLU, Hardshrink, Softshrink, RReLU, Softmax2d
from .distance import CosineSimilarity, PairwiseDistance
from .local_response_norm import LocalResponseNorm
from .fold import Fold, Unfold
from .channel_shuffle import ChannelShuffle
from .alpha_dropout import AlphaDropout, FeatureAlphaDropout
from .adaptive_max_pool import AdaptiveMaxPool1d, AdaptiveMaxPool2d
from .unpooling import MaxUnpool1d, MaxUnpool2d
from .embedding_bag import EmbeddingBag
from .ctc_loss import CTCLoss
from .extra_losses import (MarginRankingLoss, HingeEmbeddingLoss, SoftMarginLoss, MultiLabelSoftMarginLoss,
                           CosineEmbeddingLoss, MultiMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
                           PoissonNLLLoss, GaussianNLLLoss)
from .pooling import (MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, AdaptiveAvgPool1d,
                      AdaptiveAvgPool2d, AdaptiveAvgPool3d)
from .loss import (L1Loss, MSELoss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, KLDivLoss, SmoothL1Loss,
                   HuberLoss)
from .rnn import RNNCellBase, RNNCell, LSTMCell, GRUCell, RNNBase, RNN, LSTM, GRU
from .attention import MultiheadAttention
from .lazy import LazyLinear, LazyConv1d, LazyConv2d, LazyBatchNorm1d, LazyBatchNorm2d
from .padding import (ZeroPad1d, ZeroPad2d, ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d,
                      ReflectionPad2d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, CircularPad1d,
                      CircularPad2d)
from .transformer import (Transformer, TransformerEncoder, TransformerDecoder, TransformerEncoderLayer,
                          TransformerDecoderLayer)
from . import modules  # noqa: E402,F401  (torch.nn.modules.loss._Loss, reached as an attribute after import torch.nn)
from .utils import parametrize, parametrizations, prune  # noqa: E402,F401  (they build on modules, which import nn.utils)
