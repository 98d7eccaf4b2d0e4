# realcode: kaushalshetty/Structured-Self-Attention @ 84ed64f9cee75f84a5d871a46508a308182e4a6d
# realcode: https://github.com/kaushalshetty/Structured-Self-Attention/blob/84ed64f9cee75f84a5d871a46508a308182e4a6d/attention/model.py
# realcode: https://github.com/kaushalshetty/Structured-Self-Attention/blob/84ed64f9cee75f84a5d871a46508a308182e4a6d/attention/train.py
# realcode: https://github.com/kaushalshetty/Structured-Self-Attention/blob/84ed64f9cee75f84a5d871a46508a308182e4a6d/classification.py
# realcode: kept as written except for these adaptations:
#   - attention/model.py, attention/train.py and classification.py as written, one after the other, each after a '# %%' line
#   - `import torch,keras` -> `import torch  # realcode: keras dropped from this import`: keras dropped (not installed beside the PyTorch that records the answers; model.py does not use it)
#   - `from attention.model import StructuredSelfAttention / from attention.train import train,get_activation_wts,evaluate / from utils.pretrained_glove_embeddings import load_glove_embeddings / from utils.data_loader import load_data_set / from visualization.attention_visualization import createHTML` -> `pass  # realcode-inlined: from attention.model import StructuredSelfAttention (pasted above) / pass  # realcode-inlined: from attention.train import train,get_activation_wts,evaluate (pasted above) / pass  # realcode-dropped: from utils.pretrained_glove_embeddings import load_glove_embeddings / pass  # realcode-dropped: from utils.data_loader import load_data_set / pass  # realcode-dropped: from visualization.attention_visualization import createHTML`: the repository's own model and train modules pasted above; the GloVe file loader (use_embeddings is False), the keras IMDB loader (replaced below) and the HTML writer (file output) dropped
#   - `from keras.preprocessing.sequence import pad_sequences` -> `pass  # realcode-dropped: from keras.preprocessing.sequence import pad_sequences`: dropped (keras; it serves only the dropped IMDB loader)
#   - `classification_type = sys.argv[1]` -> `classification_type = 'binary'  # realcode: sys.argv[1]`: the command-line argument becomes the value the README runs (`python classification.py binary`)
#   - `with open('config.json', 'r') as f: / params_set = json.load(f)` -> `params_set = {"epochs": 2, "use_regularization": "True", "C": 0.03, "clip": "True", "use_embeddings": "False", "attention_hops": 3}  # realcode: config.json, as json.load reads it (attention_hops 10 -> 3)`: config.json read in as the dict json.load makes of it (file I/O dropped); attention_hops 10 -> 3
#   - `with open('model_params.json', 'r') as f: / model_params = json.load(f)` -> `model_params = {"batch_size": 4, "vocab_size": 30, "timesteps": 10, "lstm_hidden_dimension": 8, "d_a": 12}  # realcode: model_params.json, shrunk`: model_params.json read in as a dict (file I/O dropped); batch_size 512 -> 4, vocab_size 20000 -> 30, timesteps 200 -> 10, lstm_hidden_dimension 50 -> 8, d_a 100 -> 12
#   - `createHTML(text, wts_add_list, filename)` -> `pass  # realcode-dropped: createHTML(text, wts_add_list, filename)`: dropped (writes an HTML file)
#   - `train_loader,x_test_pad,y_test,word_to_id = load_data_set(0,MAXLENGTH,model_params["vocab_size"],model_params['batch_size']) #loading imdb dataset` -> `# realcode: load_data_set's IMDB download and padding replaced by synthetic padded ids (inputs); its TensorDataset and DataLoader kept / x_train_pad, y_train, x_test_pad = x_train_ids.numpy(), y_train_ids.numpy(), x_test_ids.numpy() / word_to_id = {"<PAD>": 0, "<START>": 1, "<UNK>": 2, **{"w%d" % i: i for i in range(3, model_params["vocab_size"])}} / train_data = data_utils.TensorDataset(torch.from_numpy(x_train_pad).type(torch.LongTensor),torch.from_numpy(y_train).type(torch.DoubleTensor)) / train_loader = data_utils.DataLoader(train_data,batch_size=model_params['batch_size'],drop_last=True)`: the keras IMDB download and pad_sequences replaced by synthetic padded word ids (two training batches, five test rows) and a vocabulary of the ids; load_data_set's own TensorDataset and DataLoader (drop_last, no shuffling) kept
#   - `attention_model = StructuredSelfAttention(batch_size=train_loader.batch_size,lstm_hid_dim=model_params['lstm_hidden_dimension'],d_a = model_params["d_a"],r=params_set["attention_hops"],vocab_size=len(word_to_id),max_len=MAXLENGTH,type=0,n_classes=1,use_pretrained_embeddings=params_set["use_embeddings"],embeddings=embeddings) / ` -> `attention_model = StructuredSelfAttention(batch_size=train_loader.batch_size,lstm_hid_dim=model_params['lstm_hidden_dimension'],d_a = model_params["d_a"],r=params_set["attention_hops"],vocab_size=len(word_to_id),max_len=MAXLENGTH,type=0,n_classes=1,use_pretrained_embeddings=params_set["use_embeddings"],embeddings=embeddings) / # %% realcode-load: attention_model / if classification_type =='binary':  # realcode: the branch continues after the load marker / `: cell marker: PyTorch's initial weights are copied in (the `if` branch is split at the marker and goes on under the same test)
# realcode-input: x_train_ids = randint(0, 30, 8, 10)
# realcode-input: y_train_ids = randint(0, 2, 8)
# realcode-input: x_test_ids = randint(0, 30, 5, 10)
# realcode-output: attention_model.* wts
# realcode-shape-only: attention_model.linear_second.bias (its gradient is zero but for rounding: the softmax over the time steps cancels a per-hop bias; RMSprop scales that rounding noise up to steps of the learning rate)
# %% realcode: attention/model.py
import torch  # realcode: keras dropped from this import
import numpy as np
from torch.autograd import Variable
import torch.nn.functional as F
import torch.utils.data as data_utils
 
