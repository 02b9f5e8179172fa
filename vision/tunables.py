"""Every tunable of the dice reader, in one place, each with why it is what it is.

Lengths are in die sides (the side of the die being read) unless they say
pixels; the reader works on each die resampled to ``FACE_PX`` pixels a side,
so a die read at 25 px and at 400 px meets the same numbers.
"""

# --- Finding dice (vision.finder) ---
# The finest pyramid level's long side (px): detection costs the same at any
# resolution, and still sees dice of 1/50 of the frame (8 MP: about 60 px).
FINEST = 384
# Levels stop when the frame is this small (px): a die filling it is found there.
COARSEST = 48
# The least heat the finder may mark a die with to be considered at all;
# low, because every spot is still read and graded afterwards.
PEAK_MIN = 0.15
# A level keeps the dice whose side at that level (px) is in this octave; the
# training band reaches past it on both sides.
LEVEL_KEEP = (14.0, 28.0)
# A spot up to this factor past the top of its level's octave is kept where no
# spot within an octave is: the network sizes a die up to about this much high.
EDGE_REACH = 1.15
# With a calibration, also down to this factor under its bottom: the network sizes
# a die smaller than a level's octave large, so one the finer level sizes past its
# octave is otherwise kept on neither. Uncalibrated, such spots added dice that are
# none (lower precision); calibrated, a spot must also have a die's size there.
UNDER_REACH = 1.3
# Two spots closer than this (in the larger's sides) are one die seen twice.
SAME_DIE = 0.55
# ... unless one is more than this many times the other's size.
SAME_SIZE = 2.0

# A die or level shrunk by less than this starts from the halving of the frame
# (vision.halvings) that leaves at least this much: a large die in an 8 MP
# frame then costs about what a small one does.
HALVE_BELOW = 0.125
# The finder's finest level is shrunk from the halving that leaves at least this
# much: area-averaging a whole 8 MP frame down to it costs more than reading it.
FINDER_HALVE = 0.5

# --- Reading a face (vision.face) ---
# A die is read resampled to this side (px): pips are then 5-10 px across.
FACE_PX = 40
# The crop around a die, in die sides: room for a finder's centre to be off.
CROP = 1.6
# The face's colour is the median within this radius of the centre (sides):
# pips cover well under half of it on any face.
FACE_SAMPLE = 0.3
# Hue and saturation count this much more than lightness in telling a pip
# from its face: red pips on a dark marbled die differ mostly in hue.
CHROMA_WEIGHT = 2.5
# Spots narrower than this (sides) survive the top-hat; the table and the
# die's sides, wider, do not.
TOPHAT = 0.3
# Blob scales (sides): from the small pips of a 6 to a large 1.
PIP_SIGMAS = (0.03, 0.045, 0.065, 0.09)
# Blobs weaker than this share of the strongest are not candidates.
PEAK_FLOOR = 0.03
# Candidates within this radius of the finder's centre (sides) belong to the die.
DIE_RADIUS = 0.4
# How many of the strongest blobs may be pips, and how many stronger blobs a
# hypothesis may pass over (a glint, a neighbour's pip).
CANDIDATES = 8
SKIP_MAX = 1
# How far a layout's centre may be from the finder's centre (sides); a lone
# pip must be nearer, as a 1 sits in the middle.
CENTRE_MAX = 0.3
CENTRE_1 = 0.22
# A slanted face's grid may be this much longer one way than the other.
SLANT_MAX = 1.8
# The pip grid's step (sides): dice put their pips 0.2-0.33 of a side apart.
STEP_RANGE = (0.12, 0.42)
# Log-strength spread of one face's pips, and where (below the pips' level)
# the blobs that are not pips lie, with the share of strays allowed anywhere.
PIP_SPREAD = 0.35
NOISE_LEVEL = -2.0
NOISE_SPREAD = 0.6
STRAY = 0.01
# Light falling unevenly across a face: how much the log-strength of four or
# more pips may change across one side (spread of a prior on the slope).
LIGHT_SLOPE = 0.875
# The lead of a value no other value could explain at all (log-likelihood).
LEAD_ALONE = 10.0
# Spread of the pips' distance from the layout (grid steps).
FIT_SPREAD = 0.12
# Sizes (times the finder's) a face is read at; the value most of them give wins.
SIZES = (1.0, 0.85, 1.18)
# ... unless the first size reads the value the verifier sees with at least this
# probability, leading the next value by this much: the other sizes would agree.
SETTLED_SEEN = 0.8
SETTLED_LEAD = 2.0
# A face the verifier sees as another value with at least this probability is read
# again at these larger sizes; a reading of the verifier's value there stands instead
# (it must be found in the pips, so a verifier less than sure may ask for it).
SEEN_LARGER = 0.85
LARGER = (1.3, 1.45)
# Failing that, with the verifier at least this sure, a reading of its value at the first
# sizes stands, the pip grid's step allowed down to this (share of the side): a die seen at
# a slant, its side in the finder's spot, shows a face smaller than the spot (a finer grid
# fits more spots, so only a sure verifier may ask for it).
SEEN_OTHER = 0.9
DOUBTED_STEP = 0.09
# A face whose pips centre this far from the finder's centre (sides) is read again around them.
RECENTRE = 0.08

