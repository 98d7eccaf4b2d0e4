# realcode: sksq96/pytorch-summary @ 345d898d84507b848e92dab4629e03405e19afce
# realcode: https://github.com/sksq96/pytorch-summary/blob/345d898d84507b848e92dab4629e03405e19afce/torchsummary/torchsummary.py
# realcode: https://github.com/sksq96/pytorch-summary/blob/345d898d84507b848e92dab4629e03405e19afce/torchsummary/tests/test_models/test_model.py
# realcode: https://github.com/sksq96/pytorch-summary/blob/345d898d84507b848e92dab4629e03405e19afce/torchsummary/tests/unit_tests/torchsummary_test.py
# realcode: kept as written except for these adaptations:
#   - torchsummary/torchsummary.py (the library) and the test models as written, one after the other, each after a '# %%' line, then a driver cell built from the package's own unit tests (torchsummary_test.py): each test's body at the top level in order, `self.assertEqual(a, b)` as `assert a == b`, the (total, trainable) pairs kept under names for comparison and the string test's line count
# realcode-output: single multiple single_layer multiple_types total_params trainable_params summary_lines
# %% realcode: torchsummary/torchsummary.py
import torch
import torch.nn as nn
from torch.autograd import Variable

from collections import OrderedDict
import numpy as np


def summary(model, input_size, batch_size=-1, device=torch.device('cuda:0'), dtypes=None):
    result, params_info = summary_string(
        model, input_size, batch_size, device, dtypes)
    print(result)

    return params_info


def summary_string(model, input_size, batch_size=-1, device=torch.device('cuda:0'), dtypes=None):
    if dtypes == None:
        dtypes = [torch.FloatTensor]*len(input_size)

    summary_str = ''

    def register_hook(module):
        def hook(module, input, output):
            class_name = str(module.__class__).split(".")[-1].split("'")[0]
            module_idx = len(summary)

            m_key = "%s-%i" % (class_name, module_idx + 1)
            summary[m_key] = OrderedDict()
            summary[m_key]["input_shape"] = list(input[0].size())
            summary[m_key]["input_shape"][0] = batch_size
            if isinstance(output, (list, tuple)):
                summary[m_key]["output_shape"] = [
                    [-1] + list(o.size())[1:] for o in output
                ]
            else:
                summary[m_key]["output_shape"] = list(output.size())
                summary[m_key]["output_shape"][0] = batch_size

            params = 0
            if hasattr(module, "weight") and hasattr(module.weight, "size"):
                params += torch.prod(torch.LongTensor(list(module.weight.size())))
                summary[m_key]["trainable"] = module.weight.requires_grad
            if hasattr(module, "bias") and hasattr(module.bias, "size"):
                params += torch.prod(torch.LongTensor(list(module.bias.size())))
            summary[m_key]["nb_params"] = params

        if (
            not isinstance(module, nn.Sequential)
            and not isinstance(module, nn.ModuleList)
        ):
            hooks.append(module.register_forward_hook(hook))

    # multiple inputs to the network
    if isinstance(input_size, tuple):
        input_size = [input_size]

    # batch_size of 2 for batchnorm
    x = [torch.rand(2, *in_size).type(dtype).to(device=device)
         for in_size, dtype in zip(input_size, dtypes)]

    # create properties
    summary = OrderedDict()
    hooks = []

    # register hook
    model.apply(register_hook)

    # make a forward pass
    # print(x.shape)
    model(*x)

    # remove these hooks
    for h in hooks:
        h.remove()

    summary_str += "----------------------------------------------------------------" + "\n"
    line_new = "{:>20}  {:>25} {:>15}".format(
        "Layer (type)", "Output Shape", "Param #")
    summary_str += line_new + "\n"
    summary_str += "================================================================" + "\n"
    total_params = 0
    total_output = 0
    trainable_params = 0
    for layer in summary:
        # input_shape, output_shape, trainable, nb_params
        line_new = "{:>20}  {:>25} {:>15}".format(
            layer,
            str(summary[layer]["output_shape"]),
            "{0:,}".format(summary[layer]["nb_params"]),
        )
        total_params += summary[layer]["nb_params"]

        total_output += np.prod(summary[layer]["output_shape"])
        if "trainable" in summary[layer]:
            if summary[layer]["trainable"] == True:
                trainable_params += summary[layer]["nb_params"]
        summary_str += line_new + "\n"

    # assume 4 bytes/number (float on cuda).
    total_input_size = abs(np.prod(sum(input_size, ()))
                           * batch_size * 4. / (1024 ** 2.))
    total_output_size = abs(2. * total_output * 4. /
                            (1024 ** 2.))  # x2 for gradients
    total_params_size = abs(total_params * 4. / (1024 ** 2.))
    total_size = total_params_size + total_output_size + total_input_size

    summary_str += "================================================================" + "\n"
    summary_str += "Total params: {0:,}".format(total_params) + "\n"
    summary_str += "Trainable params: {0:,}".format(trainable_params) + "\n"
    summary_str += "Non-trainable params: {0:,}".format(total_params -
                                                        trainable_params) + "\n"
    summary_str += "----------------------------------------------------------------" + "\n"
    summary_str += "Input size (MB): %0.2f" % total_input_size + "\n"
    summary_str += "Forward/backward pass size (MB): %0.2f" % total_output_size + "\n"
    summary_str += "Params size (MB): %0.2f" % total_params_size + "\n"
    summary_str += "Estimated Total Size (MB): %0.2f" % total_size + "\n"
    summary_str += "----------------------------------------------------------------" + "\n"
    # return summary
    return summary_str, (total_params, trainable_params)
