"""Body-first dice reader: find each die's body by colour, then read the pips on its face.

``read_faces(image) -> list[Die]``. It complements the pip-first reader in
``vision.reader``: it finds dice whose pips that reader cannot group (small,
blurred or low-contrast pips) but misses dice whose body does not stand out
from the table (ivory dice on a white board, dice pressed into a tray wall).
``vision.fusion`` combines the two.

Pipeline (one configuration for every photo):

1. Segmentation on a copy downscaled to WORK_SIDE px. Background = median blur of
   a ~40 px thumbnail (tray/board colour incl. slow shading). A pixel is die
   body when it differs from the background in an opponent colour space;
   darker-only differences count little (shadows), colour differences count
   extra (dice are coloured). Small holes (pips) are filled.
2. Die size S = upper quartile of the sizes of compact blobs, so dice from ~25
   to ~250 px are handled with the same constants (all sizes are in units of S).
3. Long horizontal/vertical bands (tray walls, board edges) are cut away,
   but not die bodies of another colour pressed against them; a
   blob that is not one square die is opened (~S/2) and split at
   distance-transform peaks.
4. Each body is re-found at full resolution: a pixel belongs to it when its
   colour is nearer the die's than the local background's (cuts off shadows,
   walls and differently coloured neighbours).
5. Face orientation from a 4-fold edge-orientation histogram; the face is
   warped to FACE x FACE px.
6. Pip maps: distance from the face's own colour (both polarities, then
   lighter-only, darker-only and redder-only), top-hatted so only pip-sized
   spots remain.
7. Pip blobs are matched to the canonical layouts, translation- and scale-free;
   if no fit is sure, blobs that are bars of merged pips are cut into pips.
8. Verification: the dense pip map is sampled at the 9 grid positions of the
   fitted layout; missed pips lower the confidence, and a clearly better
   on/off pattern overrules the blob reading. Each die carries where that
   layout put its pips (``Die.pips``, image positions), for the pip-grid
   check in ``vision.verify``; a value the templates chose over the blobs
   carries none.
9. Unsure readings (and sure 1s) of die-sized bodies are checked against
   templates: rendered pip patterns correlated with the pip maps.
10. Bodies as light as the table (white dice on a white tray) are seeded
   once more from square, die-sized patches of dense grey edges, or the
   pieces such a patch of touching dice splits into (OUTLINE).

Readings with confidence >= 0.5 were 94% right on byler-d6/train (they cover
84% of its dice); lower ones are dice whose value is a guess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from operator import itemgetter

import cv2
import numpy as np

from vision import pixels
from vision.reader import Die

# ------------------------------------------------------------------ tunables
# segmentation
WORK_SIDE = 320  # long side of the segmentation copy (25 px dice in 640 -> 12 px)
BG_THUMB = 40  # background thumbnail long side: median blur there costs ~nothing
BG_KSIZE = 9  # median kernel on the thumbnail (~1/4 image): larger than a die/cluster
FG_THRESHOLD = 28.0  # colour distance from background (~Lab units) that marks die body
FG_DARK_WEIGHT = 0.35  # darker-than-background counts little: cast shadows are darker
FG_CHROMA_WEIGHT = 2.5  # colour difference counts extra: most dice are coloured
FG_EDGE = 0  # edge term for white dice on white boards: 0 = off (it made speckled
#              tables light up with confident phantom dice)
SCALE_ASPECT = 1.5  # blobs that are used to estimate the die size S: compact ones ...
SCALE_FILL = 0.6  # ... that fill their min-area rect
SCALE_PCT = 75  # upper quartile: holes, specks and pip fragments are smaller than dice
DEFAULT_SCALE_FRAC = 1 / 16  # die size guess (fraction of long side) with no usable blob
SINGLE_ASPECT = 1.3  # a blob is one die if its rect is this square ...
SINGLE_FILL = 0.72  # ... this full ...
SINGLE_SIZE = (0.6, 1.6)  # ... and this big (in S)
DIE_SIZE = (0.5, 1.9)  # any die body, in S
WALL_RUN = 3.5  # straight runs longer than this (in S) are walls/edges, not dice
# Dice pressed against a tray wall lie on those runs too. Across a run a wall
# band is thinner than a die, so the run's pixels WALL_DIE..WALL_THICK die
# sides thick across it (not a wide region such as the table beyond a tray)
# are die candidates. They are kept when their colour differs by more than
# WALL_COLOUR (~Lab, chroma x FG_CHROMA_WEIGHT) from the band's (its other
# pixels, mean per run; a run with less than WALL_BAND_MIN die areas of them
# has none) and they hold a square WALL_OPEN die sides wide. Where they join
# a foreground piece, that piece's bodies are read in addition to the usual
# ones, where no die was read yet and only when square within WALL_ASPECT
# (longer rects straddle two touching dice), and its pixels count for the
# leftover pass. On train: a red 1 against the tray wall is found and a red 3
# there is found (read as a 2), nothing lost: die accuracy 0.966 -> 0.967,
# recall 0.984 -> 0.985, precision 0.996; halves 0.967 -> 0.967 and 0.966 ->
# 0.967, days 0.965 -> 0.966 and 0.969 -> 0.969. Colour limits 55-70 alike
# (85 lost the 1; 40 read printed words along lines on rendered printed
# boards as 3 more phantoms). Keeping runs with no band at all (a thin run
# through dice touching in a row) found a brown 6 and a black 1 more on
# train, but read the words of a printed tray as dice too.
WALL_DIE = 0.7
WALL_THICK = 2.2
WALL_COLOUR = 70.0
WALL_BAND_MIN = 1.0
WALL_OPEN = 0.5
WALL_ASPECT = 1.2
WALL_SEP = 0.7  # an added body this close (in die sides) to a die read is that die
OPEN_FRAC = 0.5  # opening kernel (in S) before splitting: breaks thin bridges/slivers
PEAK_SEP = 0.8  # DT peaks closer than this * (r1 + r2) belong to one die
PEAK_FRAC = 0.3  # a DT peak must reach this * S to seed a die
# body refinement at full resolution
REFINE = True
REFINE_ITERS = 1  # (2 gave nothing on train)
REFINE_WIN = 1.8  # window, in die sides
REFINE_PX = 48  # the window is resampled to ~this many px (speed)
REFINE_ASPECT = 1.5  # a refined body must be roughly square ...
REFINE_SIZE = (0.6, 1.3)  # ... and about the segmented size, else keep the segmented one
BODY_MIN_CONTRAST = 25.0  # die colour vs local background (~Lab); real dice: 1st pct ~35
RESIDUAL_PASSES = 1  # passes re-seeding body pixels that no die read explains
RESIDUAL_OPEN = 0.6  # opening (in S) of the leftover body: drop rims and slivers
RESIDUAL_MIN = 0.6  # leftover must be at least (this * S)^2 to be a die
# White dice on a white tray differ from it too little in colour for the
# foreground mask (on train 21 of the 23 dice neither reader found). Their
# outline and pips still make a square, die-sized patch of dense grey edges,
# which is seeded once more at the end (pieces thinner than 3 px at the
# working scale, such as printed lines, are opened away). Such a body is read
# without templates and kept only when its blob reading is sure and its
# colour is near the table's (a body of another colour the mask would have
# found: the one such seed read on train was a dark tray corner). On train:
# fused die accuracy 0.931 -> 0.937, image accuracy 0.660 -> 0.700, recall
# 0.969 -> 0.974, precision 0.994; 2-fold halves 0.935 -> 0.940 and
# 0.928 -> 0.934. Edge limits 30-50 and colour limits 32-70 gave 0.935-0.937.
# The faintest outlines (white 1s on the light tray) stay under that edge
# level on part of their rim, so the patches are looked for once more at a
# lower level, away from the first level's seeds. On train it found two white
# 1s neither reader saw before and changed no value: die accuracy
# 0.946 -> 0.947, image accuracy 0.735 -> 0.740, recall 0.978 -> 0.979,
# precision 0.996; 2-fold halves 0.948 -> 0.949 and 0.943 -> 0.945. A second
# level of 20 or 30 found one die, a single level of 25 or 30 lost two. The
# extra pass costs 0.1-0.8 ms a 640x480 frame (the more texture, the more).
OUTLINE = True
OUTLINE_EDGES = (40.0, 25.0)  # grey gradient levels, (|dx| + |dy|) / 2 of the 3x3 Sobel at the working scale
OUTLINE_ASPECT = 1.3  # the patch's min-area rect is this square ...
OUTLINE_FILL = 0.6  # ... this full (0.7: one die fewer) ...
OUTLINE_SIZE = (0.7, 1.4)  # ... and this big (in S)
OUTLINE_INNER = 0.2  # half-side (in patch sides) of the centre that must hold pip edges:
OUTLINE_PIP_EDGES = 2  # printed grey discs on the tray have none (0.3: they passed)
OUTLINE_CONF = 0.7  # blob reading needed (0.55-0.7 alike on train)
OUTLINE_MAX_CONTRAST = 40.0  # body colour vs local background (~Lab), see above
# White dice touching each other (or a die already read) close into one
# patch of edges, too long for a die. A patch of at most OUTLINE_SPLIT die
# areas whose rect is at most OUTLINE_SPLIT_ASPECT long (two dice side by
# side: ~2) and OUTLINE_FILL full is split at its distance-transform peaks as
# the foreground's clusters are, and each square, die-sized piece is seeded.
# On train it found an ivory 6 pressed against a red die and changed nothing
# else: die accuracy 0.960 -> 0.961, recall 0.985, precision 0.996; halves
# 0.962 -> 0.963 and 0.959 -> 0.959. Without the length and fullness limits
# it split tray walls into 3 phantoms; areas 3-6 and lengths 2.2-3 alike.
# Patches under OUTLINE_SPLIT_MIN die areas hold no two dice (the two found
# on train: 1.9 and 2.8); leaving them whole halves the split's cost (0.3 ->
# 0.15 ms a rendered 640x480 frame of textured table).
OUTLINE_SPLIT = 4.5
OUTLINE_SPLIT_MIN = 1.2
OUTLINE_SPLIT_ASPECT = 2.6
# In a frame of white dice the die size S comes from their pips (0.35-0.6
# of a die on train), and an outline patch can be only the middle of a face:
# a seed whose reading stays unsure is read once more on a crop this much
# larger (its edge orientation taken again), and kept when that reading is
# sure and not a lone pip. On train it found an ivory 6 seeded at 29 px of
# its 45: die accuracy 0.962 -> 0.962 (+1 die), image accuracy 0.775 ->
# 0.780, recall 0.986 -> 0.987, precision 0.996; halves 0.963 -> 0.963 and
# 0.960 -> 0.962. (1.3, 1.6) and (1.2, 1.4, 1.6) gave the same; accepting a
# 1 made a crumb on a stained table a sure 1.
OUTLINE_RETRY = (1.6,)
# The segmented body of a dark or rounded die is often smaller than its face
# (rounded edges and side faces in shadow: on train a found side of 23 px for
# a 28 px face), so the outer pips fall on the crop's rim where the top-hat
# and the reach limit lose them. A face that reads unsure is read once more
# on a crop this much larger, and that reading is taken when it is sure. Only
# bodies the colour refinement found are read again: on empty printed-tray
# renders the second reading made 6 more sure phantoms in 32 frames, with
# this condition none (at 1.2: 2). On train: fused die accuracy
# 0.939 -> 0.945, image accuracy 0.715 -> 0.725, recall 0.974 -> 0.980,
# precision 0.995 -> 0.994; 2-fold halves 0.940 -> 0.946 and 0.938 -> 0.943.
# Factors 1.1 to 1.3 gave 0.944-0.946; 0.9 (a smaller crop) gave 0.939.
RETRY_SIDE = 1.15
# Readings closer than this (in die sides) are one die: keep the best. Two
# touching dice whose refined bodies both drift towards the gap can come this
# close: at 0.6 a sure 2 was dropped for its neighbour 0.53 sides away. On
# train 0.6 -> 0.5: die accuracy 0.961 -> 0.962, image accuracy 0.770 ->
# 0.775, precision 0.996; halves 0.963 -> 0.963 and 0.959 -> 0.960 (0.45:
# one more die found and one misread, the same figures).
DUP_SEP = 0.5
# face
ORIENT_WIN = 1.1  # edge-orientation window, in die sides
ORIENT_PX = 24  # the orientation patch is subsampled to ~this many px per die side
CROP_SCALE = 1.2  # the face crop is this much larger than the body: no pip falls off
FACE = 40  # canonical face crop size, px
# pips
# A pip differs at least this much from its face (~Lab, after the top-hat).
# Blurred red pips on dark marbled dice reach only ~10: on train 14 -> 9 gave
# fused die accuracy 0.937 -> 0.939, image accuracy 0.700 -> 0.715, precision
# 0.994 -> 0.995 (2-fold halves 0.940 -> 0.940 and 0.934 -> 0.938); every
# value from 7 to 12 gave 0.938-0.939, 4 gave precision 0.993. On empty
# printed-tray renders: 19 -> 20 sure phantoms in 32 frames.
PIP_MIN_CONTRAST = 9.0
PIP_TOPHAT = 13  # top-hat kernel (crop px): larger than a pip, smaller than a face
PIP_CHROMA_WEIGHT = 2.0  # red pips on dark-red/brown bodies differ mostly in hue
PIP_RELS = (0.45, 0.3, 0.6)  # thresholds tried (x the face's strongest spot); first is usual
PIP_POLARITY = True  # also try lighter-only and darker-only maps (marbled bodies)
PIP_RELS_POLAR = (0.45,)  # thresholds tried on those (speed)
# a last map of redness alone, tried with all of PIP_RELS: on train it raised
# the body-first reader's recall of sure dice from 0.705 to 0.765 (fused die
# accuracy 0.866 -> 0.886; the lighter/darker maps alone left those dice unsure)
PIP_RED = True
# and a very last map, darker than the face with each pip's lighter centre
# closed (PIP_RING_CLOSE, crop px): the black pips of gold and brass dice are
# rings round a glint, which the maps above cut into C-shapes that merge into
# bars. Its readings count only when sure (PIP_RING_SURE) and the templates
# never see it (with it they took a pip on the side of a die for a sure 1).
# It is also thresholded higher (PIP_RING_RELS): closed rings a pixel apart
# merge at the usual threshold. On train (as photographed / mirrored /
# transposed): die accuracy 0.972 -> 0.974 / 0.970 -> 0.972 / 0.968 ->
# 0.970, image accuracy 0.84 -> 0.85 / 0.83 -> 0.835 / 0.805 -> 0.815,
# precision unchanged; two gold dice (a 5 and a 6) read right in every
# orientation, a 3 and another 6 in one. Closing with 3 or 4 px lost dice,
# with 7 px gained fewer; the thresholds (0.45,) and (0.45, 0.55, 0.65) a
# photo fewer. Accepting readings from 0.6 gained a photo as photographed and
# lost one mirrored, with a phantom; from 0.65 (with the check below) it
# gained a photo in each orientation, but read a thick printed ring as a 4 on
# one of the held-out printed boards. Letting the templates see the map read
# one more gold 6 but made a phantom in every orientation.
PIP_RINGS = True
PIP_RING_CLOSE = 5
PIP_RING_SURE = 0.7
PIP_RING_RELS = (0.45, 0.6)
# Closing also bridges the gap between two dark strokes (the letters and rings
# of a printed board) into blobs that fit a layout. A pip of a ring-map reading
# must be hemmed in: every ray of PIP_RING_REACH px from it meets darkness at
# least (1 - PIP_RING_LOOSE) of the closed map there. The right gold readings'
# pips were at most 0.6 loose, the bridged ones of printed boards 1.0; on the
# held-out printed boards (30 frames) the ring map then adds no phantom (2
# without this check), and train reads the same.
PIP_RING_REACH = 3
PIP_RING_LOOSE = 0.8
# A reading that stays unsure is checked against templates: rendered pip
# patterns of every value (both layouts, grid steps, small rotations and
# shifts) correlated with the face's pip maps. Blob fit and templates fail in
# different ways (templates see pips merged into bars, blobs see pips the
# marbling partly hides). On train, over the faces the blob fit left unsure:
# where the two agreed the value was right in 68 of 77 faces, so an agreeing
# reading counts as sure at TEMPLATE_AGREE; where they disagreed and the
# templates led by TEMPLATE_LEAD, the templates were right in 30 of 52 and
# the blob fit in 15, so the template value is taken at TEMPLATE_RIGHT.
# Only bodies of a die's size are checked (TEMPLATE_SIZE, in the frame's die
# side): pieces of tray corners (0.55-0.7) and gaps between dice (1.3-1.5)
# gave templates patterns to agree with. Fused die accuracy 0.910 -> 0.928,
# image accuracy 0.580 -> 0.630, precision 0.995 -> 0.993; 2-fold halves
# 0.918 -> 0.933 and 0.903 -> 0.924. Leads from 0.03 to 0.1 gave 0.924-0.929.
TEMPLATE_AGREE = 0.8
# Even a sure "1" is checked: a lone blob is often pips merged into one
# (a 3's diagonal, a 6's columns) or the one pip the marbling left. On train,
# where the templates contradicted a sure 1 by TEMPLATE_LEAD they were right
# in 9 of 12 faces, the 1 in 1 (sure 2s: 4 of 20 overruled rightly; left
# alone). Fused die accuracy 0.928 -> 0.932, image accuracy 0.630 -> 0.650;
# 2-fold halves 0.933 -> 0.934 and 0.924 -> 0.930.
TEMPLATE_CHECK_UP_TO = 1  # sure readings of at most this many pips are checked
TEMPLATE_OVERRULE = 0.75
TEMPLATE_LEAD = 0.05  # correlation lead over the next value to overrule the blob fit
TEMPLATE_RIGHT = 0.55
# ... but only on a body the colour refinement found: on empty printed-tray
# renders the overrule made letters into sure dice (16 sure phantoms on 16
# frames, 7 with this condition; 2 before templates). On train it cost 0.001
# die accuracy (0.932 -> 0.931) and raised image accuracy 0.650 -> 0.660 and
# precision 0.993 -> 0.994.
TEMPLATE_SIZE = (0.75, 1.2)
TEMPLATE_REACH = 0.9  # the correlation window, in face half-widths (pips reach ~0.65)
TEMPLATE_STEPS = (0.32, 0.38, 0.44, 0.5)  # grid half-steps, face half-widths (GRID_RANGE's core)
TEMPLATE_PIP = 0.3  # pip blur radius (sigma), in grid half-steps
TEMPLATE_ONE_PIP = 0.44  # the lone pip of a 1 is larger
TEMPLATE_ROTS = (-10.0, 0.0, 10.0)  # residual rotation (deg) after the orientation estimate
# face-crop px: the body centre is only approximate (with shifts up to 2 px
# the templates read 1000 of 1320 train faces right, up to 4.5 px 1188)
TEMPLATE_SHIFTS = (-4.5, -3.0, -1.5, 0.0, 1.5, 3.0, 4.5)
# a face whose reading stays unsure is read once more with bars of merged pips
# cut into pips (6s' columns and 3s' diagonals on 22-30 px dice). On train:
# fused die accuracy 0.886 -> 0.894, image accuracy 0.515 -> 0.540; the
# elongation limits moved it by at most 0.002 between 1.6-2.0 and 2.3-2.9.
SPLIT = True
SPLIT_AREA = 0.12  # a bar of up to three pips (x the face area; one pip ~0.03)
SPLIT_ELONG = (1.8, 2.6)  # long/short axis ratio from which a blob is 2, then 3 pips
SPLIT_BELOW = 0.5  # only readings less sure than this are tried again (cutting every
#                    face's blobs gave the same accuracy at twice the time)
PIP_AREA = (0.004, 0.09)  # pip area as a fraction of the face area
PIP_SIZE_RATIO = 0.4  # blobs under this fraction of the big pips are specks/glints
PIP_REACH = 0.85  # pip centres lie inside the face (face half-widths from the centre)
PIP_COUNT_BONUS = 0.05  # per pip: among good fits prefer the one explaining more pips
# layout fit and verification
GRID_RANGE = (0.22, 0.8)  # pip grid half-step, in face half-widths (train: 0.3-0.5)
FIT_ROT_MAX = 15.0  # residual rotations tried (deg): orientation estimate error
FIT_ROT_STEP = 7.5
FIT_ERR_SCALE = 0.3  # worst pip-to-layout distance (face half-widths) giving confidence 0
ONE_FREE = 0.2  # a lone pip may sit this far off the body centre at no cost ...
ONE_SPAN = 0.4  # ... and loses all confidence this much further (a 2 missing a pip: ~0.7)
ONE_G = 0.42  # typical grid half-step, to check the empty positions around a lone pip
MAX_DROP = 1  # blobs that may be left out of a layout (glint, neighbour's pip)
DROP_PENALTY = 0.15  # confidence cost per blob left out
VERIFY_FREE = 0.2  # empty/filled grid-contrast ratio that costs no confidence ...
VERIFY_SPAN = 0.6  # ... and the further ratio that takes it to 0 (0.5 at ratio 0.5)
REREAD_GAP = 0.25  # on/off gap of another grid pattern needed to overrule the blobs
UNSURE_FLOOR = 0.05  # a die whose layout fits but fails verification: reported, unsure
EARLY_EXIT = 0.7  # a verified confidence this high ends the search (speed)
MIN_CONFIDENCE = 0.5  # below this a reading is unsure; unsure ones need a found body
# A body read as nothing, or too unsurely to report, is handed over unread
# (see FaceScan) when this big (in S): the one train die then read by
# vision.recover was a body of 1.3 S; from 0.5 to 1.9 no other came.
UNREAD_SIZE = (0.7, 1.4)

# canonical pip layouts in grid units; 2, 3 and 6 in both orientations
_LAYOUTS = {
    1: [[(0, 0)]],
    2: [[(-1, -1), (1, 1)], [(1, -1), (-1, 1)]],
    3: [[(-1, -1), (0, 0), (1, 1)], [(1, -1), (0, 0), (-1, 1)]],
    4: [[(-1, -1), (1, -1), (-1, 1), (1, 1)]],
    5: [[(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)]],
    6: [
        [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
        [(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)],
    ],
}
_LAYOUTS = {n: [np.array(v, np.float32) for v in vs] for n, vs in _LAYOUTS.items()}
_LAYOUT_RMS = {n: [float(np.sqrt((T**2).sum(1).mean())) or 1.0 for T in vs] for n, vs in _LAYOUTS.items()}
_K3 = np.ones((3, 3), np.uint8)
_KPIP = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (PIP_TOPHAT, PIP_TOPHAT))
_KRING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (PIP_RING_CLOSE, PIP_RING_CLOSE))


def _ray(dx: int, dy: int, reach: int) -> np.ndarray:
    """A kernel whose dilation takes the maximum along a ray of ``reach`` px from each pixel."""
    k = np.zeros((2 * reach + 1, 2 * reach + 1), np.uint8)
    for t in range(reach + 1):
        k[reach + dy * t, reach + dx * t] = 1
    return k


_RAYS = [_ray(dx, dy, PIP_RING_REACH) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
_gx, _gy = np.meshgrid([-1, 0, 1], [-1, 0, 1])
_GRID_UNIT = np.stack([_gx.ravel(), _gy.ravel()], 1).astype(np.float32)  # 3x3 grid, (9, 2)
_NO_PIPS = np.zeros((0, 2))
_ONMASK = {}  # per layout variant: which of the 9 grid positions hold a pip
for _n, _vs in _LAYOUTS.items():
    _ONMASK[_n] = []
    for _T in _vs:
        _m = np.zeros(9, bool)
        for _x, _y in _T:
            _m[int(_y + 1) * 3 + int(_x + 1)] = True
        _ONMASK[_n].append(_m)
_PATTERNS = np.array([m for n in _ONMASK for m in _ONMASK[n]])
_PATTERN_VALUES = np.array([n for n in _ONMASK for _ in _ONMASK[n]])
# per pattern, the grid positions it fills and those it leaves empty (rows
# padded by repeating a position: a min or max over them is unchanged)
_PATTERN_ON = np.array([np.resize(np.flatnonzero(m), 6) for m in _PATTERNS])
_PATTERN_OFF = np.array([np.resize(np.flatnonzero(~m), 8) for m in _PATTERNS])
# the same rows as getters of a list (``_verify`` reads its samples as one)
_PATTERN_GET = [
    (itemgetter(*on), itemgetter(*off))
    for on, off in zip(_PATTERN_ON.tolist(), _PATTERN_OFF.tolist(), strict=True)
]
_ROTS = np.array(
    [
        [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
        for a in np.radians(np.arange(-FIT_ROT_MAX, FIT_ROT_MAX + 0.1, FIT_ROT_STEP))
    ],
    np.float32,
)
# the 3x3 grid turned by each residual rotation
_GRIDS = [_GRID_UNIT @ R.T for R in _ROTS]
# row k: the indices of n points without point k
_LEAVE_ONE_OUT = {n: np.array([[j for j in range(n) if j != k] for k in range(n)]) for n in range(2, 8)}
# all variants of each layout at all residual rotations, stacked: (V*R, n, 2)
_TEMPL = {
    n: np.concatenate([np.einsum("rij,kj->rki", _ROTS, T) for T in vs]).astype(np.float32)
    for n, vs in _LAYOUTS.items()
}


def _contour_areas(cnts) -> np.ndarray:
    """``cv2.contourArea`` of every contour, in one pass: the shoelace sum over
    integer points is exact, so the areas are the same. (Textured tables give
    hundreds of small contours a frame; one call each cost ~0.3 ms.)"""
    if len(cnts) == 0:
        return np.zeros(0)
    pts = np.concatenate(cnts).reshape(-1, 2).astype(np.int64)
    lens = np.fromiter((len(c) for c in cnts), np.intp, len(cnts))
    starts = np.cumsum(lens) - lens
    after = np.arange(1, len(pts) + 1)
    after[starts + lens - 1] = starts  # each contour is closed
    x, y = pts[:, 0], pts[:, 1]
    return np.abs(np.add.reduceat(x * y[after] - x[after] * y, starts)) / 2.0


def _foreground(work: np.ndarray):
    h, w = work.shape[:2]
    f = BG_THUMB / max(h, w)
    thumb = cv2.resize(work, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA)
    bg = cv2.medianBlur(thumb, BG_KSIZE)
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR)
    # opponent colour space (lightness, red-green, yellow-blue), ~Lab units but
    # one cv2.transform instead of a slow uint8 Lab conversion
    d = cv2.transform(cv2.subtract(work, bg, dtype=cv2.CV_32F), pixels.OPPONENT)
    dl, c1, c2 = cv2.split(d)
    # darker than background counts less: cast shadows are darker, not coloured
    dl = np.maximum(dl, dl * FG_DARK_WEIGHT)  # (the same as max(dl, 0) + weight * min(dl, 0))
    s = cv2.magnitude(dl, FG_CHROMA_WEIGHT * cv2.magnitude(c1, c2))
    m = cv2.compare(s, FG_THRESHOLD, cv2.CMP_GT)
    if FG_EDGE:
        # ivory/white dice on a white board barely differ in colour; their
        # outline and pips are strong edges that close into a body
        gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        gx = cv2.Sobel(gray, cv2.CV_16S, 1, 0)
        gy = cv2.Sobel(gray, cv2.CV_16S, 0, 1)
        e = cv2.addWeighted(cv2.convertScaleAbs(gx), 0.5, cv2.convertScaleAbs(gy), 0.5, 0)
        m |= cv2.compare(e, FG_EDGE, cv2.CMP_GT)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, _K3)
    # fill small holes (pips of the die's own colour as background)
    cnts, hier = cv2.findContours(m, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is not None:
        lim = (max(h, w) / 10.0) ** 2
        holes = np.flatnonzero(hier[0][:, 3] >= 0)  # (only their areas are needed)
        areas = _contour_areas([cnts[i] for i in holes])
        small = [cnts[i] for i in holes[areas < lim]]
        if small:
            cv2.drawContours(m, small, -1, 255, -1)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, _K3)
    return m, bg


def _estimate_scale(m, long_side):
    cnts, hier = cv2.findContours(m, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return long_side * DEFAULT_SCALE_FRAC
    areas = _contour_areas(cnts)
    parent = hier[0][:, 3]
    hole = parent >= 0
    holes = np.bincount(parent[hole], weights=areas[hole], minlength=len(cnts))
    solid = areas - holes  # rings (tray rims) are not solid
    sides = []
    for i in np.flatnonzero(~hole & (solid >= 40)):
        a = float(solid[i])
        (_, _), (rw, rh), _ = cv2.minAreaRect(cnts[i])
        if min(rw, rh) <= 0:
            continue
        if max(rw, rh) / min(rw, rh) < SCALE_ASPECT and a / (rw * rh) > SCALE_FILL:
            sides.append(math.sqrt(a))
    if len(sides) >= 1:
        # upper quartile: holes, specks and pip-only fragments are smaller than dice
        return float(pixels.percentiles(np.array(sides), (SCALE_PCT,))[0])
    return long_side * DEFAULT_SCALE_FRAC


def _split(mask_roi: np.ndarray, S: float):
    """Split a blob of several dice into per-die point sets."""
    k = max(3, int(round(S * OPEN_FRAC)) | 1)
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    op = cv2.morphologyEx(mask_roi, cv2.MORPH_OPEN, ker)
    if not op.any():
        return []
    dt = cv2.distanceTransform(op, cv2.DIST_L2, 3)
    dil = cv2.dilate(dt, _K3)
    ys, xs = np.nonzero((dt >= dil) & (dt >= PEAK_FRAC * S))
    if len(xs) == 0:
        return []
    # size-adaptive non-maximum suppression: a die's DT value is about half
    # its side, so two touching dice have centres ~(r1 + r2) apart; a peak
    # inside an accepted die's inscribed square is the same die
    order = np.argsort(-dt[ys, xs])
    acc = []
    for i in order:
        x, y, r = float(xs[i]), float(ys[i]), float(dt[ys[i], xs[i]])
        if all((x - ax) ** 2 + (y - ay) ** 2 > (PEAK_SEP * (r + ar)) ** 2 for ax, ay, ar in acc):
            acc.append((x, y, r))
    cents = np.float32([(x, y) for x, y, _ in acc])
    radii = np.float32([r for _, _, r in acc])
    # the blob's pixels (x, y) row by row, as np.nonzero lists them
    pts = cv2.findNonZero(op).reshape(-1, 2).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        # dx * dx + dy * dy: the same floats as summing the squares over a last
        # axis of two, at a third of the cost
        dx = pts[:, None, 0] - cents[None, :, 0]
        dy = pts[:, None, 1] - cents[None, :, 1]
        d2 = dx * dx + dy * dy
        own = d2.argmin(1)
        near = d2[np.arange(len(pts)), own] < (1.6 * radii[own]) ** 2
    out = []
    for i in range(len(cents)):
        sel = pts[(own == i) & near]
        if len(sel) >= 10:
            out.append(sel)
    return out


def _split_contour(c: np.ndarray, S: float) -> tuple[list[np.ndarray], int, int]:
    """``_split`` of the blob inside one outer contour: its per-die point sets,
    relative to the corner (x, y) of the contour's bounding box."""
    x, y, w, h = cv2.boundingRect(c)
    roi = np.zeros((h, w), np.uint8)
    cv2.drawContours(roi, [c - [x, y]], -1, 255, -1)
    return _split(roi, S), x, y


