"""TablePi's settings: defaults, layered TOML files, and validation.

Files are read in order, later ones overriding earlier ones key by key:
``/etc/tablepi/config.toml``, then ``~/.config/tablepi/config.toml``, then
an explicit ``--config FILE``. A missing system or user file simply leaves
the defaults in place. Every problem found is reported at once, each naming
its key and the expected form, so a typo or a wrong value is fixed in one go.

This module imports no hardware libraries: the CLI and the web read it too.
"""

from __future__ import annotations

import os
import re
import reprlib
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tablepi.i18n import DEFAULT, N_, Said, languages, system_language

SYSTEM_PATH = Path("/etc/tablepi/config.toml")
BUTTON_NAMES = ("A", "B", "C")
DISPLAY_DRIVERS = ("ssd1306", "sh1106")
CAMERA_SOURCES = ("auto", "picamera", "opencv", "replay", "synthetic")
# A table's name in the venue's MQTT topics: one topic level, no wildcards.
TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


class _HiddenValue:
    """Stands for a secret setting in `config show` (written as a comment)."""

    def __repr__(self) -> str:
        return "(set, not shown)"


HIDDEN = _HiddenValue()

# Settings whose value is never printed, even when it is wrong: the message
# goes to a terminal or the journal. The broker may be given as a URL that
# holds a user name and password.
SECRET_KEYS = frozenset({"venue.password", "venue.broker", "venue.username"})
_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 40
_SHOWN.maxlist = _SHOWN.maxdict = _SHOWN.maxtuple = 4
_SHOWN.maxlevel = 2


def shown(key: str, value: Any) -> str | Said:
    """``value`` as an error message may show it: not at all for a secret
    setting, else cut to a few dozen characters."""
    if key in SECRET_KEYS:
        return Said(N_("a value that is not shown (it may be secret)"))
    return _SHOWN.repr(value)


def _shown_key(key: str) -> str:
    return key if len(key) <= 60 else key[:57] + "..."


class ConfigError(ValueError):
    """One or more problems in the configuration; ``problems`` lists each one in
    English, ``text(lang)`` says them all in a language the table speaks."""

    def __init__(self, problems: list[Said]):
        self.said = list(problems)
        self.problems = [str(p) for p in self.said]
        super().__init__(self.text())

    def text(self, lang: str = DEFAULT) -> str:
        count = len(self.said)
        head = (
            Said(N_("1 problem in the configuration:"))
            if count == 1
            else Said(N_("{count} problems in the configuration:"), count=count)
        )
        return "\n".join([head.say(lang), *(f"  - {p.say(lang)}" for p in self.said)])


@dataclass
class ButtonsConfig:
    pins: dict[str, int] = field(default_factory=lambda: {"A": 17, "B": 27, "C": 22})
    hold_time: float = 1.5
    bounce_time: float = 0.05


@dataclass
class DisplayConfig:
    driver: str = "ssd1306"
    port: int = 1
    address: int = 0x3C
    idle_seconds: float = 120
    rotate: int = 0


@dataclass
class BuzzerConfig:
    pin: int | None = 18


@dataclass
class CameraConfig:
    source: str = "auto"
    device: int | str = 0
    folder: str = ""
    width: int = 640
    height: int = 480
    fps: float = 15
    tray: list[tuple[float, float]] | None = None
    keep: tuple[float, float, float, float] | None = None
    # Dioptres (1 / metres) for an autofocus camera held at one distance; None focuses continuously.
    lens_position: float | None = None


@dataclass
class WebConfig:
    host: str = "0.0.0.0"
    port: int = 8080


@dataclass
class OuterSpaceConfig:
    timer_seconds: int = 60
    coin_seconds: float = 5


@dataclass
class BeamMeUpConfig:
    still_seconds: float = 0.4
    # Seconds between the steps of a seat played by the table, so people can follow.
    table_step_seconds: float = 1.2


@dataclass
class VenueConfig:
    """The venue's MQTT broker this table publishes its public state to
    (tablepi.venue); no broker, no publishing."""

    broker: str = ""
    port: int = 1883
    table: str = ""
    name: str = ""
    username: str = ""
    password: str = ""
    tls: bool = False
    ca_file: str = ""
    discovery: bool = True
    keepalive: int = 30
    reconnect_max: float = 10


@dataclass
class TableConfig:
    # The language of the OLED, the TV and of phones that ask for none they know.
    language: str = field(default_factory=system_language)


