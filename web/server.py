"""The WSGI server the table runs the web app in.

Waitress serves each request on a worker thread, and an open event stream
(``/api/events``) holds its thread for as long as the viewer watches. A table
has a handful of phones and a TV, so a pool of threads sized for the viewers
plus headroom for ordinary requests is enough; `tablepi bench web` measures
50 live viewers under a steady command load on this server (loss, delay,
memory). Were a table ever to need hundreds of viewers, an event-loop server
(gevent) would be the next step.
"""

from __future__ import annotations

from typing import Any

# Live viewers a table is expected to carry at once, plus threads kept free
# for page loads and commands so a full house of viewers never blocks a command.
DEFAULT_VIEWERS = 56
SPARE_THREADS = 8


def make_server(app: Any, host: str = "0.0.0.0", port: int = 8080, threads: int | None = None) -> Any:
    """A waitress server for ``app``; call ``.run()`` to serve and ``.close()``
    to stop. ``port=0`` picks a free port (see ``.effective_port``)."""
    from waitress.server import create_server

    threads = threads or DEFAULT_VIEWERS + SPARE_THREADS
    config = getattr(app, "config", None)
    if config is not None:
        # Streams beyond this get a "come back later" answer instead of a
        # thread, so a command always finds a free one.
        config["SSE_MAX_STREAMS"] = max(1, threads - min(SPARE_THREADS, threads // 2))
    return create_server(
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
