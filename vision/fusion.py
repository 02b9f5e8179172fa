"""Combine the pip-first reader (``vision.reader``) and the body-first reader (``vision.faces``).

The two readers miss different dice: on byler-d6/train the pip-first reader
misses 259 of 1487 dice, 194 of which the body-first reader finds, and the
body-first reader misses 216 (white dice on the white board, touching
clusters, dice against the tray wall), 151 of which the pip-first reader
finds. Fusion is therefore the union of the detections, with a vote on the
value where both found a die and read it differently.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from vision import SURE, body, pixels, verify
from vision.die import Die

if TYPE_CHECKING:
    import numpy as np

# Two readings are one die when their centres are closer than this share of
# the larger box side. The larger, because the pip-first box of a "1" spans
# only its pip and can be half the die; with the smaller side such readings
# stayed apart and the die was counted twice.
MATCH_FRAC = 0.6
# Only a pip-first "1" needs that reach: its box is one pip, often a corner pip
# of a 2 or 3 (right pairs on train: up to 0.39). Other pip-first boxes cover
# the die, and a reading farther than PAIR_FRAC from a body-first one was its
# touching neighbour's: on train right pairs of such readings lay at most 0.35
# apart, while 4 pairs of two neighbouring dice lay 0.42-0.55 apart and each
# counted two dice as one (die accuracy 0.956 -> 0.958, even/odd halves
# 0.957 -> 0.962 and 0.954 -> 0.955; the same for any limit from 0.36 to 0.4).
# Pairs are taken best first by distance over reach, so a stray "1" nearer in
# those terms than a neighbour's reading gets the body-first reading.
PAIR_FRAC = 0.4

# Vote on the value of a die the readers read differently. Each reading votes
# with WEIGHT[reader] * ((1 - CONF_MIX) * RELIABILITY[reader][value] +
# CONF_MIX * confidence); the value with the most votes wins. All of these were
# fitted on the byler-d6 TRAIN split (never on test); a 2-fold check within
# train moved die accuracy on the held-out half by at most 0.05.
# RELIABILITY[reader][v]: share of that reader's "v" readings that were right
# among the dice both readers found. It says, for instance, that a pip-first
# "1" is often a stray blob while a pip-first "6" is nearly always right.
RELIABILITY: dict[str, dict[int, float]] = {
    "pip": {1: 0.786, 2: 0.93, 3: 0.955, 4: 0.855, 5: 0.955, 6: 0.97},
    "body": {1: 0.799, 2: 0.838, 3: 0.916, 4: 0.892, 5: 0.918, 6: 0.912},
}
# The body-first reader wins ties: it was right in 74 of 149 disagreements,
# the pip-first reader in 58.
WEIGHT: dict[str, float] = {"pip": 1.0, "body": 1.25}
CONF_MIX = 0.25
UNKNOWN_RELIABILITY = 0.5  # a value a reader never produced on train
# The readers mostly err by losing pips, so a sure pip-first reading of more
# pips beats the vote: on train it was right in 40 of 53 such cases (13 of 15
# from confidence 0.8), the body-first reading in 7. The vote got fewer of
# them right between confidences 0.5 and 0.8.
PIP_MORE_CONFIDENCE = 0.5
PIP_MORE_RIGHT = 0.75
# ... but one pip more is the pip-first reader's own common error (a side
# face's pip, a glint): on train, of its readings one pip above a body-first
# reading with confidence 0.5-0.8, 1 was right and 7 wrong. Those go to the
# vote (train die accuracy 0.894 -> 0.899; 2-fold halves 0.904 -> 0.907 and
# 0.885 -> 0.892, the same for any limit from 0.77 to 0.9).
PIP_MORE_GAP = 2  # pips more from which PIP_MORE_CONFIDENCE suffices
PIP_ONE_MORE_CONFIDENCE = 0.8
# The vote's raw confidence (winner's share x its best confidence) undersells
# it; this maps it to the share of train disagreements the vote got right:
# (raw below, share right). Below 0.3 the vote is a guess (22 of 54 right).
VOTE_CALIBRATION = ((0.3, 0.41), (0.5, 0.76), (math.inf, 0.95))

# Pips are lost far more often than made up, so an unsure reading of 5 or 6
# pips with a body behind it is rarely wrong: on train 17 of 19 such dice
# (body-first only or both readers) were right, while unsure readings of 1-4
# were right in about 4 of 10. They count as sure at that share (train die
# accuracy 0.899 -> 0.910, precision unchanged at 0.995; 2-fold halves
# 0.907 -> 0.918 and 0.892 -> 0.903; from 4 pips: 0.911, from 6 only: 0.907).
# Pip-first-only unsure 5s and 6s were wrong (3 of 3) and stay unsure.
MANY_PIPS = 5
MANY_PIPS_RIGHT = 0.85


# A die both readers left unsure (dark marbled bodies with dark or red pips)
# is read once more by the pip-first reader on an enlarged crop: there its
# small pips stand clear of the marbling. On train that reading, when it was
# sure and agreed with one of the first two, was right in 14 of 19 dice; alone
# it was right in about half, so agreement is required.
REREAD_UPSCALE = 2.0
REREAD_WINDOW = 2.0  # crop side, in die sides
REREAD_REACH = 0.4  # the re-read die's centre lies this close (in die sides)
REREAD_MIN = 0.5  # confidence the re-read itself needs
REREAD_RIGHT = 0.7  # share of agreeing re-reads that were right on train


# A pip-first die only that reader found, with a box side more than SCALE_MAX
# times the frame's median die side, is dropped. On train such dice were 2
# phantoms ("1"s 2.9 and 3.2 times the median, at image corners) and no real
# die: real pip-first-only dice reached 1.7 times the median, misread ones 1.9.
SCALE_MAX = 2.4
SCALE_MIN_DICE = 3  # sure dice in the frame (the suspect one included) for a median side

# A sure die the body-first reader found, read below OUTLINE_BELOW, must show
# some outline all round (vision.body.has_outline): the letters and shapes of
# rendered printed boards it read as dice showed none (9 of the 33 confident
# phantoms of tests/test_vision_empty.py it found, 36 of 179 on seeds 3-20).
# Right dice are mostly read at 0.9 or more (1000 of 1342 on train), which
# spares their cost; sure 1s are checked however sure (see
# vision.body.ONE_OUTLINE).
OUTLINE_BELOW = 0.9

# Dice are read from about 25 to 250 px across (see DESIGN.md), a box at most
# 1.42 times that when the die is turned: 0.74 of a 640x480 frame's height.
# A die whose box spans more of the frame's shorter side is the table's own
# pattern read at the scale of the whole frame: on the rendered play mats of
# tests/test_vision_empty.py the only two confident phantoms were such 6s
# (boxes 1.0 and 1.09 of that side). Fused train readings span at most 0.1.
FRAME_MAX = 0.75


def _centre(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2.0, (box[1] + box[3]) / 2.0


def pair(pip_dice: list[Die], body_dice: list[Die], frac: float = MATCH_FRAC) -> list[tuple[int, int]]:
    """Index pairs (pip, body) of readings of one die, closest (for their reach) first."""
    candidates = []
    for i, p in enumerate(pip_dice):
        (px, py), ps = _centre(p.box), pixels.box_side(p.box)
        reach = frac if p.value == 1 else min(frac, PAIR_FRAC)
        for j, b in enumerate(body_dice):
            (bx, by), bs = _centre(b.box), pixels.box_side(b.box)
            dist = math.hypot(px - bx, py - by) / max(ps, bs)
            if dist < reach:
                candidates.append((dist / reach, i, j))
    used_p: set[int] = set()
    used_b: set[int] = set()
    pairs = []
    for _, i, j in sorted(candidates):
        if i in used_p or j in used_b:
            continue
        used_p.add(i)
        used_b.add(j)
        pairs.append((i, j))
    return pairs


def vote(readings: list[tuple[str, int, float]]) -> tuple[int, float]:
    """The winning value of ``(reader, value, confidence)`` readings, and its confidence.

    The confidence is the winner's share of the vote times the best confidence
    behind it, so a split vote comes out unsure.
    """
    score: dict[int, float] = {}
    best: dict[int, float] = {}
    for reader, value, conf in readings:
        conf = max(0.0, min(1.0, float(conf)))
        reliability = RELIABILITY[reader].get(value, UNKNOWN_RELIABILITY)
        strength = (1.0 - CONF_MIX) * reliability + CONF_MIX * conf
        score[value] = score.get(value, 0.0) + WEIGHT[reader] * strength
        best[value] = max(best.get(value, 0.0), conf)
    value = max(score, key=lambda v: (score[v], best[v]))
    return value, score[value] / sum(score.values()) * best[value]


def reread(image: np.ndarray, die: Die) -> Die | None:
    """The pip-first reader's sure reading of ``die`` on an enlarged crop, or None."""
    import cv2

    from vision import reader

    (cx, cy), side = _centre(die.box), die.side or pixels.box_side(die.box)
    window, x0, y0 = pixels.crop(image, cx, cy, REREAD_WINDOW * side / 2.0)
    if min(window.shape[:2]) < 4:
        return None
    k = REREAD_UPSCALE
    crop = cv2.resize(window, None, fx=k, fy=k, interpolation=cv2.INTER_CUBIC)
    near = []
    for d in reader.read_dice(crop):
        dx, dy = _centre(d.box)
        off = max(abs(dx / k + x0 - cx), abs(dy / k + y0 - cy))
        if off < REREAD_REACH * side and d.confidence >= REREAD_MIN:
            near.append(d)
    return max(near, key=lambda d: d.confidence) if near else None


