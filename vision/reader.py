"""The dice reader: find the dice, read each face, grade how sure each reading is.

``read_dice(image)`` is the whole contract (see ``vision/__init__.py``):
``vision.finder`` says where top faces are and how large, ``vision.face`` counts
each one's pips on a crop resampled to one size, and ``vision.confidence``
turns what the reading saw into the probability that its value is right.
Where the finder marks a small die's parts (a 6's columns) as dice with no face,
the square holding them is looked at as one die; where the finder marks a die's
pips too, they are counted only if the die's own reading leaves them in doubt
(``_needed``). A spot with a face that reads as no die, or unsure though no rule
caps its grade, is looked at once more, larger (``_larger``): the finder sizes a
small die small now and then. Given a fixed camera's die sizes
(``vision.calibration``, learned by ``vision.table_reader``), the finder looks
only on the levels that hold them and a spot of another size than a die shows
where it lies is no die.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision import SURE, confidence, face, finder, verify
from vision import tunables as T
from vision.calibration import DieSizes
from vision.die import Die
from vision.halvings import Halvings

# The files of a set of the reader's models, as ``vision/models`` holds them.
NAMES = ("finder.onnx", "verifier.onnx", "confidence.json")


@dataclass(frozen=True)
class Models:
    """The reader's learned files (``SHIPPED``: the ones in ``vision/models``). Another
    set, say one trained without one dataset, reads the same photos with them."""

    finder: Path
    verifier: Path
    confidence: Path

    @classmethod
    def in_folder(cls, folder: Path) -> Models:
        """The set in ``folder`` (``finder.onnx``, ``verifier.onnx``, ``confidence.json``)."""
        missing = [name for name in NAMES if not (Path(folder) / name).is_file()]
        if missing:
            raise FileNotFoundError(
                f"{folder}: no {', '.join(missing)} (a set of the reader's models has all three)"
            )
        return cls(*(Path(folder) / name for name in NAMES))


SHIPPED = Models(finder.MODEL, verify.MODEL, confidence.MODEL)


def as_bgr(image: np.ndarray) -> np.ndarray:
    """A BGR copy-free view of a grey, BGR or BGRA frame."""
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def read_dice(
    image: np.ndarray | Halvings,
    models: Models = SHIPPED,
    sizes: DieSizes | None = None,
    heat: float = T.FINDER_MIN,
) -> list[Die]:
    """Every die whose top face shows in ``image``, each with its confidence; with ``sizes``
    (a fixed camera's, ``vision.calibration``) only dice of the size expected where they lie.
    ``heat``: the least the finder must be sure of a spot for it to be read (a second
    look for dice the table knows are there reads fainter spots, graded as any other).
    A frame read again is best given as the same ``Halvings`` (``vision.halvings``):
    what was read of it before is not read again."""
    image, spots, opinions = _faced_spots(image, models, sizes, heat)
    # Counting pips is the costly step: a spot inside a larger one (often one of its pips) is
    # read only where what ``_one_per_die`` keeps depends on it.
    later = _inner_only(spots)
    first = [i for i in range(len(spots)) if i not in later]
    graded = _graded(image, spots, opinions, first, models)
    graded.update(_graded(image, spots, opinions, _needed(later, spots, graded), models))
    # A spot read as no die, or unsure with no rule capping it, may be a die the finder sized small
    # (a capped reading is not made sure by a larger look).
    grow = [i for i in first if graded[i] is None or not (graded[i][2].capped or graded[i][2].right >= SURE)]
    for i, larger in _larger(image, spots, opinions, grow, models).items():
        # Read sure larger, it stands for a spot read as no die, or for an unsure reading of
        # the value it gives where the verifier sees that value too.
        if graded[i] is None or larger[1].value == graded[i][1].value == face.seen_value(opinions[i]):
            graded[i] = larger
    # Only what is likely a die may make a larger spot a cluster of dice, or be its pips.
    kept = _one_per_die([graded[i] for i in sorted(graded) if graded[i] is not None])
    sure_dice = [(s, r) for s, r, g in kept if g.die >= T.SURE_DIE]
    dice = []
    for spot, reading, grade in kept:
        # Blur makes the finder size a die large: a spot sized past its octave
        # that is much softer than the frame's other dice is such a die, not one
        # between two levels.
        if spot.edge and _softer_than_the_rest(reading, [r for s, r in sure_dice if s is not spot]):
            continue
        half = spot.side / 2
        box = [spot.x - half, spot.y - half, spot.x + half, spot.y + half]
        dice.append(Die(reading.value, box, grade.right, grade.die))
    return dice


def _larger(
    image: Halvings, spots: list[finder.Spot], opinions: np.ndarray, which: list[int], models: Models
) -> dict[int, Graded]:
    """Of the spots ``which``, those the verifier surely sees a face in read ``T.SMALL_GROW``
    times larger, by index: the finder sizes a small die's spot small now and then, its outer
    pips then out of the counter's reach (a 30 px 6 read as a 2). Only sure readings are given."""
    grown = [i for i in which if opinions[i][0] < T.SMALL_FACE]
    if not grown:
        return {}
    tries = [finder.Spot(spots[i].x, spots[i].y, spots[i].side * T.SMALL_GROW, spots[i].score) for i in grown]
    seen = verify.opinions(image, [(s.x, s.y, s.side) for s in tries], models.verifier)
    at = len(spots)
    graded = _graded(
        image, spots + tries, np.concatenate([opinions, seen]), list(range(at, at + len(tries))), models
    )
    sure = {i: graded[at + n] for n, i in enumerate(grown)}
    return {i: g for i, g in sure.items() if g is not None and g[2].right >= SURE}


def _softer_than_the_rest(reading: face.FaceReading, others: list[face.FaceReading]) -> bool:
    """A die much blurrier than the other dice of its frame is moving or out of
    focus: its pips may have run together into another value's."""
    if len(others) < 2:
        return False
    return reading.sharpness < T.SOFT * float(np.median([r.sharpness for r in others]))


def readings(
    image: np.ndarray, models: Models = SHIPPED, sizes: DieSizes | None = None
) -> list[tuple[finder.Spot, face.FaceReading]]:
    """Every place the finder marks in ``image`` with a top face the verifier can see,
    and what the face reads, one per die, ungraded."""
    return _one_per_die(_read_spots(image, models, sizes))


def _read_spots(
    image: np.ndarray | Halvings,
    models: Models = SHIPPED,
    sizes: DieSizes | None = None,
    heat: float = T.FINDER_MIN,
) -> list[tuple[finder.Spot, face.FaceReading]]:
    """Every place the finder marks in ``image`` with a top face the verifier can see, and what it reads."""
    image, spots, opinions = _faced_spots(image, models, sizes, heat)
    return [(s, r) for s, r in zip(spots, _faces(image, spots, opinions), strict=True) if r is not None]


def _faced_spots(
    image: np.ndarray | Halvings, models: Models, sizes: DieSizes | None, heat: float
) -> tuple[Halvings, list[finder.Spot], np.ndarray]:
    """The frame, the places the finder marks in it with a top face the verifier can see,
    and the verifier's opinion of each."""
    if image is None or (image.image if isinstance(image, Halvings) else image).size == 0:
        return Halvings(np.zeros((1, 1, 3), np.uint8)), [], np.zeros((0, 7))
    if not isinstance(image, Halvings):
        image = Halvings(as_bgr(np.ascontiguousarray(image)))
    found = finder.find(image, models.finder, None if sizes is None else sizes.range())
    spots = [s for s in found if s.score >= heat]
    # A spot of another size than a die shows where it lies is a pip, a cluster or print.
    spots = _agree(spots, sizes)
    opinions = verify.opinions(image, [(s.x, s.y, s.side) for s in spots], models.verifier)
    # Counting pips is the reader's costly step: spots the verifier sees no top face in are left unread.
    parts = [s for s, o in zip(spots, opinions, strict=True) if o[0] >= T.NO_FACE]
    faced = [s for s, o in zip(spots, opinions, strict=True) if o[0] < T.NO_FACE]
    keep = [i for i, o in enumerate(opinions) if o[0] < T.FACE_DOUBTED]
    spots, opinions = [spots[i] for i in keep], opinions[keep]
    # The spots read are mostly the frame's dice: their usual side bounds a die looked at whole.
    usual = float(np.median([s.side for s in spots])) if len(spots) >= 2 else None
    wholes = [(t, doubt) for tries, doubt in _wholes(parts, faced, usual) if (t := _agree(tries, sizes))]
    # All groups' tries looked at in one batch: each group is weighed on its own.
    seen = verify.opinions(image, [(s.x, s.y, s.side) for tries, _ in wholes for s in tries], models.verifier)
    at = 0
    for tries, doubt in wholes:
        mine, at = seen[at : at + len(tries)], at + len(tries)
        best = int(np.argmin(mine[:, 0]))
        if mine[best, 0] < doubt:
            spots.append(tries[best])
            opinions = np.concatenate([opinions, mine[best : best + 1]])
    return image, spots, opinions


def _agree(spots: list[finder.Spot], sizes: DieSizes | None) -> list[finder.Spot]:
    """Those of ``spots`` of the size a die shows where it lies (all, with no sizes known)."""
    return spots if sizes is None else [s for s in spots if sizes.agrees(s.x, s.y, s.side)]


def _faces(image: Halvings, spots: list[finder.Spot], opinions: np.ndarray) -> list[face.FaceReading | None]:
    """Each spot's face read, the verifier's opinion of it attached."""
    if not spots:
        return []
    readings = face.read_faces(image, [(s.x, s.y, s.side) for s in spots], list(opinions))
    for reading, opinion in zip(readings, opinions, strict=True):
        if reading is not None:
            reading.opinion = opinion
    return readings


Graded = tuple[finder.Spot, face.FaceReading, confidence.Grade]


def _graded(
    image: Halvings, spots: list[finder.Spot], opinions: np.ndarray, which: list[int], models: Models
) -> dict[int, Graded | None]:
    """Spots ``which`` read and graded, by index: None for one with no face read or
    unlikely to be a die."""
    out: dict[int, Graded | None] = dict.fromkeys(which)
    for i, reading in zip(which, _faces(image, [spots[i] for i in which], opinions[which]), strict=True):
        if reading is not None:
            grade = confidence.grade(spots[i], reading, models.confidence)
            if grade.die >= T.DIE_MIN:
                out[i] = (spots[i], reading, grade)
    return out


def _inner_only(spots: list[finder.Spot]) -> set[int]:
    """The spots inside a larger one (``_inside``) with none inside themselves."""
    holds = [[j for j, s in enumerate(spots) if _inside(s, big)] for big in spots]
    return {j for inner in holds for j in inner if not holds[j]}


def _needed(later: set[int], spots: list[finder.Spot], graded: dict[int, Graded | None]) -> list[int]:
    """Of ``later`` (unread, none with a spot inside), those ``_one_per_die`` could keep or
    decide by: all but the ones a read larger die surely drops as its pips, whichever of
    the unread are dice, no larger die's choice hanging on them."""
    read = [g for g in graded.values() if g is not None]
    sure, open_ = set(), set()
    for big, reading, grade in read:
        unknown = [j for j in later if _inside(spots[j], big)]
        if not unknown:
            continue
        known = [s for s, *_ in read if _inside(s, big)]
        # The more spots inside, the less can they all be its pips: held with every unread one, it holds.
        if _holds_its_inner(big, reading, known + [spots[j] for j in unknown]):
            sure.update(unknown)
        elif _holds_its_inner(big, reading, known) or grade.right >= T.WHOLE_SURE:
            # Or, read surely right, it holds them if none is read sure (``_surely_whole``).
            open_.update(unknown)
    return sorted(j for j in later if j not in sure or j in open_)


def _wholes(
    parts: list[finder.Spot], faced: list[finder.Spot], usual: float | None = None
) -> list[tuple[list[finder.Spot], float]]:
    """Where the finder marks a die's pips or halves as dice of their own (a 6's two
    columns or a 1's pip at 30 px, a 2's pips at 60 px), none with a face: the square
    that holds a group of such neighbours, of like size, or a lone one's die around it
    (tried at each size of ``T.WHOLE_ONE``), is looked at as one die, unless a spot with
    a face is there already.
    Each group's tries come with the most the verifier may doubt that one shows a face.
    ``usual``: the side of the frame's dice, where known; a try far larger is no die of theirs."""
    groups: list[list[finder.Spot]] = []
    for s in parts:
        near = [
            g
            for g in groups
            if any(
                math.hypot(s.x - o.x, s.y - o.y) < T.WHOLE_REACH * max(s.side, o.side)
                and max(s.side, o.side) < T.WHOLE_LIKE * min(s.side, o.side)
                for o in g
            )
        ]
        merged = [s] + [o for g in near for o in g]
        groups = [g for g in groups if not any(g is n for n in near)] + [merged]
    wholes = []
    for g in groups:
        score = max(s.score for s in g)
        if len(g) == 1:
            (one,) = g
            tries = [finder.Spot(one.x, one.y, k * one.side, score) for k in T.WHOLE_ONE]
            doubt = T.WHOLE_ONE_DOUBT
        else:
            x0 = min(s.x - s.side / 2 for s in g)
            x1 = max(s.x + s.side / 2 for s in g)
            y0 = min(s.y - s.side / 2 for s in g)
            y1 = max(s.y + s.side / 2 for s in g)
            side = T.WHOLE_GROW * max(x1 - x0, y1 - y0)
            if side > T.WHOLE_MOST * max(s.side for s in g):
                continue  # a row of spots along print or a crack, not one die's parts
            tries, doubt = [finder.Spot((x0 + x1) / 2, (y0 + y1) / 2, side, score)], T.NO_FACE
        tries = [t for t in tries if not any(_overlap(t, f) for f in faced)]
        if usual is not None:
            tries = [t for t in tries if t.side <= T.WHOLE_USUAL * usual]
        if tries:
            wholes.append((tries, doubt))
    return wholes


def _overlap(a: finder.Spot, b: finder.Spot) -> bool:
    """Whether the squares of two spots share any area."""
    return abs(a.x - b.x) < (a.side + b.side) / 2 and abs(a.y - b.y) < (a.side + b.side) / 2


def _inside(s: finder.Spot, big: finder.Spot) -> bool:
    """Whether spot ``s`` is much smaller than ``big`` and centred within its square."""
    return s.side < big.side * T.INNER and abs(s.x - big.x) < big.side / 2 and abs(s.y - big.y) < big.side / 2


def _holds_its_inner(big: finder.Spot, reading: face.FaceReading, inner: list[finder.Spot]) -> bool:
    """Whether the spots ``inner`` (inside ``big``) are its pips rather than ``big`` a cluster of them."""
    on_pips = all(
        s.side < T.PIP_SPOT * big.side
        and np.min(np.abs(reading.pips - complex(s.x, s.y))) < T.PIP_MATCH * big.side
        for s in inner
    )
    # Or pip-sized, no more than a face has, and the large spot the surer of being a die.
    pip_like = (
        len(inner) <= 6
        and all(s.side <= T.PIP_SIZE * big.side for s in inner)
        and big.score >= max((s.score for s in inner), default=0.0)
    )
    return on_pips or pip_like


def _one_per_die(read: list) -> list:
    """Drop a large spot's own pips taken for dice, or a large spot that is a cluster
    of dice (``read``: tuples of the spot, its reading and, once graded, its grade)."""
    drop: set[int] = set()
    for i, (big, reading, *_) in enumerate(read):
        inner = [j for j, (s, *_) in enumerate(read) if _inside(s, big)]
        if inner:
            holds = _holds_its_inner(big, reading, [read[j][0] for j in inner])
            drop.update(inner if holds or _surely_whole(read[i], [read[j] for j in inner]) else [i])
    return [r for i, r in enumerate(read) if i not in drop]


def _surely_whole(big: tuple, inner: list[tuple]) -> bool:
    """Whether a large spot read surely right (``T.WHOLE_SURE``) is one die whatever
    spots lie inside it: none of them read sure, they are its half or its pips read as
    a die (dice lying together read sure on their own)."""
    graded = len(big) > 2  # ``readings`` asks before any grade is known
    return graded and big[2].right >= T.WHOLE_SURE and all(t[2].right < SURE for t in inner)
