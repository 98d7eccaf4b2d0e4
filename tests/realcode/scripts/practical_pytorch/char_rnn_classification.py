# realcode: spro/practical-pytorch @ c520c52e68e945d88fff563dba1c028b6ec0197b
# realcode: https://github.com/spro/practical-pytorch/blob/c520c52e68e945d88fff563dba1c028b6ec0197b/char-rnn-classification/char-rnn-classification.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells, one after the other; cell 34 (the loss plot) is left out, and cell 36's confusion-matrix figure
#   - the names files (glob over data/names/*.txt, each read with open) are replaced by NAMES, six names in each of four languages, accents kept
#   - `return output, loss.data[0]` -> `return output, loss.item()`: PyTorch 0.3's indexing of a 0-dim tensor is an IndexError in today's PyTorch
#   - 100000 training steps -> 60 (print every 20, a loss average every 10), 10000 confusion samples -> 30; a load marker after the RNN is built
#   - the training pairs are drawn with random.choice: the session's random module is seeded as CPython's is, so every mode draws the same pairs
# realcode-output: all_losses confusion output rnn.* n_categories
# realcode-rtol: 2e-4 (all_losses holds Python floats read from float32 losses by item(): float32's tolerance)
# %% realcode: notebook cell 3
pass  # realcode-dropped: import glob (the data files)

all_filenames = ['../data/names/Italian.txt', '../data/names/Polish.txt', '../data/names/French.txt', '../data/names/Czech.txt']  # realcode: glob.glob('../data/names/*.txt'): the files are replaced by NAMES below
print(all_filenames)
NAMES = {  # realcode: a few names per language instead of data/names/*.txt (accents kept, for unicode_to_ascii)
    'Italian': ['Abandonato', 'Abatangelo', 'Àlvaro', 'Bianchi', 'Cassarà', 'Niccolò'],
    'Polish': ['Ślusàrski', 'Adamczak', 'Kowalski', 'Łukasik', 'Żuławski', 'Wójcik'],
    'French': ['Abel', 'Béringer', 'Dubois', 'Lefèvre', 'Noël', 'Rousseau'],
    'Czech': ['Abl', 'Dvořák', 'Novák', 'Růžička', 'Svoboda', 'Černý'],
}
# %% realcode: notebook cell 4
import unicodedata
import string

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)

# Turn a Unicode string to plain ASCII, thanks to http://stackoverflow.com/a/518232/2809427
def unicode_to_ascii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
        and c in all_letters
    )

print(unicode_to_ascii('Ślusàrski'))
# %% realcode: notebook cell 5
# Build the category_lines dictionary, a list of names per language
category_lines = {}
all_categories = []

# Read a file and split into lines
def readLines(filename):
    lines = open(filename).read().strip().split('\n')
    return [unicode_to_ascii(line) for line in lines]

for filename in all_filenames:
    category = filename.split('/')[-1].split('.')[0]
    all_categories.append(category)
    lines = [unicode_to_ascii(line) for line in NAMES[category]]  # realcode: readLines(filename) reads the file's lines
    category_lines[category] = lines

n_categories = len(all_categories)
print('n_categories =', n_categories)
# %% realcode: notebook cell 7
print(category_lines['Italian'][:5])
# %% realcode: notebook cell 9
import torch

# Just for demonstration, turn a letter into a <1 x n_letters> Tensor
def letter_to_tensor(letter):
    tensor = torch.zeros(1, n_letters)
    letter_index = all_letters.find(letter)
    tensor[0][letter_index] = 1
    return tensor

# Turn a line into a <line_length x 1 x n_letters>,
# or an array of one-hot letter vectors
def line_to_tensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        letter_index = all_letters.find(letter)
        tensor[li][0][letter_index] = 1
    return tensor
# %% realcode: notebook cell 10
print(letter_to_tensor('J'))
# %% realcode: notebook cell 11
print(line_to_tensor('Jones').size())
# %% realcode: notebook cell 13
import torch.nn as nn
from torch.autograd import Variable

class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.output_size = output_size
        
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax()
    
    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.i2o(combined)
        output = self.softmax(output)
        return output, hidden

    def init_hidden(self):
        return Variable(torch.zeros(1, self.hidden_size))
