"""`tablepi dice read|eval|calibrate`: read dice photos, score a labelled set, check the camera regions."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision import VIEWS

CAMERA_WAIT_SECONDS = 5.0


MOST = len(VIEWS)
VIEWS_HELP = f"views of each photo the reader may read, 1-{MOST} (default {MOST}): fewer is faster, less sure"


def _views(text: str) -> int:
    from vision.views import check_views

    try:
        views = int(text)
        check_views(views)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of views 1-{MOST}, not {text!r}") from None
    return views


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("dice", help="read dice in photos, score the reader, calibrate the camera")
    which = parser.add_subparsers(dest="dice_command", required=True, metavar="ACTION")

    p = which.add_parser("read", help="read the dice in each photo")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help='print one JSON object {"<file name>": [dice]}')
    p.add_argument("--annotate", metavar="OUT_DIR", help="write each photo with the dice drawn on it")
    p.add_argument(
        "--min-confidence",
        type=float,
        default=0.5,
        help="leave out dice read with less confidence (default 0.5; 0 shows every die found)",
    )
    p.add_argument("--views", type=_views, default=MOST, help=VIEWS_HELP)
    p.set_defaults(func=_read)

    p = which.add_parser("eval", help="score the reader on a labelled photo set (DIR/labels.json)")
    p.add_argument("dataset", metavar="DATASET_DIR")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--min-confidence", type=float, default=0.5, help="as for `dice read`")
    p.add_argument("--views", type=_views, default=MOST, help="as for `dice read`")
    p.set_defaults(func=_eval)

    p = which.add_parser("calibrate", help="save a frame with the tray, keep area and dice drawn")
    p.add_argument("--config", metavar="FILE", help="config file with the [camera] table")
    p.add_argument("--image", metavar="IMAGE", help="use this photo instead of the camera")
    p.add_argument(
        "--tray", metavar="JSON", help='tray polygon as fractions, e.g. "[[0.1,0.1],[0.9,0.1],[0.5,0.9]]"'
    )
    p.add_argument("--keep", metavar="JSON", help='keep area as fractions, e.g. "[0.7,0.0,1.0,0.3]"')
    p.add_argument("--out", metavar="FILE.png", required=True)
    p.set_defaults(func=_calibrate)


def _err(message: str) -> None:
    print(f"tablepi dice: {message}", file=sys.stderr)


def _load(path: str):
    import cv2

    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        if not Path(path).exists():
            raise OSError(f"{path}: no such file")
        raise OSError(f"{path}: not an image OpenCV can read")
    return img


def _read(args: argparse.Namespace) -> int:
    import cv2

    from vision import read_dice
    from vision.regions import draw_dice

    out_dir = Path(args.annotate) if args.annotate else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    status = 0
    results: dict[str, list[dict]] = {}
    for path in args.images:
        try:
            img = _load(path)
        except OSError as exc:
            _err(str(exc))
            status = 1
            continue
        dice = [d for d in read_dice(img, views=args.views) if d.confidence >= args.min_confidence]
        name = Path(path).name
        results[name] = [d.to_dict() for d in dice]
        if not args.json:
            values = " ".join(str(d.value) for d in sorted(dice, key=lambda d: d.value))
            print(f"{name}: {len(dice)} dice" + (f": {values}" if values else ""))
        if out_dir is not None:
            cv2.imwrite(str(out_dir / (Path(path).stem + ".png")), draw_dice(img, dice))
    if args.json:
        print(json.dumps(results))
    return status


def _eval(args: argparse.Namespace) -> int:
    import cv2

    from vision import read_dice
    from vision.score import score, summary_line

    folder = Path(args.dataset)
    labels_file = folder / "labels.json"
    try:
        labels = json.loads(labels_file.read_text())
    except OSError as exc:
        _err(f"{labels_file}: cannot be read ({exc.strerror or exc})")
        return 2
    except json.JSONDecodeError as exc:
        _err(f"{labels_file}: not valid JSON ({exc})")
        return 2
    preds: dict[str, list[dict]] = {}
    status = 0
    for name in sorted(labels):
        img = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        if img is None:
            _err(f"{folder / name}: missing or unreadable, counted as read with no dice")
            status = 1
            continue
        dice = read_dice(img, views=args.views)
        preds[name] = [d.to_dict() for d in dice if d.confidence >= args.min_confidence]
    r = score(labels, preds)
    if args.json:
        print(json.dumps({k: v for k, v in r.items()}, indent=1))
        return status
    for name, gt, got in r["failures"]:
        print(f"miss {name}: labelled {gt} read {got}")
    for name, want, got, box in r["misread"]:
        where = "[" + ", ".join(f"{v:.0f}" for v in box) + "]"
        if want is None:
            print(f"phantom {name} {where}: read {got}, no die there")
        elif got is None:
            print(f"missed {name} {where}: labelled {want}")
        else:
            print(f"misread {name} {where}: labelled {want} read {got}")
    print("per value:", {v: round(a, 3) for v, a in r["per_value_accuracy"].items()})
    print(summary_line(r))
    return status


def _fractions(text: str | None, what: str):
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--{what}: not valid JSON ({exc})") from exc


def _calibrate(args: argparse.Namespace) -> int:
    import cv2

    from vision import read_dice
    from vision.regions import Regions, draw_dice, draw_regions

    tray = keep = None
    camera_cfg = None
    if args.config:
        from tablepi.config import ConfigError, load_config

        try:
            cfg = load_config(args.config)
        except ConfigError as exc:
            _err(str(exc))
            return 2
        camera_cfg = cfg.camera
        tray, keep = cfg.camera.tray, cfg.camera.keep
    try:
        tray = _fractions(args.tray, "tray") if args.tray else tray
        keep = _fractions(args.keep, "keep") if args.keep else keep
        regions = Regions.from_values(tray, keep)
    except (ValueError, TypeError) as exc:
        _err(str(exc))
        return 2
    if args.image:
        try:
            frame = _load(args.image)
        except OSError as exc:
            _err(str(exc))
            return 1
    else:
        frame = _camera_frame(camera_cfg)
        if frame is None:
            return 1
    h, w = frame.shape[:2]
    dice = [d for d in read_dice(frame) if d.confidence >= 0.5]
    rolled, kept = regions.split(dice, w, h)
    draw_regions(frame, regions)
    draw_dice(frame, rolled + kept)
    if not cv2.imwrite(args.out, frame):
        _err(f"{args.out}: cannot write the image (is the folder there, and the name .png?)")
        return 1
    in_tray = len(rolled) + len(kept)
    print(f"{args.out}: {len(dice)} dice read, {in_tray} in the tray, {len(kept)} in the keep area")
    return 0


def _camera_frame(camera_cfg):
    try:
        from hardware.cameras import open_camera
    except ImportError:
        _err("no camera support is installed; pass --image PHOTO")
        return None
    if camera_cfg is None:
        from tablepi.config import ConfigError, load_config

        try:
            camera_cfg = load_config().camera
        except ConfigError as exc:
            _err(str(exc))
            return None
    try:
        camera = open_camera(camera_cfg)
        try:
            wait = getattr(camera, "wait_frame", None)
            frame = wait(CAMERA_WAIT_SECONDS) if wait is not None else camera.read()
        finally:
            close = getattr(camera, "close", None)
            if close is not None:
                close()
    except Exception as exc:  # a vanished or busy camera must not crash the command
        _err(f"the camera gave no frame ({exc}); pass --image PHOTO")
        return None
    if frame is None:
        _err("the camera gave no frame; pass --image PHOTO")
    return frame
