"""Invitations: a phone that has signed in lets a new phone in without the PIN.

The table's limits on wrong PINs can leave a new phone waiting while a guest
guesses (README, Security). A player already signed in asks for an
invitation: a link (and its QR code) that signs one phone in, once, within
``INVITE_SECONDS``. It spends nothing of the wrong-PIN limits and adds nothing
to what a guesser can try: the token is 128 random bits, it can only be made
by someone who could change the table anyway, and it goes in the link's
fragment, which browsers never send, so it is in no request line or log.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from flask import Blueprint, current_app, jsonify

from tablepi.i18n import N_
from web.auth import check_json_change, pin_tag, start_session
from web.body import json_body
from web.errors import error_response
from web.pages import phone_url, qr_svg

bp = Blueprint("invites", __name__)

INVITE_SECONDS = 600.0  # long enough to hand a phone across the table
MAX_INVITES = 16  # open at once; a new one past these ends the oldest


class Invites:
    """Invitations not yet used, by a digest of their token (the token itself
    is not kept), each with its end and the PIN it was made under."""

    def __init__(self, seconds: float = INVITE_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._open: OrderedDict[str, tuple[float, str]] = OrderedDict()

    def make(self, tag: str) -> str:
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._forget_ended()
            self._open[_digest(token)] = (self._clock() + self.seconds, tag)
            while len(self._open) > MAX_INVITES:
                self._open.popitem(last=False)
        return token

    def redeem(self, token: str, tag: str) -> bool:
        """Whether ``token`` is an open invitation made under the PIN ``tag``
        stands for; it is used up either way."""
        with self._lock:
            self._forget_ended()
            entry = self._open.pop(_digest(token), None)
        return entry is not None and hmac.compare_digest(entry[1], tag)

    def __len__(self) -> int:
        with self._lock:
            self._forget_ended()
            return len(self._open)

    def _forget_ended(self) -> None:
        now = self._clock()
        for key in [key for key, (ends, _) in self._open.items() if ends <= now]:
            del self._open[key]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def _invites() -> Invites:
    return current_app.extensions["tablepi.invites"]


@bp.post("/api/invite")
def invite():
    refused = check_json_change(N_("the invitation"))
    if refused is not None:
        return refused
    invites = _invites()
    url = f"{phone_url().rstrip('/')}/#invite={invites.make(pin_tag())}"
    reply = jsonify({"url": url, "qr": str(qr_svg(url)), "seconds": int(invites.seconds)})
    reply.headers["Cache-Control"] = "no-store"
    return reply


@bp.post("/api/join")
def join():
    body = json_body()
    if not isinstance(body, dict) or not isinstance(body.get("invite"), str):
        return error_response(400, N_('send {"invite": "..."} as JSON'), rule="request")
    if not _invites().redeem(body["invite"].strip(), pin_tag()):
        return error_response(
            403, N_("this invitation is used up or too old; ask a player for a new one"), rule="invite"
        )
    start_session()
    return jsonify({"signed_in": True})
