"""Fitting groups of candidate pips to the pip layouts of a die face.

The pip-first reader (``vision.reader``) links candidate pips into groups, one
group a face as far as it can tell; ``best_subsets`` then finds, in each
group, the pips that best fit one of the layouts of 2 to 6 pips. A layout is
recognised by the shape of its pips' pairwise distances (scaled by the
longest, so that neither size nor turn matters), and a few strays (a side
face's pips, a neighbour's) may be left out at a cost. How well the shape
fits is the reading's confidence before the reader checks the face around it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from vision import pipfind, pixels

# Pip layouts on a die face, pip offsets in units of the grid step.
PIP_GRID = {
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _signature(points: np.ndarray) -> np.ndarray:
    d = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))
    iu = np.triu_indices(len(points), 1)
    v = np.sort(d[iu])
    return v / v[-1]


_TRIU = {n: np.triu_indices(n, 1) for n in range(2, 7)}
_SIGNATURES = {n: _signature(np.array(p, dtype=float)) for n, p in PIP_GRID.items() if n > 2}


# Tunables
FACE_SPAN_RATIO = 0.56  # diagonal of the pip grid over the side of the face
SPAN_RADII = (4.3, 10.5)  # diagonal of a face's pip grid, in pip radii
# Worst pairwise-distance error of a layout fit that would give confidence 0;
# half of it gives 0.5. Threes are strict: stray blobs often fall in a line.
FIT_ERROR_SCALE = {2: 0.4, 3: 0.16, 4: 0.44, 5: 0.3, 6: 0.44}
WHOLE_GROUP_CONFIDENCE = 0.6  # a group fitting this well is not searched for strays
STRAY_SPANS = 0.6  # a pip left out must lie this far from the face centre (in pip spans)
TWO_RADIUS_RATIO = 1.3  # the two pips of a 2 agree in size within this factor
MAX_DROPPED = 2  # stray pips a group may lose to fit a layout
# ... and a 6 one more: the row of three pips a die's side shows beside its
# top face (a white 6 near the frame's edge on byler-d6/train). It read one
# more train photo right, and one more of them mirrored (image accuracy 0.820
# -> 0.825 and 0.805 -> 0.810); letting every layout drop three instead lost
# a die in a row against a tray wall and read a half-hidden one surely.
SIX_MAX_DROPPED = 3
DROP_PENALTY = 0.12  # confidence lost per pip left out of a group


def fit_all(dist: np.ndarray, radii: np.ndarray, combos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fit to a layout of many subsets at once: confidence and pip span of each row of ``combos``.

    ``dist`` (..., n, n) and ``radii`` (..., n) may hold a stack of groups of n pips.
    """
    m = combos.shape[1]
    iu = _TRIU[m]
    v = np.sort(dist[..., combos[:, iu[0]], combos[:, iu[1]]], axis=-1)
    span = v[..., -1]
    radius = pixels.median(radii[..., combos], axis=-1)
    ratio = span / radius
    lo, hi = SPAN_RADII
    if m == 2:
        err = np.full(span.shape, 0.1)  # two pips carry no shape to check; the edge test decides
    else:
        err = np.abs(v / span[..., None] - _SIGNATURES[m]).max(axis=-1)
    conf = np.maximum(0.0, 1.0 - err / FIT_ERROR_SCALE[m])
    conf[~((lo <= ratio) & (ratio <= hi))] = 0.0
    return conf, span


# Subsets of a group tried by ``best_subsets``, in ``itertools.combinations`` order.
COMBOS = {
    (n, m): np.array(list(itertools.combinations(range(n), m)), dtype=int).reshape(-1, m)
    for n in range(2, 7 + SIX_MAX_DROPPED)
    for m in range(2, min(n, 6) + 1)
}


# The pips each subset of ``COMBOS`` leaves out, in order.
DROPS = {
    (n, m): np.array([[k for k in range(n) if k not in c] for c in combos], dtype=int).reshape(
        len(combos), n - m
    )
    for (n, m), combos in COMBOS.items()
}


_WIDEST = 6 + SIX_MAX_DROPPED  # most pips in a group that is fitted


def _most_dropped(m: int) -> int:
    """How many strays a layout of ``m`` pips may leave out of its group."""
    return SIX_MAX_DROPPED if m == 6 else MAX_DROPPED


