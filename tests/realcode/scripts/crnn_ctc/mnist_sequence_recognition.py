# realcode: dredwardhyde/crnn-ctc-loss-pytorch @ ab540147419aa6f29faf78450bc527b87d2e2b68
# realcode: https://github.com/dredwardhyde/crnn-ctc-loss-pytorch/blob/ab540147419aa6f29faf78450bc527b87d2e2b68/mnist_sequence_recognition.py
# realcode: kept as written except for these adaptations:
#   - imports dropped: matplotlib (the final figures, dropped with them), torchvision (the EMNIST download and its augmentations), colorama (the progress bars' colour codes: `Fore` -> a stand-in with empty codes)
#   - the dataset: EMNIST digits made into rotated, flipped, randomly shifted 5-digit sequences -> synthetic sequences (input: 20 images of 28 x 140 in [0, 1), labels 0-9), number_of_sequences 10000 -> 20, epochs 5 -> 2; the loop that builds them is replaced by the arrays it produces (dataset_sequences / dataset_labels)
#   - `gpu = torch.device('cuda')` -> the CPU, and each `.cuda()` left out (the CPU)
#   - a load marker after the model is built, then a driver line computing the model's log-probabilities and CTC loss (with its gradient) on a given batch before training, compared
#   - random_split and the shuffling loaders draw with the session's generator: what training computes is compared by shape
# realcode-input: seq_images = rand(20, 28, 140)
# realcode-input: seq_labels = randint(0, 10, 20, 5)
# realcode-input: x0 = rand(3, 1, 28, 140)
# realcode-input: y0 = randint(0, 10, 3, 5)
# realcode-output: y_pred0 loss0 conv1_grad0 model.* train_correct val_correct test_preds
# realcode-shape-only: model train_correct val_correct test_preds (random_split and the loaders' shuffles pick which sequences train)
import sys
from itertools import groupby

pass  # realcode-dropped: import matplotlib as mpl
pass  # realcode-dropped: import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as data_utils
pass  # realcode-dropped: import torchvision.transforms.functional as TF
class Fore:  # realcode: colorama's Fore (terminal colour codes) dropped: empty codes
    GREEN = BLUE = RESET = ''
pass  # realcode-dropped: from torchvision import datasets, transforms
from tqdm import tqdm

gpu = torch.device('cpu')  # realcode: the CPU
# ============================================= PREPARING DATASET ======================================================
epochs = 2
num_classes = 11
blank_label = 10
image_height = 28
gru_hidden_size = 128
gru_num_layers = 2
cnn_output_height = 4
cnn_output_width = 32
digits_per_sequence = 5
number_of_sequences = 20
pass  # realcode-dropped: emnist_dataset = datasets.EMNIST('./EMNIST', split="digits", train=True, download=True)
dataset_sequences = list(seq_images.numpy())  # realcode: the synthetic sequences (input) in place of the EMNIST loop
dataset_labels = list(seq_labels.numpy())

dataset_data = torch.Tensor(np.array(dataset_sequences))
dataset_labels = torch.IntTensor(np.array(dataset_labels))

seq_dataset = data_utils.TensorDataset(dataset_data, dataset_labels)
train_set, val_set = torch.utils.data.random_split(seq_dataset,
                                                   [int(len(seq_dataset) * 0.8), int(len(seq_dataset) * 0.2)])

train_loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True)
val_loader = torch.utils.data.DataLoader(val_set, batch_size=1, shuffle=True)


# ================================================= MODEL ==============================================================
class CRNN(nn.Module):

    def __init__(self):
        super(CRNN, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, kernel_size=(3, 3))
        self.norm1 = nn.InstanceNorm2d(32)
        self.conv2 = nn.Conv2d(32, 32, kernel_size=(3, 3), stride=2)
        self.norm2 = nn.InstanceNorm2d(32)
        self.conv3 = nn.Conv2d(32, 64, kernel_size=(3, 3))
        self.norm3 = nn.InstanceNorm2d(64)
        self.conv4 = nn.Conv2d(64, 64, kernel_size=(3, 3), stride=2)
        self.norm4 = nn.InstanceNorm2d(64)
        self.gru_input_size = cnn_output_height * 64
        self.gru = nn.GRU(self.gru_input_size, gru_hidden_size, gru_num_layers, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(gru_hidden_size * 2, num_classes)

    def forward(self, x):
        batch_size = x.shape[0]
        out = self.conv1(x)
        out = self.norm1(out)
        out = F.leaky_relu(out)
        out = self.conv2(out)
        out = self.norm2(out)
        out = F.leaky_relu(out)
        out = self.conv3(out)
        out = self.norm3(out)
        out = F.leaky_relu(out)
        out = self.conv4(out)
        out = self.norm4(out)
        out = F.leaky_relu(out)
        out = out.permute(0, 3, 2, 1)
        out = out.reshape(batch_size, -1, self.gru_input_size)
        out, _ = self.gru(out)
        out = torch.stack([F.log_softmax(self.fc(out[i]), dim=-1) for i in range(out.shape[0])])
        return out


model = CRNN().to(gpu)
# %% realcode-load: model
criterion = nn.CTCLoss(blank=blank_label, reduction='mean', zero_infinity=True)
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)