# --- Reporting (vision.reader) ---
# Readings less likely than this to be a die at all are not reported (print,
# crumbs, a tray's feet); the rest are, however unsure their value.
DIE_MIN = 0.5
# A spot found past its level's octave that is less sharp than this share of
# the median sharpness of at least two other dice (each at least SURE_DIE likely
# a die) is not reported: dice at rest in one frame are about as sharp as each other.
SOFT = 0.45
SURE_DIE = 0.9
# Spots on a larger spot's face, under this share of its side, are either its
# pips seen on a finer level (when they sit on the pips its reading found,
# within PIP_MATCH of its side) or dice of their own (and the large spot a
# cluster of them seen whole).
INNER = 0.6
PIP_MATCH = 0.12
# A pip seen as a spot is at most this share of its die's side.
PIP_SIZE = 0.3
# Spots on a larger spot's reading's pips are its pips only under this share of
# its side: two or three dice side by side read as one large die's 2 or 3 lie on
# its "pips" too, each about half its side (a pip's spot is at most a third).
PIP_SPOT = 0.4
# A larger spot read at least this likely right is one die whatever spots inside it
# read unsure (its half or its pips read as a die); dice lying together read sure on
# their own. Less sure, a slanted die's side face is as likely what it read.
WHOLE_SURE = 0.9
# Spots the finder is less sure than this are a die are not read at all.
FINDER_MIN = 0.3
# ... unless a calibrated table knows dice are missing: then spots of the size
# expected where they lie are read down to the least heat the finder marks.
SECOND_LOOK = PEAK_MIN
# When a roll reads as many dice sure as were thrown, an unsure reading is dropped unless the
# views together make a die there at least this likely: a real die read unsure still refuses.
EXTRA_DIE = 0.5
# Nor are spots the face verifier sees no readable top face in with this
# probability: on photos it never trained on, none of them was graded a sure die.
NO_FACE = 0.9
# Those it sees no face in at this are not read either (counting pips is the costly
# step), though they still count as faces against the small dice looked at whole: on
# the train photos, none of the spots it doubted so was read as a sure die.
FACE_DOUBTED = 0.6
# A die the finder marks as spots of its own (a small die's pip columns or halves, a
# large die's pips), none with a face: neighbours within this many sides of each
# other, of sides within this ratio, are looked at whole, if the square holding them
# is at most this many of their sides (a die's halves span two, a 6's columns about
# two, a 2's two pips on a 60 px die about 2.8 apart and 4.4 across with the growth
# below), and at most WHOLE_USUAL times the side of the frame's dice where two or
# more are read (spots scattered over a corner of a frame are no die three times theirs).
WHOLE_REACH = 3.0
WHOLE_LIKE = 1.5
WHOLE_MOST = 4.6
WHOLE_USUAL = 2.0
# Spots sit on the pips, inside the face's edge: the square holding them is grown by this.
WHOLE_GROW = 1.15
# A lone such spot is a 1's pip (about a third of its die, a fifth at 44-60 px) or a
# die's middle: its die, tried at these many of its sides around it, is taken only
# if the verifier is this sure it shows a face (a lone spot is as often a speck of
# the table, and an unsure reading there would refuse the roll).
WHOLE_ONE = (2.2, 3.0, 4.4)
WHOLE_ONE_DOUBT = 0.1
# A spot read as no die, or unsure with no rule capping it, where the verifier sees no face
# at most this likely, is read once more at this many times its side; a sure reading there
# stands for no die, or for an unsure reading of its value that the verifier sees too: the
# finder sizes a small die small now and then, its outer pips then out of the counter's reach.
SMALL_FACE = 0.2
SMALL_GROW = 1.3