class StructuredSelfAttention(torch.nn.Module):
    """
    The class is an implementation of the paper A Structured Self-Attentive Sentence Embedding including regularization
    and without pruning. Slight modifications have been done for speedup
    """
   
    def __init__(self,batch_size,lstm_hid_dim,d_a,r,max_len,emb_dim=100,vocab_size=None,use_pretrained_embeddings = False,embeddings=None,type=0,n_classes = 1):
        """
        Initializes parameters suggested in paper
 
        Args:
            batch_size  : {int} batch_size used for training
            lstm_hid_dim: {int} hidden dimension for lstm
            d_a         : {int} hidden dimension for the dense layer
            r           : {int} attention-hops or attention heads
            max_len     : {int} number of lstm timesteps
            emb_dim     : {int} embeddings dimension
            vocab_size  : {int} size of the vocabulary
            use_pretrained_embeddings: {bool} use or train your own embeddings
            embeddings  : {torch.FloatTensor} loaded pretrained embeddings
            type        : [0,1] 0-->binary_classification 1-->multiclass classification
            n_classes   : {int} number of classes
 
        Returns:
            self
 
        Raises:
            Exception
        """
        super(StructuredSelfAttention,self).__init__()
       
        self.embeddings,emb_dim = self._load_embeddings(use_pretrained_embeddings,embeddings,vocab_size,emb_dim)
        self.lstm = torch.nn.LSTM(emb_dim,lstm_hid_dim,1,batch_first=True)
        self.linear_first = torch.nn.Linear(lstm_hid_dim,d_a)
        self.linear_first.bias.data.fill_(0)
        self.linear_second = torch.nn.Linear(d_a,r)
        self.linear_second.bias.data.fill_(0)
        self.n_classes = n_classes
        self.linear_final = torch.nn.Linear(lstm_hid_dim,self.n_classes)
        self.batch_size = batch_size       
        self.max_len = max_len
        self.lstm_hid_dim = lstm_hid_dim
        self.hidden_state = self.init_hidden()
        self.r = r
        self.type = type
                 
    def _load_embeddings(self,use_pretrained_embeddings,embeddings,vocab_size,emb_dim):
        """Load the embeddings based on flag"""
       
        if use_pretrained_embeddings is True and embeddings is None:
            raise Exception("Send a pretrained word embedding as an argument")
           
        if not use_pretrained_embeddings and vocab_size is None:
            raise Exception("Vocab size cannot be empty")
   
        if not use_pretrained_embeddings:
            word_embeddings = torch.nn.Embedding(vocab_size,emb_dim,padding_idx=0)
            
        elif use_pretrained_embeddings:
            word_embeddings = torch.nn.Embedding(embeddings.size(0), embeddings.size(1))
            word_embeddings.weight = torch.nn.Parameter(embeddings)
            emb_dim = embeddings.size(1)
            
        return word_embeddings,emb_dim
       
        
    def softmax(self,input, axis=1):
        """
        Softmax applied to axis=n
 
        Args:
           input: {Tensor,Variable} input on which softmax is to be applied
           axis : {int} axis on which softmax is to be applied
 
        Returns:
            softmaxed tensors
 
       
        """
 
        input_size = input.size()
        trans_input = input.transpose(axis, len(input_size)-1)
        trans_size = trans_input.size()
        input_2d = trans_input.contiguous().view(-1, trans_size[-1])
        soft_max_2d = F.softmax(input_2d)
        soft_max_nd = soft_max_2d.view(*trans_size)
        return soft_max_nd.transpose(axis, len(input_size)-1)
       
        
    def init_hidden(self):
        return (Variable(torch.zeros(1,self.batch_size,self.lstm_hid_dim)),Variable(torch.zeros(1,self.batch_size,self.lstm_hid_dim)))
       
        
    def forward(self,x):
        embeddings = self.embeddings(x)       
        outputs, self.hidden_state = self.lstm(embeddings.view(self.batch_size,self.max_len,-1),self.hidden_state)       
        x = F.tanh(self.linear_first(outputs))       
        x = self.linear_second(x)       
        x = self.softmax(x,1)       
        attention = x.transpose(1,2)       
        sentence_embeddings = attention@outputs       
        avg_sentence_embeddings = torch.sum(sentence_embeddings,1)/self.r
       
        if not bool(self.type):
            output = F.sigmoid(self.linear_final(avg_sentence_embeddings))
           
            return output,attention
        else:
            return F.log_softmax(self.linear_final(avg_sentence_embeddings)),attention
       
	   
	#Regularization
    def l2_matrix_norm(self,m):
        """
        Frobenius norm calculation
 
        Args:
           m: {Variable} ||AAT - I||
 
        Returns:
            regularized value
 
       
        """
        return torch.sum(torch.sum(torch.sum(m**2,1),1)**0.5).type(torch.DoubleTensor)# %% realcode: attention/train.py
