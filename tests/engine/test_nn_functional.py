"""torch.nn.functional: every function's gradients (gradcheck and gradgradcheck in
float64) and its values and gradients against PyTorch, from one table.

Each entry is written once as ``fn(T, *inputs)`` with T either gradserve.engine
or torch; constants inside are built from T too, so both libraries see the same.
"""
import numpy as np
import pytest

from op_check import check_gradients, compare_with_torch, torch


def _probs(T):
    return T.tensor([[0.1, 0.2, 0.3, 0.15, 0.25], [0.5, 0.1, 0.1, 0.2, 0.1], [0.2, 0.2, 0.2, 0.2, 0.2],
                     [0.05, 0.05, 0.6, 0.2, 0.1]], dtype=T.float64)


def _targets01(T):
    return T.tensor([[0.0, 1.0, 0.3, 1.0, 0.0], [1.0, 0.0, 0.9, 0.5, 0.2], [0.0, 0.0, 1.0, 1.0, 0.7],
                     [0.4, 1.0, 0.0, 0.1, 1.0]], dtype=T.float64)


def _f(T):
    return T.nn.functional


NOT_THE_DERIVATIVE = "the gradient is PyTorch's choice, not the derivative"

# id -> (fn(T, *inputs), input shapes[, reason to skip gradcheck])
CASES = {
    # activations
    "relu": (lambda T, x: _f(T).relu(x), [(4, 5)]),
    "relu6": (lambda T, x: _f(T).relu6(x * 4), [(4, 5)]),
    "leaky_relu": (lambda T, x: _f(T).leaky_relu(x, 0.2), [(4, 5)]),
    "elu": (lambda T, x: _f(T).elu(x, alpha=1.5), [(4, 5)]),
    "selu": (lambda T, x: _f(T).selu(x), [(4, 5)]),
    "celu": (lambda T, x: _f(T).celu(x, 0.7), [(4, 5)]),
    "gelu": (lambda T, x: _f(T).gelu(x), [(4, 5)]),
    "gelu_tanh": (lambda T, x: _f(T).gelu(x, approximate="tanh"), [(4, 5)]),
    "gelu_wide_range": (lambda T, x: _f(T).gelu(x * 4), [(3, 4, 5)]),
    "gelu_tanh_wide_range": (lambda T, x: _f(T).gelu(x * 4, approximate="tanh"), [(3, 4, 5)]),
    "silu": (lambda T, x: _f(T).silu(x), [(4, 5)]),
    "mish": (lambda T, x: _f(T).mish(x), [(4, 5)]),
    "softplus": (lambda T, x: _f(T).softplus(x), [(4, 5)]),
    "softplus_beta_threshold": (lambda T, x: _f(T).softplus(x * 3, beta=2.0, threshold=3.0), [(4, 5)]),
    "sigmoid": (lambda T, x: _f(T).sigmoid(x), [(4, 5)]),
    "tanh": (lambda T, x: _f(T).tanh(x), [(4, 5)]),
    "hardtanh": (lambda T, x: _f(T).hardtanh(x * 2, -1.5, 1.0), [(4, 5)]),
    "hardsigmoid": (lambda T, x: _f(T).hardsigmoid(x * 4), [(4, 5)]),
    "hardswish": (lambda T, x: _f(T).hardswish(x * 4), [(4, 5)]),
    "logsigmoid": (lambda T, x: _f(T).logsigmoid(x * 5), [(4, 5)]),
    "softsign": (lambda T, x: _f(T).softsign(x), [(4, 5)]),
    "tanhshrink": (lambda T, x: _f(T).tanhshrink(x), [(4, 5)]),
    "threshold": (lambda T, x: _f(T).threshold(x, 0.1, -2.0), [(4, 5)]),
    "glu": (lambda T, x: _f(T).glu(x, 0), [(4, 5)]),
    "softmax": (lambda T, x: _f(T).softmax(x, 1), [(4, 5)]),
    "softmax_dim0_3d": (lambda T, x: _f(T).softmax(x, 0), [(3, 2, 4)]),
    "log_softmax": (lambda T, x: _f(T).log_softmax(x, -1), [(4, 5)]),
    "log_softmax_large": (lambda T, x: _f(T).log_softmax(x * 100, 1), [(3, 4)]),
    "softmin": (lambda T, x: _f(T).softmin(x, 1), [(4, 5)]),
    # linear maps
    "linear": (lambda T, x, w, b: _f(T).linear(x, w, b), [(4, 5), (3, 5), (3,)]),
    "linear_3d_input": (lambda T, x, w, b: _f(T).linear(x, w, b), [(2, 4, 5), (3, 5), (3,)]),
    "linear_vector_input": (lambda T, x, w: _f(T).linear(x, w), [(5,), (3, 5)]),
    "bilinear": (lambda T, a, b, w, c: _f(T).bilinear(a, b, w, c), [(3, 4), (3, 2), (5, 4, 2), (5,)]),
    # convolution and pooling
    "conv1d": (lambda T, x, w, b: _f(T).conv1d(x, w, b), [(2, 3, 7), (4, 3, 3), (4,)]),
    "conv1d_stride_pad_dilation_groups": (
        lambda T, x, w, b: _f(T).conv1d(x, w, b, stride=2, padding=2, dilation=2, groups=2),
        [(2, 4, 9), (6, 2, 3), (6,)]),
    "conv1d_same": (lambda T, x, w: _f(T).conv1d(x, w, padding="same"), [(1, 2, 6), (3, 2, 4)]),
    "conv2d": (lambda T, x, w, b: _f(T).conv2d(x, w, b, padding=1), [(2, 2, 4, 5), (3, 2, 3, 3), (3,)]),
    "conv2d_stride_rect_kernel": (lambda T, x, w: _f(T).conv2d(x, w, stride=(2, 1), padding=(0, 1)),
                                  [(2, 2, 5, 4), (3, 2, 3, 2)]),
    "conv2d_groups_dilation": (lambda T, x, w: _f(T).conv2d(x, w, dilation=2, groups=2),
                               [(1, 4, 6, 6), (4, 2, 2, 2)]),
    "conv2d_unbatched": (lambda T, x, w: _f(T).conv2d(x, w), [(2, 4, 4), (3, 2, 2, 2)]),
    "conv2d_same_dilation": (lambda T, x, w, b: _f(T).conv2d(x, w, b, padding="same", dilation=(2, 1)),
                             [(2, 2, 7, 6), (3, 2, 3, 2), (3,)]),
    # stride 3 over padding 2: the first taps read only padding for some rows and columns
    "conv2d_taps_in_padding": (lambda T, x, w: _f(T).conv2d(x, w, stride=3, padding=2), [(1, 2, 5, 5), (2, 2, 2, 2)]),
    "conv2d_groups_stride_pad_dilation": (
        lambda T, x, w, b: _f(T).conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=3),
        [(2, 3, 6, 7), (6, 1, 3, 2), (6,)]),
    "conv1d_valid_stride": (lambda T, x, w: _f(T).conv1d(x, w, padding="valid", stride=3), [(2, 2, 10), (3, 2, 3)]),
    "conv1d_unbatched_pad": (lambda T, x, w, b: _f(T).conv1d(x, w, b, padding=3), [(2, 5), (4, 2, 2), (4,)]),
    "max_pool2d": (lambda T, x: _f(T).max_pool2d(x, 2), [(2, 2, 4, 6)]),
    "max_pool2d_overlap_pad": (lambda T, x: _f(T).max_pool2d(x, 3, stride=2, padding=1), [(1, 2, 5, 5)]),
    "max_pool2d_ceil_dilation": (lambda T, x: _f(T).max_pool2d(x, 2, stride=2, dilation=(1, 2), ceil_mode=True),
                                 [(1, 2, 5, 7)]),
    "max_pool1d": (lambda T, x: _f(T).max_pool1d(x, 3, stride=2, padding=1), [(2, 3, 8)]),
    # stride == kernel with rows and columns left over (they get no gradient)
    "max_pool2d_remainder": (lambda T, x: _f(T).max_pool2d(x, 2), [(2, 2, 5, 7)]),
    "max_pool2d_rect_stride_is_kernel": (lambda T, x: _f(T).max_pool2d(x, (3, 2)), [(1, 3, 7, 6)]),
    "max_pool2d_ceil_stride_is_kernel": (lambda T, x: _f(T).max_pool2d(x, 2, ceil_mode=True), [(1, 2, 5, 5)]),
    "max_pool2d_gaps": (lambda T, x: _f(T).max_pool2d(x, 2, stride=3), [(1, 2, 8, 7)]),
    "max_pool2d_stride_is_kernel_pad": (lambda T, x: _f(T).max_pool2d(x, 2, padding=1), [(2, 2, 5, 6)]),
    "max_pool2d_stride_is_kernel_pad_ceil": (lambda T, x: _f(T).max_pool2d(x, 3, padding=1, ceil_mode=True),
                                             [(1, 2, 7, 8)]),
    "max_pool2d_unbatched_dilation_pad": (lambda T, x: _f(T).max_pool2d(x, 3, stride=1, padding=1, dilation=2),
                                          [(2, 6, 6)]),
    "max_pool1d_stride_is_kernel": (lambda T, x: _f(T).max_pool1d(x, 3), [(2, 3, 10)]),
    "avg_pool2d": (lambda T, x: _f(T).avg_pool2d(x, 2), [(2, 2, 4, 6)]),
    "avg_pool2d_pad_exclude": (lambda T, x: _f(T).avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
                               [(1, 2, 5, 6)]),
    "avg_pool2d_ceil": (lambda T, x: _f(T).avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), [(1, 2, 6, 6)]),
    "avg_pool2d_divisor": (lambda T, x: _f(T).avg_pool2d(x, 2, divisor_override=3), [(1, 2, 4, 4)]),
    "avg_pool1d": (lambda T, x: _f(T).avg_pool1d(x, 2, stride=1, padding=1), [(2, 3, 5)]),
    "avg_pool2d_remainder": (lambda T, x: _f(T).avg_pool2d(x, (2, 3)), [(2, 2, 5, 7)]),
    "avg_pool2d_ceil_no_pad": (lambda T, x: _f(T).avg_pool2d(x, 2, ceil_mode=True), [(1, 2, 5, 5)]),
    "avg_pool2d_pad_include_unbatched": (lambda T, x: _f(T).avg_pool2d(x, 3, stride=2, padding=1), [(2, 5, 6)]),
    "avg_pool2d_ceil_divisor": (lambda T, x: _f(T).avg_pool2d(x, 3, stride=2, ceil_mode=True, divisor_override=2),
                                [(1, 2, 6, 6)]),
    "avg_pool1d_stride_is_kernel": (lambda T, x: _f(T).avg_pool1d(x, 3), [(2, 3, 10)]),
    "adaptive_avg_pool2d": (lambda T, x: _f(T).adaptive_avg_pool2d(x, (3, 2)), [(2, 2, 7, 5)]),
    "adaptive_avg_pool2d_global": (lambda T, x: _f(T).adaptive_avg_pool2d(x, 1), [(2, 3, 4, 4)]),
    "adaptive_avg_pool1d": (lambda T, x: _f(T).adaptive_avg_pool1d(x, 3), [(2, 2, 7)]),
    "unfold": (lambda T, x: _f(T).unfold(x, 2, padding=1, stride=2), [(1, 2, 4, 5)]),
    "fold": (lambda T, x: _f(T).fold(x, (4, 5), 2, padding=1, stride=2), [(1, 8, 9)]),
    "pad_constant": (lambda T, x: _f(T).pad(x, (1, 2, 0, 1), value=0.5), [(2, 3, 4)]),
    "pad_negative": (lambda T, x: _f(T).pad(x, (-1, 2, 1, -1)), [(2, 3, 4)]),
    "pad_reflect": (lambda T, x: _f(T).pad(x, (2, 1, 1, 2), mode="reflect"), [(1, 2, 4, 5)]),
    "pad_replicate": (lambda T, x: _f(T).pad(x, (2, 3), mode="replicate"), [(2, 3, 4)]),
    "pad_circular": (lambda T, x: _f(T).pad(x, (1, 2, 2, 1), mode="circular"), [(1, 2, 3, 4)]),
    "pad_reflect_1d": (lambda T, x: _f(T).pad(x, (3, 1), mode="reflect"), [(2, 3, 5)]),
    "pad_reflect_3d": (lambda T, x: _f(T).pad(x, (1, 2, 0, 1, 2, 1), mode="reflect"), [(1, 2, 3, 4, 5)]),
    "pad_replicate_2d_unbatched": (lambda T, x: _f(T).pad(x, (0, 2, 3, 1), mode="replicate"), [(2, 3, 4)]),
    "pad_circular_1d_whole": (lambda T, x: _f(T).pad(x, (4, 4), mode="circular"), [(2, 2, 4)]),
    # negative widths crop first, then the rest is padded from what is left (PyTorch's order)
    "pad_reflect_crop": (lambda T, x: _f(T).pad(x, (-1, 2, 1, -1), mode="reflect"), [(1, 2, 5, 5)]),
    "pad_circular_crop": (lambda T, x: _f(T).pad(x, (2, -1), mode="circular"), [(1, 2, 5)]),
    # hostile pass 10, F4: reflect and replicate read the whole input, also where the crop would have
    # removed what they read ((-3, 1) on [0, 1, 2, 3] reflects to [3, 2]; cropping first gave [3, 3])
    "pad_reflect_crop_reaching": (lambda T, x: _f(T).pad(x, (-3, 2, 2, -3), mode="reflect"), [(1, 2, 5, 5)]),
    "pad_reflect_crop_to_one": (lambda T, x: _f(T).pad(x, (-4, 1), mode="reflect"), [(2, 4)]),
    "pad_replicate_crop_all": (lambda T, x: _f(T).pad(x, (-4, 3, 1, -2), mode="replicate"), [(1, 2, 3, 4)]),
    "pad_reflect_3d_crop": (lambda T, x: _f(T).pad(x, (1, -2, -2, 1, 0, 1), mode="reflect"), [(1, 1, 3, 4, 4)]),
    "pad_replicate_zero": (lambda T, x: _f(T).pad(x, (0, 0, 0, 0), mode="replicate"), [(1, 2, 3, 3)]),
    # normalisation and distances
    "layer_norm": (lambda T, x, w, b: _f(T).layer_norm(x, (5,), w, b), [(4, 5), (5,), (5,)]),
    "layer_norm_2d_shape": (lambda T, x: _f(T).layer_norm(x, (3, 4)), [(2, 3, 4)]),
    "layer_norm_3d_input_eps": (lambda T, x, w, b: _f(T).layer_norm(x, (4,), w, b, eps=0.1), [(2, 3, 4), (4,), (4,)]),
    "layer_norm_2d_shape_affine": (lambda T, x, w, b: _f(T).layer_norm(x, (3, 4), w, b),
                                   [(2, 3, 4), (3, 4), (3, 4)]),
    "layer_norm_weight_only": (lambda T, x, w: _f(T).layer_norm(x, (5,), w), [(4, 5), (5,)]),
    "layer_norm_bias_only": (lambda T, x, b: _f(T).layer_norm(x, (5,), None, b), [(4, 5), (5,)]),
    "layer_norm_vector": (lambda T, x, w, b: _f(T).layer_norm(x, (5,), w, b), [(5,), (5,), (5,)]),
    "rms_norm": (lambda T, x, w: _f(T).rms_norm(x, (5,), w), [(4, 5), (5,)]),
    "rms_norm_2d_shape_eps": (lambda T, x: _f(T).rms_norm(x, (3, 4), eps=0.1), [(2, 3, 4)]),
    "rms_norm_default_eps": (lambda T, x, w: _f(T).rms_norm(x, [4], w), [(2, 3, 4), (4,)]),
    "batch_norm_train": (lambda T, x, w, b: _f(T).batch_norm(x, None, None, w, b, training=True),
                         [(4, 3), (3,), (3,)]),
    "batch_norm_train_4d": (lambda T, x: _f(T).batch_norm(x, None, None, training=True), [(2, 3, 2, 2)]),
    "batch_norm_eval": (lambda T, x, w, b: _f(T).batch_norm(
        x, T.tensor([0.1, -0.2, 0.3], dtype=T.float64), T.tensor([1.5, 0.5, 2.0], dtype=T.float64), w, b),
        [(4, 3, 2), (3,), (3,)]),
    "batch_norm_train_weight_only": (lambda T, x, w: _f(T).batch_norm(x, None, None, w, training=True, eps=0.1),
                                     [(3, 2, 4), (2,)]),
    "batch_norm_eval_4d_bias_only": (lambda T, x, b: _f(T).batch_norm(
        x, T.tensor([0.5, -1.0], dtype=T.float64), T.tensor([0.25, 3.0], dtype=T.float64), None, b),
        [(2, 2, 3, 2), (2,)]),
    "group_norm": (lambda T, x, w, b: _f(T).group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    "normalize": (lambda T, x: _f(T).normalize(x, dim=1), [(4, 5)]),
    "normalize_p1": (lambda T, x: _f(T).normalize(x, p=1.0, dim=0), [(4, 5)]),
    "cosine_similarity": (lambda T, a, b: _f(T).cosine_similarity(a, b), [(4, 5), (4, 5)]),
    "cosine_similarity_broadcast": (lambda T, a, b: _f(T).cosine_similarity(a, b, dim=-1), [(3, 4), (1, 4)]),
    "pairwise_distance": (lambda T, a, b: _f(T).pairwise_distance(a, b), [(4, 5), (4, 5)]),
    "embedding": (lambda T, w: _f(T).embedding(T.tensor([[0, 2, 2], [3, 1, 0]]), w), [(4, 3)]),
    # by design the padding row gets no gradient, so only the comparison with torch applies
    "embedding_padding_idx": (lambda T, w: _f(T).embedding(T.tensor([[0, 2, 1], [1, 1, 3]]), w, padding_idx=1),
                              [(4, 3)], NOT_THE_DERIVATIVE),
    "embedding_scale_grad_by_freq": (lambda T, w: _f(T).embedding(T.tensor([[0, 2, 2], [3, 2, 0]]), w,
                                                                   scale_grad_by_freq=True), [(4, 3)],
                                     NOT_THE_DERIVATIVE),
    "embedding_padding_idx_scale_grad_by_freq": (
        lambda T, w: _f(T).embedding(T.tensor([[0, 2, 1], [1, 1, 3]]), w, padding_idx=-3, scale_grad_by_freq=True),
        [(4, 3)], NOT_THE_DERIVATIVE),
    "dropout_eval": (lambda T, x: _f(T).dropout(x, 0.5, training=False), [(3, 4)]),
    # losses
    "cross_entropy": (lambda T, x: _f(T).cross_entropy(x, T.tensor([0, 2, 1, 4])), [(4, 5)]),
    "cross_entropy_sum": (lambda T, x: _f(T).cross_entropy(x, T.tensor([0, 2, 1, 4]), reduction="sum"), [(4, 5)]),
    "cross_entropy_none": (lambda T, x: _f(T).cross_entropy(x, T.tensor([0, 2, 1, 4]), reduction="none"),
                           [(4, 5)]),
    "cross_entropy_weight_ignore": (lambda T, x: _f(T).cross_entropy(
        x, T.tensor([0, 2, -1, 4]), weight=T.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=T.float64), ignore_index=-1),
        [(4, 5)]),
    "cross_entropy_label_smoothing": (lambda T, x: _f(T).cross_entropy(x, T.tensor([0, 2, 1, 4]),
                                                                       label_smoothing=0.2), [(4, 5)]),
    "cross_entropy_smoothing_weight_ignore": (lambda T, x: _f(T).cross_entropy(
        x, T.tensor([0, 2, -100, 4]), weight=T.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=T.float64),
        label_smoothing=0.3), [(4, 5)]),
    "cross_entropy_smoothing_none": (lambda T, x: _f(T).cross_entropy(
        x, T.tensor([0, 2, -100, 4]), label_smoothing=0.3, reduction="none"), [(4, 5)]),
    "cross_entropy_probabilities": (lambda T, x: _f(T).cross_entropy(x, _probs(T)), [(4, 5)]),
    "cross_entropy_probabilities_smoothing_weight": (lambda T, x: _f(T).cross_entropy(
        x, _probs(T), weight=T.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=T.float64), label_smoothing=0.1),
        [(4, 5)]),
    "cross_entropy_probabilities_requiring_grad": (
        lambda T, x, y: _f(T).cross_entropy(x, _f(T).softmax(y, 1), label_smoothing=0.25), [(4, 5), (4, 5)]),
    "cross_entropy_probabilities_spatial_none": (
        lambda T, x, y: _f(T).cross_entropy(x, _f(T).softmax(y, 1), reduction="none"), [(2, 4, 3), (2, 4, 3)]),
    "cross_entropy_probabilities_sum_weight": (lambda T, x, y: _f(T).cross_entropy(
        x, _f(T).softmax(y, 1), weight=T.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=T.float64), reduction="sum"),
        [(4, 5), (4, 5)]),
    "cross_entropy_spatial_smoothing_weight_ignore_none": (lambda T, x: _f(T).cross_entropy(
        x, T.tensor([[0, 2, -1], [3, -1, 1]]), weight=T.tensor([1.0, 2.0, 0.5, 1.5], dtype=T.float64),
        ignore_index=-1, label_smoothing=0.4, reduction="none"), [(2, 4, 3)]),
    "cross_entropy_smoothing_weight_sum": (lambda T, x: _f(T).cross_entropy(
        x, T.tensor([0, 2, 1, 4]), weight=T.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=T.float64),
        label_smoothing=0.5, reduction="sum"), [(4, 5)]),
    "cross_entropy_full_smoothing": (lambda T, x: _f(T).cross_entropy(x, T.tensor([0, 2, 1, 4]), label_smoothing=1.0),
                                     [(4, 5)]),
    "cross_entropy_spatial": (lambda T, x: _f(T).cross_entropy(x, T.tensor([[0, 2, 1], [1, 1, 0]])), [(2, 3, 3)]),
    "cross_entropy_unbatched": (lambda T, x: _f(T).cross_entropy(x, T.tensor(3)), [(5,)]),
    "nll_loss": (lambda T, x: _f(T).nll_loss(_f(T).log_softmax(x, 1), T.tensor([0, 2, 1, 4])), [(4, 5)]),
    "nll_loss_weight_ignore_sum": (lambda T, x: _f(T).nll_loss(
        x, T.tensor([0, 2, 7, 4]), weight=T.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=T.float64), ignore_index=7,
        reduction="sum"), [(4, 5)]),
    "mse_loss": (lambda T, x, y: _f(T).mse_loss(x, y), [(4, 5), (4, 5)]),
    "mse_loss_sum": (lambda T, x, y: _f(T).mse_loss(x, y, reduction="sum"), [(4, 5), (4, 5)]),
    "l1_loss": (lambda T, x, y: _f(T).l1_loss(x, y), [(4, 5), (4, 5)]),
    "smooth_l1_loss": (lambda T, x, y: _f(T).smooth_l1_loss(x, y, beta=0.5), [(4, 5), (4, 5)]),
    "huber_loss": (lambda T, x, y: _f(T).huber_loss(x, y, delta=0.7, reduction="none"), [(4, 5), (4, 5)]),
    "binary_cross_entropy": (lambda T, x: _f(T).binary_cross_entropy(T.sigmoid(x), _targets01(T)), [(4, 5)]),
    "binary_cross_entropy_weight": (lambda T, x: _f(T).binary_cross_entropy(
        T.sigmoid(x), _targets01(T), weight=T.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=T.float64),
        reduction="sum"), [(4, 5)]),
    "binary_cross_entropy_target": (lambda T, x, t: _f(T).binary_cross_entropy(T.sigmoid(x), T.sigmoid(t)),
                                    [(4, 5), (4, 5)]),
    "binary_cross_entropy_with_logits": (lambda T, x: _f(T).binary_cross_entropy_with_logits(x * 3, _targets01(T)),
                                         [(4, 5)]),
    "binary_cross_entropy_with_logits_pos_weight": (lambda T, x: _f(T).binary_cross_entropy_with_logits(
        x, _targets01(T), pos_weight=T.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=T.float64), reduction="none"),
        [(4, 5)]),
    "binary_cross_entropy_with_logits_target_grad": (
        lambda T, x, y: _f(T).binary_cross_entropy_with_logits(x, T.sigmoid(y)), [(4, 5), (4, 5)]),
    "kl_div": (lambda T, x: _f(T).kl_div(_f(T).log_softmax(x, 1), _probs(T), reduction="batchmean"), [(4, 5)]),
    "kl_div_log_target": (lambda T, x, y: _f(T).kl_div(x, _f(T).log_softmax(y, 1), reduction="sum",
                                                       log_target=True), [(4, 5), (4, 5)]),
    "scaled_dot_product_attention": (lambda T, q, k, v: _f(T).scaled_dot_product_attention(q, k, v, is_causal=True),
                                     [(2, 3, 4), (2, 3, 4), (2, 3, 2)]),
}


