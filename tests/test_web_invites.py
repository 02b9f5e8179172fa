"""Invitations: a signed-in phone lets a new phone in without the PIN, once,
for ten minutes, spending nothing of the wrong-PIN limits."""

from __future__ import annotations

import pytest
from test_web_auth import PIN, TableService, other_client

import web
from web.invites import MAX_INVITES, Invites


@pytest.fixture
def service(tmp_path):
    svc = TableService(tmp_path)
    yield svc
    svc.store.close()


@pytest.fixture
def app(service):
    return web.create_app(service)


def _invite(app, address="10.8.0.1"):
    player = other_client(app, address)
    assert player.post("/api/login", json={"pin": PIN}).status_code == 200
    reply = player.post("/api/invite", json={})
    assert reply.status_code == 200 and reply.headers["Cache-Control"] == "no-store"
    return reply.json


def _token(invite) -> str:
    return invite["url"].split("#invite=", 1)[1]


def test_an_invitation_signs_one_phone_in_once(app):
    invite = _invite(app)
    assert invite["url"].startswith("http://localhost/#invite=") and invite["qr"].startswith("<svg")
    assert invite["seconds"] == 600
    new_phone = other_client(app, "10.8.0.2")
    assert new_phone.get("/api/session").json == {"signed_in": False}
    assert new_phone.post("/api/join", json={"invite": _token(invite)}).json == {"signed_in": True}
    assert new_phone.get("/api/session").json == {"signed_in": True}
    assert new_phone.post("/api/commands", json={"type": "end_game"}).status_code == 409  # reaches the table
    # Used up: a second phone with the same link is refused, and stays out.
    again = other_client(app, "10.8.0.3").post("/api/join", json={"invite": _token(invite)})
    assert again.status_code == 403 and again.json["rule"] == "invite" and "used up" in again.json["error"]


def test_only_a_phone_that_could_change_the_table_may_invite(app):
    guest = other_client(app, "10.8.0.4")
    assert guest.post("/api/invite", json={}).status_code == 403
    # Not from a form of another site either: the body must be JSON.
    player = other_client(app, "10.8.0.1")
    assert player.post("/api/login", json={"pin": PIN}).status_code == 200
    refused = player.post("/api/invite", data="x", content_type="application/x-www-form-urlencoded")
    assert refused.status_code == 400
    assert guest.post("/api/invite", json={}, headers={"X-Table-Pin": PIN}).status_code == 200


@pytest.mark.parametrize("body", [None, {}, {"invite": 5}, ["x"]])
def test_a_malformed_join_is_400(app, body):
    r = other_client(app, "10.8.0.5").post("/api/join", json=body)
    assert r.status_code == 400 and "invite" in r.json["error"]


def test_a_made_up_or_stale_invitation_signs_nobody_in(app, service):
    phone = other_client(app, "10.8.0.6")
    assert phone.post("/api/join", json={"invite": "A" * 22}).status_code == 403
    # Made before the PIN changed: a new PIN signs every phone out, and ends its invitations.
    invite = _invite(app)
    service.pin = "246801"
    assert phone.post("/api/join", json={"invite": _token(invite)}).status_code == 403
    assert phone.get("/api/session").json == {"signed_in": False}


def test_invitations_end_after_ten_minutes_and_few_are_open_at_once():
    now = [0.0]
    invites = Invites(clock=lambda: now[0])
    token = invites.make("tag")
    now[0] += 599
    assert invites.redeem(invites.make("tag"), "tag")
    now[0] += 2
    assert not invites.redeem(token, "tag")
    tokens = [invites.make("tag") for _ in range(MAX_INVITES + 1)]
    assert len(invites) == MAX_INVITES and not invites.redeem(tokens[0], "tag")
    assert invites.redeem(tokens[-1], "tag")


def test_a_wrong_invitation_spends_no_wrong_pin(app):
    # Refused invitations are not PIN guesses: a phone's own tries stay whole.
    phone = other_client(app, "10.8.0.7")
    for _ in range(20):
        assert phone.post("/api/join", json={"invite": "wrong"}).status_code == 403
    assert [phone.post("/api/login", json={"pin": "000000"}).status_code for _ in range(5)] == [403] * 5