# %% realcode: notebook cell 15
n_hidden = 128
rnn = RNN(n_letters, n_hidden, n_categories)
# %% realcode-load: rnn
# %% realcode: notebook cell 17
input = Variable(letter_to_tensor('A'))
hidden = rnn.init_hidden()

output, next_hidden = rnn(input, hidden)
print('output.size =', output.size())
# %% realcode: notebook cell 19
input = Variable(line_to_tensor('Albert'))
hidden = Variable(torch.zeros(1, n_hidden))

output, next_hidden = rnn(input[0], hidden)
print(output)
# %% realcode: notebook cell 22
def category_from_output(output):
    top_n, top_i = output.data.topk(1) # Tensor out of Variable with .data
    category_i = top_i[0][0]
    return all_categories[category_i], category_i

print(category_from_output(output))
# %% realcode: notebook cell 24
import random

def random_training_pair():                                                                                                               
    category = random.choice(all_categories)
    line = random.choice(category_lines[category])
    category_tensor = Variable(torch.LongTensor([all_categories.index(category)]))
    line_tensor = Variable(line_to_tensor(line))
    return category, line, category_tensor, line_tensor

for i in range(10):
    category, line, category_tensor, line_tensor = random_training_pair()
    print('category =', category, '/ line =', line)
# %% realcode: notebook cell 26
criterion = nn.NLLLoss()
# %% realcode: notebook cell 28
learning_rate = 0.005 # If you set this too high, it might explode. If too low, it might not learn
optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)
# %% realcode: notebook cell 30
def train(category_tensor, line_tensor):
    rnn.zero_grad()
    hidden = rnn.init_hidden()
    
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)

    loss = criterion(output, category_tensor)
    loss.backward()

    optimizer.step()

    return output, loss.item()  # realcode: loss.data[0] (PyTorch 0.3) is an IndexError in today's PyTorch
# %% realcode: notebook cell 32
import time
import math

n_epochs = 60  # realcode: 100000 -> 60
print_every = 20  # realcode: 5000 -> 20
plot_every = 10  # realcode: 1000 -> 10

# Keep track of losses for plotting
current_loss = 0
all_losses = []

def time_since(since):
    now = time.time()
    s = now - since
    m = math.floor(s / 60)
    s -= m * 60
    return '%dm %ds' % (m, s)

start = time.time()

for epoch in range(1, n_epochs + 1):
    # Get a random training input and target
    category, line, category_tensor, line_tensor = random_training_pair()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss
    
    # Print epoch number, loss, name and guess
    if epoch % print_every == 0:
        guess, guess_i = category_from_output(output)
        correct = '✓' if guess == category else '✗ (%s)' % category
        print('%d %d%% (%s) %.4f %s / %s %s' % (epoch, epoch / n_epochs * 100, time_since(start), loss, line, guess, correct))

    # Add current loss avg to list of losses
    if epoch % plot_every == 0:
        all_losses.append(current_loss / plot_every)
        current_loss = 0
# %% realcode: notebook cell 36
# Keep track of correct guesses in a confusion matrix
confusion = torch.zeros(n_categories, n_categories)
n_confusion = 30  # realcode: 10000 -> 30

# Just return an output given a line
def evaluate(line_tensor):
    hidden = rnn.init_hidden()
    
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    
    return output

# Go through a bunch of examples and record which are correctly guessed
for i in range(n_confusion):
    category, line, category_tensor, line_tensor = random_training_pair()
    output = evaluate(line_tensor)
    guess, guess_i = category_from_output(output)
    category_i = all_categories.index(category)
    confusion[category_i][guess_i] += 1

# Normalize by dividing every row by its sum
for i in range(n_categories):
    confusion[i] = confusion[i] / confusion[i].sum()

pass  # realcode: the confusion matrix's figure dropped
# %% realcode: notebook cell 39
def predict(input_line, n_predictions=3):
    print('\n> %s' % input_line)
    output = evaluate(Variable(line_to_tensor(input_line)))

    # Get top N categories
    topv, topi = output.data.topk(n_predictions, 1, True)
    predictions = []

    for i in range(n_predictions):
        value = topv[0][i]
        category_index = topi[0][i]
        print('(%.2f) %s' % (value, all_categories[category_index]))
        predictions.append([value, all_categories[category_index]])

predict('Dovesky')
predict('Jackson')
predict('Satoshi')
