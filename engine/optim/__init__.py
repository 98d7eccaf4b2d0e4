"""torch.optim: SGD, Adam, AdamW, RMSprop, Adagrad and learning-rate schedulers."""
from . import lr_scheduler
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
