"""torch.optim: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, LBFGS, learning-rate schedulers and
weight averaging (swa_utils)."""
from . import lr_scheduler
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW
from . import adamw
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adadelta import Adadelta
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .lbfgs import LBFGS
from . import swa_utils

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "LBFGS", "lr_scheduler", "swa_utils"]