import torch
from torch.autograd import Variable
 
def train(attention_model,train_loader,criterion,optimizer,epochs = 5,use_regularization = False,C=0,clip=False):
    """
        Training code
 
        Args:
            attention_model : {object} model
            train_loader    : {DataLoader} training data loaded into a dataloader
            optimizer       :  optimizer
            criterion       :  loss function. Must be BCELoss for binary_classification and NLLLoss for multiclass
            epochs          : {int} number of epochs
            use_regularizer : {bool} use penalization or not
            C               : {int} penalization coeff
            clip            : {bool} use gradient clipping or not
       
        Returns:
            accuracy and losses of the model
 
      
        """
    losses = []
    accuracy = []
    for i in range(epochs):
        print("Running EPOCH",i+1)
        total_loss = 0
        n_batches = 0
        correct = 0
       
        for batch_idx,train in enumerate(train_loader):
 
            attention_model.hidden_state = attention_model.init_hidden()
            x,y = Variable(train[0]),Variable(train[1])
            y_pred,att = attention_model(x)
           
            #penalization AAT - I
            if use_regularization:
                attT = att.transpose(1,2)
                identity = torch.eye(att.size(1))
                identity = Variable(identity.unsqueeze(0).expand(train_loader.batch_size,att.size(1),att.size(1)))
                penal = attention_model.l2_matrix_norm(att@attT - identity)
           
            
            if not bool(attention_model.type) :
                #binary classification
                #Adding a very small value to prevent BCELoss from outputting NaN's
                correct+=torch.eq(torch.round(y_pred.type(torch.DoubleTensor).squeeze(1)),y).data.sum()
                if use_regularization:
                    try:
                        loss = criterion(y_pred.type(torch.DoubleTensor).squeeze(1)+1e-8,y) + C * penal/train_loader.batch_size
                       
                    except RuntimeError:
                        raise Exception("BCELoss gets nan values on regularization. Either remove regularization or add very small values")
                else:
                    loss = criterion(y_pred.type(torch.DoubleTensor).squeeze(1),y)
                
            
            else:
                
                correct+=torch.eq(torch.max(y_pred,1)[1],y.type(torch.LongTensor)).data.sum()
                if use_regularization:
                    loss = criterion(y_pred,y) + (C * penal/train_loader.batch_size).type(torch.FloatTensor)
                else:
                    loss = criterion(y_pred,y)
               
 
            total_loss+=loss.data
            optimizer.zero_grad()
            loss.backward()
           
            #gradient clipping
            if clip:
                torch.nn.utils.clip_grad_norm(attention_model.parameters(),0.5)
            optimizer.step()
            n_batches+=1
           
        print("avg_loss is",total_loss/n_batches)
        print("Accuracy of the model",correct/(n_batches*train_loader.batch_size))
        losses.append(total_loss/n_batches)
        accuracy.append(correct/(n_batches*train_loader.batch_size))
    return losses,accuracy
 
 
