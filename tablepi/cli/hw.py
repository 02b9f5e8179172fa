"""`tablepi hw test`: walk through the table's hardware and report what works.

Run it after wiring the buttons, OLED, buzzer and camera. In ``--simulate``
mode it presses the (mock) buttons itself, so the whole walk-through also
runs on any computer.
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from pathlib import Path

from tablepi.cli import say, say_text
from tablepi.i18n import N_


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("hw", help=N_("check the table's hardware"))
    which = parser.add_subparsers(dest="hw_command", required=True, metavar="ACTION")
    test = which.add_parser("test", help=N_("press each button, draw on the OLED, beep, read the camera"))
    test.add_argument("--config", type=Path, metavar="FILE", help=N_("a config file read after the others"))
    test.add_argument(
        "--simulate", action="store_true", help=N_("mock pins and devices; the presses happen by themselves")
    )
    test.add_argument(
        "--timeout",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help=N_("how long to wait for each button press (default 15)"),
    )
    test.set_defaults(func=run_test)


class _Report:
    """Each part's result, a line each; ``part`` and ``text`` already in the reader's language."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def ok(self, part: str, text: str) -> None:
        mark = say(N_("ok"))
        print(f"  {mark:<5} {part}: {text}", flush=True)

    def fail(self, part: str, text: str) -> None:
        self.failures.append(part)
        mark = say(N_("FAIL"))
        print(f"  {mark:<5} {part}: {text}", flush=True)

    def info(self, text: str) -> None:
        print(f"        {text}", flush=True)


def run_test(args: argparse.Namespace) -> int:
    from hardware.platform import on_pi, open_devices
    from tablepi.config import ConfigError, load_config

    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        from tablepi.i18n import system_language

        print(exc.text(system_language()), file=sys.stderr)
        return 1
    simulate = bool(args.simulate)
    if not simulate and not on_pi():
        print(say(N_("This is not a Raspberry Pi: testing in simulation mode (as with --simulate).")))
        simulate = True
    mode = say(N_("simulation")) if simulate else "Raspberry Pi"
    print(say(N_("TablePi hardware test ({mode})"), mode=mode), flush=True)
    report = _Report()
    events: queue.Queue = queue.Queue()
    devices = open_devices(cfg, simulate, on_camera_event=lambda kind, msg: events.put((kind, msg)))
    try:
        for message in devices.messages:
            report.info(say_text(message))
        _test_buttons(devices, cfg, simulate, args.timeout, report)
        _test_display(devices, cfg, report)
        _test_buzzer(devices, report)
        _test_camera(devices, report)
    finally:
        devices.close()
    if report.failures:
        parts = ", ".join(report.failures)
        print("\n" + say(N_("{n} part(s) need attention: {parts}"), n=len(report.failures), parts=parts))
        return 1
    print("\n" + say(N_("All parts working.")))
    return 0


def _test_buttons(devices, cfg, simulate: bool, timeout: float, report: _Report) -> None:
    buttons = devices.buttons
    if buttons is None:
        report.fail(say(N_("buttons")), say(N_("could not be opened (see above)")))
        return
    presses: queue.Queue = queue.Queue()
    buttons.when_input = lambda name, long: presses.put((name, long))

    def expect(name: str, long: bool) -> None:
        pin = buttons.pins[name]
        if long:
            what = say(
                N_("Hold button {name} (GPIO{pin}) for {seconds} s ..."),
                name=name,
                pin=pin,
                seconds=f"{buttons.hold_time:g}",
            )
        else:
            what = say(N_("Press button {name} (GPIO{pin}) ..."), name=name, pin=pin)
        part = say(N_("button {name}"), name=name)
        print(f"  ..    {what}", flush=True)
        if simulate:
            from hardware import sim

            threading.Thread(target=sim.press, args=(buttons, name, long), daemon=True).start()
        deadline = time.monotonic() + (timeout + (buttons.hold_time if long else 0))
        while True:
            left = deadline - time.monotonic()
            try:
                got_name, got_long = presses.get(timeout=max(0.0, left))
            except queue.Empty:
                report.fail(
                    part,
                    say(
                        N_(
                            "no press within {seconds} s: check GPIO{pin} (BCM) to one leg of the button, "
                            "the other leg to GND"
                        ),
                        seconds=f"{timeout:g}",
                        pin=pin,
                    ),
                )
                return
            if got_name == name and got_long == long:
                pressed = N_("long press on GPIO{pin}") if long else N_("press on GPIO{pin}")
                report.ok(part, say(pressed, pin=pin))
                return
            got = (
                N_("got a long press of {got}; waiting for {name}")
                if got_long
                else N_("got {got}; waiting for {name}")
            )
            report.info(say(got, got=got_name, name=name))

    for name in buttons.names:
        expect(name, False)
    if buttons.names:
        expect(buttons.names[0], True)
    buttons.when_input = None


