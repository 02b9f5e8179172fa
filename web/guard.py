"""Checks every request passes before any route sees it: the Host it names,
and for a POST, that it does not come from another site's page.

The Host check closes the door to DNS rebinding: a page on some other site
whose name is made to point at the table would otherwise reach it as a
same-origin page, in a browser on the table's own network. The table answers
to its own names (its host name, ``<host name>.local``, localhost) and to any
IP address (a bare address cannot be rebound), and nothing else.
"""

from __future__ import annotations

import ipaddress
import socket
from functools import lru_cache
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, request

from web.errors import error_response

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


@lru_cache(maxsize=1)
def own_names() -> frozenset[str]:
    """The names this machine answers to on its network."""
    names = set(LOOPBACK_NAMES)
    for name in (socket.gethostname(), socket.getfqdn()):
        name = name.lower().rstrip(".")
        if name:
            names.add(name)
            names.add(name.split(".")[0] + ".local")
    return frozenset(names)


def host_name(host: str) -> str:
    """The name or address in a Host header, without its port or brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def allowed_host(host: str, extra: frozenset[str] = frozenset()) -> bool:
    name = host_name(host)
    if not name:
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    return name in own_names() or name in extra


def _cross_site() -> bool:
    """True for a POST that a browser says came from another site's page."""
    if request.headers.get("Sec-Fetch-Site", "").lower() == "cross-site":
        return True
    origin = request.headers.get("Origin")
    if origin and origin != "null":
        return urlsplit(origin).netloc.lower() != request.host.lower()
    return origin == "null"


def register(app: Flask) -> None:
    @app.before_request
    def check_request() -> Response | None:
        extra = frozenset(n.lower() for n in current_app.config.get("ALLOWED_HOSTS", ()))
        if not allowed_host(request.host, extra):
            return error_response(
                400,
                "this table answers to its own name or address only; open it by its address",
                rule="host",
            )
        if request.method == "POST" and _cross_site():
            return error_response(403, "requests from other sites' pages are refused", rule="cross-site")
        return None