def _orient(gray: np.ndarray, cx: float, cy: float, side: float) -> float:
    """Edge orientation modulo 90 deg around (cx, cy): the die's square edges and pip
    grid dominate a 4-fold angle histogram; blob outlines at work scale are too coarse."""
    r = int(side * ORIENT_WIN / 2) + 2
    x0, y0 = max(0, int(cx) - r), max(0, int(cy) - r)
    p = gray[y0 : int(cy) + r + 1, x0 : int(cx) + r + 1]
    if p.shape[0] < 5 or p.shape[1] < 5:
        return 0.0
    p = cv2.cvtColor(np.ascontiguousarray(p), cv2.COLOR_BGR2GRAY)
    step = max(1, int(side / ORIENT_PX))
    if step > 1:
        p = p[::step, ::step]
    gx = cv2.Sobel(p, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(p, cv2.CV_32F, 0, 1, ksize=3)
    z = (gx + 1j * gy).astype(np.complex64)
    m2 = (gx * gx + gy * gy) + 1e-6
    z4 = (z * z) ** 2 / m2
    hh, ww = p.shape
    ccx, ccy = (cx - x0) / step, (cy - y0) / step
    w = ((np.arange(ww) - ccx) ** 2)[None, :] + ((np.arange(hh) - ccy) ** 2)[:, None] <= (r / step) ** 2
    s = complex(z4[w].sum())
    return math.degrees(math.atan2(s.imag, s.real) / 4)


def _refine(img: np.ndarray, bg_bgr: np.ndarray, cx: float, cy: float, side: float):
    """Re-find the die body around (cx, cy) at full resolution: a pixel belongs to
    the die when its colour is nearer the die's own (median of the centre) than
    the local background's. Cuts off shadows, tray walls and differently
    coloured neighbours. Returns (cx, cy, side) or None."""
    H, W = img.shape[:2]
    R = side * REFINE_WIN / 2
    x0, y0 = max(0, int(cx - R)), max(0, int(cy - R))
    x1, y1 = min(W, int(cx + R) + 1), min(H, int(cy + R) + 1)
    if x1 - x0 < 6 or y1 - y0 < 6:
        return None
    k = min(1.0, REFINE_PX / (2 * R))
    p = img[y0:y1, x0:x1]
    if k < 1.0:
        p = cv2.resize(
            p, (max(4, round((x1 - x0) * k)), max(4, round((y1 - y0) * k))), interpolation=cv2.INTER_AREA
        )
    ky, kx = p.shape[0] / (y1 - y0), p.shape[1] / (x1 - x0)
    # (a strided view makes OpenCV's uint8 Lab conversion ~50x slower)
    lab = cv2.cvtColor(np.ascontiguousarray(p), cv2.COLOR_BGR2LAB).astype(np.float32)
    bgl = cv2.cvtColor(bg_bgr.reshape(1, 1, 3), cv2.COLOR_BGR2LAB).astype(np.float32).reshape(3)
    pcx, pcy = (cx - x0) * kx, (cy - y0) * ky
    q = max(1, int(side * kx * 0.25))
    c = lab[max(0, int(pcy) - q) : int(pcy) + q + 1, max(0, int(pcx) - q) : int(pcx) + q + 1]
    ref = pixels.median(c.reshape(-1, 3))
    # nearer ref than bgl: |lab - ref|^2 < |lab - bgl|^2 is the linear test
    # lab . (bgl - ref) < (|bgl|^2 - |ref|^2) / 2 (one cv2.transform, ~30x faster)
    w = (bgl - ref).astype(np.float32).reshape(1, 3)
    body = cv2.compare(cv2.transform(lab, w), float(bgl @ bgl - ref @ ref) / 2.0, cv2.CMP_LT)
    body = cv2.morphologyEx(body, cv2.MORPH_CLOSE, _K3)
    cnts, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for cc in cnts:
        if cv2.pointPolygonTest(cc, (float(pcx), float(pcy)), False) >= 0:
            best = cc
            break
    if best is None:
        return None
    (rx, ry), (rw, rh), _ = cv2.minAreaRect(best)
    a = cv2.contourArea(best)
    if min(rw, rh) <= 0 or max(rw, rh) > REFINE_ASPECT * min(rw, rh):
        return None
    nside = math.sqrt(a) / kx  # area-based side: robust to ragged outlines
    if not (REFINE_SIZE[0] * side <= nside <= REFINE_SIZE[1] * side):
        return None
    contrast = float(np.sqrt(((ref - bgl) ** 2).sum()))
    return x0 + rx / kx, y0 + ry / ky, nside, contrast


def _read_face(
    img: np.ndarray,
    cx: float,
    cy: float,
    side: float,
    ang: float,
    template: bool = False,
    overrule: bool = True,
):
    """Warp the face and classify; returns (value, confidence, ratio, pips) or
    None, the pips as (x, y) image positions."""
    half = side * CROP_SCALE / 2
    a = math.radians(ang)
    ux, uy = math.cos(a) * half, math.sin(a) * half
    vx, vy = -math.sin(a) * half, math.cos(a) * half
    src = np.float32(
        [[cx - ux - vx, cy - uy - vy], [cx + ux - vx, cy + uy - vy], [cx - ux + vx, cy - uy + vy]]
    )
    dst = np.float32([[0, 0], [FACE, 0], [0, FACE]])
    M = cv2.getAffineTransform(src, dst)
    face = cv2.warpAffine(
        img,
        M,
        (FACE, FACE),
        flags=cv2.INTER_AREA if side > 2 * FACE else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    res = _classify(face, template, overrule)
    if res is None:
        return None
    # face half-widths -> crop px -> image: the crop's x and y axes run along
    # the warp's source edges from its corner src[0]
    crop = res[3] * (FACE / CROP_SCALE / 2) + (FACE - 1) / 2
    at = src[0] + crop[:, :1] * ((src[1] - src[0]) / FACE) + crop[:, 1:] * ((src[2] - src[0]) / FACE)
    return res[0], res[1], res[2], [(float(x), float(y)) for x, y in at]


def _pipmaps(face: np.ndarray):
    """Pip-contrast maps of a face crop: distance of each pixel from the face
    colour (median of the central part, where the die face surely is), for
    both polarities together and, if PIP_POLARITY, for lighter-only and
    darker-only pips. Each map comes with its strongest response near the
    face centre and, for the ring map only, where its pips are loose (see
    ``_loose``; None for the other maps)."""
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB)
    q = FACE // 4
    ref = pixels.median(lab[q:-q, q:-q].reshape(-1, 3).astype(np.float32))
    # (lightness and the two colour axes as planes of their own: the arithmetic
    # below costs less on contiguous planes, ~10% of the maps' time)
    d = cv2.split(cv2.subtract(lab, (float(ref[0]), float(ref[1]), float(ref[2]), 0.0), dtype=cv2.CV_32F))
    # chroma counts extra: red pips on a dark-red/brown body differ mostly in hue
    c2 = PIP_CHROMA_WEIGHT**2 * (d[1] ** 2 + d[2] ** 2)
    l2 = d[0] ** 2
    e = int(FACE * 0.2)  # where pips are: off the die's edges

    def prep(dm):
        dm = cv2.GaussianBlur(dm, (3, 3), 0)
        # white top-hat keeps only small contrasting spots (pips); large areas
        # of other colour (table in the crop corners, side faces) flatten away
        dm = cv2.morphologyEx(dm, cv2.MORPH_TOPHAT, _KPIP)
        return dm, float(dm[e:-e, e:-e].max()), None

    # a generator: the polarity maps are only built if the first one fails
    yield prep(np.sqrt(l2 + c2))
    if PIP_POLARITY:
        lp = np.maximum(d[0], 0)
        yield prep(np.sqrt(lp * lp + c2))
        ln = np.maximum(-d[0], 0)
        yield prep(np.sqrt(ln * ln + c2))
    if PIP_RED:
        # redder than the face only: red pips on dark marbled bodies, where
        # white or blue swirls outshine the pips in every map above
        yield prep(PIP_CHROMA_WEIGHT * np.maximum(d[1], 0))
    if PIP_RINGS:
        dark = np.maximum(-d[0], 0)
        closed = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, _KRING)
        yield *prep(closed)[:2], _loose(dark, closed)


