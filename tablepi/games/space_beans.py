"""Space Beans: a score keeper for trophies, close-outs and the end game.

The table keeps what lies face up: trophies, open collections, and the *size*
of each secret collection. A secret collection's contents are entered only
when it is turned face up (after its owner closes out the open collection)
or at the end of the game; until then neither the state nor the command
record holds them.

Settings::

    {"players": ["Ann", "Ben", ...]}   # 2..6 unique names in turn order, first player first

Players are named in commands by their index in that list (0 = first player).
Bean types: Klingbohns, Dark Beans, Beanliens, Centauribohnen, Bohrion,
Moonbohnen, Bluebeans (matched regardless of case; "Klingbohnen" and
"Darth Beans" are accepted too). Card values 1..9.

Commands, in the order of a turn (only the active player acts; the table may
stamp them with ``"at"``, which is ignored)::

    {"type": "close_out", "player": i}
        # from round 2, before adding: close out the open collection (S2). A card
        # equal to the collection's size becomes a trophy (only one). If the player
        # has a secret collection it turns face up and must be revealed next:
    {"type": "reveal", "player": i, "bean": BEAN, "cards": [values]}
        # the secret collection's contents, now the open collection; as many cards
        # as its known size. It may be closed out in turn.
    {"type": "add", "player": i, "collection": "open", "bean": BEAN, "cards": [values]}
        # start the open collection or add to it (one bean type only, S2)
    {"type": "add", "player": i, "collection": "secret", "count": k}
        # start the secret collection or add k cards to it: the count only, never
        # the cards or their type
    {"type": "end_turn"}
        # after exactly one addition. A player ending the turn with 30 or more trophy
        # points ends the game and gets the 3-point bonus (S3); then every player with
        # a secret collection enters its contents:
    {"type": "final", "player": i, "bean": BEAN, "cards": [values]}
        # the secret collection at the end of the game (as many cards as its size);
        # players without one need no entry. Once all are in, every collection is
        # closed out and scored and the game is over.

Every entry is checked against the deck (S1): at most one card of each value
1..3 and two of each value 4..9 per bean type among the cards in view
(trophies, open collections and revealed collections). Discarded cards are not
counted, since the discard pile is shuffled back into the draw pile. The table
never sees the hands, so the rules about them (drawing, passing cards on, the
forced close-out when nothing in hand fits) stay with the players.
"""

from __future__ import annotations

from typing import Any

from tablepi.games.errors import RuleError
from tablepi.games.recorded import RecordedGame, player_names
from tablepi.games.recorded import clone as _clone
from tablepi.i18n import N_

BEANS = ("Klingbohns", "Dark Beans", "Beanliens", "Centauribohnen", "Bohrion", "Moonbohnen", "Bluebeans")
_BEAN_NAMES = {b.casefold(): b for b in BEANS} | {"klingbohnen": "Klingbohns", "darth beans": "Dark Beans"}
MIN_PLAYERS = 2
MAX_PLAYERS = 6
TARGET = 30
BONUS = 3
CARDS_PER_TYPE = 15


def copies_in_deck(value: int) -> int:
    """How many cards of ``value`` each bean type has (S1)."""
    return 1 if value <= 3 else 2


def collection_score(cards: list[int]) -> int:
    """The trophy a close-out of ``cards`` yields (S2): the size if a card matches it."""
    return len(cards) if len(cards) in cards else 0


def rank(totals: list[int]) -> list[int]:
    """Competition ranks (1, 1, 3, ...): equal totals share a place."""
    return [1 + sum(other > total for other in totals) for total in totals]


def _settings(settings: Any) -> dict[str, Any]:
    names = player_names(settings)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise RuleError(
            "S1",
            N_("Space Beans is for {min_players} to {max_players} players, not {n}").format(
                min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, n=len(names)
            ),
        )
    return {"players": names}


