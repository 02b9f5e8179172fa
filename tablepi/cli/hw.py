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


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("hw", help="check the table's hardware")
    which = parser.add_subparsers(dest="hw_command", required=True, metavar="ACTION")
    test = which.add_parser("test", help="press each button, draw on the OLED, beep, read the camera")
    test.add_argument("--config", type=Path, metavar="FILE", help="a config file read after the others")
    test.add_argument(
        "--simulate", action="store_true", help="mock pins and devices; the presses happen by themselves"
    )
    test.add_argument(
        "--timeout",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="how long to wait for each button press (default 15)",
    )
    test.set_defaults(func=run_test)


class _Report:
    def __init__(self) -> None:
        self.failures: list[str] = []

    def ok(self, part: str, text: str) -> None:
        print(f"  ok    {part}: {text}", flush=True)

    def fail(self, part: str, text: str) -> None:
        self.failures.append(part)
        print(f"  FAIL  {part}: {text}", flush=True)

    def info(self, text: str) -> None:
        print(f"        {text}", flush=True)


def run_test(args: argparse.Namespace) -> int:
    from hardware.platform import on_pi, open_devices
    from tablepi.config import ConfigError, load_config

    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    simulate = bool(args.simulate)
    if not simulate and not on_pi():
        print("This is not a Raspberry Pi: testing in simulation mode (as with --simulate).")
        simulate = True
    print(f"TablePi hardware test ({'simulation' if simulate else 'Raspberry Pi'})", flush=True)
    report = _Report()
    events: queue.Queue = queue.Queue()
    devices = open_devices(cfg, simulate, on_camera_event=lambda kind, msg: events.put((kind, msg)))
    try:
        for message in devices.messages:
            report.info(message)
        _test_buttons(devices, cfg, simulate, args.timeout, report)
        _test_display(devices, cfg, report)
        _test_buzzer(devices, report)
        _test_camera(devices, report)
    finally:
        devices.close()
    if report.failures:
        print(f"\n{len(report.failures)} part(s) need attention: {', '.join(report.failures)}")
        return 1
    print("\nAll parts working.")
    return 0


def _test_buttons(devices, cfg, simulate: bool, timeout: float, report: _Report) -> None:
    buttons = devices.buttons
    if buttons is None:
        report.fail("buttons", "could not be opened (see above)")
        return
    presses: queue.Queue = queue.Queue()
    buttons.when_input = lambda name, long: presses.put((name, long))

    def expect(name: str, long: bool) -> None:
        pin = buttons.pins[name]
        kind = "hold" if long else "press"
        what = f"{kind} button {name} (GPIO{pin})" + (f" for {buttons.hold_time:g} s" if long else "")
        print(f"  ..    {what[0].upper() + what[1:]} ...", flush=True)
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
                    f"button {name}",
                    f"no press within {timeout:g} s: check GPIO{pin} (BCM) to one leg of the button, "
                    "the other leg to GND",
                )
                return
            if got_name == name and got_long == long:
                report.ok(f"button {name}", ("long press" if long else "press") + f" on GPIO{pin}")
                return
            report.info(f"got {'a long press of ' if got_long else ''}{got_name}; waiting for {name}")

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
        report.fail("OLED", f"drawing failed: {exc}")
        return
    if display.simulated:
        where = "no OLED (simulated screen)" if devices.simulated else "NO OLED FOUND, drawn on a stand-in"
        text = f"test pattern drawn, {lit} pixels lit, {where}"
        if devices.simulated:
            report.ok("OLED", text)
        else:
            report.fail(
                "OLED",
                f"{text}; check I2C is enabled (raspi-config nonint do_i2c 0), SDA to GPIO2, SCL to GPIO3, "
                f"and `i2cdetect -y {cfg.display.port}` shows 0x{cfg.display.address:02X}",
            )
    else:
        report.ok(
            "OLED",
            f"test pattern drawn on the {cfg.display.driver} at 0x{cfg.display.address:02X}: "
            "check the border and diagonals are complete",
        )


def _test_buzzer(devices, report: _Report) -> None:
    buzzer = devices.buzzer
    if buzzer.silent:
        report.ok("buzzer", "none fitted (buzzer.pin = false); sounds are skipped")
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
        report.ok("buzzer", f"played 'tick' and 'warning' on GPIO{buzzer.pin}: listen for 1 + 3 beeps")
        return
    # A mock pin records every change, so simulation can count the beeps.
    beeps = sum(1 for state in states[1:] if state.state)
    if beeps == 4:
        report.ok("buzzer", f"'tick' and 'warning' switched GPIO{buzzer.pin} on 1 + 3 times (simulated)")
    else:
        report.fail("buzzer", f"expected 4 beeps on the simulated GPIO{buzzer.pin}, counted {beeps}")


def _test_camera(devices, report: _Report) -> None:
    camera = devices.camera
    frame = camera.wait_frame(10.0)
    if frame is None:
        report.fail("camera", f"no frame within 10 s from the {getattr(camera, 'kind', '')} camera")
        return
    height, width = frame.shape[:2]
    first = camera.frames
    time.sleep(0.5)
    rate = (camera.frames - first) * 2
    kind = getattr(camera, "kind", "camera")
    report.ok("camera", f"{kind} source, {width}x{height}, about {rate} frames/s")
    try:
        from vision import read_dice
    except (ImportError, AttributeError) as exc:
        report.info(f"dice reader not available ({exc}); skipped reading the dice")
        return
    try:
        dice = read_dice(frame)
    except Exception as exc:  # the reader is another part; its failure is reported, not fatal here
        report.fail("dice reader", f"failed on the camera frame: {exc}")
        return
    values = sorted(int(d.value) for d in dice)
    line = f"{len(values)} dice read: {values}" if values else "no dice seen"
    truth = getattr(camera.source, "values", None)
    if truth is not None:
        line += f" (the synthetic dice show {sorted(truth)})"
    report.ok("dice reader", line)