@pytest.mark.parametrize("name", [name for name, case in CASES.items() if len(case) == 2])
def test_gradcheck_and_gradgradcheck(name):
    fn, shapes = CASES[name]
    check_gradients(fn, shapes)


def test_embedding_padding_row_gets_no_gradient():
    import gradserve.engine as T
    w = T.randn(4, 3, dtype=T.float64, requires_grad=True)
    T.nn.functional.embedding(T.tensor([[0, 2, 1], [1, 1, 3]]), w, padding_idx=1).sum().backward()
    assert w.grad[1].tolist() == [0.0, 0.0, 0.0]
    assert w.grad[0].tolist() == [1.0, 1.0, 1.0] and w.grad[3].tolist() == [1.0, 1.0, 1.0]


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    fn, shapes = CASES[name][:2]
    compare_with_torch(fn, shapes, rtol=1e-7, atol=1e-9)


KINKS = {
    "relu": (lambda F, x: F.relu(x), [0.0]),
    "relu6": (lambda F, x: F.relu6(x), [0.0, 6.0]),
    "leaky_relu": (lambda F, x: F.leaky_relu(x, 0.3), [0.0]),
    "elu": (lambda F, x: F.elu(x, 2.0), [0.0]),
    "celu": (lambda F, x: F.celu(x, 0.5), [0.0]),
    "selu": (lambda F, x: F.selu(x), [0.0]),
    "hardtanh": (lambda F, x: F.hardtanh(x, -1.0, 2.0), [-1.0, 2.0]),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x), [-3.0, 3.0]),
    "hardswish": (lambda F, x: F.hardswish(x), [-3.0, 3.0]),
    "threshold": (lambda F, x: F.threshold(x, 0.5, 2.0), [0.5]),
    "softplus_threshold": (lambda F, x: F.softplus(x, beta=2.0, threshold=1.0), [0.5]),
    "l1_loss": (lambda F, x: F.l1_loss(x, x.detach() * 0, reduction="none"), [0.0]),
    "smooth_l1_loss": (lambda F, x: F.smooth_l1_loss(x, x.detach() * 0, beta=0.5, reduction="none"), [0.0, 0.5]),
    "huber_loss": (lambda F, x: F.huber_loss(x, x.detach() * 0, delta=0.5, reduction="none"), [0.0, -0.5]),
}


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(KINKS))
def test_gradient_at_kinks_is_pytorchs_choice(name):
    import gradserve.engine as gs
    fn, points = KINKS[name]
    grads = []
    for T in (gs, torch):
        x = T.tensor(points, dtype=T.float64, requires_grad=True)
        fn(T.nn.functional, x).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


