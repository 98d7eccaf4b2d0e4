# realcode: keon/seq2seq @ 0e124a7b0da81f44cba9fa9944d95fdbd4e16efc
# realcode: https://github.com/keon/seq2seq/blob/0e124a7b0da81f44cba9fa9944d95fdbd4e16efc/model.py
# realcode: https://github.com/keon/seq2seq/blob/0e124a7b0da81f44cba9fa9944d95fdbd4e16efc/train.py
# realcode: kept as written except for these adaptations:
#   - model.py and train.py as written, one after the other, then a driver cell built from main(): the encoder, decoder and Adam as main() builds them (hidden 512 -> 16, embed 256 -> 8, vocabularies of 20 and 22, dropout 0.5 -> 0 so that training values are comparable), evaluate() on a synthetic validation batch before training (teacher_forcing_ratio=0, deterministic), then one epoch of train() on two synthetic batches and evaluate() again; the batches are small objects with .src and .trg (tensor, lengths) pairs and the vocabularies objects with .vocab.stoi as torchtext's are
#   - train() decodes with teacher forcing drawn by random.random() (ratio 0.5), which the session cannot reproduce: the values after training are compared by shape only
#   - `outputs = Variable(torch.zeros(max_len, batch_size, vocab_size)).cuda()` -> `outputs = Variable(torch.zeros(max_len, batch_size, vocab_size))`: on the CPU (the script moves everything to CUDA unconditionally)
#   - `output = Variable(trg.data[t] if is_teacher else top1).cuda()` -> `output = Variable(trg.data[t] if is_teacher else top1)`: on the CPU (the script moves everything to CUDA unconditionally)
#   - `import argparse` -> `pass  # realcode-dropped: import argparse`: dropped (argparse)
#   - `from model import Encoder, Decoder, Seq2Seq / from utils import load_dataset` -> `pass  # realcode-inlined: from model import Encoder, Decoder, Seq2Seq / pass  # realcode-dropped: from utils import load_dataset`: the package's own import (model.py is pasted above); utils.load_dataset reads Multi30k through torchtext and spaCy, replaced by the driver's synthetic batches
#   - `src = src.data.cuda() / trg = trg.data.cuda()` -> `src = src.data / trg = trg.data`: on the CPU (the script moves everything to CUDA unconditionally)
#   - `src, trg = src.cuda(), trg.cuda()` -> `src, trg = src, trg`: on the CPU (the script moves everything to CUDA unconditionally)
#   - `if __name__ == "__main__": / try: / main() / except KeyboardInterrupt as e: / print("[STOP]", e)` -> `if __name__ == "__main__": / pass  # realcode-dropped: main() (its dataset, torchtext's Multi30k; the driver below runs its steps)`: main() loads Multi30k and asserts CUDA; the driver cell runs its steps on synthetic batches
# realcode-input: src_batches = randint(2, 20, 3, 7, 4)
# realcode-input: trg_batches = randint(2, 22, 3, 6, 4)
# realcode-output: val_loss_before val_loss_after seq2seq.*
# realcode-shape-only: val_loss_after seq2seq (trained with teacher forcing drawn by random.random())
# %% realcode: model.py

import math
import torch
import random
from torch import nn
from torch.autograd import Variable
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, input_size, embed_size, hidden_size,
                 n_layers=1, dropout=0.5):
        super(Encoder, self).__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.embed_size = embed_size
        self.embed = nn.Embedding(input_size, embed_size)
        self.gru = nn.GRU(embed_size, hidden_size, n_layers,
                          dropout=dropout, bidirectional=True)

    def forward(self, src, hidden=None):
        embedded = self.embed(src)
        outputs, hidden = self.gru(embedded, hidden)
        # sum bidirectional outputs
        outputs = (outputs[:, :, :self.hidden_size] +
                   outputs[:, :, self.hidden_size:])
        return outputs, hidden


class Attention(nn.Module):
    def __init__(self, hidden_size):
        super(Attention, self).__init__()
        self.hidden_size = hidden_size
        self.attn = nn.Linear(self.hidden_size * 2, hidden_size)
        self.v = nn.Parameter(torch.rand(hidden_size))
        stdv = 1. / math.sqrt(self.v.size(0))
        self.v.data.uniform_(-stdv, stdv)

    def forward(self, hidden, encoder_outputs):
        timestep = encoder_outputs.size(0)
        h = hidden.repeat(timestep, 1, 1).transpose(0, 1)
        encoder_outputs = encoder_outputs.transpose(0, 1)  # [B*T*H]
        attn_energies = self.score(h, encoder_outputs)
        return F.softmax(attn_energies, dim=1).unsqueeze(1)

    def score(self, hidden, encoder_outputs):
        # [B*T*2H]->[B*T*H]
        energy = F.relu(self.attn(torch.cat([hidden, encoder_outputs], 2)))
        energy = energy.transpose(1, 2)  # [B*H*T]
        v = self.v.repeat(encoder_outputs.size(0), 1).unsqueeze(1)  # [B*1*H]
        energy = torch.bmm(v, energy)  # [B*1*T]
        return energy.squeeze(1)  # [B*T]


