"""Dice at rest and a camera on them: the geometry of a rendered scene, and its labels.

Units are millimetres, z is up and the table is z = 0. A die lies flat (a face up, any turn),
touches another, leans against a tray's wall or another die (cocked: no face up, labelled 0
as the project's rendered frames label a die no reading is right for), or lies on another
(the one below then shows no top face either).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from vision.training.die_mesh import NORMALS, DieShape, draw_shape

# A die whose most upward face is turned further than this from straight up shows no top face.
COCKED_DEG = 20.0


@dataclass
class Die:
    shape: DieShape
    size: float  # mm across
    rotation: np.ndarray  # 3x3, die coordinates to world
    position: np.ndarray  # centre, world mm
    how: str = "flat"  # flat, touching, cocked, stacked, under

    def to_world(self, points: np.ndarray) -> np.ndarray:
        """Points given in die coordinates (the die one unit across) in world millimetres."""
        return (np.asarray(points, float) * self.size) @ self.rotation.T + self.position

    def top(self) -> tuple[int, float]:
        """The value of the most upward face and its tilt from straight up, in degrees."""
        up = self.rotation.T @ np.array([0.0, 0.0, 1.0])
        k = int(np.argmax(NORMALS @ up))
        return self.shape.values[k], math.degrees(math.acos(min(1.0, float(NORMALS[k] @ up))))

    @property
    def value(self) -> int:
        """The top-face value, or 0 when no face is up (cocked) or it is covered (under)."""
        value, tilt = self.top()
        return 0 if tilt > COCKED_DEG or self.how == "under" else value

    def footprint(self) -> np.ndarray:
        """The corners of the die's outline seen from above (convex, counter-clockwise)."""
        pts = self.to_world(_CUBE)[:, :2]
        return _hull(pts)


_CUBE = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)], float)


def _hull(points: np.ndarray) -> np.ndarray:
    pts = sorted(map(tuple, np.round(points, 9)))
    if len(pts) <= 2:
        return np.array(pts)

    def half(seq):
        out: list = []
        for p in seq:
            while len(out) >= 2 and _cross(np.subtract(out[-1], out[-2]), np.subtract(p, out[-2])) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(reversed(pts))
    return np.array(lower[:-1] + upper[:-1])


def _cross(a, b) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex outlines overlap (more than touch), by separating axes."""
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        for e in edges:
            n = np.array([-e[1], e[0]])
            pa, pb = a @ n, b @ n
            if pa.max() <= pb.min() + 1e-6 or pb.max() <= pa.min() + 1e-6:
                return False
    return True


def rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def rot_axis(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by ``angle`` about the unit vector ``axis`` (Rodrigues)."""
    x, y, z = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def face_up(face: int, yaw: float) -> np.ndarray:
    """The rotation that turns face ``face`` of the die straight up, then by ``yaw`` about z."""
    n = NORMALS[face]
    up = np.array([0.0, 0.0, 1.0])
    if n @ up > 0.999:
        r = np.eye(3)
    elif n @ up < -0.999:
        r = rot_axis(np.array([1.0, 0, 0]), math.pi)
    else:
        axis = np.cross(n, up)
        r = rot_axis(axis, math.acos(float(n @ up)))
    return rot_z(yaw) @ r


@dataclass
class Tray:
    """A tray's inside, centred on the origin: half-width, half-depth and wall height (mm)."""

    half_x: float
    half_y: float
    wall: float
    thickness: float = 6.0


@dataclass
class Layout:
    dice: list[Die]
    tray: Tray | None
    radius: float  # the dice lie within this distance of the origin
    extras: dict = field(default_factory=dict)


def _settle(die: Die) -> None:
    """Lower or raise a die so its lowest corner rests on the table."""
    die.position[2] -= die.to_world(_CUBE)[:, 2].min()


def _free(die: Die, others: list[Die], tray: Tray | None) -> bool:
    fp = die.footprint()
    if tray is not None and (np.abs(fp[:, 0]).max() > tray.half_x or np.abs(fp[:, 1]).max() > tray.half_y):
        return False
    return not any(overlap(fp, o.footprint()) for o in others)


def _touch(die: Die, other: Die, direction: np.ndarray, others: list[Die], tray: Tray | None) -> bool:
    """Slide ``die`` from far along ``direction`` towards ``other`` until it touches something."""
    far, near = (die.size + other.size) * 1.2, 0.0
    start = other.position[:2].copy()
    die.position[:2] = start + direction * far
    if not _free(die, others, tray):
        return False
    for _ in range(30):
        mid = (far + near) / 2
        die.position[:2] = start + direction * mid
        if _free(die, others, tray):
            far = mid
        else:
            near = mid
    die.position[:2] = start + direction * (far + 0.02)
    return True


