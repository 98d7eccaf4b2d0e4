# realcode: bentrevett/pytorch-seq2seq @ b3cd54c72cd6e4e63f672d334c795b4fe744ef92
# realcode: https://github.com/bentrevett/pytorch-seq2seq/blob/b3cd54c72cd6e4e63f672d334c795b4fe744ef92/3%20-%20Neural%20Machine%20Translation%20by%20Jointly%20Learning%20to%20Align%20and%20Translate.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells in order, each after a '# %%' line
#   - `import spacy` -> `pass  # realcode-dropped: import spacy`: the data pipeline's libraries (datasets, spaCy, torchtext), the progress bar, BLEU and plotting are not PyTorch
#   - `import datasets` -> `pass  # realcode-dropped: import datasets`: the data pipeline's libraries (datasets, spaCy, torchtext), the progress bar, BLEU and plotting are not PyTorch
#   - `import torchtext` -> `pass  # realcode-dropped: import torchtext`: the data pipeline's libraries (datasets, spaCy, torchtext), the progress bar, BLEU and plotting are not PyTorch
#   - `import tqdm` -> `pass  # realcode-dropped: import tqdm`: the data pipeline's libraries (datasets, spaCy, torchtext), the progress bar, BLEU and plotting are not PyTorch
#   - `import evaluate` -> `pass  # realcode-dropped: import evaluate`: the data pipeline's libraries (datasets, spaCy, torchtext), the progress bar, BLEU and plotting are not PyTorch
#   - `import matplotlib.pyplot as plt` -> `pass  # realcode-dropped: import matplotlib.pyplot as plt`: the data pipeline's libraries (datasets, spaCy, torchtext), the progress bar, BLEU and plotting are not PyTorch
#   - `import matplotlib.ticker as ticker` -> `pass  # realcode-dropped: import matplotlib.ticker as ticker`: the data pipeline's libraries (datasets, spaCy, torchtext), the progress bar, BLEU and plotting are not PyTorch
#   - `(\w+_dim) = 256` -> `\1 = 16`: shrink the 256-wide embeddings to 16
#   - `(\w*hidden_dim) = 512` -> `\1 = 32`: shrink the 512-wide hidden states to 32
#   - `(\w+_dropout) = 0\.5` -> `\1 = 0.0`: dropout 0 so values compare (its masks come from the session's generator)
#   - `n_epochs = 10` -> `n_epochs = 2`: shrink 10 epochs to 2
#   - `for epoch in tqdm.tqdm(range(n_epochs)):` -> `for epoch in range(n_epochs):  # realcode: tqdm.tqdm(range(n_epochs))`: drop the progress bar
#   - `(\s*)torch\.save\(model\.state_dict\(\), "(tut\d-model\.pt)"\)` -> `\1pass  # realcode-dropped: torch.save(model.state_dict(), "\2")`: drop file I/O
#   - `model.apply(init_weights)` -> `model.apply(init_weights) / # %% realcode-load: model`: cell marker: PyTorch's initial weights (init_weights's draws) are copied in
#   - the data cells (2-12: the multi30k download with `datasets`, spaCy tokenisation, torchtext vocabularies) replaced by a stand-in cell: synthetic token ids passed as inputs, framed by <sos>=2 and <eos>=3, with pad=1 and vocabularies of 40 (de) and 30 (en) ids; 8 training examples (one batch of batch_size 128, so DataLoader's shuffle does not change the loss)
#   - cells 28- left out: they reload the checkpoint from disk, translate with spaCy and torchtext vocabularies and score with `evaluate`'s BLEU; `test_loss = evaluate_fn(model, test_data_loader, criterion, device)` from cell 28 is kept
# realcode-input: train_en = randint(4, 30, 8, 9)
# realcode-input: train_de = randint(4, 40, 8, 9)
# realcode-input: valid_en = randint(4, 30, 4, 9)
# realcode-input: valid_de = randint(4, 40, 4, 9)
# realcode-input: test_en = randint(4, 30, 4, 9)
# realcode-input: test_de = randint(4, 40, 4, 9)
# realcode-output: train_loss valid_loss test_loss best_valid_loss model.*
# realcode-atol: 1e-6 (model.decoder.attention.attn_fc.bias has a true gradient of 0: it adds the same amount to every source position before a softmax over them, so it moves only by float noise of ~1e-8)
# %% (notebook cell 0)
import torch
import torch.nn as nn
import torch.optim as optim
import random
import numpy as np
pass  # realcode-dropped: import spacy
pass  # realcode-dropped: import datasets
pass  # realcode-dropped: import torchtext
pass  # realcode-dropped: import tqdm
pass  # realcode-dropped: import evaluate
pass  # realcode-dropped: import matplotlib.pyplot as plt
pass  # realcode-dropped: import matplotlib.ticker as ticker
# %% (notebook cell 1)
seed = 1234

