"""`tablepi dice read|eval|robust|empty|calibrate`: read dice photos, score the reader on
labelled sets, check the camera regions."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tablepi.cli import say, say_text
from tablepi.i18n import N_

if TYPE_CHECKING:
    import numpy as np

    from vision.calibration import Calibration

CAMERA_WAIT_SECONDS = 5.0


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("dice", help=N_("read dice in photos, score the reader, calibrate the camera"))
    which = parser.add_subparsers(dest="dice_command", required=True, metavar="ACTION")

    p = which.add_parser("read", help=N_("read the dice in each photo"))
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help=N_('print one JSON object {"<file name>": [dice]}'))
    p.add_argument("--annotate", metavar="OUT_DIR", help=N_("write each photo with the dice drawn on it"))
    p.add_argument(
        "--min-confidence",
        type=float,
        default=0.5,
        help=N_("leave out dice read with less confidence (default 0.5; 0 shows every die found)"),
    )
    p.add_argument(
        "--as-table",
        action="store_true",
        help=N_(
            "read the photos in the order given as one table's camera reads its rolls: three views "
            "each, learning the dice's size over the frame from its own sure readings as it goes"
        ),
    )
    p.set_defaults(func=_read)

    p = which.add_parser(
        "eval", help=N_("score the reader on labelled photo sets: a row per dataset, their mean, outcomes")
    )
    p.add_argument(
        "datasets",
        nargs="+",
        metavar="DATASET",
        help=N_("a dataset folder (with train/ and test/) or a split"),
    )
    p.add_argument(
        "--split",
        choices=("train", "test"),
        default="test",
        help=N_("which split of each dataset (default test)"),
    )
    p.add_argument(
        "--every", type=int, default=1, metavar="N", help=N_("read every N-th photo only (default 1: all)")
    )
    _reader_options(p)
    p.add_argument(
        "--as-table",
        action="store_true",
        help=N_(
            "read each split's photos in name order as one table's camera reads its rolls (three views "
            "each, learning the dice's size over the frame from its own sure readings, told how many dice "
            "each photo holds, as a table knows how many were thrown)"
        ),
    )
    p.add_argument("--json", action="store_true", help=N_("print the figures as JSON"))
    p.add_argument("--misread", action="store_true", help=N_("list every die read wrong, missed or made up"))
    p.add_argument(
        "--confusion",
        action="store_true",
        help=N_("what each labelled value is read as, sure or not (where the pip counter goes wrong)"),
    )
    p.set_defaults(func=_eval)

    p = which.add_parser(
        "robust", help=N_("read labelled photos turned, scaled, blurred, compressed, lit differently")
    )
    p.add_argument("datasets", nargs="+", metavar="DATASET")
    p.add_argument(
        "--split", choices=("train", "test"), default="train", help=N_("which split (default train)")
    )
    p.add_argument(
        "--every", type=int, default=1, metavar="N", help=N_("read every N-th photo only (default 1: all)")
    )
    p.add_argument(
        "--transform", action="append", metavar="NAME", help=N_("only these transforms (repeatable)")
    )
    _reader_options(p)
    p.add_argument("--json", action="store_true", help=N_("print the figures as JSON"))
    p.set_defaults(func=_robust)

    p = which.add_parser(
        "empty", help=N_("read the parts of labelled photos that hold no die: no sure die there")
    )
    p.add_argument("datasets", nargs="+", metavar="DATASET")
    p.add_argument(
        "--split", choices=("train", "test"), default="train", help=N_("which split (default train)")
    )
    p.add_argument(
        "--every", type=int, default=1, metavar="N", help=N_("read every N-th photo only (default 1: all)")
    )
    p.set_defaults(func=_empty)

    p = which.add_parser(
        "calibrate",
        help=N_(
            "learn the dice's size over the camera's frame from a few throws; save a frame with "
            "the tray, keep area, dice and learned sizes drawn"
        ),
    )
    p.add_argument("--config", metavar="FILE", help=N_("config file with the [camera] table"))
    p.add_argument(
        "--image",
        nargs="+",
        metavar="IMAGE",
        help=N_("use these photos, one throw each in the order given, instead of the camera"),
    )
    p.add_argument(
        "--rolls",
        type=int,
        default=1,
        metavar="N",
        help=N_("throws to take from the camera, Enter pressed before each after the first (default 1)"),
    )
    p.add_argument(
        "--dice", type=int, metavar="N", help=N_("how many dice are thrown each time (default: not told)")
    )
    p.add_argument(
        "--tray", metavar="JSON", help=N_('tray polygon as fractions, e.g. "[[0.1,0.1],[0.9,0.1],[0.5,0.9]]"')
    )
    p.add_argument("--keep", metavar="JSON", help=N_('keep area as fractions, e.g. "[0.7,0.0,1.0,0.3]"'))
    p.add_argument("--out", metavar="FILE.png", required=True)
    p.set_defaults(func=_calibrate)


def _err(message: str) -> None:
    """``message`` (already in the reader's language) on standard error."""
    print(f"tablepi dice: {message}", file=sys.stderr)


def _load(path: str):
    import cv2

    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        if not Path(path).exists():
            raise OSError(say(N_("{path}: no such file"), path=path))
        raise OSError(say(N_("{path}: not an image OpenCV can read"), path=path))
    return img


def _read(args: argparse.Namespace) -> int:
    import cv2

    from vision import read_dice
    from vision.regions import draw_dice

    out_dir = Path(args.annotate) if args.annotate else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    if args.as_table:
        from vision.table_reader import TableReader

        read_dice = TableReader().read
    status = 0
    results: dict[str, list[dict]] = {}
    for path in args.images:
        try:
            img = _load(path)
        except OSError as exc:
            _err(say_text(str(exc)))
            status = 1
            continue
        dice = [d for d in read_dice(img) if d.confidence >= args.min_confidence]
        name = Path(path).name
        results[name] = [d.to_dict() for d in dice]
        if not args.json:
            values = " ".join(str(d.value) for d in sorted(dice, key=lambda d: d.value))
            if values:
                print(say(N_("{name}: {count} dice: {values}"), name=name, count=len(dice), values=values))
            else:
                print(say(N_("{name}: {count} dice"), name=name, count=len(dice)))
        if out_dir is not None:
            cv2.imwrite(str(out_dir / (Path(path).stem + ".png")), draw_dice(img, dice))
    if args.json:
        print(json.dumps(results))
    return status


def _datasets(args: argparse.Namespace) -> list[Path] | None:
    from vision.datasets import split_folder

    folders = [split_folder(Path(d), args.split) for d in args.datasets]
    missing = [str(f) for f in folders if not (f / "labels.json").is_file()]
    if missing:
        _err(say(N_("no labels.json in {folders}"), folders=", ".join(missing)))
        return None
    if args.every < 1:
        _err(say(N_("--every must be 1 or more")))
        return None
    return folders


def _eval(args: argparse.Namespace) -> int:
    from vision.datasets import DatasetError
    from vision.evaluate import evaluate

    folders = _datasets(args)
    if folders is None:
        return 2
    try:
        if getattr(args, "as_table", False):
            results = [evaluate(f, read=_table_reader(args), every=args.every, counted=True) for f in folders]
        else:
            results = [evaluate(f, read=_reader(args), every=args.every) for f in folders]
    except (DatasetError, OSError) as exc:
        _err(say_text(str(exc)))
        return 2
    if args.json:
        print(json.dumps([_as_json(r) for r in results], indent=1))
        return 0
    for r in results:
        if args.misread:
            for name, want, got, box in r.figures["misread"]:
                where = "[" + ", ".join(f"{v:.0f}" for v in box) + "]"
                what = say(N_("no die there")) if want is None else say(N_("labelled {value}"), value=want)
                read = say(N_("read nothing")) if got is None else say(N_("read {value}"), value=got)
                print(f"{r.name} {name} {where}: {what}, {read}")
        if args.confusion:
            print(_confusion_lines(r))
        print(
            say(
                N_("{dataset}: reliability (confidence bin: readings, mean confidence, share right)"),
                dataset=r.name,
            )
        )
        for row in r.reliability:
            if row["readings"]:
                print(f"  {row['bin']}: {row['readings']:5d}  {row['confidence']:.3f}  {row['right']:.3f}")
    print(_table(results))
    return 0


def _confusion_lines(r) -> str:
    """The confusion table: a row per labelled value, a column per value read ("-": not
    found); each cell the readings and, after the slash, how many of them were sure."""
    reads = [str(v) for v in range(1, 7)] + ["-"]
    lines = [say(N_("{dataset}: labelled value (rows) read as (columns): readings / sure"), dataset=r.name)]
    lines.append("  label " + "".join(f"{c:>9s}" for c in reads))
    for label, cells in sorted(r.confusion.items()):
        row = "".join(f"{_cell(cells.get(c), c == '-'):>9s}" for c in reads)
        lines.append(f"  {label:5d} {row}")
    return "\n".join(lines)


def _cell(counts: list[int] | None, missed: bool) -> str:
    if counts is None:
        return "."
    return str(counts[0]) if missed else f"{counts[0]}/{counts[1]}"


def _reader_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--table",
        action="store_true",
        help=N_(
            "read each photo as the table reads a rest: three times, as is, turned a quarter and mirrored"
        ),
    )
    p.add_argument(
        "--models",
        type=Path,
        metavar="DIR",
        help=N_(
            "read with the finder.onnx, verifier.onnx and confidence.json in DIR (say, ones trained without "
            "a dataset)"
        ),
    )