class Decoder(nn.Module):
    def __init__(self, embed_size, hidden_size, output_size,
                 n_layers=1, dropout=0.2):
        super(Decoder, self).__init__()
        self.embed_size = embed_size
        self.hidden_size = hidden_size
        self.output_size = output_size
        self.n_layers = n_layers

        self.embed = nn.Embedding(output_size, embed_size)
        self.dropout = nn.Dropout(dropout, inplace=True)
        self.attention = Attention(hidden_size)
        self.gru = nn.GRU(hidden_size + embed_size, hidden_size,
                          n_layers, dropout=dropout)
        self.out = nn.Linear(hidden_size * 2, output_size)

    def forward(self, input, last_hidden, encoder_outputs):
        # Get the embedding of the current input word (last output word)
        embedded = self.embed(input).unsqueeze(0)  # (1,B,N)
        embedded = self.dropout(embedded)
        # Calculate attention weights and apply to encoder outputs
        attn_weights = self.attention(last_hidden[-1], encoder_outputs)
        context = attn_weights.bmm(encoder_outputs.transpose(0, 1))  # (B,1,N)
        context = context.transpose(0, 1)  # (1,B,N)
        # Combine embedded input word and attended context, run through RNN
        rnn_input = torch.cat([embedded, context], 2)
        output, hidden = self.gru(rnn_input, last_hidden)
        output = output.squeeze(0)  # (1,B,N) -> (B,N)
        context = context.squeeze(0)
        output = self.out(torch.cat([output, context], 1))
        output = F.log_softmax(output, dim=1)
        return output, hidden, attn_weights


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder):
        super(Seq2Seq, self).__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, trg, teacher_forcing_ratio=0.5):
        batch_size = src.size(1)
        max_len = trg.size(0)
        vocab_size = self.decoder.output_size
        outputs = Variable(torch.zeros(max_len, batch_size, vocab_size))

        encoder_output, hidden = self.encoder(src)
        hidden = hidden[:self.decoder.n_layers]
        output = Variable(trg.data[0, :])  # sos
        for t in range(1, max_len):
            output, hidden, attn_weights = self.decoder(
                    output, hidden, encoder_output)
            outputs[t] = output
            is_teacher = random.random() < teacher_forcing_ratio
            top1 = output.data.max(1)[1]
            output = Variable(trg.data[t] if is_teacher else top1)
        return outputs

# %% realcode: train.py

import os
import math
pass  # realcode-dropped: import argparse
import torch
from torch import optim
from torch.autograd import Variable
from torch.nn.utils import clip_grad_norm_
from torch.nn import functional as F
pass  # realcode-inlined: from model import Encoder, Decoder, Seq2Seq
pass  # realcode-dropped: from utils import load_dataset


def parse_arguments():
    p = argparse.ArgumentParser(description='Hyperparams')
    p.add_argument('-epochs', type=int, default=100,
                   help='number of epochs for train')
    p.add_argument('-batch_size', type=int, default=32,
                   help='number of epochs for train')
    p.add_argument('-lr', type=float, default=0.0001,
                   help='initial learning rate')
    p.add_argument('-grad_clip', type=float, default=10.0,
                   help='in case of gradient explosion')
    return p.parse_args()


def evaluate(model, val_iter, vocab_size, DE, EN):
    with torch.no_grad():
        model.eval()
        pad = EN.vocab.stoi['<pad>']
        total_loss = 0
        for b, batch in enumerate(val_iter):
            src, len_src = batch.src
            trg, len_trg = batch.trg
            src = src.data
            trg = trg.data
            output = model(src, trg, teacher_forcing_ratio=0.0)
            loss = F.nll_loss(output[1:].view(-1, vocab_size),
                                   trg[1:].contiguous().view(-1),
                                   ignore_index=pad)
            total_loss += loss.data.item()
        return total_loss / len(val_iter)


