"""In-process publish/subscribe for the table's events.

Every subscriber (a phone's event stream, the TV page, the OLED controller)
gets its own bounded queue. Publishing never blocks and never waits for a
reader: when a subscriber's queue is full its pending events are dropped and
its next ``get()`` returns an ``Event(type="missed")`` telling it to re-read
the state. A stalled phone therefore costs the table nothing.

A ring buffer of recent events serves ``events_since(id)`` so that a browser
reconnecting with ``Last-Event-ID`` resumes where it left off.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    id: int
    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "data": self.data}


class Subscription:
    """One subscriber's queue. ``get()`` from one thread; the bus fills it."""

    def __init__(self, bus: EventBus, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self._bus = bus
        self._maxsize = maxsize
        self._queue: deque[Event] = deque()
        self._cond = threading.Condition(threading.Lock())
        self._missed = 0
        self._missed_id = 0
        self.closed = False

    @property
    def missed(self) -> int:
        """Events dropped since the last ``missed`` notice was read."""
        return self._missed

    def _offer(self, event: Event) -> None:
        with self._cond:
            if self.closed:
                return
            if self._missed or len(self._queue) >= self._maxsize:
                # What is queued is stale once anything is lost: the reader
                # re-reads the whole state instead, so drop it all.
                self._missed += len(self._queue) + 1
                self._missed_id = event.id
                self._queue.clear()
            else:
                self._queue.append(event)
            self._cond.notify()

    def get(self, timeout: float | None = None) -> Event | None:
        """The next event, or None after ``timeout`` seconds (or once closed)."""
        with self._cond:
            if not self._queue and not self._missed and not self.closed:
                self._cond.wait(timeout)
            if self._missed:
                event = Event(self._missed_id, "missed", {"missed": self._missed})
                self._missed = 0
                return event
            if self._queue:
                return self._queue.popleft()
            return None

    def pending(self) -> int:
        with self._cond:
            return len(self._queue)

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._queue.clear()
            self._cond.notify_all()
        self._bus._remove(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventBus:
    """Publishes events to every subscriber and remembers the recent ones."""

    def __init__(self, history: int = 1000, first_id: int = 1) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(first_id)
        self._history: deque[Event] = deque(maxlen=history)
        self._subscribers: list[Subscription] = []
        self._last_id = first_id - 1

    @property
    def last_id(self) -> int:
        return self._last_id

    def publish(self, type: str, data: dict[str, Any] | None = None) -> Event:
        with self._lock:
            event = Event(next(self._ids), type, dict(data or {}))
            self._history.append(event)
            self._last_id = event.id
            subscribers = list(self._subscribers)
        # Each offer takes only that subscriber's own short lock.
        for sub in subscribers:
            sub._offer(event)
        return event

    def subscribe(self, maxsize: int = 1000) -> Subscription:
        sub = Subscription(self, maxsize)
        with self._lock:
            self._subscribers.append(sub)
        return sub

    def _remove(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subscribers:
                self._subscribers.remove(sub)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def events_since(self, event_id: int) -> list[Event] | None:
        """Events after ``event_id``; None when they are no longer all held
        (or the id is from another run), so the caller re-reads the state."""
        with self._lock:
            if event_id > self._last_id:
                return None
            if event_id == self._last_id:
                return []
            if not self._history or self._history[0].id > event_id + 1:
                return None
            return [e for e in self._history if e.id > event_id]
