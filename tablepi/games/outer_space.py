"""They Came From Outer Space: set-up, mission timer, danger coin, missions.

The table keeps the public side of the game: who leads, who went on which
mission, which phase the crew is in, and the mission timer. Team cards, the
repair track and the danger coin stay off the table's record entirely (the
repair track is hidden by the rulebook, and ruling T3 keeps every coin
result out of the state, the API and the logs).

Settings::

    {"players": ["Ann", "Ben", ...],   # 6..12 unique names, in seating order
     "timer_seconds": 60}              # mission timer length (T2), 10..600, default 60

Commands (the table stamps every command with ``"at": <epoch seconds>``;
the timer commands need it)::

    {"type": "leader", "player": NAME}      # the first leader, chosen by vote (set-up step 7);
                                            # in the Bridge phase: the vote's winner, named directly
    {"type": "partner", "player": NAME}     # Trek: the leader's partner (T4); may be changed in Trek
    {"type": "next_phase"}                  # Trek -> Paranoia -> Danger -> Bridge
    {"type": "vote", "votes": {NAME: COUNT, ...}, "tie_break": NAME}
                                            # Bridge: most votes leads the next mission; on a tie the
                                            # current leader picks among the tied (tie_break) (T4)
    {"type": "timer_start"}                 # start, or resume when paused, or restart when ended (T2)
    {"type": "timer_pause"}
    {"type": "timer_reset"}
    {"type": "result", "winner": "humans" | "aliens"}
                                            # the game is over (the android wins with the aliens)

Phases: Trek, Paranoia, Danger, Bridge. A new mission (after the Bridge vote)
starts in Trek with the timer reset.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from typing import Any

from tablepi.games.errors import RuleError
from tablepi.games.names import clean_name
from tablepi.games.recorded import RecordedGame, player_names
from tablepi.games.recorded import clone as _clone
from tablepi.i18n import N_

MIN_PLAYERS = 6
MAX_PLAYERS = 12
DEFAULT_TIMER_SECONDS = 60.0
MIN_TIMER_SECONDS = 10.0
MAX_TIMER_SECONDS = 600.0
WARNING_SECONDS = 10.0
PHASES = ("Trek", "Paranoia", "Danger", "Bridge")
WINNERS = ("humans", "aliens")
COIN_SIDES = ("alien", "human")


# -- set-up (T1) ------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """The cards and thresholds for one player count (ruling T1)."""

    players: int
    team_humans: int
    team_androids: int
    team_aliens: int
    panel_aliens: int
    panel_humans: int
    aliens_to_win: int
    repairs_to_win: int

    @property
    def team_deck(self) -> int:
        return self.team_humans + self.team_androids + self.team_aliens

    def checklist(self) -> list[str]:
        """The set-up steps in plain words, with this player count's numbers."""
        n = self.players
        return [
            N_(
                "Choose two rooms out of sight and hearing of each other: one is the Bridge, "
                "the other the Engine Room."
            ),
            N_(
                "Put the control panel in the Engine Room with {panel_aliens} alien cards in its aliens slot."
            ).format(panel_aliens=self.panel_aliens),
            N_(
                "Make the team deck: {team_humans} human, {team_androids} android and {team_aliens} alien "
                "card ({team_deck} cards for {n} players). Shuffle it and deal one card face down to each "
                "player; look at yours and keep it secret."
            ).format(
                team_humans=self.team_humans,
                team_androids=self.team_androids,
                team_aliens=self.team_aliens,
                team_deck=self.team_deck,
                n=n,
            ),
            N_(
                "Put the other {panel_humans} human cards in the control panel's human slot and set the "
                "remaining alien cards aside."
            ).format(panel_humans=self.panel_humans),
            N_("Shuffle the equipment deck and put it in the Engine Room beside the control panel."),
            N_(
                "Put the quick reference sheet and the action envelopes by the control panel and set "
                "the repair track to 0. The table runs the mission timer and flips the danger coin."
            ),
            N_(
                "To win: the humans need {repairs_to_win} repairs, the aliens need {aliens_to_win} "
                "aliens. The android wins with the aliens."
            ).format(repairs_to_win=self.repairs_to_win, aliens_to_win=self.aliens_to_win),
            N_("Vote on who gets the Engine Room key first: that player leads the first mission."),
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "team_deck": {
                "humans": self.team_humans,
                "androids": self.team_androids,
                "aliens": self.team_aliens,
            },
            "control_panel": {"aliens": self.panel_aliens, "humans": self.panel_humans},
            "to_win": {"aliens": self.aliens_to_win, "repairs": self.repairs_to_win},
        }