# %% realcode: torchsummary/tests/test_models/test_model.py
import torch
import torch.nn as nn
import torch.nn.functional as F

class SingleInputNet(nn.Module):
    def __init__(self):
        super(SingleInputNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d(0.3)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)

class MultipleInputNet(nn.Module):
    def __init__(self):
        super(MultipleInputNet, self).__init__()
        self.fc1a = nn.Linear(300, 50)
        self.fc1b = nn.Linear(50, 10)

        self.fc2a = nn.Linear(300, 50)
        self.fc2b = nn.Linear(50, 10)

    def forward(self, x1, x2):
        x1 = F.relu(self.fc1a(x1))
        x1 = self.fc1b(x1)
        x2 = F.relu(self.fc2a(x2))
        x2 = self.fc2b(x2)
        x = torch.cat((x1, x2), 0)
        return F.log_softmax(x, dim=1)

class MultipleInputNetDifferentDtypes(nn.Module):
    def __init__(self):
        super(MultipleInputNetDifferentDtypes, self).__init__()
        self.fc1a = nn.Linear(300, 50)
        self.fc1b = nn.Linear(50, 10)

        self.fc2a = nn.Linear(300, 50)
        self.fc2b = nn.Linear(50, 10)

    def forward(self, x1, x2):
        x1 = F.relu(self.fc1a(x1))
        x1 = self.fc1b(x1)
        x2 = x2.type(torch.FloatTensor)
        x2 = F.relu(self.fc2a(x2))
        x2 = self.fc2b(x2)
        # set x2 to FloatTensor
        x = torch.cat((x1, x2), 0)
        return F.log_softmax(x, dim=1)
# %% realcode-driver: the bodies of torchsummary/tests/unit_tests/torchsummary_test.py's tests, self.assertEqual as assert
gpu_if_available = "cuda:0" if torch.cuda.is_available() else "cpu"

# test_single_input
model = SingleInputNet()
input = (1, 28, 28)
total_params, trainable_params = summary(model, input, device="cpu")
assert total_params == 21840
assert trainable_params == 21840
single = (total_params, trainable_params)

# test_multiple_input
model = MultipleInputNet()
input1 = (1, 300)
input2 = (1, 300)
total_params, trainable_params = summary(
    model, [input1, input2], device="cpu")
assert total_params == 31120
assert trainable_params == 31120
multiple = (total_params, trainable_params)

# test_single_layer_network
model = torch.nn.Linear(2, 5)
input = (1, 2)
total_params, trainable_params = summary(model, input, device="cpu")
assert total_params == 15
assert trainable_params == 15
single_layer = (total_params, trainable_params)

# test_single_layer_network_on_gpu
model = torch.nn.Linear(2, 5)
if torch.cuda.is_available():
    model.cuda()
input = (1, 2)
total_params, trainable_params = summary(model, input, device=gpu_if_available)
assert total_params == 15
assert trainable_params == 15

# test_multiple_input_types
model = MultipleInputNetDifferentDtypes()
input1 = (1, 300)
input2 = (1, 300)
dtypes = [torch.FloatTensor, torch.LongTensor]
total_params, trainable_params = summary(
    model, [input1, input2], device="cpu", dtypes=dtypes)
assert total_params == 31120
assert trainable_params == 31120
multiple_types = (total_params, trainable_params)

# torchsummarystringTests.test_single_input
model = SingleInputNet()
input = (1, 28, 28)
result, (total_params, trainable_params) = summary_string(
    model, input, device="cpu")
assert type(result) == str
assert total_params == 21840
assert trainable_params == 21840
summary_lines = len(result.splitlines())