y_pred0 = model(x0).permute(1, 0, 2)  # realcode: the loaded model's log-probabilities and CTC loss on a given batch
loss0 = criterion(y_pred0, y0, torch.IntTensor(3).fill_(cnn_output_width), torch.IntTensor([5, 5, 5]))
loss0.backward()
conv1_grad0 = model.conv1.weight.grad.clone()

# ================================================ TRAINING MODEL ======================================================
for _ in range(epochs):
    # ============================================ TRAINING ============================================================
    train_correct = 0
    train_total = 0
    for x_train, y_train in tqdm(train_loader,
                                 position=0, leave=True,
                                 file=sys.stdout, bar_format="{l_bar}%s{bar}%s{r_bar}" % (Fore.GREEN, Fore.RESET)):
        batch_size = x_train.shape[0]  # x_train.shape == torch.Size([64, 28, 140])
        x_train = x_train.view(x_train.shape[0], 1, x_train.shape[1], x_train.shape[2])
        optimizer.zero_grad()
        y_pred = model(x_train)  # realcode: .cuda() left out (the CPU)
        y_pred = y_pred.permute(1, 0, 2)  # y_pred.shape == torch.Size([64, 32, 11])
        input_lengths = torch.IntTensor(batch_size).fill_(cnn_output_width)
        target_lengths = torch.IntTensor([len(t) for t in y_train])
        loss = criterion(y_pred, y_train, input_lengths, target_lengths)
        loss.backward()
        optimizer.step()
        _, max_index = torch.max(y_pred, dim=2)  # max_index.shape == torch.Size([32, 64])
        for i in range(batch_size):
            raw_prediction = list(max_index[:, i].detach().cpu().numpy())  # len(raw_prediction) == 32
            prediction = torch.IntTensor([c for c, _ in groupby(raw_prediction) if c != blank_label])
            if len(prediction) == len(y_train[i]) and torch.all(prediction.eq(y_train[i])):
                train_correct += 1
            train_total += 1
    print('TRAINING. Correct: ', train_correct, '/', train_total, '=', train_correct / train_total)

    # ============================================ VALIDATION ==========================================================
    val_correct = 0
    val_total = 0
    for x_val, y_val in tqdm(val_loader,
                             position=0, leave=True,
                             file=sys.stdout, bar_format="{l_bar}%s{bar}%s{r_bar}" % (Fore.BLUE, Fore.RESET)):
        batch_size = x_val.shape[0]
        x_val = x_val.view(x_val.shape[0], 1, x_val.shape[1], x_val.shape[2])
        y_pred = model(x_val)  # realcode: .cuda() left out (the CPU)
        y_pred = y_pred.permute(1, 0, 2)
        input_lengths = torch.IntTensor(batch_size).fill_(cnn_output_width)
        target_lengths = torch.IntTensor([len(t) for t in y_val])
        criterion(y_pred, y_val, input_lengths, target_lengths)
        _, max_index = torch.max(y_pred, dim=2)
        for i in range(batch_size):
            raw_prediction = list(max_index[:, i].detach().cpu().numpy())
            prediction = torch.IntTensor([c for c, _ in groupby(raw_prediction) if c != blank_label])
            if len(prediction) == len(y_val[i]) and torch.all(prediction.eq(y_val[i])):
                val_correct += 1
            val_total += 1
    print('TESTING. Correct: ', val_correct, '/', val_total, '=', val_correct / val_total)

# ============================================ TESTING =================================================================
number_of_test_imgs = 10
test_loader = torch.utils.data.DataLoader(val_set, batch_size=number_of_test_imgs, shuffle=True)
test_preds = []
(x_test, y_test) = next(iter(test_loader))
y_pred = model(x_test.view(x_test.shape[0], 1, x_test.shape[1], x_test.shape[2]))  # realcode: .cuda() left out (the CPU)
y_pred = y_pred.permute(1, 0, 2)
_, max_index = torch.max(y_pred, dim=2)
for i in range(x_test.shape[0]):
    raw_prediction = list(max_index[:, i].detach().cpu().numpy())
    prediction = torch.IntTensor([c for c, _ in groupby(raw_prediction) if c != blank_label])
    test_preds.append(prediction)

pass  # realcode-dropped: the figures of the test images with their actual and predicted digits (plt.imshow, plt.show)
test_preds = len(test_preds)  # realcode: how many predictions, compared by shape
