"""Many tables, one venue: each table publishes its public state to the
venue's MQTT broker, and one board (``tablepi venue``) shows them all.

Topics, under ``tablepi/<table>/`` (``<table>`` is ``venue.table`` in the
table's config)::

    status   "online" | "offline"   retained, QoS 1; "offline" is also the
                                    broker's last will for the table
    game     JSON (game_payload)    retained, QoS 1
    timer    JSON (timer_payload)   retained, QoS 1: Outer Space's mission timer
    event    JSON (event_payload)   each public event, not retained, QoS 0

and for Home Assistant, retained discovery messages
``homeassistant/sensor/tablepi_<table>/<object>/config`` (discovery_messages):
one device per table with sensors for the game, the leader, whose turn it is
and the timer, available while the table's status is "online".

Everything published is built from the table's public state
(``table.public_state()``) and its public events: what the web serves on
``/api/state`` and ``/api/events``, which hold no secret (the danger coin
goes to the OLED only, secret collections are counts). The PIN and the
config's password are never in a payload.

Broker trouble never reaches the table's command path: commands publish to
the table's in-process event bus, which never blocks; the publisher's own
thread turns the events into payloads and hands them to paho's network
thread, which reconnects with a growing delay. While the link is down only
the latest payload of each topic is kept (a dict, not a queue), and encoded
only once it can be sent; on reconnect each topic's latest is published.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from tablepi.games.names import NAME_CHARS
from tablepi.i18n import N_, Text

log = logging.getLogger(__name__)

PREFIX = "tablepi"
DISCOVERY_PREFIX = "homeassistant"
STATE_TOPICS = ("status", "game", "timer")
KIND_TITLES = {
    "beam_me_up": "Beam Me Up",
    "outer_space": "They Came From Outer Space",
    "space_beans": "Space Beans",
}
# Events the venue hears of: every public event but the OLED mirror's
# once-a-second version tick, which means nothing off the table.
QUIET_EVENTS = frozenset({"display", "missed"})
# How often the publisher looks for a reconnect and re-sends a running timer.
POLL_SECONDS = 0.1
TIMER_REFRESH_SECONDS = 1.0
# After a reconnect each retained topic is sent again once this much later:
# a message paho still held from before the drop (re-sent by paho as the
# connection came back) can then never stay on the broker as the latest.
RESEND_SECONDS = 1.0
# QoS 1 messages paho may hold at once (in flight or waiting); beyond it a
# payload waits in the publisher's dict for the next turn.
PAHO_QUEUE = 100
CONNECT_TIMEOUT = 5.0
CLOSE_SECONDS = 2.0


def topic(table: str, name: str, prefix: str = PREFIX) -> str:
    return f"{prefix}/{table}/{name}"


# -- payloads: pure functions of the public state ------------------------------


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def summary(public: dict[str, Any]) -> dict[str, Any]:
    """Who plays what, who leads, whose turn, who won: the few facts a venue
    board or a home-automation sensor shows, read from a public state."""
    game = public.get("game") if isinstance(public, dict) else None
    if not isinstance(game, dict):
        return {
            "kind": None,
            "title": None,
            "finished": False,
            "players": [],
            "turn": None,
            "leader": None,
            "winner": None,
            "detail": None,
            "last": None,
        }
    kind = game.get("kind")
    s = game.get("state") if isinstance(game.get("state"), dict) else {}
    players: list[dict[str, Any]] = []
    turn = leader = winner = detail = None
    if kind == "beam_me_up":
        need = s.get("counters_to_win")
        for p in s.get("players") or []:
            # "table": a seat the table plays itself (tablepi.table_player).
            players.append(
                {"name": p.get("name"), "score": p.get("in_space"), "table": p.get("table") is True}
            )
        turn = _name((s.get("turn") or {}).get("name"))
        winner = _name((s.get("winner") or {}).get("name"))
        detail = f"roll {s.get('roll', 0)}/{s.get('max_rolls', 3)}" + (f" · {need} to win" if need else "")
        leader = _top(players)
    elif kind == "outer_space":
        players = [{"name": name, "score": None} for name in s.get("players") or []]
        leader = _name(s.get("leader"))
        turn = leader
        winner = _name(s.get("winner"))
        detail = f"mission {s.get('mission', 1)} · {s.get('phase', '')}".strip(" ·")
    elif kind == "space_beans":
        listed = s.get("players") or []
        players = [{"name": p.get("name"), "score": p.get("total")} for p in listed]
        active = s.get("active")
        if isinstance(active, int) and 0 <= active < len(listed):
            turn = _name(listed[active].get("name"))
        top = s.get("leader")
        if isinstance(top, int) and 0 <= top < len(listed):
            leader = _name(listed[top].get("name"))
        winners = s.get("winners")
        if isinstance(winners, list) and winners:
            winner = " & ".join(str(listed[i].get("name")) for i in winners if 0 <= i < len(listed))
        detail = f"round {s.get('round', 1)}" + (" · last round" if s.get("end_triggered") else "")
    last = game.get("last") if isinstance(game.get("last"), dict) else None
    return {
        "kind": kind,
        "title": KIND_TITLES.get(kind, kind),
        "finished": bool(game.get("finished")),
        "players": players,
        "turn": turn,
        "leader": leader,
        "winner": winner,
        "detail": detail,
        "last": None
        if last is None
        else {"seq": last.get("seq"), "type": last.get("type"), "at": last.get("at")},
    }


def _top(players: list[dict[str, Any]]) -> str | None:
    """The one player with the highest score; None on a tie or with no scores."""
    scored = [p for p in players if isinstance(p.get("score"), int | float)]
    if not scored:
        return None
    best = max(p["score"] for p in scored)
    top = [p for p in scored if p["score"] == best]
    return _name(top[0]["name"]) if len(top) == 1 and best > 0 else None


def game_payload(table: str, name: str, public: dict[str, Any], sent: float) -> dict[str, Any]:
    """The ``game`` topic: the summary, and the public state itself (exactly
    what the table's /api/state serves) for whoever wants more."""
    return {
        "table": table,
        "name": name,
        "sent": sent,
        "seq": public.get("seq", 0),
        **summary(public),
        "public": public,
    }


def timer_view(public: dict[str, Any]) -> dict[str, Any] | None:
    """The mission timer's public view in a public state, or None (no Outer Space)."""
    game = public.get("game") if isinstance(public, dict) else None
    if not isinstance(game, dict) or game.get("kind") != "outer_space":
        return None
    timer = (game.get("state") or {}).get("timer")
    return timer if isinstance(timer, dict) else None


def timer_payload(table: str, view: dict[str, Any] | None, now: float) -> dict[str, Any]:
    """The ``timer`` topic at ``now`` (the table's clock): seconds left then,
    whether it runs, and when it ends (on the table's clock)."""
    if view is None:
        return {
            "table": table,
            "sent": now,
            "state": "none",
            "running": False,
            "left": None,
            "duration": None,
            "ends_at": None,
        }
    deadline = view.get("deadline")
    state = view.get("state", "ready")
    left = float(view.get("remaining") or 0.0)
    if state == "running" and isinstance(deadline, int | float):
        left = max(0.0, float(deadline) - now)
        if left <= 0:
            state = "ended"
    return {
        "table": table,
        "sent": now,
        "state": state,
        "running": state == "running",
        "left": round(left, 3),
        "duration": view.get("duration"),
        "ends_at": deadline if state == "running" else None,
    }


def event_payload(table: str, event: Any, now: float) -> dict[str, Any]:
    """One public event as the table's /api/events stream carries it; a state
    change is told by its command only (the state itself is on ``game``)."""
    data = event.data
    if event.type == "state":
        game = data.get("game") or {}
        data = {"seq": data.get("seq", 0), "kind": game.get("kind"), "last": game.get("last")}
    return {"table": table, "sent": now, "id": event.id, "type": event.type, "data": data}


def discovery_messages(
    table: str, name: str, prefix: str = PREFIX, discovery_prefix: str = DISCOVERY_PREFIX
) -> list[tuple[str, dict[str, Any]]]:
    """Home Assistant MQTT discovery: one device per table, four sensors."""
    node = f"tablepi_{table.replace('-', '_')}"
    device = {
        "identifiers": [node],
        "name": name,
        "manufacturer": "TablePi",
        "model": "Games table",
    }
    game_topic = topic(table, "game", prefix)
    timer_topic = topic(table, "timer", prefix)
    sensors = [
        ("game", "Game", game_topic, "{{ value_json.title or 'No game' }}", "mdi:dice-multiple", {}),
        ("leader", "Leader", game_topic, "{{ value_json.leader or 'None' }}", "mdi:crown", {}),
        ("turn", "Turn", game_topic, "{{ value_json.turn or 'None' }}", "mdi:account-arrow-right", {}),
        (
            "timer",
            "Timer",
            timer_topic,
            "{{ value_json.left | round(0) | int if value_json.left is not none else 'None' }}",
            "mdi:timer-sand",
            {"unit_of_measurement": "s", "device_class": "duration", "json_attributes_topic": timer_topic},
        ),
    ]
    messages = []
    for object_id, label, state_topic, template, icon, extra in sensors:
        config = {
            "name": label,
            "unique_id": f"{node}_{object_id}",
            # (Home Assistant's former "object_id" is no longer read since 2026.4.)
            "default_entity_id": f"sensor.{node}_{object_id}",
            "state_topic": state_topic,
            "value_template": template,
            "availability_topic": topic(table, "status", prefix),
            "payload_available": "online",
            "payload_not_available": "offline",
            "icon": icon,
            "device": device,
            **extra,
        }
        if object_id == "game":
            config["json_attributes_topic"] = game_topic
            config["json_attributes_template"] = (
                "{{ {'players': value_json.players, 'detail': value_json.detail, "
                "'winner': value_json.winner} | tojson }}"
            )
        messages.append((f"{discovery_prefix}/sensor/{node}/{object_id}/config", config))
    return messages


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace")


# -- the table's side ------------------------------------------------------------


class Publisher:
    """Publishes one table's public state to the venue's broker; see the module docstring.

    ``cfg`` is a ``tablepi.config.VenueConfig``; ``table`` a ``tablepi.table.Table``
    (only ``subscribe``, ``public_state`` and ``clock`` are used). ``on_link`` is
    called with the link's state ("connecting", "online", "offline") when it
    changes, from paho's thread: it must not block.
    """

    def __init__(
        self,
        cfg: Any,
        table: Any,
        *,
        on_link: Callable[[str], None] | None = None,
        prefix: str = PREFIX,
        client_factory: Callable[..., Any] | None = None,
    ) -> None:
        self.cfg = cfg
        self.table = table
        self.table_id = cfg.table
        self.name = cfg.name or cfg.table
        self.prefix = prefix
        self.clock: Callable[[], float] = getattr(table, "clock", time.time)
        self.on_link = on_link
        self._client_factory = client_factory
        self.topics = {t: topic(self.table_id, t, prefix) for t in (*STATE_TOPICS, "event")}
        # The latest of each topic, kept raw and encoded only when sent.
        self._latest: dict[str, tuple[str, Any]] = {}
        self._dirty: dict[str, None] = {}  # topics whose latest is not sent yet, in order
        self._lock = threading.Lock()  # _latest and _dirty; never held while calling paho
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._reconnects = 0  # bumped by paho's thread on each connect
        self._seen_reconnects = 0
        self._resend_at: float | None = None
        self._state = "connecting"
        self._since = time.time()
        self._error: str | None = None
        self._published = 0
        self._superseded = 0
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._timer_sent = 0.0
        for t, config in discovery_messages(self.table_id, self.name, prefix) if cfg.discovery else []:
            self._latest[t] = ("json", config)

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background (never waits for the broker) and start publishing."""
        # Subscribe before reading the state, so that no change in between is lost.
        self._sub = self.table.subscribe(maxsize=1000)
        self._set_latest(self.topics["status"], ("text", "online"))
        self._put_state(self.table.public_state())
        try:
            self._client = self._make_client()
            self._client.connect_async(self.cfg.broker, int(self.cfg.port), keepalive=int(self.cfg.keepalive))
            self._client.loop_start()
        except Exception as exc:  # an unreadable CA file, say: the table plays on without the venue
            self._set_state("offline", f"cannot connect to {self.cfg.broker}:{self.cfg.port}: {exc}")
        self._thread = threading.Thread(target=self._run, name="tablepi-venue", daemon=True)
        self._thread.start()

    def _make_client(self) -> Any:
        if self._client_factory is not None:
            return self._client_factory(self)
        import paho.mqtt.client as mqtt

        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"tablepi-{self.table_id}-{uuid.uuid4().hex[:6]}",
            clean_session=True,
        )
        client.connect_timeout = CONNECT_TIMEOUT
        client.reconnect_delay_set(min_delay=1, max_delay=max(1, int(math.ceil(self.cfg.reconnect_max))))
        client.max_queued_messages_set(PAHO_QUEUE)
        client.will_set(self.topics["status"], "offline", qos=1, retain=True)
        if self.cfg.username:
            client.username_pw_set(self.cfg.username, self.cfg.password or None)
        if self.cfg.tls:
            client.tls_set(ca_certs=self.cfg.ca_file or None)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = self._on_connect_fail
        return client

    def close(self) -> None:
        """Say "offline" (when connected), disconnect and stop; waits
        ``CLOSE_SECONDS`` at most, whatever the broker does."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(CLOSE_SECONDS)
        sub = getattr(self, "_sub", None)
        if sub is not None:
            sub.close()
        client = self._client
        if client is None:
            self._set_state("stopped")
            return

        def stop() -> None:
            try:
                if self._connected.is_set():
                    info = client.publish(self.topics["status"], "offline", qos=1, retain=True)
                    info.wait_for_publish(CLOSE_SECONDS / 2)
                client.disconnect()
                client.loop_stop()
            except Exception:  # noqa: BLE001 - closing must not stop the table's shutdown
                log.debug("closing the venue link", exc_info=True)

        closer = threading.Thread(target=stop, name="tablepi-venue-close", daemon=True)
        closer.start()
        closer.join(CLOSE_SECONDS)
        self._set_state("stopped")

    # -- paho's callbacks (paho's thread: no locks shared with publishing) ------

    def _on_connect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None
    ) -> None:
        if getattr(reason, "is_failure", False):
            self._set_state("offline", f"the broker refused the connection: {reason}")
            return
        self._reconnects += 1
        self._connected.set()
        self._set_state("online")

    def _on_disconnect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None
    ) -> None:
        self._connected.clear()
        if not self._stop.is_set():
            self._set_state("offline", f"disconnected from the broker ({reason})")

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self._connected.clear()
        self._set_state("offline", f"cannot reach the broker at {self.cfg.broker}:{self.cfg.port}")

    def _set_state(self, state: str, error: str | None = None) -> None:
        changed = state != self._state
        self._state = state
        if state == "online":
            self._error = None
        elif error:
            self._error = error
        if not changed:
            return
        self._since = time.time()
        if state == "online":
            log.info(N_("venue: publishing to %s:%s as %s"), self.cfg.broker, self.cfg.port, self.table_id)
        elif state == "offline":
            log.warning(
                N_("venue: %s; the table plays on and catches up when it is back"),
                Text(error or N_("link lost")),
            )
        if self.on_link is not None:
            try:
                self.on_link(state)
            except Exception:  # noqa: BLE001
                log.exception(N_("venue link callback"))

    # -- the publisher's thread ------------------------------------------------------

    def _run(self) -> None:
        sub = self._sub
        try:
            while not self._stop.is_set():
                event = sub.get(timeout=POLL_SECONDS)
                handled = 0
                while event is not None and handled < 200:
                    self._handle(event)
                    handled += 1
                    event = sub.get(timeout=0)
                if event is not None:
                    self._handle(event)
                self._tick()
                if self._connected.is_set():
                    self._flush()
        except Exception:  # noqa: BLE001 - the venue must never take the table down
            log.exception(N_("venue publisher stopped"))
            self._set_state("offline", "the venue publisher failed; see the log")

    def _handle(self, event: Any) -> None:
        if event.type == "state":
            self._put_state(event.data)
        elif event.type == "missed":
            self._put_state(self.table.public_state())
        if event.type not in QUIET_EVENTS:
            self._set_latest(self.topics["event"], ("event", event))

    def _put_state(self, public: dict[str, Any]) -> None:
        self._set_latest(self.topics["game"], ("game", public))
        view = timer_view(public)
        with self._lock:
            shown = self._latest.get(self.topics["timer"])
        if shown is None or shown[1] != view:
            self._set_latest(self.topics["timer"], ("timer", view))

    def _set_latest(self, name: str, value: tuple[str, Any]) -> None:
        with self._lock:
            if name in self._dirty:
                self._superseded += 1
            self._latest[name] = value
            self._dirty[name] = None

    def _tick(self) -> None:
        now = time.monotonic()
        if self._reconnects != self._seen_reconnects:
            first = self._seen_reconnects == 0
            self._seen_reconnects = self._reconnects
            self._resend_all()
            self._resend_at = None if first else now + RESEND_SECONDS
        elif self._resend_at is not None and now >= self._resend_at and self._connected.is_set():
            self._resend_at = None
            self._resend_all(retained_only=True)
        # A running mission timer is sent again each second, so that a sensor shows it count down.
        with self._lock:
            timer = self._latest.get(self.topics["timer"])
        view = timer[1] if timer else None
        if view and view.get("state") == "running" and now - self._timer_sent >= TIMER_REFRESH_SECONDS:
            deadline = view.get("deadline")
            if isinstance(deadline, int | float) and self.clock() <= deadline + TIMER_REFRESH_SECONDS:
                with self._lock:
                    self._dirty[self.topics["timer"]] = None

    def _resend_all(self, retained_only: bool = False) -> None:
        with self._lock:
            for name in self._latest:
                if retained_only and name == self.topics["event"]:
                    continue
                self._dirty[name] = None

    def _encode(self, name: str, value: tuple[str, Any]) -> tuple[bytes, int, bool]:
        kind, data = value
        now = self.clock()
        if kind == "text":
            return data.encode(), 1, True
        if kind == "json":
            return _dumps(data), 1, True
        if kind == "game":
            return _dumps(game_payload(self.table_id, self.name, data, now)), 1, True
        if kind == "timer":
            self._timer_sent = time.monotonic()
            return _dumps(timer_payload(self.table_id, data, now)), 1, True
        return _dumps(event_payload(self.table_id, data, now)), 0, False

    def _flush(self) -> None:
        import paho.mqtt.client as mqtt

        client = self._client
        while self._connected.is_set() and not self._stop.is_set():
            with self._lock:
                if not self._dirty:
                    return
                # The status first, so that subscribers see the table online before its state.
                status = self.topics["status"]
                name = status if status in self._dirty else next(iter(self._dirty))
                value = self._latest[name]
                del self._dirty[name]
            payload, qos, retain = self._encode(name, value)
            info = client.publish(name, payload, qos=qos, retain=retain)
            if info.rc == mqtt.MQTT_ERR_SUCCESS:
                self._published += 1
                continue
            with self._lock:
                # Not taken: sent at the next turn, unless a newer one came meanwhile.
                if name not in self._dirty and self._latest.get(name) is value:
                    self._dirty[name] = None
            return

    # -- what /healthz and the OLED show ---------------------------------------------

    @property
    def state(self) -> str:
        return self._state

    def health(self) -> dict[str, Any]:
        with self._lock:
            waiting = len(self._dirty)
        return {
            "state": self._state,
            "broker": f"{self.cfg.broker}:{self.cfg.port}",
            "table": self.table_id,
            "since": round(self._since, 3),
            "error": self._error,
            "waiting": waiting,
            "published": self._published,
            "superseded": self._superseded,
        }