INPLACE = ["relu", "relu6", "hardtanh", "leaky_relu", "elu", "selu", "celu", "silu", "mish", "hardsigmoid",
           "hardswish", "threshold", "dropout_eval"]


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", INPLACE)
def test_inplace_forms_on_intermediate_tensors_match_torch(name):
    import gradserve.engine as gs
    call = {"threshold": lambda F, x: F.threshold(x, 0.1, -2.0, inplace=True),
            "dropout_eval": lambda F, x: F.dropout(x, 0.5, training=False, inplace=True)}.get(
        name, lambda F, x: getattr(F, name)(x, inplace=True))
    results = []
    for T in (gs, torch):
        a = T.tensor([-4.0, -1.0, -0.2, 0.3, 1.5, 4.0, 7.0], dtype=T.float64, requires_grad=True)
        x = a * 2
        y = call(T.nn.functional, x)
        assert y is x
        (y * y).sum().backward()
        results.append((y.detach().numpy().tolist(), a.grad.numpy().tolist()))
    # (PyTorch's hardsigmoid uses a float32 1/6 even in float64, hence 1e-7)
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-7)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-7)


def test_inplace_dropout_in_training_keeps_the_mask_in_the_gradient():
    import gradserve.engine as gs
    gs.manual_seed(0)
    a = gs.ones(50, 20, requires_grad=True)
    x = a * 1
    y = gs.nn.functional.dropout(x, 0.5, inplace=True)
    assert y is x
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), y.detach().numpy())