def _test_display(devices, cfg, report: _Report) -> None:
    display = devices.display
    try:
        display.test_pattern()
        lit = sum(display.image.convert("L").histogram()[1:])
    except Exception as exc:
        report.fail("OLED", say(N_("drawing failed: {error}"), error=exc))
        return
    if display.simulated:
        if devices.simulated:
            report.ok(
                "OLED", say(N_("test pattern drawn, {lit} pixels lit, no OLED (simulated screen)"), lit=lit)
            )
        else:
            report.fail(
                "OLED",
                say(
                    N_(
                        "test pattern drawn, {lit} pixels lit, NO OLED FOUND, drawn on a stand-in; "
                        "check I2C is enabled (raspi-config nonint do_i2c 0), SDA to GPIO2, SCL to GPIO3, "
                        "and `i2cdetect -y {port}` shows {address}"
                    ),
                    lit=lit,
                    port=cfg.display.port,
                    address=f"0x{cfg.display.address:02X}",
                ),
            )
    else:
        report.ok(
            "OLED",
            say(
                N_(
                    "test pattern drawn on the {driver} at {address}: "
                    "check the border and diagonals are complete"
                ),
                driver=cfg.display.driver,
                address=f"0x{cfg.display.address:02X}",
            ),
        )


def _test_buzzer(devices, report: _Report) -> None:
    buzzer = devices.buzzer
    part = say(N_("buzzer"))
    if buzzer.silent:
        report.ok(part, say(N_("none fitted (buzzer.pin = false); sounds are skipped")))
        return
    pin = buzzer.device.pin
    clear = getattr(pin, "clear_states", None)
    if clear is not None:
        clear()
    for pattern in ("tick", "warning"):
        buzzer.play(pattern)
        time.sleep(buzzer.duration(pattern) + 0.2)
    states = getattr(pin, "states", None)
    if states is None:
        report.ok(
            part, say(N_("played 'tick' and 'warning' on GPIO{pin}: listen for 1 + 3 beeps"), pin=buzzer.pin)
        )
        return
    # A mock pin records every change, so simulation can count the beeps.
    beeps = sum(1 for state in states[1:] if state.state)
    if beeps == 4:
        report.ok(
            part,
            say(N_("'tick' and 'warning' switched GPIO{pin} on 1 + 3 times (simulated)"), pin=buzzer.pin),
        )
    else:
        report.fail(
            part,
            say(
                N_("expected 4 beeps on the simulated GPIO{pin}, counted {beeps}"),
                pin=buzzer.pin,
                beeps=beeps,
            ),
        )


def _test_camera(devices, report: _Report) -> None:
    camera = devices.camera
    part, reader = say(N_("camera")), say(N_("dice reader"))
    frame = camera.wait_frame(10.0)
    if frame is None:
        report.fail(
            part, say(N_("no frame within 10 s from the {kind} camera"), kind=getattr(camera, "kind", ""))
        )
        return
    height, width = frame.shape[:2]
    first = camera.frames
    time.sleep(0.5)
    rate = (camera.frames - first) * 2
    kind = getattr(camera, "kind", "camera")
    report.ok(
        part,
        say(
            N_("{kind} source, {width}x{height}, about {rate} frames/s"),
            kind=kind,
            width=width,
            height=height,
            rate=rate,
        ),
    )
    try:
        from vision import read_dice
    except (ImportError, AttributeError) as exc:
        report.info(say(N_("dice reader not available ({error}); skipped reading the dice"), error=exc))
        return
    try:
        dice = read_dice(frame)
    except Exception as exc:  # the reader is another part; its failure is reported, not fatal here
        report.fail(reader, say(N_("failed on the camera frame: {error}"), error=exc))
        return
    values = sorted(int(d.value) for d in dice)
    line = (
        say(N_("{count} dice read: {values}"), count=len(values), values=values)
        if values
        else say(N_("no dice seen"))
    )
    truth = getattr(camera.source, "values", None)
    if truth is not None:
        line += " " + say(N_("(the synthetic dice show {values})"), values=sorted(truth))
    report.ok(reader, line)
