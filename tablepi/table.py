"""The hub: the one place game state changes.

Inputs (buttons, camera readings, web, CLI) become commands; the table
validates each against the active game's rules, stores it durably, applies it
and publishes events. Outputs (OLED, web pages, buzzer) render events and the
public state.

Interface (implemented by the table-service work; the web builds on it):

    table = Table(store, clock=time.time)
    table.start_game(kind, settings, source="web") -> dict     # public state
    table.submit(command, source="web") -> dict                # public state after commit
        # raises RuleError (illegal by the rules; .rule names it) or
        # CommandError (malformed / no game); nothing changes then
    table.public_state() -> dict
        # {"seq": int, "game": None | {"id": int, "kind": str, "finished": bool,
        #   "state": game.public_view(now)}}
    table.subscribe(maxsize=1000) -> Subscription
        # sub.get(timeout) -> Event | None; sub.close()
        # a full queue drops events and the next get() returns
        # Event(type="missed") so the viewer re-reads the state
    table.events_since(event_id) -> list[Event] | None   # None: too old, re-read state
    table.publish(type, data)   # device events ("rolling", "camera", "error"); never secrets

    Event(id: int, type: str, data: dict)   # types: "state", "rolling", "reading",
                                            # "timer", "camera", "error", "missed"
"""