# ------------------------------------------------------------------ the fused ops of issue 11
FUSED_NODES = {
    # id -> (fn(T) -> output, PyTorch's name for the node, or ours where PyTorch records several)
    "gelu": (lambda T: _f(T).gelu(T.randn(3, 4, requires_grad=True)), "GeluBackward0"),
    "layer_norm": (lambda T: _f(T).layer_norm(T.randn(3, 4, requires_grad=True), (4,), T.ones(4, requires_grad=True),
                                              T.zeros(4, requires_grad=True)), "NativeLayerNormBackward0"),
    "cross_entropy_smoothing": (lambda T: _f(T).cross_entropy(T.randn(3, 4, requires_grad=True), T.tensor([0, 3, 1]),
                                                              label_smoothing=0.1), "CrossEntropyBackward0"),
    "cross_entropy_probabilities": (lambda T: _f(T).cross_entropy(T.randn(3, 4, requires_grad=True),
                                                                  T.ones(3, 4) / 4), "CrossEntropyBackward0"),
    "embedding": (lambda T: _f(T).embedding(T.tensor([1, 2]), T.randn(4, 3, requires_grad=True), padding_idx=1),
                  "EmbeddingBackward0"),
    "logsigmoid": (lambda T: _f(T).logsigmoid(T.randn(3, 4, requires_grad=True)), "LogSigmoidBackward0"),
    "pad_reflect_2d": (lambda T: _f(T).pad(T.randn(1, 2, 4, 4, requires_grad=True), (1, 1, 2, 0), mode="reflect"),
                       "ReflectionPad2DBackward0"),
    "pad_replicate_1d": (lambda T: _f(T).pad(T.randn(2, 4, requires_grad=True), (1, 2), mode="replicate"),
                         "ReplicationPad1DBackward0"),
    "pad_replicate_3d": (lambda T: _f(T).pad(T.randn(1, 1, 2, 3, 3, requires_grad=True), (1,) * 6,
                                             mode="replicate"), "ReplicationPad3DBackward0"),
}


