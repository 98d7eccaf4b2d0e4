"""One budget for the memory the API process spends reading and parsing request bodies and WebSocket
messages, shared by every request and connection (attack report F5).

The API process serves every user, and a large body or message costs it a multiple of its size while
it is read and parsed: a 66 MB WebSocket text frame is held by the protocol's buffer, its payload,
its text and the copy sent to the parser process; a 60 MB JSON body of zeros comes back from the
parser as 240 MB of int64. Twelve such frames sent at once took the API process from 288 MB to
2.6 GB. Every body or message past ``FREE_BYTES`` is now charged, before it is parsed and as its
bytes arrive, an estimate of what it costs (``cost``) against ``parse_budget_bytes``; what it holds
is given back when its request is answered, or when its message has been handled (a run's message:
when the run ends, as its inputs are held until then). A body or message that would pass the budget
is refused at once and its bytes are not kept: 503 with ``Retry-After`` over HTTP, an ``error``
event with ``"status": 503`` and close code 1013 over a WebSocket (the protocol is mid-frame, so
the connection cannot go on). One whose cost is more than the whole budget could never be read:
413. Small bodies and messages (the common case) are never charged, so they never wait on large ones.

Everything here runs on the event loop's thread: the accounting needs no lock.
"""
from .body_parser import PROCESS_BYTES

FREE_BYTES = 64 << 10   # bodies and messages up to this size are not charged
# What one byte of a body or message costs the API process, at most, while it is read and parsed.
# Parsed here (up to PROCESS_BYTES): ``json.loads`` builds Python objects, up to ~27 bytes for each
# byte of JSON (``[[],[],...]``: a list object per three bytes). Past it (the parser process): the
# bytes as read (a body's chunks and their join; a frame's buffer, payload and text, and the text
# encoded for the parser) and the decoded tensors the parser sends back (up to 4x: ``0,`` becomes 8
# bytes of int64). Measured peaks: 5.3x for a 60 MB body of zeros, 5.9x for the same as a WebSocket
# run, 4.4x for a 66 MB junk frame.
INLINE_COST = 32
LARGE_COST = 8

RETRY_AFTER_S = 1


def cost(nbytes, partial=False):
    """The budget a body or message of ``nbytes`` is charged (0 up to FREE_BYTES); ``partial``: the first
    ``nbytes`` of one whose size is not known yet (charged as a large one: what is held so far is its bytes,
    and one that ends up parsed here is charged in full when it is complete)."""
    if nbytes <= FREE_BYTES:
        return 0
    return nbytes * (INLINE_COST if nbytes <= PROCESS_BYTES and not partial else LARGE_COST)


class ParseBudget:
    """Bytes the API process may spend at once on bodies and messages being read and parsed."""

    def __init__(self, total):
        self.total = total
        self.used = 0
        self.refused = 0   # bodies and messages turned away (the metrics read it)

    def charge(self):
        return Charge(self)


class Charge:
    """What one body or message holds of the budget: grown as its bytes arrive, released once."""
    __slots__ = ("budget", "held")

    def __init__(self, budget):
        self.budget = budget
        self.held = 0

    def cover(self, nbytes, partial=False):
        """Holds what ``nbytes`` of this body or message cost (``partial``: the first bytes of one whose size
        is not known yet): None when held, else the answer's status (413: more than the whole budget; 503:
        more than is free just now). A refusal holds nothing."""
        need = cost(nbytes, partial)
        budget = self.budget
        if need <= self.held:
            return None
        if need > budget.total or budget.used + need - self.held > budget.total:
            budget.refused += 1
            self.release()
            return 413 if need > budget.total else 503
        budget.used += need - self.held
        self.held = need
        return None

    def release(self):
        self.budget.used -= self.held
        self.held = 0

    def __del__(self):  # a charge dropped without release() (a path that forgot it) still gives back
        if self.held:
            self.release()


def refusal(status, budget):
    """(message, error object) for a body or message ``Charge.cover`` refused with ``status``."""
    if status == 413:
        message = (f"limit exceeded: parse_budget_bytes: reading and parsing this request would take more "
                   f"than the {budget.total} bytes the server spends on all requests at once; send large "
                   f"tensors as base64 or binary, or in smaller parts")
        return message, {"type": "LimitExceeded", "message": message, "limit": "parse_budget_bytes"}
    message = ("the server is reading other large requests just now (parse_budget_bytes); retry in "
               f"{RETRY_AFTER_S} s")
    return message, {"type": "Unavailable", "message": message, "limit": "parse_budget_bytes"}