# -- the venue's side: the board ---------------------------------------------------

MAX_TABLES = 200
MAX_PAYLOAD = 512 * 1024
MAX_PLAYERS = 16
# A payload older than the one shown (by the table's own clock) is a late
# copy and is left out; one much older means the table's clock was set back.
REORDER_SECONDS = 60.0


def _clip(value: Any, limit: int = 60) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text[:limit]


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None


class Board:
    """What the venue board knows of every table, kept from the broker's
    messages (``handle``) and read by the board's pages (``cards``,
    ``changes``). Anything on the broker may publish under ``tablepi/``, so
    every payload is checked and cut to size; at most ``MAX_TABLES`` tables."""

    def __init__(self, prefix: str = PREFIX, clock: Callable[[], float] = time.time) -> None:
        from tablepi.config import TABLE_ID

        self._table_id = TABLE_ID
        self.prefix = prefix
        self.clock = clock
        self._cond = threading.Condition()
        self._tables: dict[str, dict[str, Any]] = {}
        self._removed: dict[str, int] = {}
        self._version = 0
        self._closed = False
        self.link = "connecting"
        self.link_error: str | None = None
        self.received = 0
        self.ignored = 0

    # -- from the broker ---------------------------------------------------------

    def handle(self, topic_name: str, payload: bytes) -> bool:
        """Take one message; False when it is not one the board shows."""
        parts = topic_name.split("/")
        if len(parts) != 3 or parts[0] != self.prefix or parts[2] not in STATE_TOPICS:
            return False
        table, what = parts[1], parts[2]
        if not self._table_id.fullmatch(table) or len(payload) > MAX_PAYLOAD:
            self.ignored += 1
            return False
        now = self.clock()
        data: Any = None
        if what == "status":
            data = payload.decode("utf-8", "replace").strip()
        elif payload:
            try:
                data = json.loads(payload)
            except ValueError:
                data = None
            if not isinstance(data, dict):
                self.ignored += 1
                return False
        with self._cond:
            self.received += 1
            card = self._tables.get(table)
            if not payload and what == "status":
                # A retained status cleared: the table has left the venue.
                if card is not None:
                    del self._tables[table]
                    self._version += 1
                    self._removed[table] = self._version
                    self._cond.notify_all()
                return True
            if card is None:
                if len(self._tables) >= MAX_TABLES:
                    self.ignored += 1
                    return False
                card = {"table": table, "name": table, "status": "unknown", "game": None, "timer": None}
                self._tables[table] = card
                self._removed.pop(table, None)
            if what == "status":
                card["status"] = "online" if data == "online" else "offline"
            elif what == "game":
                if data is None:
                    card["game"] = None
                elif not self._late(card.get("game"), data):
                    card["game"] = self._game(data, now)
                    card["name"] = _clip(data.get("name"), 40) or table
            elif data is None:
                card["timer"] = None
            elif not self._late(card.get("timer"), data):
                card["timer"] = self._timer(data, now)
            card["received"] = now
            self._version += 1
            card["version"] = self._version
            self._cond.notify_all()
        return True

    @staticmethod
    def _late(shown: dict[str, Any] | None, data: dict[str, Any]) -> bool:
        if not shown:
            return False
        old, new = shown.get("sent"), _number(data.get("sent"))
        return old is not None and new is not None and old - REORDER_SECONDS < new < old

    @staticmethod
    def _game(data: dict[str, Any], now: float) -> dict[str, Any]:
        players = []
        for p in (data.get("players") if isinstance(data.get("players"), list) else [])[:MAX_PLAYERS]:
            if isinstance(p, dict):
                players.append(
                    {
                        "name": _clip(p.get("name"), NAME_CHARS) or "?",
                        "score": _number(p.get("score")),
                        "table": p.get("table") is True,
                    }
                )
        last = data.get("last") if isinstance(data.get("last"), dict) else None
        return {
            "kind": _clip(data.get("kind"), 30),
            "title": _clip(data.get("title"), 40),
            "finished": bool(data.get("finished")),
            "players": players,
            "turn": _clip(data.get("turn"), NAME_CHARS),
            "leader": _clip(data.get("leader"), NAME_CHARS),
            "winner": _clip(data.get("winner"), 60),
            "detail": _clip(data.get("detail"), 60),
            "seq": _number(data.get("seq")),
            "sent": _number(data.get("sent")),
            "last": None
            if last is None
            else {
                "seq": _number(last.get("seq")),
                "type": _clip(last.get("type"), 30),
                "at": _number(last.get("at")),
            },
        }

    @staticmethod
    def _timer(data: dict[str, Any], now: float) -> dict[str, Any]:
        left = _number(data.get("left"))
        sent = _number(data.get("sent"))
        running = bool(data.get("running")) and left is not None
        if running and sent is not None and abs(now - sent) < REORDER_SECONDS:
            left = max(0.0, left - max(0.0, now - sent))  # the time it took to get here
        return {
            "state": _clip(data.get("state"), 12) or "none",
            "running": running,
            "left": left,
            "duration": _number(data.get("duration")),
            "sent": sent,
            # On the board's own clock: the table's may differ.
            "ends": now + left if running and left is not None else None,
        }

    def set_link(self, state: str, error: str | None = None) -> None:
        with self._cond:
            if state == self.link and error == self.link_error:
                return
            self.link, self.link_error = state, error
            self._version += 1
            self._cond.notify_all()

    # -- for the pages --------------------------------------------------------------

    def _view(self, card: dict[str, Any], now: float) -> dict[str, Any]:
        view = dict(card)
        timer = card.get("timer")
        if timer is not None:
            timer = dict(timer)
            ends = timer.pop("ends", None)
            if timer["running"] and ends is not None:
                timer["left"] = max(0.0, ends - now)
                if timer["left"] <= 0:
                    timer["running"], timer["state"] = False, "ended"
            view["timer"] = timer
        return view

    def snapshot(self) -> dict[str, Any]:
        """Every table now, for a page that has just opened."""
        with self._cond:
            now = self.clock()
            return {
                "version": self._version,
                "now": now,
                "link": self.link,
                "link_error": self.link_error,
                "tables": [self._view(c, now) for c in self._tables.values()],
                "removed": [],
            }

    def changes(self, version: int, timeout: float) -> dict[str, Any] | None:
        """The tables changed after ``version``, waiting up to ``timeout`` for
        one; None when nothing changed (or the board is closing)."""
        with self._cond:
            if self._version <= version and not self._closed:
                self._cond.wait_for(lambda: self._version > version or self._closed, timeout)
            if self._version <= version or self._closed:
                return None
            now = self.clock()
            return {
                "version": self._version,
                "now": now,
                "link": self.link,
                "link_error": self.link_error,
                "tables": [
                    self._view(c, now) for c in self._tables.values() if c.get("version", 0) > version
                ],
                "removed": [t for t, v in self._removed.items() if v > version],
            }

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def health(self) -> dict[str, Any]:
        with self._cond:
            online = sum(1 for c in self._tables.values() if c["status"] == "online")
            return {
                "ok": self.link == "online",
                "broker": {"state": self.link, "error": self.link_error},
                "tables": len(self._tables),
                "online": online,
                "received": self.received,
                "ignored": self.ignored,
            }


