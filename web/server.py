"""The WSGI server the table runs the web app in.

Waitress serves each request on a worker thread, and an open event stream
(``/api/events``) holds its thread for as long as the viewer watches. A table
has a handful of phones and a TV, so a pool of threads sized for the viewers
plus headroom for ordinary requests is enough: `tablepi bench web` measured
50 live viewers under 20 commands a second on this server with no event
lost, a p99 delay from command to viewer of 30-90 ms on a two-core machine
(most of it the durable commit; the fan-out to the viewers adds about 20 ms
at p99), a quarter of one core, and the whole simulated table (camera
included) under 130 MB. Streams beyond the pool's
share get a "retry later" answer rather than a thread, so a command always
finds one free. Were a table ever to need hundreds of viewers, an event-loop
server (gevent) would be the next step; for a games table it is not needed.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from typing import Any

# Live viewers a table is expected to carry at once, plus threads kept free
# for page loads and commands so a full house of viewers never blocks a command.
DEFAULT_VIEWERS = 56
SPARE_THREADS = 8
# Open connections at once, in all and from one address: a browser opens at
# most six to one site, so a client holding more is hoarding them.
CONNECTION_LIMIT = 200
PER_CLIENT_CONNECTIONS = 24
# A request must arrive whole (headers and body) within this many seconds of
# its first byte, and a new connection must start one within it: a client
# trickling bytes to keep connections open is cut off.
REQUEST_SECONDS = 10.0
# A kept-alive connection with no request in flight is closed after this many
# seconds, and after IDLE_SECONDS_CROWDED once half the connections are open:
# a browser opens a new one at once, while a client holding idle ones to
# fill the server's connections must keep sending requests.
IDLE_SECONDS = 5.0
IDLE_SECONDS_CROWDED = 1.0
# What waits to be sent on one connection is kept in memory, at most about
# this much: past it the writer (an event stream) waits for the client to
# read. Waitress's own default is 16 MB, spilled to temporary files past 1 MB.
SEND_BUFFER_BYTES = 256 * 1024
# A connection whose client has taken none of its answer for this long (an
# event stream nobody reads) is closed, and its stream ends.
STALLED_SECONDS = 20.0
# The server's own limits, applied before anything is read into memory or
# spooled to disk (the app's limit would apply only after the body was read).
MAX_HEADER_BYTES = 16 * 1024


class TableServer:
    """A waitress server that another thread can stop cleanly: ``run()``
    serves until ``close()``, which closes every connection (event streams
    included) and returns once the serving loop has ended."""

    def __init__(self, server: Any, app: Any = None) -> None:
        self._server = server
        self._app = app
        self._stop = threading.Event()
        self._running = threading.Event()
        self._done = threading.Event()

    @property
    def effective_host(self) -> str:
        return self._server.effective_host

    @property
    def effective_port(self) -> int:
        return int(self._server.effective_port)

    def run(self) -> None:
        server = self._server
        self._running.set()
        try:
            while not self._stop.is_set():
                # One poll at a time, so that a close() from another thread is
                # seen within one poll rather than racing the loop for its sockets.
                server.asyncore.loop(
                    timeout=server.adj.asyncore_loop_timeout,
                    map=server._map,
                    use_poll=server.adj.asyncore_use_poll,
                    count=1,
                )
        finally:
            self._shutdown()
            self._done.set()

    def close(self, timeout: float = 5.0) -> None:
        self._stop.set()
        streams = getattr(self._app, "extensions", {}).get("tablepi.streams")
        if streams is not None:
            streams.close_all()  # each open event stream ends now
        if not self._running.is_set():
            self._shutdown()
            return
        try:
            self._server.pull_trigger()  # wake the loop now rather than at its next timeout
        except OSError:
            pass
        self._done.wait(timeout)

    def _shutdown(self) -> None:
        from waitress import wasyncore

        wasyncore.close_all(self._server._map)
        # Worker threads still inside a stream notice the closed socket at
        # their next write (a heartbeat at most); they are daemon threads.
        self._server.task_dispatcher.shutdown(timeout=1)


def _guarded_channel(
    base: type,
    per_client: int | None,
    request_seconds: float,
    stalled_seconds: float = STALLED_SECONDS,
    pace: Any = None,
) -> tuple[type, Any]:
    """Waitress's channel, with a cap on connections per client address and
    a clock on each request's arrival (see ``REQUEST_SECONDS``), and the
    server's maintenance step that enforces the clock and closes idle
    kept-alive connections (see ``IDLE_SECONDS``)."""

    class GuardedChannel(base):  # type: ignore[misc, valid-type]
        def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
            super().__init__(server, sock, addr, adj, map)
            self.reading_since: float | None = time.monotonic()  # waiting for a first request
            if per_client:
                client = _client_of(addr)
                same = sum(
                    1
                    for ch in list(server.active_channels.values())
                    if ch is not self and _client_of(getattr(ch, "addr", None)) == client
                )
                if same >= per_client:
                    # Closed on the loop's next turn, before it can hold anything
                    # (closing here could pull a socket out from under the poll).
                    self.will_close = True

        def readable(self) -> bool:
            # An address past its page loads is not read until it may load again (web.pace).
            if pace is not None and pace.paused(_client_of(self.addr)):
                return False
            return bool(super().readable())

        def received(self, data: bytes) -> bool:
            if data and self.request is None and self.reading_since is None:
                self.reading_since = time.monotonic()
            result = super().received(data)
            if self.request is None:
                self.reading_since = None  # every request read so far is complete
            return result

    def maintenance(server: Any, now: float) -> None:
        base_maintenance(server, now)
        cutoff = time.monotonic() - request_seconds
        channels = list(server.active_channels.values())
        crowded = len(channels) >= server.adj.connection_limit // 2
        idle_cutoff = now - (IDLE_SECONDS_CROWDED if crowded else IDLE_SECONDS)  # waitress's clock
        for channel in channels:
            since = getattr(channel, "reading_since", None)
            if channel.total_outbufs_len and channel.last_activity < now - stalled_seconds:
                # Its writer may be waiting for room in the buffer, and a socket
                # nobody reads never polls writable: shutting it down wakes the
                # loop, which closes the channel and lets the writer go.
                try:
                    channel.socket.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                continue
            if channel.requests or channel.total_outbufs_len:
                continue  # a request running (an event stream too) or an answer being sent
            trickling = since is not None and since < cutoff
            if trickling or (since is None and channel.last_activity < idle_cutoff):
                # Waitress closes it when it next looks at it; closing it here,
                # while the loop gathers sockets to poll, would break the loop.
                channel.will_close = True

    from waitress.server import BaseWSGIServer

    base_maintenance = BaseWSGIServer.maintenance
    return GuardedChannel, maintenance


def _client_of(addr: Any) -> Any:
    return addr[0] if isinstance(addr, tuple) and addr else addr


def make_server(
    app: Any,
    host: str = "0.0.0.0",
    port: int = 8080,
    threads: int | None = None,
    per_client: int | None = PER_CLIENT_CONNECTIONS,
    request_seconds: float = REQUEST_SECONDS,
    stalled_seconds: float = STALLED_SECONDS,
) -> TableServer:
    """A waitress server for ``app``; call ``.run()`` to serve and ``.close()``
    (from any thread) to stop. ``port=0`` picks a free port (see
    ``.effective_port``). ``per_client`` caps the connections one address
    may hold (None: no cap, for benchmarks that open many from one)."""
    from waitress.server import BaseWSGIServer, create_server

    # Waitress notes every viewer who closes a page at INFO; on a table that
    # is routine, and the journal lives on an SD card.
    logging.getLogger("waitress").setLevel(logging.WARNING)
    threads = threads or DEFAULT_VIEWERS + SPARE_THREADS
    config = getattr(app, "config", None)
    if config is not None:
        # Streams beyond this get a "come back later" answer instead of a
        # thread, so a command always finds a free one.
        config["SSE_MAX_STREAMS"] = max(1, threads - min(SPARE_THREADS, threads // 2))
    server = create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        # A viewer's stream carries a heartbeat at least every 15 s; a channel
        # silent for longer than this is a dead client.
        channel_timeout=60,
        connection_limit=CONNECTION_LIMIT,
        # Looked at every second, so that a trickling client is cut off on time.
        cleanup_interval=1,
        # poll() has no limit on descriptors; select() fails past 1024 sockets.
        asyncore_use_poll=True,
        # Waitress answers 413 from the Content-Length (or as a chunked body
        # passes the limit) without reading or spooling the rest.
        max_request_body_size=_max_body(app),
        max_request_header_size=MAX_HEADER_BYTES,
        outbuf_high_watermark=SEND_BUFFER_BYTES,
        ident="tablepi",
        # Waitress keeps reading a connection while its request runs, so an
        # event stream learns within a second that its viewer has gone.
        channel_request_lookahead=1,
        clear_untrusted_proxy_headers=True,
    )
    pace = getattr(app, "extensions", {}).get("tablepi.pace")
    channel, maintenance = _guarded_channel(
        BaseWSGIServer.channel_class, per_client, request_seconds, stalled_seconds, pace
    )
    # One listening socket, or several (a name with IPv4 and IPv6 addresses).
    for dispatcher in {id(d): d for d in [*server._map.values(), server]}.values():
        if isinstance(dispatcher, BaseWSGIServer):
            dispatcher.channel_class = channel
            dispatcher.maintenance = maintenance.__get__(dispatcher)
    return TableServer(server, app)


def _max_body(app: Any) -> int:
    from web import MAX_REQUEST_BYTES

    config = getattr(app, "config", None) or {}
    # Waitress refuses a body of exactly its limit; the app's limit is inclusive.
    return int(config.get("MAX_CONTENT_LENGTH") or MAX_REQUEST_BYTES) + 1