# --- Grading (vision.confidence) ---
# The least the face verifier must give the value the pips read for it to stand undisputed,
# and the most a disputed reading is graded: with a table's three views averaged, two
# disputed views and one sure one stay under the 0.6 a roll needs.
BACKED = 0.4
DISPUTED = 0.2
# A reading is disputed too where the verifier rates a higher value at more than this share
# of the value read: the count may have missed pips.
MORE_SEEN = 0.8
# A side face read in place of the top (``confidence.side_face``): the top face's pip lies
# above the read pips by more than this share of a face, is at least this strong against
# them, the read pips lie this share of the spot below its middle, and are this many or more
# (a die seen so slanted that its top is a sliver shows its front face whole; fewer pips,
# or a blob above them that is weaker, are as often a die's rim, print or a neighbour's pip).
ABOVE_GAP = 0.1
SIDE_ABOVE = 0.8
SIDE_LOW = 0.08
SIDE_PIPS = 4
# A 2 is disputed where the verifier sees a 3 at THREE_SEEN, or at THREE_DOUBT with a blob at
# the 2's middle of CENTRE_SEEN of its pips' strength (within CENTRE_REACH face pixels): a 3
# with a faint middle pip.
THREE_SEEN = 0.25
THREE_DOUBT = 0.05
CENTRE_SEEN = 0.15
CENTRE_REACH = 2

# --- A fixed camera's dice sizes (vision.calibration) ---
# Readings at least this likely right teach the model; a sure die that is wrong
# now and then is left out by the fit itself.
CALIBRATE_SURE = 0.9
# Dice before a model is fitted at all; before a plane (perspective) is; before
# a lens's radial term is: a term each needs dice spread over the frame.
CALIBRATE_MIN_DICE = 8
PLANE_MIN_DICE = 15
LENS_MIN_DICE = 30
# The dice a camera's model rests on: the latest ones, so it follows slow changes.
CALIBRATE_KEEP = 300
# A term is kept only when the fit's spread falls below this share of the simpler one's.
MORE_TERMS_GAIN = 0.85
# Dice further from the fit than this many spreads are the odd wrong reading.
OUTLIER_SPREADS = 3.0
# The least spread a fit is credited with (log side): finder sizes of one die vary so.
SPREAD_FLOOR = 0.04
# A spot is a die's size where it lies within this many spreads of the model,
# and never less than this (log side, about 25%): a die cocked or seen at the
# frame's edge shows a little larger or smaller.
SIZE_SPREADS = 3.0
SIZE_TOLERANCE = 0.22
# Frames running whose sure dice mostly do not fit before the model is forgotten.
MISFITS_TO_FORGET = 2
# Uncalibrated, a roll short of dice is looked at again at the size of its own sure
# dice when this many show it (one alone may be a cluster or a pip read as a die).
OWN_SIZE_DICE = 2

# --- What the table's dice look like (vision.looks) ---
# A die's box holds its face within about 0.45 of its side from the middle: its
# colours are taken within this reach, its face's from the middle (a pip there
# is outweighed), its pips' from this share of the pixels most unlike the face
# (a 1's one pip covers about 6% of the reach, a 6's six about a fifth).
LOOK_REACH = 0.42
LOOK_FACE = 0.3
LOOK_PIPS = 0.04
# Faces within this distance (8-bit CIELAB) are one kind of die; a kind shown by
# fewer dice than this is a misread or a die held up, not one of the table's.
LOOK_APART = 30.0
LOOK_LEAST = 3