@dataclass
class Config:
    table: TableConfig = field(default_factory=TableConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    buzzer: BuzzerConfig = field(default_factory=BuzzerConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    web: WebConfig = field(default_factory=WebConfig)
    data_dir: Path = field(default_factory=lambda: Path("~/.local/share/tablepi").expanduser())
    outer_space: OuterSpaceConfig = field(default_factory=OuterSpaceConfig)
    beam_me_up: BeamMeUpConfig = field(default_factory=BeamMeUpConfig)
    venue: VenueConfig = field(default_factory=VenueConfig)
    # The files that were actually read, in order; not a setting.
    sources: list[Path] = field(default_factory=list, compare=False)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("sources")
        data["data_dir"] = str(self.data_dir)
        return data

    def to_toml(self) -> str:
        """The effective settings as TOML text (a valid config file)."""
        data = self.to_dict()
        if data["buzzer"]["pin"] is None:
            data["buzzer"]["pin"] = False  # how a config file says "no buzzer"
        if data["venue"]["password"]:
            data["venue"]["password"] = HIDDEN  # `config show` may end up in a terminal log
        return dumps_toml(data)


# --- loading -----------------------------------------------------------------


def user_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tablepi" / "config.toml"


def default_paths() -> list[Path]:
    return [SYSTEM_PATH, user_path()]


def load_config(path: Path | str | None = None, *, search: Iterable[Path] | None = None) -> Config:
    """Read the layered config files and return the validated settings.

    ``search`` replaces the system and user files (tests use it). An explicit
    ``path`` must exist: naming a file that is not there is a mistake worth
    reporting, unlike the optional system and user files.
    """
    layers = list(default_paths() if search is None else search)
    problems: list[Said] = []
    merged: dict[str, Any] = {}
    origin: dict[str, Path] = {}
    read: list[Path] = []
    candidates = [(Path(p), False) for p in layers]
    if path is not None:
        candidates.append((Path(path), True))
    for file, required in candidates:
        file = file.expanduser()
        if not file.is_file():
            if required:
                problems.append(Said(N_("{path}: no such config file"), path=file))
            continue
        try:
            with file.open("rb") as fh:
                data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            problems.append(Said(N_("{path}: not valid TOML ({detail})"), path=file, detail=exc))
            continue
        except OSError as exc:
            problems.append(
                Said(N_("{path}: cannot be read ({detail})"), path=file, detail=exc.strerror or exc)
            )
            continue
        _merge(merged, data, origin, file, "")
        read.append(file)
    if problems:
        raise ConfigError(problems)
    config = from_dict(merged, origin)
    config.sources = read
    return config


def from_dict(data: dict[str, Any], origin: dict[str, Path] | None = None) -> Config:
    """Validate a settings mapping (as read from TOML) over the defaults."""
    problems: list[Said] = []
    origin = origin or {}
    config = Config()

    def report(key: str, message: Said) -> None:
        where = origin.get(key)
        entry = _shown_key(key)
        problems.append(
            Said(N_("{entry}: {problem} (in {path})"), entry=entry, problem=message, path=where)
            if where
            else Said(N_("{entry}: {problem}"), entry=entry, problem=message)
        )

    known_sections = {
        "table": (config.table, _TABLE),
        "buttons": (config.buttons, _BUTTONS),
        "display": (config.display, _DISPLAY),
        "buzzer": (config.buzzer, _BUZZER),
        "camera": (config.camera, _CAMERA),
        "web": (config.web, _WEB),
        "outer_space": (config.outer_space, _OUTER_SPACE),
        "beam_me_up": (config.beam_me_up, _BEAM_ME_UP),
        "venue": (config.venue, _VENUE),
    }
    for key, value in data.items():
        if key == "data_dir":
            if isinstance(value, str) and value.strip():
                config.data_dir = Path(value).expanduser()
            else:
                report(key, Said(N_("expected a folder path (text), got {given}"), given=shown(key, value)))
            continue
        if key not in known_sections:
            report(key, _unknown(["data_dir", *known_sections]))
            continue
        target, schema = known_sections[key]
        if not isinstance(value, dict):
            report(
                key, Said(N_("expected a [{entry}] table, got {given}"), entry=key, given=shown(key, value))
            )
            continue
        for sub, subvalue in value.items():
            full = f"{key}.{sub}"
            if sub not in schema:
                report(full, _unknown(schema))
                continue
            check, _ = schema[sub]
            try:
                setattr(target, sub, check(subvalue, full, report))
            except _Bad as bad:
                report(full, _expected(bad.expected, shown(full, subvalue)))

    _cross_checks(config, data, report)
    if problems:
        raise ConfigError(problems)
    return config


def _unknown(names: Iterable[str]) -> Said:
    return Said(N_("unknown setting (expected one of: {choices})"), choices=", ".join(names))


def _expected(what: str | Said, given: str | Said) -> Said:
    return Said(N_("expected {what}, got {given}"), what=what, given=given)


def _cross_checks(config: Config, data: dict[str, Any], report: Callable[[str, Said], None]) -> None:
    used: dict[int, str] = {}
    taken = N_("pin {pin} is already used by {entry}")
    for name, pin in config.buttons.pins.items():
        if pin in used:
            report(f"buttons.pins.{name}", Said(taken, pin=pin, entry=f"buttons.pins.{used[pin]}"))
        used[pin] = name
    buzzer = config.buzzer.pin
    if buzzer is not None and buzzer in used:
        report("buzzer.pin", Said(taken, pin=buzzer, entry=f"buttons.pins.{used[buzzer]}"))
    if config.camera.source == "replay" and not config.camera.folder:
        report("camera.folder", Said(N_('required when camera.source = "replay" (a folder of photos)')))
    venue = config.venue
    if venue.broker and not venue.table:
        report(
            "venue.table",
            Said(
                N_(
                    "required when venue.broker is set: this table's name in the venue's topics, "
                    'such as "table-7" (letters, digits, - and _)'
                )
            ),
        )
    if venue.password and not venue.username:
        report("venue.password", Said(N_("set venue.username too (a broker asks for both)")))
    if venue.ca_file and not venue.tls:
        report("venue.ca_file", Said(N_("set venue.tls = true too (the CA file is for TLS connections)")))
    elif venue.ca_file and not Path(venue.ca_file).expanduser().is_file():
        report(
            "venue.ca_file", Said(N_("no such file: {given}"), given=shown("venue.ca_file", venue.ca_file))
        )


def _merge(into: dict, new: dict, origin: dict[str, Path], file: Path, prefix: str) -> None:
    for key, value in new.items():
        full = f"{prefix}{key}"
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value, origin, file, full + ".")
        else:
            into[key] = _copy(value)
            _mark(origin, full, value, file)


def _mark(origin: dict[str, Path], key: str, value: Any, file: Path) -> None:
    origin[key] = file
    if isinstance(value, dict):
        for sub, subvalue in value.items():
            _mark(origin, f"{key}.{sub}", subvalue, file)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


# --- value checks ------------------------------------------------------------


class _Bad(Exception):
    def __init__(self, expected: str | Said):
        self.expected = Said(expected) if isinstance(expected, str) else expected


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _int_range(lo: int, hi: int, what: str) -> Callable:
    def check(value: Any, key: str, report: Callable) -> int:
        if isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi:
            return value
        raise _Bad(what)

    return check


def _number_range(lo: float, hi: float, what: str, *, open_low: bool = False) -> Callable:
    def check(value: Any, key: str, report: Callable) -> float:
        if _is_number(value) and (lo < value if open_low else lo <= value) and value <= hi:
            return value
        raise _Bad(what)

    return check


def _choice(options: tuple[str, ...]) -> Callable:
    def check(value: Any, key: str, report: Callable) -> str:
        if isinstance(value, str) and value.lower() in options:
            return value.lower()
        raise _Bad(Said(N_("one of {choices}"), choices=", ".join(f'"{o}"' for o in options)))

    return check


def _text(what: str, *, allow_empty: bool = False) -> Callable:
    def check(value: Any, key: str, report: Callable) -> str:
        if isinstance(value, str) and (allow_empty or value.strip()):
            return value
        raise _Bad(what)

    return check


def _rotation(value: Any, key: str, report: Callable) -> int:
    # Quarter turns would make the 128x64 screens portrait, which they are not laid out for.
    if value in (0, 2) and not isinstance(value, bool):
        return int(value)
    raise _Bad(N_("0, or 2 for a screen mounted upside down"))


_PIN = N_("a BCM pin number 0-27")
_check_pin = _int_range(0, 27, _PIN)


def _check_button_pins(value: Any, key: str, report: Callable) -> dict[str, int]:
    if not isinstance(value, dict):
        raise _Bad(N_("a table of button names to BCM pins, like {{A = 17, B = 27, C = 22}}"))
    pins = dict(ButtonsConfig().pins)
    for name, pin in value.items():
        if name not in BUTTON_NAMES:
            report(
                f"{key}.{name}",
                Said(N_("unknown button (expected one of: {choices})"), choices=", ".join(BUTTON_NAMES)),
            )
            continue
        if isinstance(pin, int) and not isinstance(pin, bool) and 0 <= pin <= 27:
            pins[name] = pin
        else:
            report(f"{key}.{name}", _expected(Said(_PIN), shown(key, pin)))
    return pins


def _check_buzzer_pin(value: Any, key: str, report: Callable) -> int | None:
    if value is False or (isinstance(value, str) and value.lower() == "none"):
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 27:
        return value
    raise _Bad(N_("a BCM pin number 0-27, or false for no buzzer"))


def _check_device(value: Any, key: str, report: Callable) -> int | str:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.strip():
        # "1" in a config file means camera 1, not a video file named "1".
        return int(value) if value.strip().isdigit() else value
    raise _Bad(N_('a camera index (0, 1, ...) or a device path such as "/dev/video0"'))


def _check_lens(value: Any, key: str, report: Callable) -> float | None:
    if value is False:
        return None
    if _is_number(value) and 0 <= value <= 32:
        return float(value)
    raise _Bad(N_("dioptres 0-32 (1 / the distance in metres; 0 is infinity), or false for autofocus"))


def _fraction(value: Any) -> bool:
    return _is_number(value) and 0 <= value <= 1


def _check_tray(value: Any, key: str, report: Callable) -> list[tuple[float, float]]:
    expected = N_("a list of at least 3 [x, y] corners, fractions of the frame 0..1")
    if not isinstance(value, list) or len(value) < 3:
        raise _Bad(expected)
    corners = []
    for point in value:
        if not (isinstance(point, list) and len(point) == 2 and all(_fraction(v) for v in point)):
            raise _Bad(expected)
        corners.append((float(point[0]), float(point[1])))
    return corners


def _check_keep(value: Any, key: str, report: Callable) -> tuple[float, float, float, float]:
    expected = N_("[x0, y0, x1, y1], fractions of the frame 0..1 with x0 < x1 and y0 < y1")
    if not (isinstance(value, list) and len(value) == 4 and all(_fraction(v) for v in value)):
        raise _Bad(expected)
    x0, y0, x1, y1 = (float(v) for v in value)
    if not (x0 < x1 and y0 < y1):
        raise _Bad(expected)
    return (x0, y0, x1, y1)


def _check_language(value: Any, key: str, report: Callable) -> str:
    known = languages()
    if isinstance(value, str) and value.strip().lower() in known:
        return value.strip().lower()
    raise _Bad(
        Said(N_("a language the table speaks: {choices}"), choices=", ".join(f'"{lang}"' for lang in known))
    )


_TABLE = {"language": (_check_language, "the table's language (OLED, TV, phones' default)")}

# Each section: key -> (check, description). The description feeds `config show` help.
_BUTTONS = {
    "pins": (_check_button_pins, "button name to BCM pin"),
    "hold_time": (_number_range(0.1, 10, N_("seconds between 0.1 and 10")), "seconds for a long press"),
    "bounce_time": (_number_range(0, 1, N_("seconds between 0 and 1")), "debounce seconds"),
}
_DISPLAY = {
    "driver": (_choice(DISPLAY_DRIVERS), "OLED controller"),
    "port": (_int_range(0, 99, N_("an I2C bus number such as 1")), "I2C bus"),
    "address": (_int_range(0x03, 0x77, N_("an I2C address 0x03-0x77 such as 0x3C")), "I2C address"),
    "idle_seconds": (_number_range(0, 86400, N_("seconds 0-86400 (0 never dims)")), "dim after"),
    "rotate": (_rotation, "rotation"),
}
_BUZZER = {"pin": (_check_buzzer_pin, "BCM pin or false")}
_CAMERA = {
    "source": (_choice(CAMERA_SOURCES), "where frames come from"),
    "device": (_check_device, "OpenCV camera index or path"),
    "folder": (_text(N_("a folder path (text)"), allow_empty=True), "photos to replay"),
    "width": (_int_range(16, 4096, N_("a width in pixels 16-4096")), "frame width"),
    "height": (_int_range(16, 4096, N_("a height in pixels 16-4096")), "frame height"),
    "fps": (
        _number_range(0, 120, N_("frames per second, more than 0 and at most 120"), open_low=True),
        "fps",
    ),
    "tray": (_check_tray, "tray corners"),
    "keep": (_check_keep, "area for dice set aside"),
    "lens_position": (_check_lens, "fixed focus of an autofocus camera"),
}
_WEB = {
    "host": (_text(N_('a host name or address such as "0.0.0.0"')), "listen address"),
    "port": (_int_range(1, 65535, N_("a TCP port 1-65535")), "listen port"),
}
_OUTER_SPACE = {
    "timer_seconds": (_int_range(5, 3600, N_("whole seconds 5-3600")), "mission timer"),
    "coin_seconds": (_number_range(0.5, 60, N_("seconds 0.5-60")), "danger coin shown for"),
}
_BEAM_ME_UP = {
    "still_seconds": (_number_range(0.05, 10, N_("seconds 0.05-10")), "dice still for"),
    "table_step_seconds": (
        _number_range(0, 10, N_("seconds 0-10")),
        "between the steps of a seat played by the table",
    ),
}


BROKER_EXPECTED = N_('a host name or address such as "192.168.1.10" or "mqtt.lan" (no mqtt://, no port)')


def broker_host(value: Any) -> str:
    """``value`` as a broker host name or address (stripped; "" for none);
    ValueError for a URL, a host with a port, or anything else."""
    if not isinstance(value, str):
        raise ValueError(BROKER_EXPECTED)
    value = value.strip()
    if value and (
        "://" in value
        or any(c.isspace() for c in value)
        or "/" in value
        or value.count(":") == 1  # host:port (an IPv6 address has more)
        or value.startswith("[")
    ):
        raise ValueError(BROKER_EXPECTED)
    return value


def _check_broker(value: Any, key: str, report: Callable) -> str:
    try:
        return broker_host(value)
    except ValueError:
        raise _Bad(BROKER_EXPECTED) from None


def _check_table_id(value: Any, key: str, report: Callable) -> str:
    if isinstance(value, str) and (value == "" or TABLE_ID.fullmatch(value)):
        return value
    raise _Bad(N_('a name for the table\'s topics, 1-40 letters, digits, - and _, such as "table-7"'))


def _check_bool(value: Any, key: str, report: Callable) -> bool:
    if isinstance(value, bool):
        return value
    raise _Bad(N_("true or false"))


_VENUE = {
    "broker": (_check_broker, "MQTT broker host (empty: no venue)"),
    "port": (_int_range(1, 65535, N_("a TCP port 1-65535 (1883, or 8883 for TLS)")), "broker port"),
    "table": (_check_table_id, "this table in the topics tablepi/<table>/..."),
    "name": (_text(N_('a name shown on the venue board, such as "Table 7"'), allow_empty=True), "shown name"),
    "username": (_text(N_("a user name (text)"), allow_empty=True), "broker user"),
    "password": (_text(N_("a password (text)"), allow_empty=True), "broker password"),
    "tls": (_check_bool, "connect with TLS"),
    "ca_file": (_text(N_("a path to the CA certificate file (PEM)"), allow_empty=True), "CA for TLS"),
    "discovery": (_check_bool, "Home Assistant discovery messages"),
    "keepalive": (_int_range(5, 3600, N_("whole seconds 5-3600")), "MQTT keepalive"),
    "reconnect_max": (_number_range(1, 600, N_("seconds 1-600")), "longest wait between reconnects"),
}


# --- TOML output -------------------------------------------------------------


def dumps_toml(data: dict[str, Any]) -> str:
    """A small TOML writer for the shapes a Config has (tables of scalars and lists)."""
    lines: list[str] = []
    tables = []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif value is not None:
            lines.append(f"{key} = {_toml_value(value)}")
    for name, table in tables:
        lines.append("")
        lines.append(f"[{name}]")
        for key, value in table.items():
            if value is None:
                lines.append(f"# {key} = (not set)")
            elif value is HIDDEN:
                lines.append(f"# {key} = (set, not shown)")
            else:
                lines.append(f"{key} = {_toml_value(value, key)}")
    return "\n".join(lines).lstrip("\n") + "\n"


def _toml_value(value: Any, key: str = "") -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"0x{value:02X}" if key == "address" else str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str | Path):
        text = str(value).replace("\\", "\\\\").replace('"', '\\"')
        return f'"{text}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {value!r} as TOML")
