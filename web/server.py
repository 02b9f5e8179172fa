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
import threading
from typing import Any

# Live viewers a table is expected to carry at once, plus threads kept free
# for page loads and commands so a full house of viewers never blocks a command.
DEFAULT_VIEWERS = 56
SPARE_THREADS = 8


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


def make_server(app: Any, host: str = "0.0.0.0", port: int = 8080, threads: int | None = None) -> TableServer:
    """A waitress server for ``app``; call ``.run()`` to serve and ``.close()``
    (from any thread) to stop. ``port=0`` picks a free port (see
    ``.effective_port``)."""
    from waitress.server import create_server

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
        connection_limit=200,
        ident="tablepi",
        clear_untrusted_proxy_headers=True,
    )
    return TableServer(server, app)