def train(e, model, optimizer, train_iter, vocab_size, grad_clip, DE, EN):
    model.train()
    total_loss = 0
    pad = EN.vocab.stoi['<pad>']
    for b, batch in enumerate(train_iter):
        src, len_src = batch.src
        trg, len_trg = batch.trg
        src, trg = src, trg
        optimizer.zero_grad()
        output = model(src, trg)
        loss = F.nll_loss(output[1:].view(-1, vocab_size),
                               trg[1:].contiguous().view(-1),
                               ignore_index=pad)
        loss.backward()
        clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        total_loss += loss.data.item()

        if b % 100 == 0 and b != 0:
            total_loss = total_loss / 100
            print("[%d][loss:%5.2f][pp:%5.2f]" %
                  (b, total_loss, math.exp(total_loss)))
            total_loss = 0


def main():
    args = parse_arguments()
    hidden_size = 512
    embed_size = 256
    assert torch.cuda.is_available()

    print("[!] preparing dataset...")
    train_iter, val_iter, test_iter, DE, EN = load_dataset(args.batch_size)
    de_size, en_size = len(DE.vocab), len(EN.vocab)
    print("[TRAIN]:%d (dataset:%d)\t[TEST]:%d (dataset:%d)"
          % (len(train_iter), len(train_iter.dataset),
             len(test_iter), len(test_iter.dataset)))
    print("[DE_vocab]:%d [en_vocab]:%d" % (de_size, en_size))

    print("[!] Instantiating models...")
    encoder = Encoder(de_size, embed_size, hidden_size,
                      n_layers=2, dropout=0.5)
    decoder = Decoder(embed_size, hidden_size, en_size,
                      n_layers=1, dropout=0.5)
    seq2seq = Seq2Seq(encoder, decoder).cuda()
    optimizer = optim.Adam(seq2seq.parameters(), lr=args.lr)
    print(seq2seq)

    best_val_loss = None
    for e in range(1, args.epochs+1):
        train(e, seq2seq, optimizer, train_iter,
              en_size, args.grad_clip, DE, EN)
        val_loss = evaluate(seq2seq, val_iter, en_size, DE, EN)
        print("[Epoch:%d] val_loss:%5.3f | val_pp:%5.2fS"
              % (e, val_loss, math.exp(val_loss)))

        # Save the model if the validation loss is the best we've seen so far.
        if not best_val_loss or val_loss < best_val_loss:
            print("[!] saving model...")
            if not os.path.isdir(".save"):
                os.makedirs(".save")
            torch.save(seq2seq.state_dict(), './.save/seq2seq_%d.pt' % (e))
            best_val_loss = val_loss
    test_loss = evaluate(seq2seq, test_iter, en_size, DE, EN)
    print("[TEST] loss:%5.2f" % test_loss)


if __name__ == "__main__":
    pass  # realcode-dropped: main() (its dataset, torchtext's Multi30k; the driver below runs its steps)

# %% realcode: driver cell, main()'s steps on synthetic batches
class Field:  # realcode: torchtext's vocabulary, as train() uses it
    class vocab:
        stoi = {'<unk>': 0, '<pad>': 1, '<sos>': 2, '<eos>': 3}
class Batch:  # realcode: a torchtext batch: (tensor, lengths) pairs
    def __init__(self, src, trg):
        self.src = (src, torch.full((src.size(1),), src.size(0)))
        self.trg = (trg, torch.full((trg.size(1),), trg.size(0)))
DE, EN = Field(), Field()
train_iter = [Batch(src_batches[0], trg_batches[0]), Batch(src_batches[1], trg_batches[1])]
val_iter = [Batch(src_batches[2], trg_batches[2])]
class args:  # realcode: parse_arguments()'s defaults, 1 epoch
    epochs = 1; batch_size = 4; lr = 0.0001; grad_clip = 10.0
hidden_size = 16
embed_size = 8
de_size, en_size = 20, 22
encoder = Encoder(de_size, embed_size, hidden_size,
                  n_layers=2, dropout=0.0)
decoder = Decoder(embed_size, hidden_size, en_size,
                  n_layers=1, dropout=0.0)
seq2seq = Seq2Seq(encoder, decoder)
optimizer = optim.Adam(seq2seq.parameters(), lr=args.lr)
print(seq2seq)
# %% realcode-load: seq2seq
val_loss_before = evaluate(seq2seq, val_iter, en_size, DE, EN)
for e in range(1, args.epochs+1):
    train(e, seq2seq, optimizer, train_iter,
          en_size, args.grad_clip, DE, EN)
    val_loss = evaluate(seq2seq, val_iter, en_size, DE, EN)
    print("[Epoch:%d] val_loss:%5.3f | val_pp:%5.2fS"
          % (e, val_loss, math.exp(val_loss)))
val_loss_after = val_loss