def _table_reader(args: argparse.Namespace) -> Callable[..., list]:
    """A new table's reading of its rolls, one after another (``--as-table``)."""
    from vision.reader import SHIPPED, Models
    from vision.table_reader import TableReader

    models = Models.in_folder(args.models) if getattr(args, "models", None) is not None else SHIPPED
    return TableReader(models).read


def _reader(args: argparse.Namespace) -> Callable[[np.ndarray], list] | None:
    """The whole reader on one photo (with ``--models``, those models), or with
    ``--table`` the table's reading of a rest."""
    read = None
    if getattr(args, "models", None) is not None:
        from vision.reader import Models, read_dice

        read = functools.partial(read_dice, models=Models.in_folder(args.models))
    if not getattr(args, "table", False):
        return read
    from vision.views import read_rest

    return read_rest if read is None else functools.partial(read_rest, reader=read)


def _as_json(r) -> dict:
    figures = {k: v for k, v in r.figures.items() if k not in ("failures", "misread")}
    o = {k: v for k, v in r.outcomes.items() if k != "wrong_photos"}
    confusion = {str(label): cells for label, cells in r.confusion.items()}
    return {"dataset": r.name, **figures, "outcomes": o, "reliability": r.reliability, "confusion": confusion}


COLUMNS = (
    ("die_accuracy", N_("die acc"), 11),
    ("image_accuracy", N_("image acc"), 11),
    ("precision", N_("precision"), 11),
    ("recall", N_("recall"), 11),
)
OUTCOMES = ((N_("right"), 8), (N_("refused"), 9), (N_("wrong"), 7))