def _loose(dark: np.ndarray, closed: np.ndarray) -> np.ndarray:
    """How much of the closed darkness map at each pixel no darkness hems in:
    0 where every one of 8 rays of PIP_RING_REACH px meets as dark a pixel
    (a ring's centre, or within a pip), 1 where some ray meets none (a
    gap between two dark strokes that the closing bridged)."""
    hemmed = cv2.dilate(dark, _RAYS[0])
    for ray in _RAYS[1:]:
        hemmed = np.minimum(hemmed, cv2.dilate(dark, ray))
    return (closed - np.minimum(hemmed, closed)) / np.maximum(closed, 1e-3)


def _loose_pips(loose: np.ndarray, pips: np.ndarray) -> bool:
    """Whether a ring-map reading has a pip (face half-widths) that is loose
    beyond PIP_RING_LOOSE, or none at all."""
    if len(pips) == 0:
        return True
    at = np.asarray(pips) * (FACE / CROP_SCALE / 2) + (FACE - 1) / 2
    px = np.clip(np.rint(at), 0, FACE - 1).astype(int)
    return float(loose[px[:, 1], px[:, 0]].max()) > PIP_RING_LOOSE


def _fit(P: np.ndarray):
    """Best canonical layout for pip centres P (face half-width units).
    Returns (value, confidence, geometry) with geometry = (centre, grid
    half-step, the 3x3 grid turned by the fitted rotation, on-mask over it) or None."""
    if len(P) == 1:
        r = math.hypot(float(P[0, 0]), float(P[0, 1]))
        # the body centre is only approximate (shadows), so a lone pip may sit
        # a little off centre; a 2 with one pip lost sits ~0.7 out
        return 1, 1.0 - max(0.0, r - ONE_FREE) / ONE_SPAN, (P[0].copy(), ONE_G, _GRID_UNIT, _ONMASK[1][0])
    return _fit_many(P[None])[0]


