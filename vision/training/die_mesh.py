"""A six-sided die as a triangle mesh: a rounded cube with its pips drilled as spherical cavities.

The die is one unit across, centred on the origin; a scene scales and turns it. Opposite faces
sum to seven, and the three faces round a corner run either way (both kinds are sold). The
layouts of 2, 3 and 6 have no fixed turn on a real die, so each is drawn either way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# The six faces as (outward normal, u axis, v axis); v = normal x u, so every face is seen
# the same way from outside.
FACES = (
    ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    ((-1, 0, 0), (0, 0, 1), (0, 1, 0)),
    ((0, 1, 0), (0, 0, 1), (1, 0, 0)),
    ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    ((0, 0, -1), (0, 1, 0), (1, 0, 0)),
)
NORMALS = np.array([f[0] for f in FACES], float)


def pip_layout(value: int, offset: float, turned: bool) -> np.ndarray:
    """The pip centres of ``value`` in face coordinates (u, v), the face one unit across."""
    a = offset
    layouts = {
        1: [(0, 0)],
        2: [(-a, -a), (a, a)],
        3: [(-a, -a), (0, 0), (a, a)],
        4: [(-a, -a), (-a, a), (a, -a), (a, a)],
        5: [(-a, -a), (-a, a), (0, 0), (a, -a), (a, a)],
        6: [(-a, -a), (-a, 0), (-a, a), (a, -a), (a, 0), (a, a)],
    }
    pips = np.array(layouts[value], float)
    if turned and value in (2, 3, 6):  # a quarter turn: the other diagonal, or rows for columns
        pips = np.stack([-pips[:, 1], pips[:, 0]], axis=1)
    return pips


@dataclass(frozen=True)
class DieShape:
    """What makes one die differ from another in shape."""

    values: tuple[int, ...]  # the value on each of FACES, opposite faces summing to 7
    rounding: float = 0.09  # radius of the edges and corners, in die widths
    pip_radius: float = 0.085
    one_radius: float = 0.11  # a 1's pip is often larger
    pip_depth: float = 0.45  # cavity depth as a share of the pip radius
    pip_offset: float = 0.26  # distance of the corner pips from the face centre, per axis
    turned: tuple[bool, ...] = (False,) * 6


def draw_shape(rng: np.random.Generator) -> DieShape:
    """A die of any make: either handedness, any rounding, pips of any size and depth."""
    # 1, 2 and 3 on +x, +y, +z in any order: both handednesses; their opposites make 7.
    first = rng.permutation([1, 2, 3])
    values = (first[0], 7 - first[0], first[1], 7 - first[1], first[2], 7 - first[2])
    rounding = float(rng.uniform(0.04, 0.13))
    pip_radius = float(rng.uniform(0.065, 0.095))
    offset = float(rng.uniform(0.23, 0.27))
    # The outermost pip stays on the flat part of the face.
    offset = min(offset, 0.5 - rounding - pip_radius - 0.015)
    return DieShape(
        values=tuple(int(v) for v in values),
        rounding=rounding,
        pip_radius=pip_radius,
        one_radius=float(pip_radius * rng.uniform(1.0, 1.6)),
        pip_depth=float(rng.uniform(0.3, 0.6)),
        pip_offset=offset,
        turned=tuple(bool(t) for t in rng.random(6) < 0.5),
    )


@dataclass
class DieMesh:
    """Vertices, normals and triangles of a die; ``pip_faces`` are the triangles inside pips."""

    vertices: np.ndarray  # (n, 3) float
    normals: np.ndarray  # (n, 3) float, unit, outward
    body_faces: np.ndarray  # (m, 3) int
    pip_faces: np.ndarray  # (k, 3) int
    pip_centres: list[np.ndarray]  # per face of FACES, the pips' centres on the face (3D)
    shape: DieShape

    def value_on(self, normal: np.ndarray) -> int:
        """The value of the face whose outward normal is nearest ``normal`` (in die coordinates)."""
        return self.shape.values[int(np.argmax(NORMALS @ np.asarray(normal, float)))]


def build(shape: DieShape, cells: int = 72) -> DieMesh:
    """The mesh of ``shape``, each face a grid of ``cells`` x ``cells`` before the pips are drilled."""
    r = shape.rounding
    inner = 0.5 - r
    cell = 1.0 / cells
    grid = np.linspace(-0.5, 0.5, cells + 1)
    gu, gv = np.meshgrid(grid, grid, indexing="ij")
    verts, norms, body, pips, centres = [], [], [], [], []
    base = 0
    for k, (n, u_axis, v_axis) in enumerate(FACES):
        n, ua, va = (np.array(x, float) for x in (n, u_axis, v_axis))
        value = shape.values[k]
        radius = shape.one_radius if value == 1 else shape.pip_radius
        layout = pip_layout(value, shape.pip_offset, shape.turned[k])
        u, v = gu.ravel().copy(), gv.ravel().copy()
        # Points near a pip's rim move onto it, so the cavity's edge is a clean circle.
        for cu, cv in layout:
            du, dv = u - cu, v - cv
            d = np.hypot(du, dv)
            near = (np.abs(d - radius) < 0.6 * cell) & (d > 0)
            u[near] = cu + du[near] / d[near] * radius
            v[near] = cv + dv[near] / d[near] * radius
        p = 0.5 * n + u[:, None] * ua + v[:, None] * va
        q = np.clip(p, -inner, inner)
        offset = p - q
        normal = offset / np.linalg.norm(offset, axis=1, keepdims=True)
        p = q + r * normal
        inside = np.zeros(len(u), bool)
        depth = shape.pip_depth * radius
        sphere = (radius**2 + depth**2) / (2 * depth)
        for cu, cv in layout:
            d = np.hypot(u - cu, v - cv)
            cavity = d < radius - 1e-9
            rim = d <= radius + 1e-9
            inside |= rim
            centre = 0.5 * n + cu * ua + cv * va
            sink = np.sqrt(np.maximum(sphere**2 - d[cavity] ** 2, 0.0)) - (sphere - depth)
            p[cavity] -= sink[:, None] * n
            ball = centre + (sphere - depth) * n
            normal[cavity] = ball - p[cavity]
            normal[cavity] /= np.linalg.norm(normal[cavity], axis=1, keepdims=True)
        centres.append(np.array([0.5 * n + cu * ua + cv * va for cu, cv in layout]))
        idx = np.arange((cells + 1) ** 2).reshape(cells + 1, cells + 1)
        a, b = idx[:-1, :-1].ravel(), idx[1:, :-1].ravel()
        c, d = idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()
        tris = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
        in_pip = inside[tris].all(axis=1)
        body.append(tris[~in_pip] + base)
        pips.append(tris[in_pip] + base)
        verts.append(p)
        norms.append(normal)
        base += len(p)
    vertices = np.concatenate(verts)
    faces_body, faces_pip = np.concatenate(body), np.concatenate(pips)
    # Wind every triangle so its geometric normal points outward.
    for faces in (faces_body, faces_pip):
        tri = vertices[faces]
        geo = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        outward = np.concatenate(norms)[faces].sum(axis=1)
        flip = (geo * outward).sum(axis=1) < 0
        faces[flip] = faces[flip][:, ::-1]
    return DieMesh(vertices, np.concatenate(norms), faces_body, faces_pip, centres, shape)


def corners(size: float = 1.0) -> np.ndarray:
    """The 8 corners of the die's bounding cube, ``size`` across."""
    s = size / 2
    return np.array([(x, y, z) for x in (-s, s) for y in (-s, s) for z in (-s, s)], float)