random.seed(seed)
np.random.seed(seed)
torch.manual_seed(seed)
torch.cuda.manual_seed(seed)
torch.backends.cudnn.deterministic = True
# %% realcode: stands in for the data cells (the multi30k download, spaCy tokenisation, torchtext vocabularies)
unk_index, pad_index = 0, 1
en_vocab, de_vocab = list(range(30)), list(range(40))
def realcode_examples(en, de, n_en, n_de):
    return [{"en_ids": torch.cat([torch.tensor([2]), en[i, :n_en[i]], torch.tensor([3])]),
             "de_ids": torch.cat([torch.tensor([2]), de[i, :n_de[i]], torch.tensor([3])])} for i in range(len(n_en))]
train_data = realcode_examples(train_en, train_de, [9, 5, 7, 9, 4, 6, 8, 3], [8, 9, 6, 5, 7, 9, 4, 6])
valid_data = realcode_examples(valid_en, valid_de, [6, 9, 4, 7], [9, 5, 8, 6])
test_data = realcode_examples(test_en, test_de, [5, 8, 9, 6], [7, 6, 9, 8])
# %% (notebook cell 13)
def get_collate_fn(pad_index):
    def collate_fn(batch):
        batch_en_ids = [example["en_ids"] for example in batch]
        batch_de_ids = [example["de_ids"] for example in batch]
        batch_en_ids = nn.utils.rnn.pad_sequence(batch_en_ids, padding_value=pad_index)
        batch_de_ids = nn.utils.rnn.pad_sequence(batch_de_ids, padding_value=pad_index)
        batch = {
            "en_ids": batch_en_ids,
            "de_ids": batch_de_ids,
        }
        return batch

    return collate_fn
# %% (notebook cell 14)
def get_data_loader(dataset, batch_size, pad_index, shuffle=False):
    collate_fn = get_collate_fn(pad_index)
    data_loader = torch.utils.data.DataLoader(
        dataset=dataset,
        batch_size=batch_size,
        collate_fn=collate_fn,
        shuffle=shuffle,
    )
    return data_loader
# %% (notebook cell 15)
batch_size = 128

train_data_loader = get_data_loader(train_data, batch_size, pad_index, shuffle=True)
valid_data_loader = get_data_loader(valid_data, batch_size, pad_index)
test_data_loader = get_data_loader(test_data, batch_size, pad_index)
# %% (notebook cell 16)
class Encoder(nn.Module):
    def __init__(
        self, input_dim, embedding_dim, encoder_hidden_dim, decoder_hidden_dim, dropout
    ):
        super().__init__()
        self.embedding = nn.Embedding(input_dim, embedding_dim)
        self.rnn = nn.GRU(embedding_dim, encoder_hidden_dim, bidirectional=True)
        self.fc = nn.Linear(encoder_hidden_dim * 2, decoder_hidden_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src):
        # src = [src length, batch size]
        embedded = self.dropout(self.embedding(src))
        # embedded = [src length, batch size, embedding dim]
        outputs, hidden = self.rnn(embedded)
        # outputs = [src length, batch size, hidden dim * n directions]
        # hidden = [n layers * n directions, batch size, hidden dim]
        # hidden is stacked [forward_1, backward_1, forward_2, backward_2, ...]
        # outputs are always from the last layer
        # hidden [-2, :, : ] is the last of the forwards RNN
        # hidden [-1, :, : ] is the last of the backwards RNN
        # initial decoder hidden is final hidden state of the forwards and backwards
        # encoder RNNs fed through a linear layer
        hidden = torch.tanh(
            self.fc(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1))
        )
        # outputs = [src length, batch size, encoder hidden dim * 2]
        # hidden = [batch size, decoder hidden dim]
        return outputs, hidden