class BoardListener:
    """The board's MQTT client: subscribes to ``tablepi/+/#`` on every
    (re)connect and feeds each message to a ``Board``."""

    def __init__(
        self,
        board: Board,
        broker: str,
        port: int = 1883,
        *,
        username: str = "",
        password: str = "",
        tls: bool = False,
        ca_file: str = "",
        reconnect_max: float = 10,
        keepalive: int = 30,
    ) -> None:
        import paho.mqtt.client as mqtt

        self.board = board
        self.broker, self.port, self.keepalive = broker, int(port), int(keepalive)
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=f"tablepi-board-{uuid.uuid4().hex[:6]}",
            clean_session=True,
        )
        client.connect_timeout = CONNECT_TIMEOUT
        client.reconnect_delay_set(min_delay=1, max_delay=max(1, int(math.ceil(reconnect_max))))
        if username:
            client.username_pw_set(username, password or None)
        if tls:
            client.tls_set(ca_certs=ca_file or None)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = self._on_connect_fail
        client.on_message = self._on_message
        self.client = client

    def start(self) -> None:
        self.client.connect_async(self.broker, self.port, keepalive=self.keepalive)
        self.client.loop_start()

    def close(self) -> None:
        def stop() -> None:
            try:
                self.client.disconnect()
                self.client.loop_stop()
            except Exception:  # noqa: BLE001
                log.debug("closing the board's broker link", exc_info=True)

        closer = threading.Thread(target=stop, name="tablepi-board-close", daemon=True)
        closer.start()
        closer.join(CLOSE_SECONDS)

    def _on_connect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None
    ) -> None:
        if getattr(reason, "is_failure", False):
            self.board.set_link("offline", f"the broker refused the connection: {reason}")
            return
        client.subscribe(f"{self.board.prefix}/+/#", qos=1)
        log.info(N_("board: listening to %s:%s"), self.broker, self.port)
        self.board.set_link("online")

    def _on_disconnect(
        self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None
    ) -> None:
        self.board.set_link("offline", f"disconnected from the broker ({reason})")

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        self.board.set_link("offline", f"cannot reach the broker at {self.broker}:{self.port}")

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            self.board.handle(message.topic, message.payload)
        except Exception:  # noqa: BLE001 - one odd message must not stop the board
            log.exception(N_("board: message on %s"), getattr(message, "topic", "?"))
