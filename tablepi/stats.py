"""Are the dice fair? Face counts, a chi-square test against a fair die, how
many dice a test needs before it can tell, and what the figures say in words.

Pure arithmetic over plain numbers (no I/O, no scipy at run time): the table
hands in the dice it has seen.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tablepi.i18n import N_

FACES = 6
FAIR = 1 / FACES
# Below this p-value the counts are called a sign of an unfair die.
SIGNIFICANT = 0.01
# The unfair die a table should be able to spot: one face this often instead of 1/6.
LOADED_SHARE = 0.20
POWER = 0.8


def face_counts(dice: Iterable[int]) -> list[int]:
    """How often each face 1-6 came up; ValueError for anything that is not a face."""
    counts = [0] * FACES
    for value in dice:
        if type(value) is not int or not 1 <= value <= FACES:
            raise ValueError(f"a die shows 1 to 6, not {value!r}")
        counts[value - 1] += 1
    return counts


def upper_gamma(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a)."""
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        # The series for P(a, x) converges quickly here.
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * 1e-16:
            n += 1
            term *= x / n
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front))
    # The continued fraction for Q(a, x) (modified Lentz).
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-16:
            break
    return math.exp(log_front) * h


def chi2_sf(x: float, df: int) -> float:
    """The chance that a chi-square variable with ``df`` degrees of freedom exceeds ``x``."""
    return upper_gamma(df / 2, x / 2)


def chi_square(counts: Sequence[int]) -> tuple[float, float]:
    """Pearson's chi-square statistic of ``counts`` against equal chances, and its p-value."""
    n = sum(counts)
    if n == 0:
        return 0.0, 1.0
    expected = n / len(counts)
    statistic = sum((c - expected) ** 2 for c in counts) / expected
    return statistic, chi2_sf(statistic, len(counts) - 1)


def _chi2_quantile(p: float, df: int) -> float:
    """The x with chi2_sf(x, df) = p (bisection: the function falls monotonically)."""
    lo, hi = 0.0, 1.0
    while chi2_sf(hi, df) > p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if chi2_sf(mid, df) > p else (lo, mid)
    return (lo + hi) / 2


def _noncentral_chi2_sf(x: float, df: int, shift: float) -> float:
    """The chance a noncentral chi-square variable exceeds ``x``: central ones mixed by a Poisson."""
    total, j = 0.0, 0
    weight = math.exp(-shift / 2)
    while True:
        total += weight * chi2_sf(x, df + 2 * j)
        j += 1
        weight *= (shift / 2) / j
        if j > shift / 2 and weight < 1e-15:
            return total


@functools.cache
def dice_needed(share: float = LOADED_SHARE, alpha: float = SIGNIFICANT, power: float = POWER) -> int:
    """How many dice the chi-square test needs to call a die unfair (at ``alpha``)
    with chance ``power`` when one face comes up ``share`` of the time and the
    others equally often."""
    if not FAIR < share < 1:
        raise ValueError(f"share must be above 1/6 and below 1, not {share}")
    others = (1 - share) / (FACES - 1)
    effect = ((share - FAIR) ** 2 + (FACES - 1) * (others - FAIR) ** 2) / FAIR
    critical = _chi2_quantile(alpha, FACES - 1)
    lo, hi = 1, 2
    while _noncentral_chi2_sf(critical, FACES - 1, hi * effect) < power:
        lo, hi = hi, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (
            (mid + 1, hi) if _noncentral_chi2_sf(critical, FACES - 1, mid * effect) < power else (lo, mid)
        )
    return lo


def fairness_words(counts: Sequence[int]) -> str:
    """What the counts say about the dice, in words a table can read."""
    n = sum(counts)
    if n == 0:
        return N_("No dice seen yet.")
    _, p = chi_square(counts)
    needed = dice_needed()
    if p >= SIGNIFICANT:
        if n >= needed:
            return N_("No sign of an unfair die after {n} dice.").format(n=f"{n:,}")
        return N_(
            "No sign of an unfair die after {n} dice. That is too few to spot a die that shows"
            " one face {share} of the time: that takes about {needed}."
        ).format(n=f"{n:,}", share=f"{LOADED_SHARE:.0%}", needed=f"{needed:,}")
    face = max(range(FACES), key=lambda i: abs(counts[i] / n - FAIR))
    sets = 10 ** math.floor(math.log10(1 / p))
    return N_(
        "{face} comes up {share} of the time; a fair die gives {fair};"
        " a fair die does this less than once in {sets} sets of {n} dice."
    ).format(face=face + 1, share=f"{counts[face] / n:.0%}", fair=f"{FAIR:.1%}", sets=f"{sets:,}", n=f"{n:,}")