# %% (notebook cell 17)
class Attention(nn.Module):
    def __init__(self, encoder_hidden_dim, decoder_hidden_dim):
        super().__init__()
        self.attn_fc = nn.Linear(
            (encoder_hidden_dim * 2) + decoder_hidden_dim, decoder_hidden_dim
        )
        self.v_fc = nn.Linear(decoder_hidden_dim, 1, bias=False)

    def forward(self, hidden, encoder_outputs):
        # hidden = [batch size, decoder hidden dim]
        # encoder_outputs = [src length, batch size, encoder hidden dim * 2]
        batch_size = encoder_outputs.shape[1]
        src_length = encoder_outputs.shape[0]
        # repeat decoder hidden state src_length times
        hidden = hidden.unsqueeze(1).repeat(1, src_length, 1)
        encoder_outputs = encoder_outputs.permute(1, 0, 2)
        # hidden = [batch size, src length, decoder hidden dim]
        # encoder_outputs = [batch size, src length, encoder hidden dim * 2]
        energy = torch.tanh(self.attn_fc(torch.cat((hidden, encoder_outputs), dim=2)))
        # energy = [batch size, src length, decoder hidden dim]
        attention = self.v_fc(energy).squeeze(2)
        # attention = [batch size, src length]
        return torch.softmax(attention, dim=1)
# %% (notebook cell 18)
class Decoder(nn.Module):
    def __init__(
        self,
        output_dim,
        embedding_dim,
        encoder_hidden_dim,
        decoder_hidden_dim,
        dropout,
        attention,
    ):
        super().__init__()
        self.output_dim = output_dim
        self.attention = attention
        self.embedding = nn.Embedding(output_dim, embedding_dim)
        self.rnn = nn.GRU((encoder_hidden_dim * 2) + embedding_dim, decoder_hidden_dim)
        self.fc_out = nn.Linear(
            (encoder_hidden_dim * 2) + decoder_hidden_dim + embedding_dim, output_dim
        )
        self.dropout = nn.Dropout(dropout)

    def forward(self, input, hidden, encoder_outputs):
        # input = [batch size]
        # hidden = [batch size, decoder hidden dim]
        # encoder_outputs = [src length, batch size, encoder hidden dim * 2]
        input = input.unsqueeze(0)
        # input = [1, batch size]
        embedded = self.dropout(self.embedding(input))
        # embedded = [1, batch size, embedding dim]
        a = self.attention(hidden, encoder_outputs)
        # a = [batch size, src length]
        a = a.unsqueeze(1)
        # a = [batch size, 1, src length]
        encoder_outputs = encoder_outputs.permute(1, 0, 2)
        # encoder_outputs = [batch size, src length, encoder hidden dim * 2]
        weighted = torch.bmm(a, encoder_outputs)
        # weighted = [batch size, 1, encoder hidden dim * 2]
        weighted = weighted.permute(1, 0, 2)
        # weighted = [1, batch size, encoder hidden dim * 2]
        rnn_input = torch.cat((embedded, weighted), dim=2)
        # rnn_input = [1, batch size, (encoder hidden dim * 2) + embedding dim]
        output, hidden = self.rnn(rnn_input, hidden.unsqueeze(0))
        # output = [seq length, batch size, decoder hid dim * n directions]
        # hidden = [n layers * n directions, batch size, decoder hid dim]
        # seq len, n layers and n directions will always be 1 in this decoder, therefore:
        # output = [1, batch size, decoder hidden dim]
        # hidden = [1, batch size, decoder hidden dim]
        # this also means that output == hidden
        assert (output == hidden).all()
        embedded = embedded.squeeze(0)
        output = output.squeeze(0)
        weighted = weighted.squeeze(0)
        prediction = self.fc_out(torch.cat((output, weighted, embedded), dim=1))
        # prediction = [batch size, output dim]
        return prediction, hidden.squeeze(0), a.squeeze(1)
# %% (notebook cell 19)
class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, device):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.device = device

    def forward(self, src, trg, teacher_forcing_ratio):
        # src = [src length, batch size]
        # trg = [trg length, batch size]
        # teacher_forcing_ratio is probability to use teacher forcing
        # e.g. if teacher_forcing_ratio is 0.75 we use teacher forcing 75% of the time
        batch_size = src.shape[1]
        trg_length = trg.shape[0]
        trg_vocab_size = self.decoder.output_dim
        # tensor to store decoder outputs
        outputs = torch.zeros(trg_length, batch_size, trg_vocab_size).to(self.device)
        # encoder_outputs is all hidden states of the input sequence, back and forwards
        # hidden is the final forward and backward hidden states, passed through a linear layer
        encoder_outputs, hidden = self.encoder(src)
        # outputs = [src length, batch size, encoder hidden dim * 2]
        # hidden = [batch size, decoder hidden dim]
        # first input to the decoder is the <sos> tokens
        input = trg[0, :]
        for t in range(1, trg_length):
            # insert input token embedding, previous hidden state and all encoder hidden states
            # receive output tensor (predictions) and new hidden state
            output, hidden, _ = self.decoder(input, hidden, encoder_outputs)
            # output = [batch size, output dim]
            # hidden = [n layers, batch size, decoder hidden dim]
            # place predictions in a tensor holding predictions for each token
            outputs[t] = output
            # decide if we are going to use teacher forcing or not
            teacher_force = random.random() < teacher_forcing_ratio
            # get the highest predicted token from our predictions
            top1 = output.argmax(1)
            # if teacher forcing, use actual next token as next input
            # if not, use predicted token
            input = trg[t] if teacher_force else top1
            # input = [batch size]
        return outputs