def evaluate(attention_model,x_test,y_test):
    """
        cv results
 
        Args:
            attention_model : {object} model
            x_test          : {nplist} x_test
            y_test          : {nplist} y_test
       
        Returns:
            cv-accuracy
 
      
    """
   
    attention_model.batch_size = x_test.shape[0]
    attention_model.hidden_state = attention_model.init_hidden()
    x_test_var = Variable(torch.from_numpy(x_test).type(torch.LongTensor))
    y_test_pred,_ = attention_model(x_test_var)
    if bool(attention_model.type):
        y_preds = torch.max(y_test_pred,1)[1]
        y_test_var = Variable(torch.from_numpy(y_test).type(torch.LongTensor))
       
    else:
        y_preds = torch.round(y_test_pred.type(torch.DoubleTensor).squeeze(1))
        y_test_var = Variable(torch.from_numpy(y_test).type(torch.DoubleTensor))
       
    return torch.eq(y_preds,y_test_var).data.sum()/x_test_var.size(0)
 
def get_activation_wts(attention_model,x):
    """
        Get r attention heads
 
        Args:
            attention_model : {object} model
            x               : {torch.Variable} input whose weights we want
       
        Returns:
            r different attention weights
 
      
    """
    attention_model.batch_size = x.size(0)
    attention_model.hidden_state = attention_model.init_hidden()
    _,wts = attention_model(x)
    return wts# %% realcode: classification.py
#You can write your own classification file to use the module
pass  # realcode-inlined: from attention.model import StructuredSelfAttention (pasted above)
pass  # realcode-inlined: from attention.train import train,get_activation_wts,evaluate (pasted above)
pass  # realcode-dropped: from utils.pretrained_glove_embeddings import load_glove_embeddings
pass  # realcode-dropped: from utils.data_loader import load_data_set
pass  # realcode-dropped: from visualization.attention_visualization import createHTML
import torch
import numpy as np
from torch.autograd import Variable
pass  # realcode-dropped: from keras.preprocessing.sequence import pad_sequences
import torch.nn.functional as F
import torch.utils.data as data_utils
import os,sys
import json
 
classified = False
classification_type = 'binary'  # realcode: sys.argv[1]
 
def json_to_dict(json_set):
    for k,v in json_set.items():
        if v == 'False':
            json_set[k] = False
        elif v == 'True':
            json_set[k] = True
        else:
            json_set[k] = v
    return json_set
 
 
params_set = {"epochs": 2, "use_regularization": "True", "C": 0.03, "clip": "True", "use_embeddings": "False", "attention_hops": 3}  # realcode: config.json, as json.load reads it (attention_hops 10 -> 3)
 
model_params = {"batch_size": 4, "vocab_size": 30, "timesteps": 10, "lstm_hidden_dimension": 8, "d_a": 12}  # realcode: model_params.json, shrunk
 
params_set = json_to_dict(params_set)
model_params = json_to_dict(model_params)
 
print("Using settings:",params_set)
print("Using model settings",model_params)
 
def visualize_attention(wts,x_test_pad,word_to_id,filename):
    wts_add = torch.sum(wts,1)
    wts_add_np = wts_add.data.numpy()
    wts_add_list = wts_add_np.tolist()
    id_to_word = {v:k for k,v in word_to_id.items()}
    text= []
    for test in x_test_pad:
        text.append(" ".join([id_to_word.get(i) for i in test]))
    pass  # realcode-dropped: createHTML(text, wts_add_list, filename)
    print("Attention visualization created for {} samples".format(len(x_test_pad)))
    return
 
