# realcode: gpleiss/temperature_scaling @ ce1154ec7d5235eee046f28875c3dd8421f11d45
# realcode: https://github.com/gpleiss/temperature_scaling/blob/ce1154ec7d5235eee046f28875c3dd8421f11d45/temperature_scaling.py
# realcode: https://github.com/gpleiss/temperature_scaling/blob/ce1154ec7d5235eee046f28875c3dd8421f11d45/demo.py
# realcode: kept as written except for these adaptations:
#   - temperature_scaling.py as written, then a driver cell built from demo.py: the trained classifier is a small stand-in (a linear layer over 12 features with 5 classes, its weights scaled up so that it is over-confident, as a trained DenseNet is) instead of a DenseNet loaded from a file, the validation loader two synthetic batches of 16; ModelWithTemperature(model).set_temperature(valid_loader) tunes the temperature with LBFGS as written, then the scaled logits of the validation batches
#   - `self.cuda()`, `.cuda()` on the criteria, the inputs and the concatenated logits and labels -> dropped: on the CPU (set_temperature moves everything to CUDA unconditionally)
# realcode-input: valid_x = randn(2, 16, 12)
# realcode-input: valid_y = randint(0, 5, 2, 16)
# realcode-output: scaled_model.temperature scaled_logits ece_before ece_after
# %% realcode: temperature_scaling.py
import torch
from torch import nn, optim
from torch.nn import functional as F


class ModelWithTemperature(nn.Module):
    """
    A thin decorator, which wraps a model with temperature scaling
    model (nn.Module):
        A classification neural network
        NB: Output of the neural network should be the classification logits,
            NOT the softmax (or log softmax)!
    """
    def __init__(self, model):
        super(ModelWithTemperature, self).__init__()
        self.model = model
        self.temperature = nn.Parameter(torch.ones(1) * 1.5)

    def forward(self, input):
        logits = self.model(input)
        return self.temperature_scale(logits)

    def temperature_scale(self, logits):
        """
        Perform temperature scaling on logits
        """
        # Expand temperature to match the size of logits
        temperature = self.temperature.unsqueeze(1).expand(logits.size(0), logits.size(1))
        return logits / temperature

    # This function probably should live outside of this class, but whatever
    def set_temperature(self, valid_loader):
        """
        Tune the tempearature of the model (using the validation set).
        We're going to set it to optimize NLL.
        valid_loader (DataLoader): validation set loader
        """
        pass  # realcode: self.cuda() dropped (on the CPU)
        nll_criterion = nn.CrossEntropyLoss()
        ece_criterion = _ECELoss()

        # First: collect all the logits and labels for the validation set
        logits_list = []
        labels_list = []

        # Prevent batchnorm statistics from changing
        training_mode = self.training
        self.eval()

        # Compute inputs
        with torch.no_grad():
            for input, label in valid_loader:
                input = input
                logits = self.model(input)
                logits_list.append(logits)
                labels_list.append(label)
            logits = torch.cat(logits_list)
            labels = torch.cat(labels_list)

        # Calculate NLL and ECE before temperature scaling
        before_temperature_nll = nll_criterion(logits, labels).item()
        before_temperature_ece = ece_criterion(logits, labels).item()
        print('Before temperature - NLL: %.3f, ECE: %.3f' % (before_temperature_nll, before_temperature_ece))

        # Next: optimize the temperature w.r.t. NLL
        optimizer = optim.LBFGS([self.temperature], lr=0.01, max_iter=200)

        def eval():
            optimizer.zero_grad()
            loss = nll_criterion(self.temperature_scale(logits), labels)
            loss.backward()
            return loss
        optimizer.step(eval)

        # Calculate NLL and ECE after temperature scaling
        after_temperature_nll = nll_criterion(self.temperature_scale(logits), labels).item()
        after_temperature_ece = ece_criterion(self.temperature_scale(logits), labels).item()
        print('Optimal temperature: %.3f' % self.temperature.item())
        print('After temperature - NLL: %.3f, ECE: %.3f' % (after_temperature_nll, after_temperature_ece))

        # Reset back to training mode, if applicable
        self.train(training_mode)
        return self


class _ECELoss(nn.Module):
    """
    Calculates the Expected Calibration Error of a model.
    (This isn't necessary for temperature scaling, just a cool metric).

    The input to this loss is the logits of a model, NOT the softmax scores.

    This divides the confidence outputs into equally-sized interval bins.
    In each bin, we compute the confidence gap:

    bin_gap = | avg_confidence_in_bin - accuracy_in_bin |

    We then return a weighted average of the gaps, based on the number
    of samples in each bin

    See: Naeini, Mahdi Pakdaman, Gregory F. Cooper, and Milos Hauskrecht.
    "Obtaining Well Calibrated Probabilities Using Bayesian Binning." AAAI.
    2015.
    """
    def __init__(self, n_bins=15):
        """
        n_bins (int): number of confidence interval bins
        """
        super(_ECELoss, self).__init__()
        bin_boundaries = torch.linspace(0, 1, n_bins + 1)
        self.bin_lowers = bin_boundaries[:-1]
        self.bin_uppers = bin_boundaries[1:]

    def forward(self, logits, labels):
        softmaxes = F.softmax(logits, dim=1)
        confidences, predictions = torch.max(softmaxes, 1)
        accuracies = predictions.eq(labels)

        ece = torch.zeros(1, device=logits.device)
        for bin_lower, bin_upper in zip(self.bin_lowers, self.bin_uppers):
            # Calculated |confidence - accuracy| in each bin
            in_bin = confidences.gt(bin_lower.item()) * confidences.le(bin_upper.item())
            prop_in_bin = in_bin.float().mean()
            if prop_in_bin.item() > 0:
                accuracy_in_bin = accuracies[in_bin].float().mean()
                avg_confidence_in_bin = confidences[in_bin].mean()
                ece += torch.abs(avg_confidence_in_bin - accuracy_in_bin) * prop_in_bin

        return ece

# %% realcode: driver cell, demo.py's steps with a small over-confident classifier
model = nn.Linear(12, 5)
# %% realcode-load: model
with torch.no_grad():
    model.weight.mul_(4.0)
valid_loader = [(valid_x[0], valid_y[0]), (valid_x[1], valid_y[1])]
ece = _ECELoss()
with torch.no_grad():
    ece_before = ece(model(torch.cat([valid_x[0], valid_x[1]])), torch.cat([valid_y[0], valid_y[1]]))
scaled_model = ModelWithTemperature(model)
scaled_model.set_temperature(valid_loader)
with torch.no_grad():
    scaled_logits = scaled_model(torch.cat([valid_x[0], valid_x[1]]))
    ece_after = ece(scaled_logits, torch.cat([valid_y[0], valid_y[1]]))
