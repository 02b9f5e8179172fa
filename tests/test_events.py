"""The event bus: non-blocking publishing, bounded queues, resume by id."""

from __future__ import annotations

import threading
import time

from tablepi.events import EventBus


def test_events_reach_every_subscriber_in_order() -> None:
    bus = EventBus()
    a, b = bus.subscribe(), bus.subscribe()
    sent = [bus.publish("state", {"n": i}) for i in range(5)]
    for sub in (a, b):
        got = [sub.get(0) for _ in range(5)]
        assert [e.id for e in got] == [e.id for e in sent]
        assert [e.data["n"] for e in got] == list(range(5))
        assert sub.get(0) is None
    assert [e.id for e in sent] == sorted({e.id for e in sent})


def test_full_queue_drops_and_reports_missed() -> None:
    bus = EventBus()
    slow = bus.subscribe(maxsize=3)
    for i in range(10):
        bus.publish("state", {"n": i})
    event = slow.get(0)
    assert event.type == "missed"
    assert event.data == {"missed": 10}
    assert slow.get(0) is None
    bus.publish("state", {"n": 10})
    after = slow.get(0)
    assert after.type == "state" and after.data == {"n": 10}


def test_get_waits_for_a_publish_from_another_thread() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    threading.Timer(0.05, bus.publish, args=("rolling", {})).start()
    start = time.monotonic()
    event = sub.get(timeout=2)
    assert event is not None and event.type == "rolling"
    assert time.monotonic() - start < 1.5


def test_closed_subscription_gets_nothing_and_is_forgotten() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    assert bus.subscriber_count == 1
    sub.close()
    bus.publish("state", {})
    assert bus.subscriber_count == 0
    assert sub.get(0) is None


def test_events_since_resumes_or_says_too_old() -> None:
    bus = EventBus(history=5)
    ids = [bus.publish("state", {"n": i}).id for i in range(8)]
    assert [e.id for e in bus.events_since(ids[4])] == ids[5:]
    assert bus.events_since(ids[-1]) == []
    assert bus.events_since(ids[0]) is None  # fell out of the ring
    assert bus.events_since(ids[-1] + 100) is None  # an id from another run


def test_publish_does_not_wait_for_a_blocked_reader() -> None:
    bus = EventBus()
    bus.subscribe(maxsize=10)  # never read
    start = time.monotonic()
    for i in range(20_000):
        bus.publish("state", {"n": i})
    assert time.monotonic() - start < 5