# %% (notebook cell 20)
input_dim = len(de_vocab)
output_dim = len(en_vocab)
encoder_embedding_dim = 16
decoder_embedding_dim = 16
encoder_hidden_dim = 32
decoder_hidden_dim = 32
encoder_dropout = 0.0
decoder_dropout = 0.0
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

attention = Attention(encoder_hidden_dim, decoder_hidden_dim)

encoder = Encoder(
    input_dim,
    encoder_embedding_dim,
    encoder_hidden_dim,
    decoder_hidden_dim,
    encoder_dropout,
)

decoder = Decoder(
    output_dim,
    decoder_embedding_dim,
    encoder_hidden_dim,
    decoder_hidden_dim,
    decoder_dropout,
    attention,
)

model = Seq2Seq(encoder, decoder, device).to(device)
# %% (notebook cell 21)
def init_weights(m):
    for name, param in m.named_parameters():
        if "weight" in name:
            nn.init.normal_(param.data, mean=0, std=0.01)
        else:
            nn.init.constant_(param.data, 0)


model.apply(init_weights)
# %% realcode-load: model
# %% (notebook cell 22)
def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print(f"The model has {count_parameters(model):,} trainable parameters")
# %% (notebook cell 23)
optimizer = optim.Adam(model.parameters())
# %% (notebook cell 24)
criterion = nn.CrossEntropyLoss(ignore_index=pad_index)
# %% (notebook cell 25)
def train_fn(
    model, data_loader, optimizer, criterion, clip, teacher_forcing_ratio, device
):
    model.train()
    epoch_loss = 0
    for i, batch in enumerate(data_loader):
        src = batch["de_ids"].to(device)
        trg = batch["en_ids"].to(device)
        # src = [src length, batch size]
        # trg = [trg length, batch size]
        optimizer.zero_grad()
        output = model(src, trg, teacher_forcing_ratio)
        # output = [trg length, batch size, trg vocab size]
        output_dim = output.shape[-1]
        output = output[1:].view(-1, output_dim)
        # output = [(trg length - 1) * batch size, trg vocab size]
        trg = trg[1:].view(-1)
        # trg = [(trg length - 1) * batch size]
        loss = criterion(output, trg)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        epoch_loss += loss.item()
    return epoch_loss / len(data_loader)
# %% (notebook cell 26)
def evaluate_fn(model, data_loader, criterion, device):
    model.eval()
    epoch_loss = 0
    with torch.no_grad():
        for i, batch in enumerate(data_loader):
            src = batch["de_ids"].to(device)
            trg = batch["en_ids"].to(device)
            # src = [src length, batch size]
            # trg = [trg length, batch size]
            output = model(src, trg, 0)  # turn off teacher forcing
            # output = [trg length, batch size, trg vocab size]
            output_dim = output.shape[-1]
            output = output[1:].view(-1, output_dim)
            # output = [(trg length - 1) * batch size, trg vocab size]
            trg = trg[1:].view(-1)
            # trg = [(trg length - 1) * batch size]
            loss = criterion(output, trg)
            epoch_loss += loss.item()
    return epoch_loss / len(data_loader)
# %% (notebook cell 27)
n_epochs = 2
clip = 1.0
teacher_forcing_ratio = 0.5

best_valid_loss = float("inf")

for epoch in range(n_epochs):  # realcode: tqdm.tqdm(range(n_epochs))
    train_loss = train_fn(
        model,
        train_data_loader,
        optimizer,
        criterion,
        clip,
        teacher_forcing_ratio,
        device,
    )
    valid_loss = evaluate_fn(
        model,
        valid_data_loader,
        criterion,
        device,
    )
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        pass  # realcode-dropped: torch.save(model.state_dict(), "tut3-model.pt")
    print(f"\tTrain Loss: {train_loss:7.3f} | Train PPL: {np.exp(train_loss):7.3f}")
    print(f"\tValid Loss: {valid_loss:7.3f} | Valid PPL: {np.exp(valid_loss):7.3f}")
# %% (from notebook cell 28)
test_loss = evaluate_fn(model, test_data_loader, criterion, device)