@pytest.mark.parametrize("name", list(FUSED_NODES))
def test_fused_op_is_one_node_on_its_leaves(name):
    import gradserve.engine as gs
    fn, expected = FUSED_NODES[name]
    node = fn(gs).grad_fn
    assert node.name() == expected
    assert all(n is None or n.name() == "AccumulateGrad" for n, _ in node.next_functions)


def test_gelu_float32_keeps_its_relative_accuracy_into_the_negative_tail():
    import math

    import gradserve.engine as gs
    x = np.linspace(-9, 9, 20001).astype(np.float32)
    exact = np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x.astype(np.float64)])
    got = gs.nn.functional.gelu(gs.tensor(x)).numpy().astype(np.float64)
    assert got[x == 0].tolist() == [0.0]
    x, got, exact = x[x != 0], got[x != 0], exact[x != 0]
    relative = np.abs(got - exact) / np.abs(exact)
    # a few float32 ulps near the origin; in the tail float32's own x^2 limits it (PyTorch's kernel,
    # 1 + erf(x / sqrt 2), loses every digit there: relative error 0.2 at x = -5)
    assert relative[np.abs(x) < 2].max() < 6e-7
    assert relative.max() < 2e-5
    for approximate in ("none", "tanh"):
        t = gs.tensor(x, requires_grad=True)
        gs.nn.functional.gelu(t, approximate=approximate).sum().backward()
        assert t.grad.dtype == gs.float32 and np.isfinite(t.grad.numpy()).all()


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_float32_and_float16_match_torch(approximate):
    import gradserve.engine as gs
    x = np.linspace(-8, 8, 4001).astype(np.float32)
    for dtype, tol in ((np.float32, 2e-6), (np.float16, 1e-3)):
        a = gs.tensor(x.astype(dtype), requires_grad=True)
        b = torch.tensor(x.astype(dtype), requires_grad=True)
        out_a = gs.nn.functional.gelu(a, approximate=approximate)
        out_b = torch.nn.functional.gelu(b, approximate=approximate)
        assert str(out_a.dtype) == str(out_b.dtype)
        np.testing.assert_allclose(out_a.detach().numpy().astype(np.float64), out_b.detach().numpy().astype(np.float64),
                                   rtol=tol, atol=tol)
        if dtype == np.float32:
            out_a.sum().backward()
            out_b.sum().backward()
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_layer_norm_float32_matches_torch():
    import gradserve.engine as gs
    rng = np.random.default_rng(0)
    data = [rng.standard_normal(s).astype(np.float32) * 3 + 1 for s in [(8, 64, 64), (64,), (64,)]]
    ours = [gs.tensor(a, requires_grad=True) for a in data]
    theirs = [torch.tensor(a, requires_grad=True) for a in data]
    out_a = gs.nn.functional.layer_norm(ours[0], (64,), ours[1], ours[2])
    out_b = torch.nn.functional.layer_norm(theirs[0], (64,), theirs[1], theirs[2])
    np.testing.assert_allclose(out_a.detach().numpy(), out_b.detach().numpy(), rtol=1e-5, atol=2e-5)
    g = rng.standard_normal((8, 64, 64)).astype(np.float32)
    (out_a * gs.tensor(g)).sum().backward()
    (out_b * torch.tensor(g)).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_cross_entropy_with_every_target_ignored_is_nan_with_zero_gradient():
    import gradserve.engine as gs
    x = gs.randn(3, 5, requires_grad=True)
    loss = gs.nn.functional.cross_entropy(x, gs.tensor([-100, -100, -100]))
    loss.backward()
    assert np.isnan(loss.item())
    assert not x.grad.numpy().any()