class SpaceBeans(RecordedGame):
    """The public record of a game of Space Beans."""

    kind = "space_beans"
    takes_at = False  # the rules never read the time

    def __init__(self, settings: dict[str, Any]) -> None:
        self._settings = _settings(settings)
        super().__init__()

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> SpaceBeans:
        return cls(settings)

    def _initial_state(self) -> dict[str, Any]:
        return {
            "turn": 0,
            "added": False,
            "ender": None,
            "players": [
                {"trophies": [], "open": None, "secret": 0, "reveal": 0, "final": None}
                for _ in self._settings["players"]
            ],
            "close_outs": [],
        }

    # -- protocol -----------------------------------------------------------

    @property
    def players(self) -> list[str]:
        return list(self._settings["players"])

    @property
    def finished(self) -> bool:
        return self._finished(self._state)

    def _step(self, state: dict[str, Any], command: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        return self._apply(state, command)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SpaceBeans:
        try:
            game = cls(data["settings"])
            state = _clone(data["state"])
            if len(state["players"]) != len(game._settings["players"]):
                raise ValueError("one record per player")
            for p in state["players"]:
                if not isinstance(p["secret"], int) or set(p) != {
                    "trophies",
                    "open",
                    "secret",
                    "reveal",
                    "final",
                }:
                    raise ValueError("a player's record is malformed")
            game._state = state
            game._load_commands(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise RuleError("saved-game", N_("not a saved Space Beans game: {exc}").format(exc=exc)) from None
        return game

    def public_view(self, now: float | None = None) -> dict[str, Any]:
        s = self._state
        n = len(self._settings["players"])
        over = self.finished
        players = []
        for i, (name, p) in enumerate(zip(self._settings["players"], s["players"], strict=True)):
            points = sum(t["value"] for t in p["trophies"])
            bonus = BONUS if s["ender"] == i else 0
            entry: dict[str, Any] = {
                "index": i,
                "name": name,
                "trophies": _clone(p["trophies"]),
                "trophy_points": points,
                "bonus": bonus,
                "to_target": max(0, TARGET - points),
                "open": self._collection_view(p["open"]),
                "secret_count": p["secret"],
                "reveal_pending": p["reveal"],
                "final": None,
                "total": points + bonus,
            }
            if p["final"] is not None:
                final = [self._collection_view(p["open"], secret=False)] if p["open"] else []
                if p["final"]["cards"]:
                    final.append(self._collection_view(p["final"], secret=True))
                entry["final"] = final
                entry["total"] += sum(c["score"] for c in final)
            players.append(entry)
        totals = [p["total"] for p in players]
        ranks = rank(totals)
        best = max(totals)
        order = sorted(range(n), key=lambda i: (ranks[i], i))
        standings = [
            {"rank": ranks[i], "player": i, "name": players[i]["name"], "total": totals[i]} for i in order
        ]
        leaders = [i for i in range(n) if totals[i] == best]
        return {
            "players": players,
            "active": None if s["ender"] is not None else s["turn"] % n,
            "round": s["turn"] // n + 1,
            "turn": s["turn"] + 1,
            "added_this_turn": s["added"],
            "leaders": leaders,
            "leader": ranks.index(1) if ranks.count(1) == 1 else None,
            "standings": standings,
            "end_triggered": s["ender"] is not None,
            "ender": s["ender"],
            "awaiting_final": [
                i for i, p in enumerate(s["players"]) if s["ender"] is not None and p["final"] is None
            ],
            "close_outs": _clone(s["close_outs"]),
            "finished": over,
            "ranking": _clone(standings) if over else None,
            "winners": list(leaders) if over else None,
            "beans": list(BEANS),
            "target": TARGET,
            "bonus": BONUS,
        }

    @staticmethod
    def _collection_view(c: dict[str, Any] | None, secret: bool | None = None) -> dict[str, Any] | None:
        if c is None:
            return None
        view = {
            "bean": c["bean"],
            "cards": list(c["cards"]),
            "size": len(c["cards"]),
            "score": collection_score(c["cards"]),
        }
        if secret is not None:
            view["was_secret"] = secret
        return view

    # -- rules --------------------------------------------------------------

    def _apply(self, s: dict[str, Any], command: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        if not isinstance(command, dict) or not isinstance(command.get("type"), str):
            raise RuleError("command", N_("a command is an object with a type"))
        handler = getattr(self, f"_cmd_{command['type']}", None)
        if handler is None:
            raise RuleError("command", N_("unknown command {command}").format(command=repr(command["type"])))
        if self._finished(s):
            raise RuleError("finished", N_("the game is over"))
        record = handler(s, command)
        if "at" in command and isinstance(command["at"], int | float) and not isinstance(command["at"], bool):
            record["at"] = command["at"]
        return s, record

    @staticmethod
    def _finished(s: dict[str, Any]) -> bool:
        return s["ender"] is not None and all(p["final"] is not None for p in s["players"])

    def _active_player(self, s: dict[str, Any], command: dict[str, Any]) -> int:
        i = command.get("player")
        n = len(self._settings["players"])
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
            raise RuleError("player", N_("player must be a number from 0 to {n}").format(n=n - 1))
        if s["ender"] is not None:
            raise RuleError("S3", N_("the game has ended: enter the secret collections (final)"))
        active = s["turn"] % n
        if i != active:
            raise RuleError(
                "turn", N_("it is {setting}'s turn").format(setting=self._settings["players"][active])
            )
        return i

    @staticmethod
    def _bean(value: Any) -> str:
        bean = _BEAN_NAMES.get(value.strip().casefold()) if isinstance(value, str) else None
        if bean is None:
            raise RuleError(
                "S1",
                N_("unknown bean type {value}; the types are {list}").format(
                    value=repr(value), list=", ".join(BEANS)
                ),
            )
        return bean

    @staticmethod
    def _cards(value: Any) -> list[int]:
        if not isinstance(value, list) or not value:
            raise RuleError("cards", N_("cards must be a list of card values"))
        for v in value:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 9:
                raise RuleError("S1", N_("card values run from 1 to 9, not {v}").format(v=repr(v)))
        return list(value)

    @staticmethod
    def _check_deck(s: dict[str, Any], bean: str, new_cards: list[int]) -> None:
        """S1: never more copies of a card in view than the deck holds."""
        seen: dict[int, int] = {}

        def count(b: str, values: list[int]) -> None:
            if b == bean:
                for v in values:
                    seen[v] = seen.get(v, 0) + 1

        for p in s["players"]:
            for t in p["trophies"]:
                count(t["bean"], [t["value"]])
            for c in (p["open"], p["final"]):
                if c is not None and c["cards"]:
                    count(c["bean"], c["cards"])
        count(bean, new_cards)
        over = sorted(v for v, k in seen.items() if k > copies_in_deck(v))
        if over:
            v = over[0]
            raise RuleError(
                "S1",
                N_(
                    "{bean} has only {copies_in_deck} card(s) of value {v}; that would make {seen} in view"
                ).format(bean=bean, copies_in_deck=copies_in_deck(v), v=v, seen=seen[v]),
            )

    def _cmd_add(self, s: dict[str, Any], command: dict[str, Any]) -> dict[str, Any]:
        i = self._active_player(s, command)
        p = s["players"][i]
        if s["added"]:
            raise RuleError("one-addition", N_("a turn has one addition: add to one collection or start one"))
        if p["reveal"]:
            raise RuleError("S2", N_("the secret collection turned face up: reveal its cards first"))
        where = command.get("collection")
        if where == "secret":
            extra = sorted(set(command) - {"type", "player", "collection", "count", "at", "manual"})
            if extra:
                # Anything beside the count could give the secret away in the table's log.
                raise RuleError(
                    "secret",
                    N_("a secret addition is entered as a count only, not {list}").format(
                        list=", ".join(extra)
                    ),
                )
            k = command.get("count")
            if isinstance(k, bool) or not isinstance(k, int) or k < 1:
                raise RuleError("count", N_("count must be a whole number of cards, 1 or more"))
            if p["open"] is None:
                raise RuleError(
                    "S2",
                    N_("start the open collection first: the secret collection is always the second one"),
                )
            if p["secret"] + k > CARDS_PER_TYPE:
                raise RuleError(
                    "S1",
                    N_("a collection holds one bean type: at most {cards_per_type} cards").format(
                        cards_per_type=CARDS_PER_TYPE
                    ),
                )
            p["secret"] += k
            record: dict[str, Any] = {"type": "add", "player": i, "collection": "secret", "count": k}
        elif where == "open":
            bean = self._bean(command.get("bean"))
            cards = self._cards(command.get("cards"))
            if p["open"] is not None and p["open"]["bean"] != bean:
                if p["secret"]:
                    raise RuleError("two-collections", N_("a player may have no more than two collections"))
                raise RuleError(
                    "S2",
                    N_(
                        "the open collection holds {p} only; a second bean type starts the secret collection"
                    ).format(p=p["open"]["bean"]),
                )
            self._check_deck(s, bean, cards)
            if p["open"] is None:
                p["open"] = {"bean": bean, "cards": cards}
            else:
                p["open"]["cards"].extend(cards)
            record = {"type": "add", "player": i, "collection": "open", "bean": bean, "cards": cards}
        else:
            raise RuleError("command", N_("collection must be 'open' or 'secret'"))
        s["added"] = True
        return record

    def _cmd_close_out(self, s: dict[str, Any], command: dict[str, Any]) -> dict[str, Any]:
        i = self._active_player(s, command)
        p = s["players"][i]
        if s["turn"] < len(self._settings["players"]):
            raise RuleError("first-round", N_("collections are closed out from the second round on"))
        if s["added"]:
            raise RuleError("turn-order", N_("close out collections before adding to one"))
        if p["reveal"]:
            raise RuleError("S2", N_("the secret collection turned face up: reveal its cards first"))
        if p["open"] is None:
            raise RuleError("S2", N_("there is no open collection to close out"))
        cards = p["open"]["cards"]
        trophy = len(cards) if len(cards) in cards else None
        if trophy is not None:
            p["trophies"].append({"bean": p["open"]["bean"], "value": trophy})
        s["close_outs"].append(
            {
                "player": i,
                "turn": s["turn"] + 1,
                "bean": p["open"]["bean"],
                "cards": list(cards),
                "trophy": trophy,
            }
        )
        p["open"] = None
        p["reveal"], p["secret"] = p["secret"], 0
        return {"type": "close_out", "player": i}

    def _cmd_reveal(self, s: dict[str, Any], command: dict[str, Any]) -> dict[str, Any]:
        i = self._active_player(s, command)
        p = s["players"][i]
        if not p["reveal"]:
            raise RuleError("S2", N_("a secret collection is revealed when the open one is closed out"))
        bean = self._bean(command.get("bean"))
        cards = self._cards(command.get("cards"))
        if len(cards) != p["reveal"]:
            raise RuleError(
                "S2", N_("the secret collection has {p} cards, not {n}").format(p=p["reveal"], n=len(cards))
            )
        self._check_deck(s, bean, cards)
        p["open"] = {"bean": bean, "cards": cards}
        p["reveal"] = 0
        return {"type": "reveal", "player": i, "bean": bean, "cards": cards}

    def _cmd_end_turn(self, s: dict[str, Any], command: dict[str, Any]) -> dict[str, Any]:
        if s["ender"] is not None:
            raise RuleError("S3", N_("the game has ended: enter the secret collections (final)"))
        n = len(self._settings["players"])
        active = s["turn"] % n
        p = s["players"][active]
        if p["reveal"]:
            raise RuleError("S2", N_("the secret collection turned face up: reveal its cards first"))
        if not s["added"]:
            raise RuleError("one-addition", N_("each turn adds to a collection or starts one before it ends"))
        if sum(t["value"] for t in p["trophies"]) >= TARGET:
            s["ender"] = active
            for q in s["players"]:
                if q["secret"] == 0:
                    q["final"] = {"bean": None, "cards": []}
        else:
            s["turn"] += 1
            s["added"] = False
        return {"type": "end_turn"}

    def _cmd_final(self, s: dict[str, Any], command: dict[str, Any]) -> dict[str, Any]:
        if s["ender"] is None:
            raise RuleError("S3", N_("secret collections are entered once the game has ended"))
        i = command.get("player")
        n = len(self._settings["players"])
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
            raise RuleError("player", N_("player must be a number from 0 to {n}").format(n=n - 1))
        p = s["players"][i]
        if p["final"] is not None:
            raise RuleError(
                "S3",
                N_("{setting}'s collections are already in").format(setting=self._settings["players"][i]),
            )
        bean = self._bean(command.get("bean"))
        cards = self._cards(command.get("cards"))
        if len(cards) != p["secret"]:
            raise RuleError(
                "S3", N_("the secret collection has {p} cards, not {n}").format(p=p["secret"], n=len(cards))
            )
        self._check_deck(s, bean, cards)
        p["final"] = {"bean": bean, "cards": cards}
        return {"type": "final", "player": i, "bean": bean, "cards": cards}