def binary_classfication(attention_model,train_loader,epochs=5,use_regularization=True,C=1.0,clip=True):
    loss = torch.nn.BCELoss()
    optimizer = torch.optim.RMSprop(attention_model.parameters())
    train(attention_model,train_loader,loss,optimizer,epochs,use_regularization,C,clip)
 
def multiclass_classification(attention_model,train_loader,epochs=5,use_regularization=True,C=1.0,clip=True):
    loss = torch.nn.NLLLoss()
    optimizer = torch.optim.RMSprop(attention_model.parameters())
    train(attention_model,train_loader,loss,optimizer,epochs,use_regularization,C,clip)
 
 
 
MAXLENGTH = model_params['timesteps']
if classification_type =='binary':
 
    # realcode: load_data_set's IMDB download and padding replaced by synthetic padded ids (inputs); its TensorDataset and DataLoader kept
    x_train_pad, y_train, x_test_pad = x_train_ids.numpy(), y_train_ids.numpy(), x_test_ids.numpy()
    word_to_id = {"<PAD>": 0, "<START>": 1, "<UNK>": 2, **{"w%d" % i: i for i in range(3, model_params["vocab_size"])}}
    train_data = data_utils.TensorDataset(torch.from_numpy(x_train_pad).type(torch.LongTensor),torch.from_numpy(y_train).type(torch.DoubleTensor))
    train_loader = data_utils.DataLoader(train_data,batch_size=model_params['batch_size'],drop_last=True)
 
 
    if params_set["use_embeddings"]:
        embeddings = load_glove_embeddings("glove/glove.6B.50d.txt",word_to_id,50)
    else:
        embeddings = None
    #Can use pretrained embeddings by passing in the embeddings and setting the use_pretrained_embeddings=True
    attention_model = StructuredSelfAttention(batch_size=train_loader.batch_size,lstm_hid_dim=model_params['lstm_hidden_dimension'],d_a = model_params["d_a"],r=params_set["attention_hops"],vocab_size=len(word_to_id),max_len=MAXLENGTH,type=0,n_classes=1,use_pretrained_embeddings=params_set["use_embeddings"],embeddings=embeddings)
# %% realcode-load: attention_model
if classification_type =='binary':  # realcode: the branch continues after the load marker
 
    #Can set use_regularization=True for penalization and clip=True for gradient clipping
    binary_classfication(attention_model,train_loader=train_loader,epochs=params_set["epochs"],use_regularization=params_set["use_regularization"],C=params_set["C"],clip=params_set["clip"])
    classified = True
    #wts = get_activation_wts(binary_attention_model,Variable(torch.from_numpy(x_test_pad[:]).type(torch.LongTensor)))
    #print("Attention weights for the testing data in binary classification are:",wts)
 
 
if classification_type == 'multiclass':
    train_loader,train_set,test_set,x_test_pad,word_to_id = load_data_set(1,MAXLENGTH,model_params["vocab_size"],model_params['batch_size']) #load the reuters dataset
    #Using pretrained embeddings
    if params_set["use_embeddings"]:
        embeddings = load_glove_embeddings("glove/glove.6B.50d.txt",word_to_id,50)
    else:
        embeddings = None
    attention_model = StructuredSelfAttention(batch_size=train_loader.batch_size,lstm_hid_dim=model_params['lstm_hidden_dimension'],d_a = model_params["d_a"],r=params_set["attention_hops"],vocab_size=len(word_to_id),max_len=MAXLENGTH,type=1,n_classes=46,use_pretrained_embeddings=params_set["use_embeddings"],embeddings=embeddings)
 
    #Using regularization and gradient clipping at 0.5 (currently unparameterized)
    multiclass_classification(attention_model,train_loader,epochs=params_set["epochs"],use_regularization=params_set["use_regularization"],C=params_set["C"],clip=params_set["clip"])
    classified=True
    #wts = get_activation_wts(multiclass_attention_model,Variable(torch.from_numpy(x_test_pad[:]).type(torch.LongTensor)))
    #print("Attention weights for the data in multiclass classification are:",wts)
if classified:
    test_last_idx = 100
    wts = get_activation_wts(attention_model,Variable(torch.from_numpy(x_test_pad[:test_last_idx]).type(torch.LongTensor)))
    print(wts.size())
    visualize_attention(wts,x_test_pad[:test_last_idx],word_to_id,filename='attention.html')
