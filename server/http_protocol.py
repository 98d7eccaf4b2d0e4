"""uvicorn's httptools HTTP/1.1 protocol, with the bounds a server facing anonymous clients needs and
uvicorn does not set (attack8 F2, F3).

uvicorn's httptools protocol keeps every header line of a request, with no limit on their size or
number, and has no timeout before a request's headers are complete or while its body trickles in (its
keep-alive timeout only runs between requests). One connection that never ended its headers grew the
API process by 1.1 GB (10M short header lines); 19,960 connections that sent half a request and
stayed open took every file descriptor of the API process, and every other client was refused until
they were closed. Here:

- ``max_header_bytes``: the request line and headers of one request, counted as their bytes arrive
  (fed to the parser in small pieces while the headers are still incomplete, so an unended header is
  never held past the limit); past it: 431 and the connection is closed.
- ``header_timeout_s``: from the moment a connection is made (or its previous request was answered,
  when the keep-alive timer is not running) until the request's headers are complete; past it the
  connection is closed (408, when nothing of the request's answer has been sent).
- ``body_idle_timeout_s``: while a request's body is being received, the longest wait for its next
  bytes; past it the connection is closed (the application sees a disconnect, as when the client goes).
- ``max_connections``: HTTP and WebSocket connections open at once; one past it is closed as soon as it
  is accepted, before the server spends anything on it, so the process always keeps the descriptors
  its sessions need. ``None``: the process's open-file limit less ``FD_RESERVE``.

When uvicorn's httptools protocol is not available (no httptools, or a uvicorn whose protocol lacks the
methods this class extends), ``guarded_http_protocol`` says so in the log and returns "auto".
"""
import logging
import resource

log = logging.getLogger("gradserve.server")

try:
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is a dependency of uvicorn[standard]
    httptools = None
    HttpToolsProtocol = None

FD_RESERVE = 1024   # descriptors kept for the server itself (session pipes, worker sockets, files) under the limit
PIECE = 4096        # while headers are incomplete, bytes are fed to the parser this many at a time
_NEEDS = ("data_received", "connection_made", "connection_lost", "on_message_begin", "on_headers_complete",
          "on_body", "on_message_complete", "on_response_complete", "send_400_response")


def default_max_connections():
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return max(64, soft - FD_RESERVE)


def guarded_http_protocol(settings):
    """The protocol class to give uvicorn (``http=``) with ``settings``' bounds; "auto" without httptools."""
    if HttpToolsProtocol is None or not all(hasattr(HttpToolsProtocol, n) for n in _NEEDS):
        log.warning("uvicorn's httptools protocol is not available: HTTP header size, header and body timeouts "
                    "and the connection cap are not enforced")
        return "auto"
    max_connections = settings.max_connections
    if max_connections is None:
        max_connections = default_max_connections()
    return type("GuardedHttpToolsProtocol", (GuardedHttpToolsProtocol,), {
        "max_header_bytes": settings.max_header_bytes,
        "header_timeout_s": settings.header_timeout_s,
        "body_idle_timeout_s": settings.body_idle_timeout_s,
        "max_connections": max_connections,
    })


def _status_response(status, reason, message):
    body = ('{"error": {"type": "%s", "message": "%s"}}' % (reason, message)).encode("ascii")
    return b"".join([b"HTTP/1.1 %d %s\r\n" % (status, reason.encode("ascii")),
                     b"content-type: application/json\r\n",
                     b"content-length: %d\r\n" % len(body),
                     b"connection: close\r\n\r\n", body])