def _table(results) -> str:
    import statistics

    # A column is as wide as the English one, or its heading and a space in another language.
    heads = [(say(t), w) for _, t, w in COLUMNS] + [(say(t), w) for t, w in OUTCOMES]
    widths = [max(w, len(t) + 1) for t, w in heads]
    photos = say(N_("photos"))
    photos_width = max(8, len(photos) + 1)
    dataset, mean_word = say(N_("dataset")), say(N_("mean"))
    head = f"{dataset:16s}" + "".join(f"{t:>{w}s}" for (t, _), w in zip(heads, widths, strict=True))
    lines = [head + f"{photos:>{photos_width}s}"]

    def cells(values: list[float]) -> str:
        return "".join(f"{v:{w}.3f}" for v, w in zip(values, widths, strict=True))

    rows = []
    for r in results:
        n = max(r.figures["images"], 1)
        o = r.outcomes
        row = [r.figures[k] for k, _, _ in COLUMNS] + [o["right"] / n, o["refused"] / n, o["wrong"] / n]
        rows.append(row)
        lines.append(f"{r.name:16s}" + cells(row) + f"{r.figures['images']:{photos_width}d}")
    if len(results) > 1:
        mean = [statistics.fmean(col) for col in zip(*rows, strict=True)]
        lines.append(f"{mean_word:16s}" + cells(mean))
    return "\n".join(lines)