def test_embedding_scale_grad_by_freq_divides_by_the_count_in_the_batch():
    import gradserve.engine as gs
    w = gs.zeros(4, 2, requires_grad=True)
    gs.nn.functional.embedding(gs.tensor([[0, 2, 2], [2, 1, 0]]), w, scale_grad_by_freq=True).sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]


FUSED_ERRORS = {
    "layer_norm_weight_shape": lambda T: _f(T).layer_norm(T.zeros(3, 4), (4,), T.zeros(3)),
    "layer_norm_bias_shape": lambda T: _f(T).layer_norm(T.zeros(3, 4), (4,), T.zeros(4), T.zeros(3)),
    "layer_norm_input_shape": lambda T: _f(T).layer_norm(T.zeros(3, 4), (3,)),
    "layer_norm_float_input_double_weight": lambda T: _f(T).layer_norm(T.zeros(3, 4), (4,),
                                                                       T.zeros(4, dtype=T.float64)),
    "layer_norm_double_input_float_weight": lambda T: _f(T).layer_norm(T.zeros(3, 4, dtype=T.float64), (4,),
                                                                       T.zeros(4)),
    "gelu_integer": lambda T: _f(T).gelu(T.tensor([1, 2])),
    "gelu_approximate": lambda T: _f(T).gelu(T.zeros(2), approximate="exact"),
    "cross_entropy_probabilities_shape": lambda T: _f(T).cross_entropy(T.zeros(3, 4), T.zeros(3, 5)),
    "cross_entropy_batch": lambda T: _f(T).cross_entropy(T.zeros(3, 4), T.tensor([0, 1])),
    "cross_entropy_float_target_of_another_shape": lambda T: _f(T).cross_entropy(T.zeros(3, 4), T.zeros(3)),
    "cross_entropy_int32_target": lambda T: _f(T).cross_entropy(T.zeros(3, 4, 2), T.zeros(3, 2, dtype=T.int32)),
    "cross_entropy_spatial_target_size": lambda T: _f(T).cross_entropy(T.zeros(3, 4, 2), T.zeros(3, 5)),
    "cross_entropy_multi_target": lambda T: _f(T).cross_entropy(T.zeros(3, 4), T.zeros(3, 5, dtype=T.int64)),
    "cross_entropy_target_out_of_range": lambda T: _f(T).cross_entropy(T.zeros(3, 4), T.tensor([0, 1, 4])),
    "embedding_index_out_of_range": lambda T: _f(T).embedding(T.tensor([4]), T.zeros(4, 2)),
}