class GuardedHttpToolsProtocol(HttpToolsProtocol or object):
    max_header_bytes = 64 << 10
    header_timeout_s = 30.0
    body_idle_timeout_s = 60.0
    max_connections = 10_000

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._in_headers = True     # the current request's headers are not complete yet
        self._header_bytes = 0      # bytes fed to the parser since the current request began
        self._guard_timer = None    # the header or body-idle deadline
        self._in_body = False
        self._message_open = False

    # -- connection ------------------------------------------------------------------------------------
    def connection_made(self, transport):
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            log.warning("refused a connection: %d open (GRADSERVE_MAX_CONNECTIONS %d)",
                        len(self.connections), self.max_connections)
            transport.write(_status_response(503, "ServiceUnavailable",
                                             "the server holds its maximum of open connections; retry later"))
            transport.close()
            return
        self._arm(self.header_timeout_s, self._header_timeout)

    def connection_lost(self, exc):
        self._disarm()
        super().connection_lost(exc)

    # -- timers ----------------------------------------------------------------------------------------
    def _arm(self, delay, callback):
        self._disarm()
        if delay and delay > 0 and self.transport is not None and not self.transport.is_closing():
            self._guard_timer = self.loop.call_later(delay, callback)

    def _disarm(self):
        if self._guard_timer is not None:
            self._guard_timer.cancel()
            self._guard_timer = None

    def _answering(self):
        """A request of this connection is being answered: the client is waiting on us, not we on it."""
        return self.cycle is not None and not self.cycle.response_complete and not self._message_open

    def _header_timeout(self):
        self._guard_timer = None
        if self.transport.is_closing() or not self._in_headers or self._answering():
            return
        # a connection that sent nothing of a request is closed quietly, as uvicorn's keep-alive timeout
        # does; one whose request is half sent gets a 408
        if self._header_bytes:
            self.transport.write(_status_response(408, "RequestTimeout",
                                                  "the request's headers did not arrive in time"))
        self.transport.close()

    def _body_timeout(self):
        self._guard_timer = None
        if self.transport.is_closing() or not self._in_body:
            return
        if self.flow.read_paused:   # we stopped reading (the application has not taken the body yet)
            self._arm(self.body_idle_timeout_s, self._body_timeout)
            return
        log.info("closed a connection whose request body stalled for %.0f s", self.body_idle_timeout_s)
        self.transport.close()   # connection_lost tells the application (a disconnect)

    # -- data --------------------------------------------------------------------------------------------
    def data_received(self, data):
        if self._in_body:
            self._arm(self.body_idle_timeout_s, self._body_timeout)
        view = memoryview(data)
        while view and not self.transport.is_closing():
            if not self._in_headers:
                chunk, view = view, view[len(view):]
            else:
                chunk, view = view[:PIECE], view[PIECE:]
                self._header_bytes += len(chunk)
                if self._header_bytes > self.max_header_bytes:
                    self._refuse_headers()
                    return
            before = self.transport
            upgraded = self._feed(bytes(chunk))
            if upgraded or self.transport is not before:
                return  # a WebSocket upgrade: the rest belongs to the WebSocket protocol (uvicorn drops it too)

    def _feed(self, data):
        """Feed the parser as uvicorn's data_received does; True once the connection was upgraded."""
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return True
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self._disarm()
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return True
        return False

    def _refuse_headers(self):
        self._disarm()
        log.warning("refused a request whose headers passed %d bytes", self.max_header_bytes)
        self.transport.write(_status_response(
            431, "RequestHeaderFieldsTooLarge",
            f"the request line and headers are larger than {self.max_header_bytes} bytes"))
        self.transport.close()

    # -- parser callbacks ----------------------------------------------------------------------------------
    def on_message_begin(self):
        super().on_message_begin()
        self._message_open = True
        self._in_headers = True
        self._arm(self.header_timeout_s, self._header_timeout)

    def on_headers_complete(self):
        self._in_headers = False
        self._disarm()
        super().on_headers_complete()
        if not (self.parser.should_upgrade() and self._should_upgrade()):
            self._in_body = True
            self._arm(self.body_idle_timeout_s, self._body_timeout)

    def on_message_complete(self):
        self._in_body = False
        self._message_open = False
        self._in_headers = True      # what comes next is the next request's
        self._header_bytes = 0
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self):
        super().on_response_complete()
        # the next request's headers: uvicorn's keep-alive timer closes a connection that sends nothing, but
        # any byte cancels it; this one closes a connection that starts a request and never ends its headers
        if not self.transport.is_closing() and not self._message_open:
            self._arm(self.header_timeout_s, self._header_timeout)