def _robust(args: argparse.Namespace) -> int:
    from vision.datasets import DatasetError
    from vision.evaluate import evaluate
    from vision.robust import TRANSFORMS

    folders = _datasets(args)
    if folders is None:
        return 2
    names = args.transform or list(TRANSFORMS)
    unknown = [n for n in names if n not in TRANSFORMS]
    if unknown:
        _err(
            say(
                N_("unknown transform {name}; one of: {names}"),
                name=repr(unknown[0]),
                names=", ".join(TRANSFORMS),
            )
        )
        return 2
    table: dict[str, dict[str, float]] = {}
    wrong: dict[str, dict[str, float]] = {}
    try:
        for name in ["as taken", *names]:
            transform = None if name == "as taken" else TRANSFORMS[name]
            row, wrong_row = {}, {}
            for f in folders:
                r = evaluate(f, read=_reader(args), every=args.every, transform=transform)
                row[r.name] = r.figures["die_accuracy"]
                wrong_row[r.name] = r.outcomes["wrong"] / max(r.figures["images"], 1)
            table[name], wrong[name] = row, wrong_row
            if not args.json and name != "as taken":
                print(_robust_line(say(name), row, table["as taken"], wrong_row), flush=True)
    except (DatasetError, OSError) as exc:
        _err(say_text(str(exc)))
        return 2
    base = table["as taken"]
    if args.json:
        print(json.dumps({"die_accuracy": table, "photos_wrong": wrong}, indent=1))
    else:
        worst = min(
            ((t, d, row[d] - base[d]) for t, row in table.items() if t != "as taken" for d in row),
            key=lambda x: x[2],
            default=None,
        )
        print(_robust_line(say(N_("as taken")), base, base, wrong["as taken"]))
        if worst is not None:
            transform = say(N_("as taken")) if worst[0] == "as taken" else say(worst[0])
            print(
                say(
                    N_("largest drop: {drop} ({transform}, {dataset})"),
                    drop=f"{worst[2]:+.3f}",
                    transform=transform,
                    dataset=worst[1],
                )
            )
    return 0


def _empty(args: argparse.Namespace) -> int:
    from vision.datasets import DatasetError
    from vision.robust import empty_phantoms

    folders = _datasets(args)
    if folders is None:
        return 2
    for f in folders:
        try:
            tiles, phantoms, where = empty_phantoms(f, args.every)
        except (DatasetError, OSError) as exc:
            _err(say_text(str(exc)))
            return 2
        name = f.parent.name if f.name in ("train", "test") else f.name
        if where:
            photos = ", ".join(sorted(set(where))[:5]) + (" ..." if len(set(where)) > 5 else "")
            line = say(
                N_("{dataset}: {tiles} empty tiles read, {phantoms} sure dice on them (in {photos})"),
                dataset=name,
                tiles=tiles,
                phantoms=phantoms,
                photos=photos,
            )
        else:
            line = say(
                N_("{dataset}: {tiles} empty tiles read, {phantoms} sure dice on them"),
                dataset=name,
                tiles=tiles,
                phantoms=phantoms,
            )
        print(line, flush=True)
    return 0