def setup(n: int) -> Setup:
    """The set-up for ``n`` players (6..12); any other count raises RuleError T1."""
    if isinstance(n, bool) or not isinstance(n, int) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise RuleError(
            "T1",
            N_("They Came From Outer Space is for {min_players} to {max_players} players, not {n}").format(
                min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, n=repr(n)
            ),
        )
    if n <= 7:
        panel_aliens, to_win = 3, 4
    elif n <= 9:
        panel_aliens, to_win = 4, 5
    else:
        panel_aliens, to_win = 5, 6
    humans = n - 2
    return Setup(
        players=n,
        team_humans=humans,
        team_androids=1,
        team_aliens=1,
        panel_aliens=panel_aliens,
        panel_humans=12 - humans,
        aliens_to_win=to_win,
        repairs_to_win=to_win,
    )


def setup_checklist(n: int) -> list[str]:
    return setup(n).checklist()


# -- mission timer (T2) -----------------------------------------------------


@dataclass(frozen=True)
class MissionTimer:
    """A pausable countdown as a value: every method takes the time and
    returns a new timer, so the rules never read a clock.

    ``used`` is the running time banked by earlier pauses; ``started_at`` is
    when the current run began (None unless running).
    """

    duration: float = DEFAULT_TIMER_SECONDS
    used: float = 0.0
    started_at: float | None = None

    @property
    def running(self) -> bool:
        return self.started_at is not None

    def elapsed(self, now: float) -> float:
        run = max(0.0, now - self.started_at) if self.started_at is not None else 0.0
        return min(self.duration, self.used + run)

    def remaining(self, now: float) -> float:
        return self.duration - self.elapsed(now)

    def ended(self, now: float) -> bool:
        return self.remaining(now) <= 0.0

    def warning(self, now: float) -> bool:
        """True in the last ``WARNING_SECONDS`` of a run that has begun."""
        left = self.remaining(now)
        return 0.0 < left <= WARNING_SECONDS and (self.running or self.used > 0)

    def deadline(self) -> float | None:
        """The epoch time the timer runs out, while it runs."""
        if self.started_at is None:
            return None
        return self.started_at + self.duration - self.used

    def state(self, now: float) -> str:
        if self.ended(now):
            return "ended"
        if self.running:
            return "running"
        return "paused" if self.used > 0 else "ready"

    def start(self, now: float) -> MissionTimer:
        """Start, resume after a pause, or start again from full once ended."""
        if self.ended(now):
            return MissionTimer(self.duration, 0.0, now)
        if self.running:
            raise RuleError("T2", N_("the mission timer is already running"))
        return MissionTimer(self.duration, self.used, now)

    def resume(self, now: float) -> MissionTimer:
        if self.running or self.used <= 0:
            raise RuleError("T2", N_("only a paused mission timer can be resumed"))
        return self.start(now)

    def pause(self, now: float) -> MissionTimer:
        if not self.running:
            raise RuleError("T2", N_("the mission timer is not running"))
        if self.ended(now):
            raise RuleError("T2", N_("the mission timer has already run out"))
        return MissionTimer(self.duration, self.elapsed(now), None)

    def reset(self) -> MissionTimer:
        return MissionTimer(self.duration)

    def view(self, now: float | None) -> dict[str, Any]:
        """The public picture of the timer at ``now`` (None: as last stamped,
        which for a running timer is the moment it was started)."""
        if now is None:
            now = self.started_at if self.started_at is not None else 0.0
        remaining = self.remaining(now)
        return {
            "state": self.state(now),
            "duration": self.duration,
            "remaining": round(remaining, 3),
            "seconds_left": math.ceil(remaining - 1e-9) if remaining > 0 else 0,
            "deadline": self.deadline() if self.running else None,
            "warning": self.warning(now),
            "ended": self.ended(now),
        }

    def to_dict(self) -> dict[str, Any]:
        return {"duration": self.duration, "used": self.used, "started_at": self.started_at}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MissionTimer:
        return cls(
            float(d["duration"]),
            float(d["used"]),
            None if d["started_at"] is None else float(d["started_at"]),
        )


