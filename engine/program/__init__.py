"""Programs: the sandboxed PyTorch-subset interpreter (SPEC section 2).

``run(source, namespace, limits)`` parses a program with ``ast.parse``, compiles
the tree into closures (the interpreter never hands program text to exec, eval
or compile) and runs it against a session's ``Namespace`` under ``Limits``,
returning an ``Outcome``. Programs see ``torch``, ``nn``, ``F``, ``optim`` and
``math`` as views of the engine, and only ever hold values the interpreter owns
or wraps; see access.py for the gate every attribute goes through.
"""
from ..limits import LimitExceeded, Limits
from .errors import ProgramError
from .namespace import Namespace
from .runner import Outcome, run

__all__ = ["run", "Outcome", "ProgramError", "Namespace", "Limits", "LimitExceeded"]