def _robust_line(name: str, row: dict[str, float], base: dict[str, float], wrong: dict[str, float]) -> str:
    """Per dataset: die accuracy, its drop from the photos as taken, and the share of
    photos read wrong (every die sure, the count right, a value wrong): a drop that
    leaves that share as it was is the reader refusing, not misreading."""
    cells = "  ".join(
        say(
            N_("{dataset} {accuracy} ({drop}, wrong {wrong})"),
            dataset=d,
            accuracy=f"{v:.3f}",
            drop=f"{v - base[d]:+.3f}",
            wrong=f"{wrong[d]:.3f}",
        )
        for d, v in row.items()
    )
    return f"{name:14s} {cells}"


def _fractions(text: str | None, what: str):
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(say(N_("--{option}: not valid JSON ({error})"), option=what, error=exc)) from exc


def _calibrate(args: argparse.Namespace) -> int:
    import cv2

    from tablepi.camera_sizes import save
    from vision import SURE
    from vision.regions import Regions, draw_dice, draw_looks, draw_regions, draw_sizes
    from vision.table_reader import TableReader

    tray = keep = None
    cfg = None
    if args.config:
        from tablepi.config import ConfigError, load_config
        from tablepi.i18n import system_language

        try:
            cfg = load_config(args.config)
        except ConfigError as exc:
            _err(exc.text(system_language()))
            return 2
        tray, keep = cfg.camera.tray, cfg.camera.keep
    try:
        tray = _fractions(args.tray, "tray") if args.tray else tray
        keep = _fractions(args.keep, "keep") if args.keep else keep
        regions = Regions.from_values(tray, keep)
    except (ValueError, TypeError) as exc:
        _err(say_text(str(exc)))
        return 2
    if args.rolls < 1 or (args.dice is not None and args.dice < 1):
        _err(say(N_("--rolls and --dice take a whole number of 1 or more")))
        return 2
    if args.image:
        try:
            frames = [_load(path) for path in args.image]
        except OSError as exc:
            _err(say_text(str(exc)))
            return 1
        kept_in = None
    else:
        frames, kept_in = _camera_frames(cfg, args.rolls)
        if not frames:
            return 1
    # Read as the table reads its camera: roll after roll, learning the dice's size from its sure readings.
    reader = TableReader()
    for n, frame in enumerate(frames, 1):
        dice = [d for d in reader.read(frame, expect=args.dice) if d.confidence >= SURE]
        if len(frames) > 1:
            print(say(N_("throw {n}: {count} dice read sure"), n=n, count=len(dice)))
    h, w = frame.shape[:2]
    rolled, kept = regions.split(dice, w, h)
    sizes = reader.calibration.sizes
    if sizes is not None:
        draw_sizes(frame, sizes)
    draw_looks(frame, reader.calibration.looks)
    draw_regions(frame, regions)
    draw_dice(frame, rolled + kept)
    if not cv2.imwrite(args.out, frame):
        _err(
            say(N_("{path}: cannot write the image (is the folder there, and the name .png?)"), path=args.out)
        )
        return 1
    in_tray = len(rolled) + len(kept)
    print(
        say(
            N_("{path}: {count} dice read, {tray} in the tray, {keep} in the keep area"),
            path=args.out,
            count=len(dice),
            tray=in_tray,
            keep=len(kept),
        )
    )
    _say_sizes(reader.calibration, w, h)
    looks = reader.calibration.looks
    if looks:
        kinds = []
        for k in looks:
            face, pips = k.hex()
            kinds.append(
                say(N_("{face} faces with {pips} pips ({dice} dice)"), face=face, pips=pips, dice=k.dice)
            )
        print(say(N_("the dice, as they look: {looks}"), looks="; ".join(kinds)))
    if kept_in is not None and sizes is not None:
        save(kept_in, reader.calibration)
        print(say(N_("kept in {path}: the table reads its camera so from its next start"), path=kept_in))
    # Compare this figure while turning a lens or changing lens_position: the highest is in focus.
    sharpness = cv2.Laplacian(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()
    print(
        say(
            N_("sharpness {value} (the variance of the Laplacian: the higher, the sharper)"),
            value=f"{sharpness:.0f}",
        )
    )
    return 0


def _say_sizes(calibration: Calibration, width: int, height: int) -> None:
    """What the calibration learned of the dice's size, or how far it is from knowing."""
    from vision.calibration import LENS, ONE_SIZE, PLANE
    from vision.tunables import CALIBRATE_MIN_DICE

    kinds = {
        ONE_SIZE: N_("one size over the whole frame"),
        PLANE: N_("a plane seen in perspective"),
        LENS: N_("a plane seen in perspective, and a wide lens's change towards the edges"),
    }
    sizes = calibration.sizes
    if sizes is None:
        print(
            say(
                N_(
                    "the dice's size is not learned yet: {dice} sure dice of the {needed} needed; "
                    "throw the dice again (--rolls, or more photos)"
                ),
                dice=len(calibration.points),
                needed=CALIBRATE_MIN_DICE,
            )
        )
        return
    least, most = sizes.extent()
    print(
        say(
            N_(
                "the dice's size, learned from {dice} sure dice: {middle} px at the middle of the "
                "frame, {least} to {most} px over it ({model}; spread {spread}%)"
            ),
            dice=sizes.dice,
            middle=f"{sizes.side(width / 2, height / 2):.0f}",
            least=f"{least:.0f}",
            most=f"{most:.0f}",
            model=say(kinds[sizes.kind]),
            spread=f"{100 * sizes.spread:.0f}",
        )
    )


def _camera_frames(cfg, rolls: int) -> tuple[list, Path | None]:
    """``rolls`` frames of the camera of ``cfg`` (the settings; None: the usual ones), Enter
    pressed before each after the first (standard input ending stops early), and where the
    table keeps what it learns of that camera."""
    from tablepi.camera_sizes import camera_file

    if cfg is None:
        from tablepi.config import ConfigError, load_config
        from tablepi.i18n import system_language

        try:
            cfg = load_config()
        except ConfigError as exc:
            _err(exc.text(system_language()))
            return [], None
    camera_cfg = cfg.camera
    frames, kind = [], None
    for n in range(1, rolls + 1):
        if n > 1:
            try:
                input(say(N_("throw the dice, then press Enter (throw {n} of {rolls})"), n=n, rolls=rolls))
            except EOFError:
                break
        got = _camera_frame(camera_cfg, tell=n == 1)
        if got is None:
            break
        frame, kind = got
        frames.append(frame)
    return frames, None if kind is None else camera_file(cfg.data_dir, kind, camera_cfg)


def _camera_frame(camera_cfg, tell: bool = True) -> tuple[np.ndarray, str] | None:
    """One frame of the configured camera and the camera's kind, or None (said why);
    ``tell``: say which camera it is."""
    try:
        from hardware.cameras import open_camera
    except ImportError:
        _err(say(N_("no camera support is installed; pass --image PHOTO")))
        return None
    try:
        camera = open_camera(camera_cfg)
        try:
            wait = getattr(camera, "wait_frame", None)
            frame = wait(CAMERA_WAIT_SECONDS) if wait is not None else camera.read()
            focus = getattr(getattr(camera, "source", None), "focus", None)
            why = say_text(camera.why)
            if tell and focus:
                print(
                    say(N_("camera: {kind} ({why}); focus: {focus}"), kind=camera.kind, why=why, focus=focus)
                )
            elif tell:
                print(say(N_("camera: {kind} ({why})"), kind=camera.kind, why=why))
        finally:
            close = getattr(camera, "close", None)
            if close is not None:
                close()
    except Exception as exc:  # a vanished or busy camera must not crash the command
        _err(say(N_("the camera gave no frame ({error}); pass --image PHOTO"), error=exc))
        return None
    if frame is None:
        _err(say(N_("the camera gave no frame; pass --image PHOTO")))
        return None
    return frame, camera.kind
