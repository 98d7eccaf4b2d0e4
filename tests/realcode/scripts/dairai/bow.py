# realcode: dair-ai/ML-Notebooks @ 2dbc350cf277b5e1363676b94e2767957dea0f51
# realcode: https://github.com/dair-ai/ML-Notebooks/blob/2dbc350cf277b5e1363676b94e2767957dea0f51/notebooks/bow.ipynb
# realcode: kept as written except for these adaptations:
#   - the notebook's code cells in order, each after a '# %%' line
#   - cell 3 (%%capture; !wget of neubig/nn4nlp-code's data/classes/{dev,test,train}.txt, !mkdir, !cp) -> dropped: the download
#   - `train_data = read_data('data/classes/train.txt')` and `test_data = read_data('data/classes/test.txt')` -> the same processing as read_data's (lower, strip, split on " ||| ") of small synthetic files in the data's format (label ||| sentence), written out in the cell; read_data is kept as written
#   - load markers after test_model and model are built (xavier_uniform_ draws): PyTorch's values are copied in
# realcode-output: number_of_words number_of_tags model.*
# %% (notebook cell 1)
import torch
import random
import torch.nn as nn
# %% (notebook cell 3)
pass  # realcode-dropped: cell 3, the download of the data files (%%capture, !wget, !mkdir, !cp)
# %% (notebook cell 5)
# function to read in data, process each line and split columns by " ||| "
def read_data(filename):
    data = []
    with open(filename, 'r') as f:
        for line in f:
            line = line.lower().strip()
            line = line.split(' ||| ')
            data.append(line)
    return data

train_txt = '3 ||| a gorgeous , witty , seductive movie .\n1 ||| the story is too thin and the jokes fall flat .\n4 ||| one of the best films of the year .\n0 ||| a dull , lifeless and boring mess .\n2 ||| it is a movie about a dog .\n3 ||| the actors are charming and the story is witty .\n1 ||| a thin story with boring actors .\n4 ||| a gorgeous and seductive film , one of the best .\n0 ||| the worst movie of the year , a mess .\n2 ||| the film is about the story of a year .\n3 ||| witty jokes and a charming dog .\n1 ||| the jokes are too dull .\n4 ||| i love dogs and i love this movie .\n2 ||| i saw the dogs .\n'  # realcode: data/classes/train.txt, synthetic lines in its format
train_data = [line.lower().strip().split(' ||| ') for line in train_txt.splitlines()]  # realcode: read_data('data/classes/train.txt')
test_txt = '4 ||| the best movie of the year .\n0 ||| a boring , awful mess .\n2 ||| a film about actors .\n3 ||| a witty and gorgeous story .\n'  # realcode: data/classes/test.txt, synthetic lines in its format
test_data = [line.lower().strip().split(' ||| ') for line in test_txt.splitlines()]  # realcode: read_data('data/classes/test.txt')
# %% (notebook cell 7)
# creating the word and tag indices
word_to_index = {}
word_to_index["<unk>"] = len(word_to_index) # adds <UNK> to dictionary
tag_to_index = {}

# create word to index dictionary and tag to index dictionary from data
def create_dict(data, check_unk=False):
    for line in data:
        for word in line[1].split(" "):
            if check_unk == False:
                if word not in word_to_index:
                    word_to_index[word] = len(word_to_index)
            else:
                if word not in word_to_index:
                    word_to_index[word] = word_to_index["<unk>"]

        if line[0] not in tag_to_index:
            tag_to_index[line[0]] = len(tag_to_index)

create_dict(train_data)
create_dict(test_data, check_unk=True)

# create word and tag tensors from data
def create_tensor(data):
    for line in data:
        yield([word_to_index[word] for word in line[1].split(" ")], tag_to_index[line[0]])

train_data = list(create_tensor(train_data))
test_data = list(create_tensor(test_data))

number_of_words = len(word_to_index)
number_of_tags = len(tag_to_index)
# %% (notebook cell 9)
# cpu or gpu
device = "cuda" if torch.cuda.is_available() else "cpu"

# create a simple neural network with embedding layer, bias, and xavier initialization
class BoW(torch.nn.Module):
    def __init__(self, nwords, ntags):
        super(BoW, self).__init__()
        self.embedding = nn.Embedding(nwords, ntags)
        nn.init.xavier_uniform_(self.embedding.weight)

        type = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor
        self.bias = torch.zeros(ntags, requires_grad=True).type(type)

    def forward(self, x):
        emb = self.embedding(x) # seq_len x ntags (for each seq) 
        out = torch.sum(emb, dim=0) + self.bias # ntags
        out = out.view(1, -1) # reshape to (1, ntags)
        return out
# %% (notebook cell 11)
# function to convert sentence into tensor using word_to_index dictionary
def sentence_to_tensor(sentence):
    return torch.LongTensor([word_to_index[word] for word in sentence.split(" ")])

# test the sentence_to_tensor function
type = torch.cuda.LongTensor if torch.cuda.is_available() else torch.LongTensor
out = sentence_to_tensor("i love dogs").type(type)
test_model = BoW(number_of_words, number_of_tags).to(device)
# %% realcode-load: test_model
test_model(out)
# %% (notebook cell 13)
# train and test the BoW model
model = BoW(number_of_words, number_of_tags).to(device)
# %% realcode-load: model
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters())
type = torch.LongTensor

if torch.cuda.is_available():
    model.to(device)
    type = torch.cuda.LongTensor

# perform training of the Bow model
def train_bow(model, optimizer, criterion, train_data):
    for ITER in range(10):
        # perform training
        model.train()
        random.shuffle(train_data)
        total_loss = 0.0
        train_correct = 0
        for sentence, tag in train_data:
            sentence = torch.tensor(sentence).type(type)
            tag = torch.tensor([tag]).type(type)
            output = model(sentence)
            predicted = torch.argmax(output.data.detach()).item()
            
            loss = criterion(output, tag)
            total_loss += loss.item()

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

            if predicted == tag: train_correct+=1

        # perform testing of the model
        model.eval()
        test_correct = 0
        for sentence, tag in test_data:
            sentence = torch.tensor(sentence).type(type)
            output = model(sentence)
            predicted = torch.argmax(output.data.detach()).item()
            if predicted == tag: test_correct += 1
        
        # print model performance results
        log = f'ITER: {ITER+1} | ' \
            f'train loss/sent: {total_loss/len(train_data):.4f} | ' \
            f'train accuracy: {train_correct/len(train_data):.4f} | ' \
            f'test accuracy: {test_correct/len(test_data):.4f}'
        print(log)

# call the train_bow function
train_bow(model, optimizer, criterion, train_data)