def _lean(die: Die, normal: np.ndarray, plane: float, height: float, tilt: float, yaw_face: float) -> None:
    """Put ``die`` against a vertical face (outward ``normal`` in xy, at distance ``plane`` from
    the origin along it, ``height`` tall), tilted by ``tilt`` radians, its bottom on the table."""
    axis = np.array([-normal[1], normal[0], 0.0])
    die.rotation = rot_axis(axis, -tilt) @ rot_z(yaw_face) @ die.rotation
    die.position = np.zeros(3)
    _settle(die)
    pts = die.to_world(_CUBE)
    nd = np.array([normal[0], normal[1], 0.0])
    # Against the face below its top edge; above it the die leans on the edge instead.
    low = pts[pts[:, 2] <= height]
    reach = (low @ nd).min() if len(low) else (pts @ nd).min()
    die.position[:2] += nd[:2] * (plane - reach + 0.05)


def sample_layout(rng: np.random.Generator, count: int, radius: float, size_range=(12.0, 22.0)) -> Layout:
    """``count`` dice (fewer if they do not fit) at rest within ``radius`` mm of the origin."""
    one_size = rng.random() < 0.6
    common = float(rng.uniform(*size_range))
    sizes = [common if one_size else float(rng.uniform(*size_range)) for _ in range(count)]
    tray = None
    if rng.random() < 0.35:
        big = max(sizes)
        tray = Tray(
            half_x=max(radius * rng.uniform(0.8, 1.1), 1.6 * big),
            half_y=max(radius * rng.uniform(0.7, 1.0), 1.6 * big),
            wall=float(rng.uniform(0.9, 2.0) * big),
        )
    dice: list[Die] = []
    for size in sizes:
        die = Die(draw_shape(rng), size, np.eye(3), np.zeros(3))
        roll = rng.random()
        placed = False
        for _ in range(40):
            die.rotation = face_up(int(rng.integers(0, 6)), float(rng.uniform(0, 2 * math.pi)))
            die.position = np.zeros(3)
            die.how = "flat"
            if dice and roll < 0.3:  # touching another
                other = dice[int(rng.integers(0, len(dice)))]
                if other.how in ("flat", "touching"):
                    angle = rng.uniform(0, 2 * math.pi)
                    _settle(die)
                    placed = _touch(die, other, np.array([math.cos(angle), math.sin(angle)]), dice, tray)
                    die.how = "touching"
            elif roll < 0.42:  # cocked against a wall of the tray, or against another die
                tilt = math.radians(rng.uniform(COCKED_DEG + 5, 42))
                # Upright with its edges along the x and y axes, so it can lean on an edge.
                die.rotation = face_up(int(rng.integers(0, 6)), 0.0)
                if tray is not None and rng.random() < 0.7:
                    k = int(rng.integers(0, 4))
                    normal = np.array([(1, 0), (-1, 0), (0, 1), (0, -1)][k], float)
                    half = tray.half_x if k < 2 else tray.half_y
                    along = rng.uniform(-0.6, 0.6) * (tray.half_y if k < 2 else tray.half_x)
                    # The wall faces inward: the die stands on its inner side.
                    _lean(die, -normal, -half, tray.wall, tilt, float(rng.choice([0, math.pi / 2])))
                    die.position[:2] += np.array([-normal[1], normal[0]]) * along
                elif dice:
                    other = dice[int(rng.integers(0, len(dice)))]
                    if other.how not in ("flat", "touching"):
                        continue
                    yaw = math.atan2(other.rotation[1, 0], other.rotation[0, 0])
                    side = yaw + rng.integers(0, 4) * math.pi / 2
                    normal = np.array([math.cos(side), math.sin(side)])
                    plane = float(other.position[:2] @ normal + other.size / 2)
                    _lean(die, normal, plane, other.size, tilt, side)
                    # Beside the die it leans on, not only level with its face.
                    across = np.array([-normal[1], normal[0]])
                    shift = float((other.position[:2] - die.position[:2]) @ across)
                    shift += rng.uniform(-0.3, 0.3) * min(other.size, die.size)
                    die.position[:2] += across * shift
                else:
                    continue
                die.how = "cocked"
                placed = _free_except(die, dice, tray)
            elif dice and roll < 0.5:  # on top of another
                other = dice[int(rng.integers(0, len(dice)))]
                if other.how not in ("flat", "touching") or any(d.how == "stacked" for d in dice):
                    continue
                die.position = other.position + np.array(
                    [*rng.uniform(-0.2, 0.2, 2) * other.size, (other.size + die.size) / 2 + 0.05]
                )
                other.how, die.how = "under", "stacked"
                placed = True
            else:
                r = radius * math.sqrt(rng.random())
                angle = rng.uniform(0, 2 * math.pi)
                die.position[:2] = (r * math.cos(angle), r * math.sin(angle))
                _settle(die)
                placed = _free(die, dice, tray)
            if placed and (tray is not None or np.hypot(*die.position[:2]) <= radius + die.size):
                break
            placed = False
        if not placed and not dice:  # the first die always finds room, flat at the centre
            die.rotation, die.position, die.how = face_up(int(rng.integers(0, 6)), 0.0), np.zeros(3), "flat"
            _settle(die)
            placed = True
        if placed:
            dice.append(die)
    return Layout(dice, tray, radius)