@pytest.mark.torch
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", list(FUSED_ERRORS))
def test_fused_op_errors_are_pytorchs(name):
    import gradserve.engine as gs
    with pytest.raises(Exception) as theirs:
        FUSED_ERRORS[name](torch)
    with pytest.raises(Exception) as ours:
        FUSED_ERRORS[name](gs)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_rms_norm_module_as_pytorchs():
    import gradserve.engine as T
    m = T.nn.RMSNorm(4)
    assert m.eps is None and m.weight.tolist() == [1.0] * 4 and repr(m) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    assert T.nn.RMSNorm([2, 3], elementwise_affine=False).weight is None
    x = T.tensor([[1.0, 2.0, 3.0, 4.0]])
    expect = np.array([1.0, 2.0, 3.0, 4.0]) / np.sqrt(7.5 + np.finfo(np.float32).eps)
    assert np.allclose(m(x).detach().numpy(), expect, rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"normalized_shape=\[3\]"):
        T.nn.functional.rms_norm(T.ones(2, 4), (3,))
    if torch is not None:
        tm = torch.nn.RMSNorm(4)
        assert np.allclose(tm(torch.tensor([[1.0, 2.0, 3.0, 4.0]])).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_logsigmoid_and_softplus_at_the_extremes_match_torch():
    """log(sigmoid(x)) and softplus at +-inf, NaN, zero and the large and small: PyTorch's values, and
    the sign of its zero (log_sigmoid(+inf) is 0.0, not -0.0)."""
    import gradserve.engine as gs
    z = np.array([-np.inf, -100, -20.5, -1, 0, 1e-8, 3, 20, 25, 100, np.inf, np.nan], dtype=np.float32)
    for name, fn in (("logsigmoid", lambda T, x: _f(T).logsigmoid(x)), ("softplus", lambda T, x: _f(T).softplus(x)),
                     ("softplus_beta", lambda T, x: _f(T).softplus(x, 2.0, 5.0))):
        want = fn(torch, torch.tensor(z)).numpy()
        got = fn(gs, gs.tensor(z)).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-40, err_msg=name)
        assert (np.signbit(got) == np.signbit(want)).all(), name



@pytest.mark.skipif(torch is None, reason="needs PyTorch")
def test_binary_cross_entropy_at_saturated_probabilities_matches_torch():
    """A sigmoid that rounds to exactly 0 or 1 (vgae_pytorch's decoder): the loss clamps each log at
    -100 and the input's gradient divides by max(x (1 - x), 1e-12), finite where the logs' chain rule
    would give 0/0, as PyTorch's; the target's gradient is log(1 - x) - log(x)."""
    import gradserve.engine as gs
    x = np.array([1.0, 0.0, 0.5, 1.0, 0.0, 1e-30, 0.999], dtype=np.float32)
    t = np.array([0.0, 1.0, 1.0, 1.0, 0.0, 0.3, 0.2], dtype=np.float32)
    w = np.array([2.0, 1.0, 1.0, 1.0, 1.0, 0.5, 3.0], dtype=np.float32)
    for reduction in ("mean", "sum", "none"):
        got, want = [], []
        for T, out in ((gs, got), (torch, want)):
            xt, tt = T.tensor(x, requires_grad=True), T.tensor(t, requires_grad=True)
            loss = _f(T).binary_cross_entropy(xt, tt, weight=T.tensor(w), reduction=reduction)
            loss.sum().backward()
            out += [loss.detach().numpy(), xt.grad.numpy(), tt.grad.numpy()]
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=reduction)
        assert np.isfinite(got[1]).all()


@pytest.mark.parametrize("pad", [(-100, 0), (-4, -3), (2, -9), (-7, 2)])
def test_pad_cropping_past_the_size_raises(lib, pad):
    with pytest.raises(RuntimeError, match="length must be non-negative"):
        lib.nn.functional.pad(lib.arange(6.0), pad)


@pytest.mark.parametrize("pad, size", [((-6, 0), 0), ((-3, -3), 0), ((-6, 1), 1), ((-5, -1), 0)])
def test_pad_cropping_to_the_size_leaves_an_empty_or_padded_tensor(lib, pad, size):
    assert tuple(lib.nn.functional.pad(lib.arange(6.0), pad).shape) == (size,)