def binomial_p(hits: int, n: int, chance: float) -> float:
    """Two-sided exact binomial p-value: the chance of an outcome no likelier than ``hits`` of ``n``."""
    if not 0 <= hits <= n:
        raise ValueError("hits must be between 0 and n")
    if chance in (0.0, 1.0):
        return 1.0 if hits == round(chance * n) else 0.0
    # In logs: math.comb(n, k) overflows a float past about 1,030 tries.
    front, win, miss = math.lgamma(n + 1), math.log(chance), math.log1p(-chance)

    def log_pmf(k: int) -> float:
        return front - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * win + (n - k) * miss

    here = log_pmf(hits) + math.log1p(1e-7)
    # Outcomes far less likely than this one add nothing a float can hold to
    # the sum: only the two tails' stretches from where they drop to ``here``
    # down to 50 below it (in logs, e^-50 of it) are summed, a few times sqrt(n) terms, so a
    # regular's thousands of rolls cost no more than a newcomer's dozens.
    low_end = here - 50
    mode = min(n, math.floor((n + 1) * chance))

    def first(lo: int, hi: int, ok) -> int:
        """The first k in [lo, hi] with ok(k), for ok false then true; hi + 1 if none."""
        while lo <= hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid - 1) if ok(mid) else (mid + 1, hi)
        return lo

    # Rising side, 0..mode: the terms at most ``here`` come first, from the low end.
    start = first(0, mode, lambda k: log_pmf(k) >= low_end)
    stop = first(0, mode, lambda k: log_pmf(k) > here)
    total = [math.exp(log_pmf(k)) for k in range(start, stop)]
    # Falling side, mode+1..n: from where it drops to ``here`` until the low end.
    start = first(mode + 1, n, lambda k: log_pmf(k) <= here)
    stop = first(mode + 1, n, lambda k: log_pmf(k) < low_end)
    total += [math.exp(log_pmf(k)) for k in range(start, stop)]
    return min(1.0, math.fsum(total))


def luck_words(name: str, hits: int, n: int, chance: float, what: str = N_("first rolls scored")) -> str:
    """One player's luck: ``hits`` of ``n`` against the exact ``chance``, in words
    that do not over-read a few rolls."""
    if n == 0:
        return N_("{name}: no rolls yet.").format(name=name)
    p = binomial_p(hits, n, chance)
    head = N_("{name}: {hits} of {n} {what} ({share}; any player {chance})").format(
        name=name, hits=hits, n=n, what=what, share=f"{hits / n:.0%}", chance=f"{chance:.0%}"
    )
    if p >= SIGNIFICANT:
        return N_("{head}: within ordinary luck.").format(head=head)
    once = f"{10 ** math.floor(math.log10(1 / p)):,}"
    if hits / n > chance:
        return N_("{head}: luckier than a fair game gives less than once in {once}.").format(
            head=head, once=once
        )
    return N_("{head}: unluckier than a fair game gives less than once in {once}.").format(
        head=head, once=once
    )


def fair_band(n: int) -> tuple[float, float, float]:
    """For ``n`` dice: how often a fair die shows each face, and the range that
    95% of fair dice keep one face's count in (binomial, by the normal
    approximation: n/6 ± 1.96 sqrt(n 1/6 5/6)), as (expected, low, high)."""
    expected = n * FAIR
    spread = 1.96 * math.sqrt(n * FAIR * (1 - FAIR))
    return expected, max(0.0, expected - spread), expected + spread


def summary(
    counts: Sequence[int], firsts: Mapping[str, tuple[int, int]], chance: float, games: int
) -> dict[str, Any]:
    """Everything the statistics show, as plain data: the face ``counts`` of
    the dice thrown in ``games`` games, with the test against a fair die, and
    each player's luck from ``firsts`` (player: (first rolls, how many
    scored)) against the exact ``chance`` of any first roll scoring."""
    n = sum(counts)
    statistic, p = chi_square(counts)
    expected, low, high = fair_band(n)
    return {
        "games": games,
        "dice": n,
        "counts": dict(zip("123456", counts, strict=True)),
        "expected": expected,
        "band": [low, high],
        "chi_square": statistic,
        "p_value": p,
        "dice_needed": dice_needed(),
        "words": fairness_words(counts),
        "luck": [
            {
                "player": name,
                "first_rolls": tries,
                "scored": hits,
                "chance": chance,
                "p_value": binomial_p(hits, tries, chance),
                "words": luck_words(name, hits, tries, chance),
            }
            for name, (tries, hits) in sorted(firsts.items())
            if tries
        ],
    }