def _free_except(die: Die, others: list[Die], tray: Tray | None) -> bool:
    """A leaning die's outline may reach over the die it leans on, not into any other."""
    fp = die.footprint()
    if tray is not None:
        inside = np.abs(fp[:, 0]).max() <= tray.half_x + 0.1 and np.abs(fp[:, 1]).max() <= tray.half_y + 0.1
        if not inside:
            return False
    hits = [o for o in others if overlap(fp, o.footprint())]
    return len(hits) <= 1 and all(_below(die, o) for o in hits)


def _below(die: Die, other: Die) -> bool:
    """Whether ``die`` stays clear of ``other``'s body where their outlines overlap: every corner
    of ``die`` over ``other`` is above its top."""
    pts = die.to_world(_CUBE)
    fp = other.footprint()
    over = [p for p in pts if _inside(p[:2], fp)]
    top = other.position[2] + other.size / 2
    return all(p[2] >= top - 0.5 for p in over)


def _inside(p: np.ndarray, poly: np.ndarray) -> bool:
    edges = np.roll(poly, -1, axis=0) - poly
    rel = p - poly
    return bool(np.all(edges[:, 0] * rel[:, 1] - edges[:, 1] * rel[:, 0] > -1e-9))


@dataclass
class Camera:
    """A pinhole camera: look-at frame, horizontal field of view, frame size in pixels."""

    origin: np.ndarray
    target: np.ndarray
    fov_x: float  # degrees
    width: int
    height: int
    up: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))

    @property
    def focal(self) -> float:
        return (self.width / 2) / math.tan(math.radians(self.fov_x) / 2)

    def frame(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(left, up, forward) unit vectors, as Mitsuba's look-at makes them."""
        fwd = self.target - self.origin
        fwd = fwd / np.linalg.norm(fwd)
        left = np.cross(self.up, fwd)
        left /= np.linalg.norm(left)
        return left, np.cross(fwd, left), fwd

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points as (x, y) pixel positions (x right, y down, the frame's corner at 0, 0)."""
        left, up, fwd = self.frame()
        rel = np.asarray(points, float) - self.origin
        z = rel @ fwd
        f = self.focal
        return np.stack([self.width / 2 - f * (rel @ left) / z, self.height / 2 - f * (rel @ up) / z], axis=1)


def sample_camera(
    rng: np.random.Generator, width: int, height: int, die_px: float, die_mm: float, centre: np.ndarray
) -> Camera:
    """A camera looking at ``centre`` from overhead to 50 degrees of slant, any lens from wide to
    normal, so far that a die of ``die_mm`` is about ``die_px`` pixels across."""
    fov = float(rng.uniform(38, 85))
    slant = math.radians(rng.uniform(0, 50) if rng.random() < 0.8 else rng.uniform(0, 10))
    azimuth = rng.uniform(0, 2 * math.pi)
    f = (width / 2) / math.tan(math.radians(fov) / 2)
    dist = f * die_mm / die_px
    direction = np.array(
        [math.sin(slant) * math.cos(azimuth), math.sin(slant) * math.sin(azimuth), math.cos(slant)]
    )
    target = np.array(centre, float)
    # Straight down, "up" must not be the view direction: the frame's top then points any way.
    up_angle = rng.uniform(0, 2 * math.pi)
    up = (
        np.array([0.0, 0.0, 1.0])
        if slant > math.radians(3)
        else np.array([math.cos(up_angle), math.sin(up_angle), 0])
    )
    return Camera(target + dist * direction, target, fov, width, height, up)


def fit_camera(camera: Camera, points: np.ndarray, margin: float = 4.0) -> Camera:
    """``camera`` moved back along its view until every point is ``margin`` px inside the frame."""
    for _ in range(60):
        xy = camera.project(points)
        inside = (
            (xy[:, 0] >= margin).all()
            and (xy[:, 0] <= camera.width - margin).all()
            and (xy[:, 1] >= margin).all()
            and (xy[:, 1] <= camera.height - margin).all()
        )
        if inside:
            break
        camera.origin = camera.target + (camera.origin - camera.target) * 1.1
    return camera
