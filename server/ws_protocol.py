"""uvicorn's WebSocket protocol (websockets' Sans-I/O one, uvicorn's default), with each incoming message
charged to the API process's parse budget (``parse_budget``) as its bytes arrive.

uvicorn buffers a whole message, and decodes it to text, before the application sees any of it: a
limit the application applies comes after the memory is spent. Here the bytes a connection holds for
the message it is receiving (websockets' read buffer, and the fragments before it) are charged while
they arrive; a message that would pass the budget is refused on the spot, its bytes dropped: an
``error`` event (status 503, or 413 when it could never fit) and close code 1013 (the connection is
mid-frame and cannot go on). A message that is delivered hands its charge to the application with
it (``CHARGE_KEY`` in the ASGI event), which releases it once it has handled the message.

This reads uvicorn's protocol internals (``frames``, ``queue``, ``close_sent``, the websockets
connection's read buffer); with a uvicorn that lacks them, ``budgeted_protocol`` says so in the log and
the server runs uvicorn's own protocol, whose messages are then charged only once the application has
them.
"""
import collections
import json
import logging

from websockets.protocol import OPEN

from .parse_budget import FREE_BYTES, refusal

try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # uvicorn before 0.35
    WebSocketsSansIOProtocol = None

log = logging.getLogger("gradserve.server")

CHARGE_KEY = "gradserve.charge"   # the delivered message's Charge, in its websocket.receive event
_NEEDS = ("data_received", "handle_text", "handle_bytes", "handle_cont", "send_receive_event_to_app", "receive",
          "connection_lost", "handle_parser_exception", "send")

# A message past this many bytes is sent uncompressed, as RFC 7692 lets a sender do with any message (the
# receiver reads RSV1): websockets compresses in the send call, on the event loop that serves every session,
# and a 256 MB result took about 10 s there, once per connection it went to (hostile pass 15, F1).
COMPRESS_MAX_BYTES = 1 << 20


def budgeted_protocol(budget):
    """The protocol class to give uvicorn (``ws=``), charging ``budget`` (a ``ParseBudget``); "auto" (uvicorn's
    own) when this uvicorn's protocol is not the one this class extends."""
    if WebSocketsSansIOProtocol is None or not all(hasattr(WebSocketsSansIOProtocol, n) for n in _NEEDS):
        log.warning("this uvicorn has no Sans-I/O WebSocket protocol to extend: WebSocket messages are charged "
                    "to the parse budget only once they are read whole")
        return "auto"
    return type("BudgetedWebSocketProtocol", (BudgetedWebSocketProtocol,), {"budget": budget})


class BudgetedWebSocketProtocol(WebSocketsSansIOProtocol or object):
    budget = None  # set by budgeted_protocol

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.charge = self.budget.charge()   # what the message being received holds
        self.delivered = collections.deque()  # charges of messages queued for the application, in order

    def data_received(self, data):
        super().data_received(data)
        if self.conn.state is OPEN and not self.close_sent:  # a frame still arriving: its bytes so far
            self._cover(len(self.conn.reader.buffer) + sum(len(f) for f in self.frames), partial=True)

    # A frame as read (decompressed when the connection uses permessage-deflate: a 64 KB frame can carry
    # 66 MB of text), with the fragments of its message before it: charged before it is kept.
    def handle_text(self, event):
        if self._cover(len(event.data), partial=not event.fin):
            super().handle_text(event)

    def handle_bytes(self, event):
        if self._cover(len(event.data), partial=not event.fin):
            super().handle_bytes(event)

    def handle_cont(self, event):
        if self._cover(sum(len(f) for f in self.frames) + len(event.data), partial=not event.fin):
            super().handle_cont(event)

    def _cover(self, nbytes, partial=False):
        """True when the message being received may hold ``nbytes``; else it is refused (False)."""
        if self.close_sent:
            return False
        if nbytes > FREE_BYTES:
            status = self.charge.cover(nbytes, partial)
            if status is not None:
                self._refuse(status)
                return False
        return True

    async def send(self, message):
        data = message.get("text") or message.get("bytes") if message["type"] == "websocket.send" else None
        if data is None or len(data) <= COMPRESS_MAX_BYTES:
            return await super().send(message)
        await self.writable.wait()   # (so that uvicorn's send goes through without suspending, extensions unset)
        extensions, self.conn.extensions = self.conn.extensions, []
        try:
            await super().send(message)
        finally:
            self.conn.extensions = extensions
        # until the socket has taken it: what sent it holds its charge of the answer budget until then
        # (routes/stream.py), and the next message waits here rather than in uvicorn's send
        await self.writable.wait()

    def send_receive_event_to_app(self):
        queued = self.queue.qsize()
        super().send_receive_event_to_app()
        charge, self.charge = self.charge, self.budget.charge()
        if self.queue.qsize() > queued:
            self.delivered.append(charge)
        else:
            charge.release()

    async def receive(self):
        message = await super().receive()
        if message["type"] == "websocket.receive" and self.delivered:
            message[CHARGE_KEY] = self.delivered.popleft()
        return message

    def connection_lost(self, exc):
        self.charge.release()
        while self.delivered:  # queued, never received: the application is gone
            self.delivered.popleft().release()
        super().connection_lost(exc)

    def _refuse(self, status):
        if self.conn.state is OPEN:
            error = refusal(status, self.budget)[1]
            self.conn.send_text(json.dumps({"type": "error", "run": None, "seq": 0, "status": status,
                                            "error": error}, separators=(",", ":")).encode())
        # a close frame, then the end of what this side sends; what the client still sends (the rest of its
        # frame) is read and dropped until it closes, so that the event and the close reach it (closing the
        # socket on unread bytes would send a reset in their place); at most close_timeout seconds
        self.conn.fail(1013, "parse budget: retry shortly")
        self.frames = []
        self.queue.put_nowait({"type": "websocket.disconnect", "code": 1013, "reason": "parse budget"})
        output = self.conn.data_to_send()
        self.transport.write(b"".join(output))
        if output and output[-1] == b"" and self.transport.can_write_eof():
            self.transport.write_eof()
        self.close_sent = True
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        if self.close_timer is None:
            self.close_timer = self.loop.call_later(self.close_timeout, self.transport.close)