def _padded(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``COMBOS`` and ``DROPS`` of m pips for each group size n (first index), padded
    to the most subsets of any n (repeating the first subset) and to ``SIX_MAX_DROPPED``
    strays (repeating the last); the pairs of each subset as flat indices into an
    ``_WIDEST`` x ``_WIDEST`` matrix; and which subsets are real."""
    most = max(len(COMBOS[n, m]) for n in range(m, m + _most_dropped(m) + 1) if (n, m) in COMBOS)
    combos = np.zeros((_WIDEST + 1, most, m), int)
    drops = np.zeros((_WIDEST + 1, most, SIX_MAX_DROPPED), int)
    real = np.zeros((_WIDEST + 1, most), bool)
    for n in range(m, m + _most_dropped(m) + 1):
        if (n, m) not in COMBOS:
            continue
        c, d = COMBOS[n, m], DROPS[n, m]
        combos[n] = c[0]
        combos[n, : len(c)] = c
        real[n, : len(c)] = True
        if d.shape[1]:
            d = np.concatenate([d, np.repeat(d[:, -1:], SIX_MAX_DROPPED - d.shape[1], axis=1)], axis=1)
            drops[n] = d[0]
            drops[n, : len(c)] = d
    iu = _TRIU[m]
    pairs = combos[:, :, iu[0]] * _WIDEST + combos[:, :, iu[1]]
    return combos, drops, pairs, real


_PADDED = {m: _padded(m) for m in range(2, 7)}


def best_subsets(
    pips: pipfind.Pips, groups: list[list[int]]
) -> list[tuple[list[int], int, float, float] | None]:
    """For each group, the pips that best fit a layout, dropping a few strays.

    Strays are side-face pips. Larger layouts are tried first; a subset scores
    its fit less a penalty per pip left out, the first best score wins, and a
    layout size that gives a score of WHOLE_GROUP_CONFIDENCE ends a group's
    search. Every group is fitted at once, a layout size at a time (subsets
    padded to the most a group size has): on a speckled table a frame has
    dozens of groups of eight sizes, and a pass per group size and layout
    size cost ~25 numpy calls each.
    """
    out: list[tuple[list[int], int, float, float] | None] = [None] * len(groups)
    ks = [k for k, g in enumerate(groups) if 2 <= len(g) <= _WIDEST]
    if not ks:
        return out
    if sum(_SUBSETS[len(groups[k])] for k in ks) <= FEW_SUBSETS:
        # A few small groups (most calls): a pass per layout size costs more
        # than trying each subset in plain Python.
        x, y, r = pips.x.tolist(), pips.y.tolist(), pips.r.tolist()
        for k in ks:
            g = groups[k]
            out[k] = _best_subset(g, [x[i] for i in g], [y[i] for i in g], [r[i] for i in g])
        return out
    sizes = np.array([len(groups[k]) for k in ks])
    # members padded with the group's first pip (padded places are never picked)
    members = np.array([groups[k] + groups[k][:1] * (_WIDEST - len(groups[k])) for k in ks])
    gx, gy, gr = pips.x[members], pips.y[members], pips.r[members]
    dist = np.sqrt((gx[:, :, None] - gx[:, None, :]) ** 2 + (gy[:, :, None] - gy[:, None, :]) ** 2).ravel()
    # (flat, so that one index array picks each subset's pips)
    gx, gy, gr = gx.ravel(), gy.ravel(), gr.ravel()
    best_score = np.zeros(len(ks))
    best_m = np.zeros(len(ks), int)
    best_c = np.zeros(len(ks), int)
    best_span = np.zeros(len(ks))
    lo, hi = SPAN_RADII
    for m in range(6, 1, -1):
        # the groups that try m pips and have not found a whole-group fit yet
        rows = np.flatnonzero(
            (sizes >= m) & (sizes - _most_dropped(m) <= m) & (best_score < WHOLE_GROUP_CONFIDENCE)
        )
        if not len(rows):
            continue
        n = sizes[rows]
        combos, drops, pairs, real = (t[n] for t in _PADDED[m])
        at = rows[:, None, None] * _WIDEST
        combos = combos + at
        # fit_all's fit, each group with its own subsets
        v = np.sort(dist[pairs + at * _WIDEST], axis=-1)
        span = v[..., -1]
        kept_r = gr[combos]
        radius = pixels.median(kept_r, axis=-1)
        ratio = span / radius
        if m == 2:
            err = np.full(span.shape, 0.1)
        else:
            err = np.abs(v / span[..., None] - _SIGNATURES[m]).max(axis=-1)
        conf = np.maximum(0.0, 1.0 - err / FIT_ERROR_SCALE[m])
        conf[~((lo <= ratio) & (ratio <= hi))] = 0.0
        ok = (conf > 0) & real
        if m == 2:
            # The pips of a 2 are twins; a pip and a shadow in a corner are not.
            ok &= ~(kept_r.max(axis=-1) > TWO_RADIUS_RATIO * kept_r.min(axis=-1))
        whole = n == m
        if not whole.all():
            # Strays are smaller (foreshortened side pips) or off the face of the
            # kept ones. (A group with fewer strays than others repeats one; a
            # group with none has no stray to check.)
            drops = drops + at
            dropped_r = gr[drops]
            cx = gx[combos].mean(axis=-1)
            cy = gy[combos].mean(axis=-1)
            off = (
                np.hypot(gx[drops] - cx[..., None], gy[drops] - cy[..., None]) > STRAY_SPANS * span[..., None]
            )
            small = dropped_r < 0.8 * radius[..., None]
            strays = (off | small).all(axis=-1)
            if m == 2:
                strays &= ~(dropped_r.max(axis=-1) > 0.8 * kept_r.min(axis=-1))
            ok &= strays | whole[:, None]
            conf = np.where(whole[:, None], conf, conf - (DROP_PENALTY * (n - m))[:, None])
        score = np.where(ok, conf, -np.inf)
        top = np.argmax(score, axis=1)
        each = np.arange(len(rows))
        top_score = score[each, top]
        better = top_score > best_score[rows]
        won = rows[better]
        best_score[won] = top_score[better]
        best_m[won] = m
        best_c[won] = top[better]
        best_span[won] = span[each, top][better]
    for b in np.nonzero(best_score > 0)[0].tolist():
        m, c = int(best_m[b]), int(best_c[b])
        g = groups[ks[b]]
        kept = [g[k] for k in COMBOS[len(g), m][c].tolist()]
        out[ks[b]] = (kept, m, float(best_score[b]), float(best_span[b]) / FACE_SPAN_RATIO)
    return out


# Up to this many subsets in all, ``best_subsets`` tries the groups one by one
# in plain Python: a few microseconds a subset, against ~0.1 ms a layout size
# stacked in numpy (three quarters of the calls on the bench frames and train
# photos have fewer than 90 subsets; the largest ~550).
FEW_SUBSETS = 300
# subsets tried for a group of n pips
_SUBSETS = {
    n: sum(len(COMBOS[n, m]) for m in range(min(n, 6), 1, -1) if n - m <= _most_dropped(m))
    for n in range(2, _WIDEST + 1)
}
_COMBO_LISTS = {key: c.tolist() for key, c in COMBOS.items()}
_DROP_LISTS = {key: d.tolist() for key, d in DROPS.items()}
_SIGNATURE_LISTS = {m: s.tolist() for m, s in _SIGNATURES.items()}
_PAIR_LISTS = {m: list(zip(*(a.tolist() for a in _TRIU[m]), strict=True)) for m in range(2, 7)}


def _best_subset(
    g: list[int], x: list[float], y: list[float], r: list[float]
) -> tuple[list[int], int, float, float] | None:
    """``best_subsets`` of one group ``g`` (its pips' x, y and radii), in plain Python:
    the same arithmetic, so the same floats."""
    n = len(g)
    dist = [
        [math.sqrt((xa - xb) * (xa - xb) + (ya - yb) * (ya - yb)) for xb, yb in zip(x, y, strict=True)]
        for xa, ya in zip(x, y, strict=True)
    ]
    lo, hi = SPAN_RADII
    best_score, best_m, best_c, best_span = 0.0, 0, 0, 0.0
    for m in range(min(n, 6), 1, -1):
        if n - m > _most_dropped(m):
            break
        top_score, top_c, top_span = -math.inf, 0, 0.0
        sig, pairs, scale, half = _SIGNATURE_LISTS.get(m), _PAIR_LISTS[m], FIT_ERROR_SCALE[m], m // 2
        for c, (combo, drops) in enumerate(zip(_COMBO_LISTS[n, m], _DROP_LISTS[n, m], strict=True)):
            v = sorted([dist[combo[a]][combo[b]] for a, b in pairs])
            span = v[-1]
            kept_r = sorted([r[k] for k in combo])
            radius = kept_r[half] if m % 2 else (kept_r[half - 1] + kept_r[half]) / 2
            ratio = span / radius
            if not (lo <= ratio <= hi):
                continue
            err = 0.1 if m == 2 else max([abs(d / span - s) for d, s in zip(v, sig, strict=True)])
            conf = max(0.0, 1.0 - err / scale)
            if not conf > 0:
                continue
            if m == 2 and kept_r[-1] > TWO_RADIUS_RATIO * kept_r[0]:
                continue
            if drops:
                if m == 2 and max([r[k] for k in drops]) > 0.8 * kept_r[0]:
                    continue
                cx = cy = 0.0
                for k in combo:
                    cx += x[k]
                    cy += y[k]
                cx, cy = cx / m, cy / m
                # (numpy's hypot, as the stacked fit uses)
                far = np.hypot([x[k] - cx for k in drops], [y[k] - cy for k in drops]).tolist()
                if not all(
                    f > STRAY_SPANS * span or r[k] < 0.8 * radius for f, k in zip(far, drops, strict=True)
                ):
                    continue
                conf = conf - DROP_PENALTY * len(drops)
            if conf > top_score:
                top_score, top_c, top_span = conf, c, span
        if top_score > best_score:
            best_score, best_m, best_c, best_span = top_score, m, top_c, top_span
        if best_score >= WHOLE_GROUP_CONFIDENCE:
            break
    if not best_score > 0:
        return None
    kept = [g[k] for k in _COMBO_LISTS[n, best_m][best_c]]
    return kept, best_m, best_score, best_span / FACE_SPAN_RATIO