# -- danger coin (T3) -------------------------------------------------------

_SYSTEM_RANDOM = secrets.SystemRandom()


def flip_coin(rng: Any = _SYSTEM_RANDOM) -> str:
    """One fair flip of the danger coin: "alien" or "human".

    The default draws from the operating system's secure source (T3); tests
    pass their own ``rng`` (anything with ``choice``). The result belongs on
    the table's own display only: callers must not store, send or log it.
    """
    return rng.choice(COIN_SIDES)


# -- the game ---------------------------------------------------------------


def _settings(settings: Any) -> dict[str, Any]:
    names = player_names(settings)
    setup(len(names))  # T1: 6..12 players
    seconds = settings.get("timer_seconds", DEFAULT_TIMER_SECONDS)
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not (MIN_TIMER_SECONDS <= seconds <= MAX_TIMER_SECONDS)
    ):
        raise RuleError(
            "T2",
            N_("timer_seconds must be a number from {min_timer_seconds} to {max_timer_seconds}").format(
                min_timer_seconds=format(MIN_TIMER_SECONDS, "g"),
                max_timer_seconds=format(MAX_TIMER_SECONDS, "g"),
            ),
        )
    return {"players": names, "timer_seconds": float(seconds)}


HISTORY_KEPT = 100


class OuterSpace(RecordedGame):
    """The public record of a game of They Came From Outer Space."""

    kind = "outer_space"
    takes_at = True  # the mission timer runs on the table's stamps

    def __init__(self, settings: dict[str, Any]) -> None:
        self._settings = _settings(settings)
        self._setup = setup(len(self._settings["players"]))
        super().__init__()

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> OuterSpace:
        return cls(settings)

    def _initial_state(self) -> dict[str, Any]:
        return {
            "mission": 1,
            "phase": "Trek",
            "leader": None,
            "partner": None,
            "previous": None,
            "history": [],
            "timer": MissionTimer(self._settings["timer_seconds"]).to_dict(),
            "winner": None,
        }

    # -- protocol -----------------------------------------------------------

    @property
    def players(self) -> list[str]:
        return list(self._settings["players"])

    @property
    def setup(self) -> Setup:
        return self._setup

    @property
    def finished(self) -> bool:
        return self._state["winner"] is not None

    @property
    def timer(self) -> MissionTimer:
        return MissionTimer.from_dict(self._state["timer"])

    def _step(self, state: dict[str, Any], command: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        try:
            record = _clone(command)
        except (TypeError, ValueError):
            raise RuleError("command", N_("a command must be plain JSON data")) from None
        return self._apply(state, record), record

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OuterSpace:
        try:
            game = cls(data["settings"])
            game._state = _clone(data["state"])
            game._load_commands(data)
            MissionTimer.from_dict(game._state["timer"])
        except (KeyError, TypeError, ValueError) as exc:
            raise RuleError("saved-game", N_("not a saved Outer Space game: {exc}").format(exc=exc)) from None
        return game

    def public_view(self, now: float | None = None) -> dict[str, Any]:
        s = self._state
        return {
            "players": self.players,
            "mission": s["mission"],
            "phase": s["phase"],
            "phases": list(PHASES),
            "leader": s["leader"],
            "partner": s["partner"],
            "previous": _clone(s["previous"]),
            "partner_choices": self._partner_choices(s),
            "leader_choices": self._leader_choices(s),
            "history": _clone(s["history"]),
            "setup": self._setup.to_dict(),
            "checklist": self._setup.checklist(),
            "timer": self.timer.view(now),
            "finished": self.finished,
            "winner": s["winner"],
        }

    # -- rules --------------------------------------------------------------

    def _partner_choices(self, s: dict[str, Any]) -> list[str]:
        if s["leader"] is None:
            return []
        barred = {s["leader"]}
        if s["previous"]:
            barred |= {s["previous"]["leader"], s["previous"]["partner"]}
        return [p for p in self._settings["players"] if p not in barred]

    def _leader_choices(self, s: dict[str, Any]) -> list[str]:
        if s["leader"] is None:
            return self.players
        if s["phase"] != "Bridge":
            return []
        return [p for p in self._settings["players"] if p not in (s["leader"], s["partner"])]

    def _player(self, name: Any) -> str:
        if not isinstance(name, str):
            raise RuleError("player", N_("name a player"))
        try:
            # As names were kept: a phone's decomposed "Zoë" or a stray zero-width space is the same player.
            wanted = clean_name(name).casefold()
        except RuleError:
            wanted = None
        for player in self._settings["players"]:
            if player.casefold() == wanted:
                return player
        raise RuleError("player", N_("{name} is not playing").format(name=repr(name)))

    def _apply(self, s: dict[str, Any], command: Any) -> dict[str, Any]:
        if not isinstance(command, dict) or not isinstance(command.get("type"), str):
            raise RuleError("command", N_("a command is an object with a type"))
        kind = command["type"]
        handler = getattr(self, f"_cmd_{kind}", None)
        if handler is None:
            raise RuleError("command", N_("unknown command {kind}").format(kind=repr(kind)))
        if s["winner"] is not None:
            raise RuleError("finished", N_("the game is over: the {value} won").format(value=s["winner"]))
        handler(s, command)
        return s

    @staticmethod
    def _at(command: dict[str, Any]) -> float:
        at = command.get("at")
        if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
            raise RuleError("T2", N_("timer commands need the time they were given (at)"))
        return float(at)

    def _cmd_timer_start(self, s: dict[str, Any], command: dict[str, Any]) -> None:
        s["timer"] = MissionTimer.from_dict(s["timer"]).start(self._at(command)).to_dict()

    def _cmd_timer_pause(self, s: dict[str, Any], command: dict[str, Any]) -> None:
        s["timer"] = MissionTimer.from_dict(s["timer"]).pause(self._at(command)).to_dict()

    def _cmd_timer_reset(self, s: dict[str, Any], command: dict[str, Any]) -> None:
        s["timer"] = MissionTimer.from_dict(s["timer"]).reset().to_dict()

    def _cmd_leader(self, s: dict[str, Any], command: dict[str, Any]) -> None:
        player = self._player(command.get("player"))
        if s["leader"] is None:
            s["leader"] = player
            return
        if s["phase"] != "Bridge":
            raise RuleError(
                "T4",
                N_("{value} leads this mission; the next leader is chosen in the Bridge phase").format(
                    value=s["leader"]
                ),
            )
        self._check_next_leader(s, player)
        self._next_mission(s, player, votes=None)

    def _cmd_partner(self, s: dict[str, Any], command: dict[str, Any]) -> None:
        player = self._player(command.get("player"))
        if s["leader"] is None:
            raise RuleError("T4", N_("vote on the first mission leader before choosing a partner"))
        if s["phase"] != "Trek":
            raise RuleError("T4", N_("the partner is chosen in the Trek phase"))
        if player == s["leader"]:
            raise RuleError(
                "T4", N_("{player} leads this mission and cannot be their own partner").format(player=player)
            )
        previous = s["previous"]
        if previous and player in (previous["leader"], previous["partner"]):
            raise RuleError(
                "T4",
                N_("{player} was on the previous mission and cannot be chosen as partner").format(
                    player=player
                ),
            )
        s["partner"] = player

    def _cmd_next_phase(self, s: dict[str, Any], command: dict[str, Any]) -> None:
        phase = s["phase"]
        if phase == "Trek":
            if s["leader"] is None:
                raise RuleError("T4", N_("vote on the first mission leader first"))
            if s["partner"] is None:
                raise RuleError(
                    "T4", N_("{value} must choose a partner before the mission").format(value=s["leader"])
                )
        if phase == "Bridge":
            raise RuleError("T4", N_("vote on the next mission leader to start the next mission"))
        s["phase"] = PHASES[PHASES.index(phase) + 1]

    def _cmd_vote(self, s: dict[str, Any], command: dict[str, Any]) -> None:
        if s["phase"] != "Bridge":
            raise RuleError("T4", N_("the crew votes on the next leader in the Bridge phase"))
        votes = command.get("votes")
        if not isinstance(votes, dict) or not votes:
            raise RuleError("vote", N_("votes must map player names to vote counts"))
        counts: dict[str, int] = {}
        for name, count in votes.items():
            player = self._player(name)
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise RuleError(
                    "vote",
                    N_("the votes for {player} must be a whole number, 0 or more").format(player=player),
                )
            if player in counts:
                raise RuleError("vote", N_("{player} is listed twice").format(player=player))
            counts[player] = count
        if sum(counts.values()) > len(self._settings["players"]):
            raise RuleError(
                "vote", N_("more votes than players ({n})").format(n=len(self._settings["players"]))
            )
        barred = [p for p in (s["leader"], s["partner"]) if counts.get(p, 0) > 0]
        if barred:
            raise RuleError(
                "T4",
                N_("{list} went on this mission and cannot lead the next one").format(
                    list=" and ".join(barred)
                ),
            )
        top = max(counts.values())
        if top == 0:
            raise RuleError("vote", N_("nobody has a vote yet"))
        tied = [p for p in self._settings["players"] if counts.get(p) == top]
        tie_break = command.get("tie_break")
        if len(tied) == 1:
            winner = tied[0]
            if tie_break is not None and self._player(tie_break) != winner:
                raise RuleError(
                    "T4", N_("{winner} has the most votes; there is no tie to break").format(winner=winner)
                )
        else:
            if tie_break is None:
                raise RuleError(
                    "T4",
                    N_("{list} tie with {top} votes: {value} (the current leader) chooses among them").format(
                        list=", ".join(tied), top=top, value=s["leader"]
                    ),
                )
            winner = self._player(tie_break)
            if winner not in tied:
                raise RuleError(
                    "T4",
                    N_("{value} must choose one of the tied players: {list}").format(
                        value=s["leader"], list=", ".join(tied)
                    ),
                )
        self._next_mission(s, winner, votes={p: counts[p] for p in counts if counts[p] > 0})

    def _cmd_result(self, s: dict[str, Any], command: dict[str, Any]) -> None:
        winner = command.get("winner")
        if winner not in WINNERS:
            raise RuleError(
                "result", N_("the winner is 'humans' or 'aliens' (the android wins with the aliens)")
            )
        s["winner"] = winner

    def _check_next_leader(self, s: dict[str, Any], player: str) -> None:
        if player in (s["leader"], s["partner"]):
            raise RuleError(
                "T4", N_("{player} went on this mission and cannot lead the next one").format(player=player)
            )

    def _next_mission(self, s: dict[str, Any], leader: str, votes: dict[str, int] | None) -> None:
        s["history"].append(
            {
                "mission": s["mission"],
                "leader": s["leader"],
                "partner": s["partner"],
                "votes": votes,
                "next_leader": leader,
            }
        )
        # Only the latest missions are kept in the state (the log keeps them
        # all): every command copies the state, so it must not grow with the game.
        del s["history"][:-HISTORY_KEPT]
        s["previous"] = {"leader": s["leader"], "partner": s["partner"]}
        s["mission"] += 1
        s["leader"] = leader
        s["partner"] = None
        s["phase"] = "Trek"
        s["timer"] = MissionTimer(self._settings["timer_seconds"]).to_dict()