def fuse(pip_dice: list[Die], body_dice: list[Die], image: np.ndarray | None = None) -> list[Die]:
    """One list of dice from the two readers' readings of one frame.

    A die only one reader found is kept at its own confidence: on train those
    were real dice (0 phantoms in 199 body-only, 3 in 159 pip-only readings,
    which no confidence floor separated), and a missed die costs as much as a
    misread one. Agreeing readers are taken as independent witnesses, so the
    die's confidence rises. A pip-first-only die far larger than the frame's
    dice is dropped (SCALE_MAX); unsure readings of many pips with a body
    behind them count as sure (MANY_PIPS). Given the frame, a sure die must
    show a die's body (``vision.body``): one only the pip-first reader found
    needs a die's outline all round and, for a 1, a face of one colour around
    its pip; one the body-first reader found needs some outline when read
    below OUTLINE_BELOW or as a 1. A die spanning most of the frame is dropped
    (FRAME_MAX) and unsure dice are read once more (see ``reread``).
    """
    fused: list[Die] = []
    behind: list[set[int]] = []  # values the first readings gave each fused die
    bodied: list[bool] = []  # whether the body-first reader found each fused die
    pairs = pair(pip_dice, body_dice)
    for i, j in pairs:
        p, b = pip_dice[i], body_dice[j]
        # both centres lie on the die; their mean is steadier than either
        box = [(u + w) / 2.0 for u, w in zip(p.box, b.box, strict=True)]
        if p.value == b.value:
            conf = 1.0 - (1.0 - p.confidence) * (1.0 - b.confidence)
            value = p.value
        elif p.value > b.value and p.confidence >= (
            PIP_MORE_CONFIDENCE if p.value - b.value >= PIP_MORE_GAP else PIP_ONE_MORE_CONFIDENCE
        ):
            value, conf = p.value, PIP_MORE_RIGHT
        else:
            value, raw = vote([("pip", p.value, p.confidence), ("body", b.value, b.confidence)])
            conf = next(right for below, right in VOTE_CALIBRATION if raw < below)
        if image is not None and p.value != b.value:  # the readings' own pip grids may overrule the vote
            value, conf = verify.arbitrate(image, p, b, value, conf)
        fused.append(Die(value, box, conf, p.pips, p.pip_radius, b.side or p.side))
        behind.append({p.value, b.value})
        bodied.append(True)
    paired_p = {i for i, _ in pairs}
    paired_b = {j for _, j in pairs}
    lone_pip = [d for i, d in enumerate(pip_dice) if i not in paired_p]
    lone_body = [d for j, d in enumerate(body_dice) if j not in paired_b]
    sides = sorted(pixels.box_side(d.box) for d in fused + lone_body + lone_pip if d.confidence >= SURE)
    if len(sides) >= SCALE_MIN_DICE:
        # all dice of a frame are about one size: a pip-first die far larger
        # than the others is pip-like texture grouped at the wrong scale
        typical = sides[len(sides) // 2]
        lone_pip = [d for d in lone_pip if pixels.box_side(d.box) <= SCALE_MAX * typical]
    bgr = pixels.as_bgr(image, "fuse") if image is not None else None
    if bgr is not None:
        # a sure die that the body-first reader saw no body behind must show a
        # die's outline all round (not crumbs on a table, not letters), and a
        # 1 a die's face around its pip (not the hole of a printed letter)
        lone_pip = [
            d
            for d in lone_pip
            if d.confidence < SURE
            or (body.lone_pip_die_has_outline(bgr, d) and (d.value != 1 or body.lone_one_has_body(bgr, d)))
        ]
    for d in lone_pip + lone_body:
        fused.append(d)
        behind.append({d.value})
        bodied.append(any(d is b for b in lone_body))
    for k, d in enumerate(fused):
        if d.confidence < SURE and bodied[k] and d.value >= MANY_PIPS:
            fused[k] = Die(d.value, d.box, MANY_PIPS_RIGHT, d.pips, d.pip_radius, d.side)
    if image is not None:
        limit = FRAME_MAX * min(image.shape[:2])
        keep = [
            k
            for k, d in enumerate(fused)
            if pixels.box_side(d.box) <= limit
            and (
                not bodied[k]
                or d.confidence < SURE
                or (d.value != 1 and d.confidence >= OUTLINE_BELOW)
                or body.has_outline(bgr, d)
            )
        ]
        fused, behind = [fused[k] for k in keep], [behind[k] for k in keep]
        for k, d in enumerate(fused):
            if d.confidence >= SURE:
                continue
            again = reread(image, d)
            if again is not None and again.value in behind[k]:
                fused[k] = Die(again.value, d.box, REREAD_RIGHT, d.pips, d.pip_radius, d.side)
        fused = verify.check(image, fused)
    return fused