_F32_LOGITS = [[0.3, -1.2, 0.8], [1.5, 0.1, -0.4], [-0.7, 0.9, 0.2], [0.0, -0.3, 1.1]]
_CLASS_WEIGHT_ERRORS = [   # (call, PyTorch's message): each loss's kernel reads the weight as the input's dtype
    (lambda T, x, y: _f(T).nll_loss(x, y, weight=T.ones(3, dtype=T.float64)), "expected scalar type Float but found Double"),
    (lambda T, x, y: _f(T).nll_loss(x.double(), y, weight=T.ones(3)), "expected scalar type Double but found Float"),
    (lambda T, x, y: _f(T).nll_loss(x, y, weight=T.ones(3, dtype=T.int64)), "expected scalar type Float but found Long"),
    (lambda T, x, y: _f(T).nll_loss(x[0], y[0], weight=T.ones(3, dtype=T.float64)), "expected scalar type Float but found Double"),
    (lambda T, x, y: _f(T).cross_entropy(x, y, weight=T.ones(3, dtype=T.float64)), "expected scalar type Float but found Double"),
    (lambda T, x, y: _f(T).cross_entropy(x, y, weight=T.ones(3, dtype=T.float64), label_smoothing=0.1),
     "expected scalar type Float but found Double"),
    (lambda T, x, y: T.nn.CrossEntropyLoss(weight=T.ones(3, dtype=T.float64))(x, y), "expected scalar type Float but found Double"),
    (lambda T, x, y: _f(T).multi_margin_loss(x, y, weight=T.ones(3, dtype=T.float64)), "expected scalar type Float but found Double"),
    (lambda T, x, y: _f(T).nll_loss(x, y, weight=T.ones(2, dtype=T.float64)),
     r"weight tensor should be defined either for all 3 classes or no classes but got weight tensor of shape: \[2\]"),
    (lambda T, x, y: _f(T).cross_entropy(x, y, weight=T.ones(3, 1)),
     r"^weight tensor should be defined either for all 3 classes or no classes but got weight tensor of shape: \[3, 1\]"),
    (lambda T, x, y: _f(T).cross_entropy(x, T.full((4, 3), 1 / 3), weight=T.ones(2)),
     r"^cross_entropy: weight tensor should be defined either for all 3 classes or no classes"),
    (lambda T, x, y: _f(T).multi_margin_loss(x, y, weight=T.ones(2)), r"inconsistent weight size, expected 3 but got \[2\]"),
    (lambda T, x, y: _f(T).binary_cross_entropy(x.sigmoid(), T.full((4, 3), 0.5, dtype=T.float64)),
     "Found dtype Double but expected Float"),
    (lambda T, x, y: _f(T).binary_cross_entropy(x.sigmoid(), T.ones(4, 3, dtype=T.int64)), "Found dtype Long but expected Float"),
    (lambda T, x, y: _f(T).binary_cross_entropy(T.full((4, 3), 2.0, dtype=T.float64), T.ones(4, 3)),
     "Found dtype Float but expected Double"),
    (lambda T, x, y: _f(T).binary_cross_entropy_with_logits(x, T.ones(4, 3, dtype=T.int64)),
     "result type Float can't be cast to the desired output type Long"),
    (lambda T, x, y: _f(T).binary_cross_entropy_with_logits(x, T.ones(4, 3, dtype=T.bool)),
     "Subtraction, the `-` operator, with two bool tensors is not supported"),
]


@pytest.mark.parametrize("case", range(len(_CLASS_WEIGHT_ERRORS)))
def test_loss_weight_and_target_dtypes_and_sizes_are_checked_as_pytorch(lib, case):
    """A float64 class weight on float32 logits (pytorch-multi-class-focal-loss run in float64) is
    PyTorch's RuntimeError, not a silent promotion; a weight of the wrong size is PyTorch's
    RuntimeError, not an IndexError from the gather."""
    call, message = _CLASS_WEIGHT_ERRORS[case]
    x, y = lib.tensor(_F32_LOGITS), lib.tensor([0, 1, 2, 1])
    with pytest.raises(RuntimeError, match=message):
        call(lib, x, y)


_LOSS_DTYPES = [   # (call, the loss's dtype in PyTorch)
    (lambda T, x, t: _f(T).binary_cross_entropy(x.sigmoid(), t, weight=T.ones(3, dtype=T.float64)), "float32"),
    (lambda T, x, t: _f(T).binary_cross_entropy(x.sigmoid(), t, weight=T.ones(3, dtype=T.int64), reduction="none"),
     "float32"),
    (lambda T, x, t: _f(T).binary_cross_entropy_with_logits(x, t, weight=T.ones(3, dtype=T.float64)), "float32"),
    (lambda T, x, t: _f(T).binary_cross_entropy_with_logits(x, t, pos_weight=T.ones(3, dtype=T.float64)), "float32"),
    (lambda T, x, t: T.nn.BCEWithLogitsLoss(pos_weight=T.ones(3, dtype=T.float64), reduction="none")(x, t), "float32"),
    (lambda T, x, t: _f(T).binary_cross_entropy_with_logits(x.double(), t), "float32"),
    (lambda T, x, t: _f(T).binary_cross_entropy_with_logits(x, t.double()), "float64"),
    (lambda T, x, t: _f(T).cross_entropy(x, t, weight=T.ones(3, dtype=T.int64)), "float32"),
    (lambda T, x, t: _f(T).cross_entropy(x, t, weight=T.ones(3, dtype=T.float64)), "float64"),
]


@pytest.mark.parametrize("case", range(len(_LOSS_DTYPES)))
def test_loss_dtype_with_weights_of_another_dtype_is_pytorchs(lib, case):
    """binary_cross_entropy keeps the input's dtype and binary_cross_entropy_with_logits the target's,
    whatever the weights' (PyTorch works in place); cross_entropy over class probabilities promotes."""
    call, dtype = _LOSS_DTYPES[case]
    x, t = lib.tensor(_F32_LOGITS), lib.tensor(_F32_LOGITS).sigmoid()
    assert call(lib, x, t).dtype == getattr(lib, dtype)


@pytest.mark.skipif(torch is None, reason="needs PyTorch")
@pytest.mark.parametrize("case", [0, 2, 3, 5])
def test_loss_with_weights_of_another_dtype_matches_torch(case):
    """The values and the input's gradient of those mixed-dtype losses, against PyTorch's."""
    import gradserve.engine as gs
    call = _LOSS_DTYPES[case][0]
    got, want = [], []
    for T, out in ((gs, got), (torch, want)):
        x = T.tensor(_F32_LOGITS, requires_grad=True)
        loss = call(T, x, T.tensor(_F32_LOGITS).sigmoid())
        loss.sum().backward()
        out += [loss.detach().numpy(), x.grad.numpy()]
    for a, b in zip(got, want):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-7)