def _fit_many(Ps: np.ndarray) -> list[tuple[int, float, tuple | None]]:
    """``_fit`` of each of T point sets of one size n >= 2 (Ps: (T, n, 2) float32),
    in one pass: the same figures as fitting them one at a time (the drop
    trials of ``_classify_bw`` fit up to 7 sets; one pass costs about one fit)."""
    T, n = Ps.shape[:2]
    # every layout is point-symmetric: the pip centroid is the face centre, which
    # removes the body-centre error (shadows, side faces) from the fit
    c0 = (np.add.reduce(Ps, 1) / np.intp(n)).astype(np.float32)  # Ps.mean(1), without its overhead
    Q = Ps - c0[:, None, :]
    rms = np.sqrt(np.add.reduce((Q * Q).reshape(T, 2 * n), 1).astype(np.float64) / n)
    g = rms / _LAYOUT_RMS[n][0]  # grid half-step, rotation-free (all variants share it)
    # every variant at residual rotations (the edge-orientation estimate can be
    # off, most of all on rounded dice) in one go; symmetric Hausdorff distance
    TT = _TEMPL[n][None] * g.astype(np.float32)[:, None, None, None]  # (T, VR, n, 2)
    # squared distances (T, VR, n, n) as dx * dx + dy * dy: the same floats as
    # summing the squares over a last axis of two, at a third of the cost
    dx = Q[:, None, :, None, 0] - TT[:, :, None, :, 0]
    dy = Q[:, None, :, None, 1] - TT[:, :, None, :, 1]
    d2 = dx * dx + dy * dy
    # symmetric Hausdorff distance (ufuncs' own reduce: the methods' wrappers cost more here)
    near_t = np.maximum.reduce(np.minimum.reduce(d2, 3), 2)  # worst pip's nearest layout point
    near_p = np.maximum.reduce(np.minimum.reduce(d2, 2), 2)  # worst layout point's nearest pip
    hr = np.maximum(near_t, near_p)
    ks = hr.argmin(1).tolist()
    gs = g.tolist()
    nr = len(_ROTS)
    out = []
    for t in range(T):
        gt = gs[t]
        if not (GRID_RANGE[0] <= gt <= GRID_RANGE[1]):
            out.append((n, -1.0, None))
            continue
        k = ks[t]
        geo = (c0[t], gt, _GRIDS[k % nr], _ONMASK[n][k // nr])
        out.append((n, 1.0 - math.sqrt(float(hr[t, k])) / FIT_ERR_SCALE, geo))
    return out


_RED_MAP = 3 if PIP_POLARITY else 1  # index of the redness map among _pipmaps' maps


def _classify(face: np.ndarray, template: bool = False, overrule: bool = True):
    maps = _pipmaps(face)
    best = None
    # several pip maps (either polarity, or both) and thresholds: a glint, a
    # strong neighbour pip or marbling of the other polarity would otherwise
    # hide dim pips; keep the reading that fits and verifies best
    seen = []  # the maps built so far
    stop = False
    for mi, (dm, hi, loose) in enumerate(maps):
        if stop:
            break
        if loose is None:  # (the templates never see the ring map)
            seen.append(dm)
        dmax = None
        masks = set()  # the thresholded maps read so far
        if loose is not None:
            rels = PIP_RING_RELS
        elif mi == 0 or mi == _RED_MAP:
            rels = PIP_RELS
        else:
            rels = PIP_RELS_POLAR
        for rel in rels:
            thr = max(PIP_MIN_CONTRAST, rel * hi)
            bw = cv2.compare(dm, thr, cv2.CMP_GT)
            if bw.tobytes() in masks:
                # the same blobs read the same (thresholds under PIP_MIN_CONTRAST
                # on a faint map: ~18% of the thresholds tried)
                continue
            masks.add(bw.tobytes())
            components = cv2.connectedComponentsWithStats(bw)
            if components[0] <= 1:
                continue  # no blob at all
            table = _blob_table(components)
            r = _classify_bw(bw, table=table)
            if SPLIT and (r is None or r[1] < SPLIT_BELOW):
                rs = _classify_bw(bw, split=True, table=table)
                if rs is not None and (r is None or rs[1] > r[1]):
                    r = rs
            if r is None:
                continue
            if best is not None and best[0][0] and r[1] < MIN_CONFIDENCE:
                continue  # cannot beat a verified good reading (saves the check)
            if dmax is None:
                dmax = cv2.dilate(dm, _K3)  # 3x3 max: a pip centre need not hit a grid point
            out = _finish(dmax, r)
            if loose is not None and (out[1] < PIP_RING_SURE or _loose_pips(loose, out[3])):
                continue
            key = (out[1] >= MIN_CONFIDENCE, out[1] + PIP_COUNT_BONUS * out[0])
            if best is None or key > best[0]:
                best = (key, out)
            if out[1] >= EARLY_EXIT:
                if template and best[1][0] <= TEMPLATE_CHECK_UP_TO:
                    stop = True  # checked below, on the maps built so far
                    break
                return best[1]  # clean, verified fit: skip the rest (speed)
    if template and best is not None and best[1][1] >= MIN_CONFIDENCE and best[1][0] <= TEMPLATE_CHECK_UP_TO:
        v, conf, ratio, _ = best[1]
        tv, lead = _template_value(seen)
        if tv != v and lead >= TEMPLATE_LEAD:
            return tv, TEMPLATE_OVERRULE, ratio, _NO_PIPS
        return best[1]
    if template and best is not None and best[1][1] < MIN_CONFIDENCE:
        # all maps were built (no early exit); see TEMPLATE_AGREE
        v, conf, ratio, pips = best[1]
        tv, lead = _template_value(seen)
        if tv == v:
            return v, max(conf, TEMPLATE_AGREE), ratio, pips
        if overrule and lead >= TEMPLATE_LEAD:  # overrule: a body was found (TEMPLATE_RIGHT)
            return tv, TEMPLATE_RIGHT, ratio, _NO_PIPS
    return None if best is None else best[1]


def _sites(geo, on: np.ndarray) -> np.ndarray:
    """Face positions (face half-widths) of the grid sites ``on`` of a fitted layout."""
    c0, g, grid, _ = geo
    return (c0[None, :] + grid[on] * g).astype(np.float64)


def _finish(dm, r):
    """Verify a blob reading against the dense pip map; returns (value, conf,
    ratio, pips), the pips being where the fitted grid puts the value's pips
    (face half-widths from the crop centre; none without a fitted grid)."""
    if r[2] is None:
        return r[0], r[1] * 0.5, 1.0, _NO_PIPS
    ratio, pv, gap, pi = _verify(dm, r[2])
    # confidence: the layout fit, capped by how empty the layout's empty grid
    # positions really are (ratio ~0 clean face; ~1 pips were missed)
    vconf = 1.0 - max(0.0, ratio - VERIFY_FREE) / VERIFY_SPAN
    if pv != r[0] and gap >= REREAD_GAP:
        # the dense grid samples clearly show another layout (usually pips the
        # blob threshold lost); its gap is the confidence
        return pv, min(0.9, gap * 2), ratio, _sites(r[2], _PATTERNS[pi])
    pips = _sites(r[2], r[2][3])
    if r[1] <= 0:
        return r[0], r[1], ratio, pips
    # a die whose layout fits but whose grid check fails is still reported, as
    # an unsure reading (it is a die; the value is ~50% right)
    return r[0], max(UNSURE_FLOOR, min(r[1], vconf)), ratio, pips


def _verify(dm: np.ndarray, geo) -> tuple[float, int, float, int]:
    """Strongest pip-map response at the grid positions the layout leaves empty,
    over the weakest at the positions it fills. Near 0 for a clean face; near
    1 when pips were missed (a 6 read as a 2 shows 4 'empty' pips). Also the
    value, gap and index (in _PATTERNS) of the pattern that best separates
    the grid's samples."""
    c0, g, grid, on = geo
    pts = c0[None, :] + grid * g
    px = (pts * (FACE / CROP_SCALE / 2) + (FACE - 1) / 2).tolist()
    # the 9 samples (0 off the crop); dm is the 3x3-max (dilated) pip map
    vv, von, voff = [], [], []
    for (x, y), o in zip(px, on.tolist(), strict=True):
        if 1 <= x <= FACE - 2 and 1 <= y <= FACE - 2:
            v = dm.item(round(y), round(x))
            (von if o else voff).append(v)
        else:
            v = 0.0
        vv.append(v)
    # re-read: the canonical pattern that best separates the 9 samples. (Each
    # difference of two float32 samples, taken in float64 and rounded to
    # float32, is the float32 difference; on lists it costs half.)
    pg = np.array([min(fill(vv)) - max(empty(vv)) for fill, empty in _PATTERN_GET], np.float32)
    pg /= max(max(vv), 1e-3)
    pi = int(pg.argmax())
    pv, gap = int(_PATTERN_VALUES[pi]), float(pg[pi])
    if len(von) == 0:
        return 1.0, pv, gap, pi
    if len(voff) == 0:
        return 0.0, pv, gap, pi
    return float(np.float32(max(voff)) / max(min(von), 1e-3)), pv, gap, pi


def _blob_table(components) -> tuple:
    """The blobs of a thresholded pip map as both readings of it (plain and
    split) look at them: their stats, centres (face half-widths), which ones
    pass as pips (``ok``) and what the split reading needs besides (which lie
    inside the face, their long and short box sides)."""
    n, lab_, stats, cents = components
    D2 = (FACE / CROP_SCALE) ** 2  # die face area in the crop
    st = stats[1:].astype(np.float32)
    x, y, w, h, ar = st.T
    c = (cents[1:] - (FACE - 1) / 2) / (FACE / CROP_SCALE / 2)
    inner = (
        (ar >= PIP_AREA[0] * D2)
        # not touching the crop border: background or side face leaking in
        & (x > 0)
        & (y > 0)
        & (x + w < FACE)
        & (y + h < FACE)
        & (np.maximum.reduce(np.abs(c), 1) <= PIP_REACH)
    )
    long_side, short_side = np.maximum(w, h), np.minimum(w, h)
    ok = (
        inner
        & (ar <= PIP_AREA[1] * D2)
        # no slivers along the die edge, no L-shaped corner pieces
        & (long_side <= 2.2 * short_side)
        & (ar >= 0.4 * w * h)
    )
    return lab_, st, ar, c, ok, (inner, long_side, short_side)


def _classify_bw(bw: np.ndarray, split: bool = False, components=None, table=None):
    """The blob reading of a thresholded pip map (``table``: its ``_blob_table``,
    shared by the plain and the split reading)."""
    if table is None:
        components = components or cv2.connectedComponentsWithStats(bw)
        if components[0] <= 1:
            return None
        table = _blob_table(components)
    lab_, st, ar, c, ok, shape = table
    if not split:
        # (on lists: a face has a dozen blobs, too few for numpy's overhead)
        okix = [i for i, o in enumerate(ok.tolist()) if o]
        if len(okix) == 0:
            return None
        # pips of one face share a size; drop specks much smaller than the others
        every = ar.tolist()
        areas = [every[i] for i in okix]
        ranked = sorted(areas)
        # reference: the biggest blob for up to 3 (a lone 1-pip next to a small
        # glint must not pass as a 2), else the 3rd biggest (robust to one big glint)
        amax = ranked[-1] if len(ranked) <= 3 else ranked[-3]
        keep = [i for i, a in zip(okix, areas, strict=True) if a >= PIP_SIZE_RATIO * amax]
        if len(keep) > 6 + MAX_DROP:
            return None
        return _fit_pips(c[keep].astype(np.float32))
    # pips merged into a bar (a 6's columns, a 3's diagonal on a small die):
    # a blob much longer than wide, up to three pips' area, is cut into
    # pips spaced along its long axis
    inner, long_side, short_side = shape
    w, h = st[:, 2], st[:, 3]
    loose = (
        inner
        & (ar <= SPLIT_AREA * (FACE / CROP_SCALE) ** 2)
        # a square, full box holds a round blob (a 45-degree bar of
        # elongation 1.8 fills only 0.67 of its box): no moments needed
        & ((long_side > 1.25 * short_side) | (ar < 0.7 * w * h))
    )
    unit = FACE / CROP_SCALE / 2
    pieces = []
    for i in np.nonzero(loose)[0]:
        xi, yi, wi, hi = (int(v) for v in st[i, :4])
        mm = cv2.moments((lab_[yi : yi + hi, xi : xi + wi] == i + 1).astype(np.uint8), True)
        m0 = mm["m00"] or 1.0
        a, b, cc = mm["mu20"] / m0, mm["mu02"] / m0, mm["mu11"] / m0
        tr, det = a + b, a * b - cc * cc
        disc = math.sqrt(max(0.0, tr * tr / 4 - det))
        l1, l2 = tr / 2 + disc, max(tr / 2 - disc, 1e-3)
        elong = math.sqrt(l1 / l2)
        if elong < SPLIT_ELONG[0]:
            continue
        k = 2 if elong < SPLIT_ELONG[1] else 3
        th = 0.5 * math.atan2(2 * cc, a - b)
        half = math.sqrt(3.0 * l1)  # half length of a uniform bar with this variance
        step = 2 * half / k
        for j in range(k):
            t = -half + step * (j + 0.5)
            px = (xi + mm["m10"] / m0 + t * math.cos(th) - (FACE - 1) / 2) / unit
            py = (yi + mm["m01"] / m0 + t * math.sin(th) - (FACE - 1) / 2) / unit
            pieces.append((i, float(ar[i]) / k, np.float32([px, py])))
    if not pieces:
        return None
    cand = list(zip(ar[ok].tolist(), c[ok].astype(np.float32), strict=False))
    cut = {i for i, _, _ in pieces}
    cand = [(a, cc) for (a, cc), i in zip(cand, np.nonzero(ok)[0], strict=False) if i not in cut]
    cand += [(a, cc) for _, a, cc in pieces]
    if not cand:
        return None
    # pips of one face share a size; drop specks much smaller than the others
    areas = sorted(a for a, _ in cand)
    # reference: the biggest blob for up to 3 (a lone 1-pip next to a small
    # glint must not pass as a 2), else the 3rd biggest (robust to one big glint)
    amax = areas[-1] if len(areas) <= 3 else areas[-3]
    pips = [c for a, c in cand if a >= PIP_SIZE_RATIO * amax]
    if len(pips) > 6 + MAX_DROP:
        return None
    return _fit_pips(np.array(pips, np.float32))


def _fit_pips(P: np.ndarray):
    """The best layout for pip centres P, leaving out a stray blob if that fits better."""
    best = (len(P), -1.0, None) if len(P) > 6 else _fit(P)
    # a stray blob (glint, marbling, a neighbour's pip): try leaving blobs out
    drop = 0
    while best[1] < MIN_CONFIDENCE and drop < MAX_DROP and len(P) > 2:
        drop += 1
        trials = _fit_many(P[_LEAVE_ONE_OUT[len(P)]]) if len(P) <= 7 else []
        trials = [(v, c - DROP_PENALTY * drop, geo) for v, c, geo in trials if v <= 6]
        if not trials:
            break
        k = max(range(len(trials)), key=lambda k: trials[k][1])
        if trials[k][1] <= best[1]:
            break
        best = trials[k]
        P = P[_LEAVE_ONE_OUT[len(P)][k]]  # (np.delete, at a tenth of the cost)
    return best


def _build_templates():
    """Pip positions of every template (value, layout variant, grid step,
    rotation, shift), grouped by the blur that matches their pip size, and
    each template's norm after removing its mean over the face interior."""
    unit = FACE / CROP_SCALE / 2
    c0 = (FACE - 1) / 2
    axis = np.arange(FACE, dtype=np.float64)
    inside = np.abs(axis - c0) <= TEMPLATE_REACH * unit  # the interior is a square: x and y apart
    inner = inside[:, None] & inside[None, :]
    n_in = float(inner.sum())
    rots = np.radians(TEMPLATE_ROTS)
    shifts = np.array([(sx, sy) for sx in TEMPLATE_SHIFTS for sy in TEMPLATE_SHIFTS])
    groups = []  # (sigma, pip pixels (pip, template), norms, first template of each value, values)
    for one in (True, False):
        for g in TEMPLATE_STEPS:
            sigma = (TEMPLATE_ONE_PIP if one else TEMPLATE_PIP) * g * unit
            ys, xs, owner, norms, vals = [], [], [], [], []
            for v, variants in _LAYOUTS.items():
                if (v == 1) != one:
                    continue
                for lay in variants:
                    # pip centres of this layout at every rotation and shift: (K, n, 2)
                    rot = np.stack([np.cos(rots), -np.sin(rots), np.sin(rots), np.cos(rots)], 1).reshape(
                        -1, 2, 2
                    )
                    p = np.einsum("rij,nj->rni", rot, lay.astype(np.float64)) * g * unit
                    p = (p[:, None, :, :] + shifts[None, :, None, :]).reshape(-1, len(lay), 2) + c0
                    # Gaussian pips are separable and so is the square interior:
                    # the template's sums over it come from 1-D profiles
                    gx = np.exp(-((axis[None, None, :] - p[..., 0:1]) ** 2) / (2 * sigma * sigma)) * inside
                    gy = np.exp(-((axis[None, None, :] - p[..., 1:2]) ** 2) / (2 * sigma * sigma)) * inside
                    sq = (np.einsum("kpx,kqx->kpq", gx, gx) * np.einsum("kpy,kqy->kpq", gy, gy)).sum((1, 2))
                    total = (gx.sum(2) * gy.sum(2)).sum(1)
                    norm = np.sqrt(np.maximum(sq - total * total / n_in, 1e-12))
                    # GaussianBlur's kernel sums to 1, the template's peaks are 1
                    norms.append(norm / (2 * math.pi * sigma * sigma))
                    first = sum(len(x) for x in norms[:-1])
                    owner.append(np.repeat(np.arange(first, first + len(p)), len(lay)))
                    xs.append(np.rint(p[..., 0]).astype(np.intp).ravel())
                    ys.append(np.rint(p[..., 1]).astype(np.intp).ravel())
                    vals.append(np.full(len(p), v))
            va = np.concatenate(vals)
            starts = np.flatnonzero(np.r_[True, va[1:] != va[:-1]])  # templates come by value
            # pixel (flat index) of pip j of template t at [j, t]; templates of
            # fewer pips point at a zero sample past the face's pixels
            own = np.concatenate(owner)
            counts = np.bincount(own, minlength=len(va))
            pip = np.arange(len(own)) - np.r_[0, np.cumsum(counts)][own]
            at = np.full((int(counts.max()), len(va)), FACE * FACE, np.intp)
            at[pip, own] = np.concatenate(ys) * FACE + np.concatenate(xs)
            groups.append((sigma, at, np.concatenate(norms).astype(np.float32), starts, va[starts]))
    return inner, groups


_TEMPLATES = None
_FAMILIES = None  # (the groups they were laid out from, _template_families of them)


def _template_families(groups: list) -> list:
    """The template groups of as many pips side by side, so that one pass takes
    and sums the pips of all their blurs: (sigmas, pip pixels with the block of
    each blur added, norms, first template of each value, values)."""
    block = FACE * FACE + 1
    families: dict[int, list] = {}
    for group in groups:
        families.setdefault(len(group[1]), []).append(group)
    out = []
    for members in families.values():
        width = np.cumsum([0] + [len(norms) for _, _, norms, _, _ in members])
        out.append(
            (
                [sigma for sigma, _, _, _, _ in members],
                np.concatenate([at + g * block for g, (_, at, _, _, _) in enumerate(members)], 1),
                np.concatenate([norms for _, _, norms, _, _ in members]),
                np.concatenate([starts + width[g] for g, (_, _, _, starts, _) in enumerate(members)]),
                np.concatenate([values for _, _, _, _, values in members]),
            )
        )
    return out


def _template_value(maps: list[np.ndarray]) -> tuple[int, float]:
    """The value whose rendered pip pattern correlates best with any of the
    face's pip maps (normalised cross-correlation; a template of Gaussian pips
    correlates with a map as the map blurred to the pip size, summed at the
    pip centres), and its lead over the best other value."""
    global _TEMPLATES, _FAMILIES
    if _TEMPLATES is None:
        _TEMPLATES = _build_templates()
    inner, groups = _TEMPLATES
    if _FAMILIES is None or _FAMILIES[0] is not groups:
        _FAMILIES = (groups, _template_families(groups))
    best = np.full(7, -2.0)  # best correlation per value (index 0 unused)
    centred, norms_of_maps = [], []
    for dm in maps:
        m = np.where(inner, dm - dm[inner].mean(), 0.0).astype(np.float32)
        n = float(np.linalg.norm(m))
        if n >= 1e-6:
            centred.append(m)
            norms_of_maps.append(n)
    if centred:
        # all maps at once, as the channels of one image (half the time of one
        # map after another for four maps; the sums are the same, pip by pip)
        k = len(centred)
        stack = cv2.merge(centred) if k > 1 else centred[0]
        n_maps = np.array(norms_of_maps, np.float32)
        block = FACE * FACE + 1
        for sigmas, at, norms, starts, values in _FAMILIES[1]:
            # map by map, each a row, one block of it per blur (its last
            # column: 0, for missing pips); the pips are taken in float32 and
            # summed in float64, one after another as ever (the same sums, at
            # half the cost of taking float64)
            blurred = np.zeros((k, len(sigmas) * block), np.float32)
            for g, sigma in enumerate(sigmas):
                blurred[:, g * block : (g + 1) * block - 1] = (
                    cv2.GaussianBlur(stack, (0, 0), sigma).reshape(-1, k).T
                )
            pips = blurred.take(at, axis=1)  # (maps, pips, templates)
            if len(at) == 1:
                sums = pips[:, 0].astype(np.float64)
            else:
                sums = np.add(pips[:, 0], pips[:, 1], dtype=np.float64)
                for j in range(2, len(at)):
                    sums += pips[:, j]
            sc = sums / (n_maps[:, None] * norms[None, :])
            np.maximum.at(best, values, np.maximum.reduceat(sc, starts, axis=1).max(0))
    order = np.argsort(-best)
    return int(order[0]), float(best[order[0]] - best[order[1]])


@dataclass
class FaceScan:
    """What the body-first reader saw in one frame.

    ``unexplained`` counts die-sized pieces of foreground no reading accounts
    for: a frame with none, and only confident readings, needs no second reader.
    ``unread`` holds the die bodies found but not read, as dice of value 0
    and confidence 0: square, die-sized, standing out from the table, with no
    reading near them (``vision.recover`` reads them in their own colours).
    """

    dice: list[Die]
    unexplained: int
    die_side: float  # typical die side in full-resolution pixels
    unread: list[Die] = field(default_factory=list)


def read_faces(image: np.ndarray) -> list[Die]:
    """Read the top faces of the six-sided dice in ``image`` (BGR, grey or BGRA)."""
    return scan_faces(image).dice


def scan_faces(image: np.ndarray) -> FaceScan:
    """Read the dice and report how much of the foreground the readings explain."""
    img = pixels.as_bgr(image, "read_faces")
    if min(img.shape[:2]) < 8:
        return FaceScan([], 0, 0.0)
    H, W = img.shape[:2]
    f = min(1.0, WORK_SIDE / max(H, W))
    work = cv2.resize(img, (round(W * f), round(H * f)), interpolation=cv2.INTER_AREA) if f < 1 else img
    m, bg = _foreground(work)
    cnts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    S = _estimate_scale(m, max(work.shape[:2]))
    # tray walls, table edges, cloth seams: long straight bands. Pixels on a
    # horizontal or vertical run longer than WALL_RUN dice are not dice,
    # except die bodies along such a run (see WALL_DIE)
    walls, kept = _walls(m, work, S)
    along = None  # foreground with those bodies kept: the pieces they join
    if walls is not None:
        m0 = m
        m = cv2.morphologyEx(m0 & ~cv2.dilate(walls, _K3), cv2.MORPH_OPEN, _K3)
        cnts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if kept is not None:
            m1 = cv2.morphologyEx(m0 & ~cv2.dilate(walls & ~kept, _K3), cv2.MORPH_OPEN, _K3)
            new = m1 & ~m
            if new.any():
                _, lab = cv2.connectedComponents(m1)
                along = np.isin(lab, np.unique(lab[new > 0])).astype(np.uint8)
    bodies = _bodies(cnts, S)
    extra = []
    if along is not None:
        extra = _bodies(cv2.findContours(along, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0], S)
    out: list[_Reading] = []
    unread: list[_Reading] = []  # bodies not read

    def read_body(rcx: float, rcy: float, fside: float, outline: bool = False) -> None:
        """Refine, read and filter one body given at work scale; append to out."""
        fx, fy, fs = rcx / f, rcy / f, fside / f
        body_contrast = -1.0  # -1: the refinement did not find the body
        if REFINE:
            bgc = bg[min(bg.shape[0] - 1, int(rcy)), min(bg.shape[1] - 1, int(rcx))]
            for _ in range(REFINE_ITERS):
                rr = _refine(img, bgc, fx, fy, fs)
                if rr is None:
                    break
                fx, fy, fs, body_contrast = rr
        if outline:
            if body_contrast >= OUTLINE_MAX_CONTRAST:
                return
            body_contrast = -1.0
        elif 0 <= body_contrast < BODY_MIN_CONTRAST:
            return  # no body standing out from the table: not a die (and saves the read)
        ang = _orient(img, fx, fy, fs)
        # the template check only for a body of a die's size: pieces of tray
        # corners and gaps between dice gave templates a pattern to agree with
        size_ok = TEMPLATE_SIZE[0] * S / f <= fs <= TEMPLATE_SIZE[1] * S / f
        template = TEMPLATE_AGREE > 0 and size_ok and not outline
        res = _read_face(img, fx, fy, fs, ang, template, body_contrast >= 0)
        if RETRY_SIDE and body_contrast >= 0 and (res is None or res[1] < MIN_CONFIDENCE):
            # see RETRY_SIDE: the body may be smaller than the face
            again = _read_face(img, fx, fy, fs * RETRY_SIDE, ang, template, body_contrast >= 0)
            if again is not None and again[1] >= MIN_CONFIDENCE:
                res = again
        if outline and (res is None or res[1] < OUTLINE_CONF):
            # see OUTLINE_RETRY: the patch may be only the middle of the face
            for k in OUTLINE_RETRY:
                again = _read_face(img, fx, fy, fs * k, _orient(img, fx, fy, fs * k), False, False)
                if again is not None and again[1] >= OUTLINE_CONF and again[0] > 1:
                    res = again
                    break
        if (
            res is None
            or res[1] <= 0
            or (res[1] < MIN_CONFIDENCE and body_contrast < 0)
            or (outline and res[1] < OUTLINE_CONF)
        ):
            # unsure readings are reported only for a convincing body: one that
            # the colour refinement found (printed trays, text and texture give
            # pip-like blobs but no body); the body is handed over unread
            if UNREAD_SIZE[0] * S / f <= fs <= UNREAD_SIZE[1] * S / f:
                unread.append(_Reading(0, 0.0, fx, fy, fs, ang))
            return
        val, conf = res[0], res[1]
        out.append(_Reading(int(val), float(round(min(1.0, conf), 3)), fx, fy, fs, ang, res[3]))

    for (rcx, rcy), (rw, rh), _ang in bodies:
        side = min(rw, rh)
        if not (DIE_SIZE[0] * S <= side <= DIE_SIZE[1] * S) or max(rw, rh) > 1.6 * side:
            continue
        read_body(rcx, rcy, math.sqrt(rw * rh))
    n_old = len(out)
    for (rcx, rcy), (rw, rh), _ang in extra:
        side = min(rw, rh)
        if not (DIE_SIZE[0] * S <= side <= DIE_SIZE[1] * S) or max(rw, rh) > WALL_ASPECT * side:
            continue
        if any(
            (r.x * f - rcx) ** 2 + (r.y * f - rcy) ** 2 < (WALL_SEP * r.side * f) ** 2 for r in out[:n_old]
        ):
            continue
        read_body(rcx, rcy, math.sqrt(rw * rh))
    unexplained = 0
    for rnd in range(RESIDUAL_PASSES + 1):
        # body pixels no die accounts for (clusters the split got wrong): seed
        # once more at the distance-transform peak of each leftover piece; the
        # last round only counts what is still left
        seeds = _leftovers(m if along is None else m | along, out, f, S)
        if len(seeds) == 0 or rnd == RESIDUAL_PASSES:
            unexplained = len(seeds)
            break
        n_before = len(out)
        for px, py in seeds:
            read_body(px, py, S)
        if len(out) == n_before:
            unexplained = len(seeds)
            break
    if OUTLINE:
        for px, py, side in _outline_seeds(work, out, f, S):
            read_body(px, py, side, outline=True)
    readings = _one_per_die(out)
    # a body is unread when no reading lies on it
    unread = [
        u
        for u in unread
        if all((r.x - u.x) ** 2 + (r.y - u.y) ** 2 > (DUP_SEP * max(r.side, u.side)) ** 2 for r in out)
    ]
    return FaceScan(
        [r.die(W, H) for r in readings], unexplained, S / f, [u.die(W, H) for u in _one_per_die(unread)]
    )


def _bodies(cnts, S: float) -> list:
    """Rotated rects (work scale) of the die bodies in the foreground's outer
    contours: a contour that is one square die as it is, else its split."""
    bodies = []
    areas = _contour_areas(cnts)
    for i in np.flatnonzero(areas >= (0.5 * S) ** 2):
        c, a = cnts[i], float(areas[i])
        rect = cv2.minAreaRect(c)
        (rcx, rcy), (rw, rh), ang = rect
        if min(rw, rh) <= 0:
            continue
        asp = max(rw, rh) / min(rw, rh)
        side = math.sqrt(rw * rh)
        if (
            asp < SINGLE_ASPECT
            and a / (rw * rh) > SINGLE_FILL
            and SINGLE_SIZE[0] * S <= side <= SINGLE_SIZE[1] * S
        ):
            bodies.append(rect)
            continue
        pieces, x, y = _split_contour(c, S)
        for pts in pieces:
            bodies.append(cv2.minAreaRect(pts + np.float32([x, y])))
    return bodies


def _walls(m: np.ndarray, work: np.ndarray, S: float) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The foreground pixels (work scale) on a horizontal or vertical run longer
    than WALL_RUN dice (tray walls, table edges, cloth seams), and those of them
    that are die bodies along such a run (see WALL_DIE); None for none."""
    L = int(WALL_RUN * S)
    if L >= min(m.shape):
        return None, None
    hw = pixels.open_runs(m, np.ones((1, L), np.uint8))
    vw = pixels.open_runs(m, np.ones((L, 1), np.uint8))
    if hw is None and vw is None:
        return None, None
    hw = np.zeros_like(m) if hw is None else hw
    vw = np.zeros_like(m) if vw is None else vw
    walls = hw | vw
    # die-thick across the run, but not a wide region (the table beyond a tray)
    k = max(3, int(round(WALL_DIE * S)))
    K = max(k + 1, int(round(WALL_THICK * S)))
    across_v = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((k, 1), np.uint8))
    across_v &= ~cv2.morphologyEx(across_v, cv2.MORPH_OPEN, np.ones((K, 1), np.uint8))
    across_h = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((1, k), np.uint8))
    across_h &= ~cv2.morphologyEx(across_h, cv2.MORPH_OPEN, np.ones((1, K), np.uint8))
    cand = (hw & across_v & ~vw) | (vw & across_h & ~hw)
    if not cand.any():
        return walls, None
    # per run: the band's mean colour (from every other row and column:
    # plenty, and a quarter of the cost), and the candidates far from it
    _, lab = cv2.connectedComponents(walls)
    ys, xs = cv2.findNonZero(cand).reshape(-1, 2).T[::-1]
    cl = lab[ys, xs]
    n = int(cl.max()) + 1
    sub = (walls[::2, ::2] & ~cand[::2, ::2]) > 0
    band = lab[::2, ::2][sub]
    n_band = np.bincount(band, minlength=n)[:n]
    has_band = n_band[cl] >= WALL_BAND_MIN * S * S / 4
    if not has_band.any():
        return walls, None
    col = work[ys, xs].astype(np.float32) @ pixels.OPPONENT.T
    bcol = work[::2, ::2][sub].astype(np.float32) @ pixels.OPPONENT.T
    ref = np.stack([np.bincount(band, bcol[:, c], minlength=n)[:n] for c in range(3)], 1).astype(np.float32)
    ref /= np.maximum(1, n_band)[:, None]
    d = col - ref[cl]
    far = has_band & (d[:, 0] ** 2 + FG_CHROMA_WEIGHT**2 * (d[:, 1] ** 2 + d[:, 2] ** 2) > WALL_COLOUR**2)
    if not far.any():
        return walls, None
    kept = np.zeros_like(m)
    kept[ys[far], xs[far]] = 255
    # a die's body, not strokes of print of another colour along a printed line
    q = max(3, int(round(WALL_OPEN * S)))
    kept = cv2.morphologyEx(kept, cv2.MORPH_OPEN, np.ones((q, q), np.uint8))
    if not kept.any():
        return walls, None
    return walls, kept


def _one_per_die(out: list[_Reading]) -> list[_Reading]:
    """Two seeds on one die (split clusters, refinement converging): keep the
    better reading, most confident first (see DUP_SEP)."""
    keep: list[_Reading] = []
    for r in sorted(out, key=lambda r: -r.confidence):
        if all((r.x - k.x) ** 2 + (r.y - k.y) ** 2 > (DUP_SEP * min(r.side, k.side)) ** 2 for k in keep):
            keep.append(r)
    return keep


@dataclass
class _Reading:
    """One face read, with the rotated square it was read from (full resolution)."""

    value: int
    confidence: float
    x: float
    y: float
    side: float
    angle: float
    pips: list[tuple[float, float]] = field(default_factory=list)  # where the pips were seen (image)

    def die(self, width: int, height: int) -> Die:
        a = math.radians(self.angle)
        half = self.side / 2 * (abs(math.cos(a)) + abs(math.sin(a)))
        box = [
            float(max(0, int(self.x - half))),
            float(max(0, int(self.y - half))),
            float(min(width - 1, int(self.x + half))),
            float(min(height - 1, int(self.y + half))),
        ]
        return Die(self.value, box, self.confidence, self.pips, side=self.side)


def _leftovers(m: np.ndarray, out: list[_Reading], f: float, S: float) -> list[tuple[float, float]]:
    """Seeds (work scale) of die-sized foreground pieces that no reading covers."""
    cover = np.zeros_like(m)
    for r in out:
        pts = cv2.boxPoints(((r.x * f, r.y * f), (r.side * f * 1.1, r.side * f * 1.1), r.angle))
        cv2.fillConvexPoly(cover, pts.astype(np.int32), 255)
    k = max(3, int(round(S * RESIDUAL_OPEN)) | 1)
    rest = m & ~cover
    seeds: list[tuple[float, float]] = []
    # The erosion by the round kernel keeps no more than the erosions by its
    # middle row and column (cheap: 0.06 against 0.3 ms the opening of the
    # whole mask). Where those leave nothing, so does the opening; elsewhere it
    # runs in a window around what they leave (margin half the kernel, corner at
    # even coordinates as OpenCV's labelling scans 2x2 blocks): the same seeds,
    # in the same order.
    cross = cv2.erode(rest, np.ones((1, k), np.uint8)) & cv2.erode(rest, np.ones((k, 1), np.uint8))
    if cv2.countNonZero(cross) == 0:
        return seeds
    H, W = m.shape
    bx, by, bw, bh = cv2.boundingRect(cross)
    reach = k // 2 + 1
    wx0, wy0 = max(0, bx - reach) & ~1, max(0, by - reach) & ~1
    wx1, wy1 = min(W, bx + bw + reach), min(H, by + bh + reach)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    core = cv2.erode(rest[wy0:wy1, wx0:wx1], kernel) & cross[wy0:wy1, wx0:wx1]
    left = cv2.dilate(core, kernel)
    if not left.any():
        return seeds
    n, labels, stats, _ = cv2.connectedComponentsWithStats(left)
    for i in range(1, n):
        if stats[i, 4] < (RESIDUAL_MIN * S) ** 2:
            continue
        x0, y0, w0, h0 = stats[i, :4]
        blob = (labels[y0 : y0 + h0, x0 : x0 + w0] == i).astype(np.uint8)
        dt = cv2.distanceTransform(blob, cv2.DIST_L2, 3)
        _, r, _, (px, py) = cv2.minMaxLoc(dt)
        if r >= PEAK_FRAC * S:
            seeds.append((float(wx0 + x0 + px), float(wy0 + y0 + py)))
    return seeds


def _outline_seeds(
    work: np.ndarray, out: list[_Reading], f: float, S: float
) -> list[tuple[float, float, float]]:
    """Square, die-sized patches of dense edges with pip edges at their centre
    that no reading covers: (x, y, side) at work scale (see OUTLINE)."""
    gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
    gx = cv2.Sobel(gray, cv2.CV_16S, 1, 0)
    gy = cv2.Sobel(gray, cv2.CV_16S, 0, 1)
    e = cv2.addWeighted(cv2.convertScaleAbs(gx), 0.5, cv2.convertScaleAbs(gy), 0.5, 0)
    seeds: list[tuple[float, float, float]] = []
    for level in OUTLINE_EDGES:
        edges = cv2.compare(e, level, cv2.CMP_GT)
        m = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, _K3)
        # thin lines go (and with them most contours: findContours is the cost)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, _K3)
        cnts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        areas = _contour_areas(cnts)
        for i in np.flatnonzero(areas >= (OUTLINE_SIZE[0] * S) ** 2):
            for rcx, rcy, side in _outline_patches(cnts[i], float(areas[i]), S):
                if any((r.x * f - rcx) ** 2 + (r.y * f - rcy) ** 2 < (0.7 * r.side * f) ** 2 for r in out):
                    continue
                if any((x - rcx) ** 2 + (y - rcy) ** 2 < (0.7 * q) ** 2 for x, y, q in seeds):
                    continue
                h = max(1, int(side * OUTLINE_INNER))
                y0, x0 = max(0, int(rcy) - h), max(0, int(rcx) - h)
                inner = edges[y0 : int(rcy) + h + 1, x0 : int(rcx) + h + 1]
                if cv2.countNonZero(inner) < OUTLINE_PIP_EDGES:
                    continue
                seeds.append((float(rcx), float(rcy), float(side)))
    return seeds


def _outline_patches(c: np.ndarray, a: float, S: float) -> list[tuple[float, float, float]]:
    """The die-shaped patches (x, y, side) of one contour of dense edges: the
    contour itself, or the pieces it splits into (touching white dice)."""
    (rcx, rcy), (rw, rh), _ = cv2.minAreaRect(c)
    if min(rw, rh) <= 0:
        return []
    side = math.sqrt(rw * rh)
    if max(rw, rh) <= OUTLINE_ASPECT * min(rw, rh) and a / (rw * rh) >= OUTLINE_FILL:
        if OUTLINE_SIZE[0] * S <= side <= OUTLINE_SIZE[1] * S:
            return [(rcx, rcy, side)]
    if not (OUTLINE_SPLIT and OUTLINE_SPLIT_MIN * S * S <= a <= OUTLINE_SPLIT * S * S):
        return []
    if max(rw, rh) > OUTLINE_SPLIT_ASPECT * min(rw, rh) or a / (rw * rh) < OUTLINE_FILL:
        return []
    pieces, x, y = _split_contour(c, S)
    found = []
    for pts in pieces:
        (px, py), (pw, ph), _ = cv2.minAreaRect(pts)
        q = math.sqrt(pw * ph)
        square = min(pw, ph) > 0 and max(pw, ph) <= OUTLINE_ASPECT * min(pw, ph)
        if square and len(pts) >= OUTLINE_FILL * pw * ph:
            if OUTLINE_SIZE[0] * S <= q <= OUTLINE_SIZE[1] * S:
                found.append((x + px, y + py, q))
    return found
