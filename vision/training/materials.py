"""What dice are made of: Mitsuba BSDFs for a die's body and its pips, drawn at random.

A body is opaque plastic of any colour, pearl, marbled, translucent, wood or metal; pips are
painted black, white, red, gold or any colour, or left bare (the cavity's shadow shows them).
Grain and marbling vary through the die, so they are given per vertex (``vertex_color``).
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

import numpy as np

BODIES = ("plastic", "pearl", "marbled", "translucent", "wood", "metal")
BODY_WEIGHTS = (0.4, 0.1, 0.12, 0.18, 0.1, 0.1)
PIPS = ("black", "white", "red", "gold", "any", "bare")


@dataclass
class Look:
    """A die's materials: Mitsuba dicts for the body and the pips, and the body's vertex colours
    (None when the body is one colour). ``pip_contrast`` is +1 when the pips are lighter than
    the body, -1 when darker, 0 when bare or too alike to say."""

    body: str
    pips: str
    body_bsdf: dict
    pip_bsdf: dict
    vertex_colors: np.ndarray | None
    pip_contrast: int


def _hsv(h: float, s: float, v: float) -> np.ndarray:
    return np.array(colorsys.hsv_to_rgb(h % 1.0, s, v), float)


def _srgb_to_linear(c: np.ndarray) -> np.ndarray:
    c = np.clip(np.asarray(c, float), 0, 1)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _rgb(c: np.ndarray) -> dict:
    return {"type": "rgb", "value": [float(v) for v in _srgb_to_linear(c)]}


def _luma(c: np.ndarray) -> float:
    return float(np.asarray(c) @ np.array([0.299, 0.587, 0.114]))


def _swirl(rng: np.random.Generator, points: np.ndarray, freq: float, waves: int = 6) -> np.ndarray:
    """A smooth random field over die coordinates: a sum of sine waves in random directions."""
    out = np.zeros(len(points))
    for k in range(waves):
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        out += np.sin(points @ d * freq * (1 + k) + rng.uniform(0, 2 * np.pi)) / (1 + k)
    return out


def draw_look(rng: np.random.Generator, points: np.ndarray) -> Look:
    """Materials for one die whose vertices (die coordinates, one unit across) are ``points``."""
    body = str(rng.choice(BODIES, p=BODY_WEIGHTS))
    hue = rng.random()
    colors = None
    if body == "plastic":
        base = _hsv(hue, rng.uniform(0, 1) ** 0.7, rng.uniform(0.08, 0.97))
        if rng.random() < 0.3:  # white or black dice are common
            base = np.full(3, rng.choice([rng.uniform(0.85, 0.97), rng.uniform(0.03, 0.12)]))
        bsdf = {
            "type": "principled",
            "base_color": _rgb(base),
            "roughness": float(rng.uniform(0.05, 0.5)),
            "clearcoat": float(rng.uniform(0, 1)),
        }
    elif body in ("pearl", "marbled"):
        a = _hsv(hue, rng.uniform(0.05, 0.8), rng.uniform(0.3, 0.95))
        b = _hsv(hue + rng.uniform(-0.3, 0.3), rng.uniform(0.0, 0.6), rng.uniform(0.5, 1.0))
        field = _swirl(rng, points, rng.uniform(4, 12) if body == "marbled" else rng.uniform(1.5, 4))
        t = 0.5 + 0.5 * np.sin(field * (3.0 if body == "marbled" else 1.2))
        colors = _srgb_to_linear(a[None] * (1 - t[:, None]) + b[None] * t[:, None])
        base = (a + b) / 2
        bsdf = {
            "type": "principled",
            "base_color": {"type": "mesh_attribute", "name": "vertex_color"},
            "roughness": float(rng.uniform(0.1, 0.4)),
            "sheen": float(rng.uniform(0.4, 1.0)) if body == "pearl" else 0.0,
            "clearcoat": float(rng.uniform(0.3, 1.0)),
        }
    elif body == "translucent":
        base = _hsv(hue, rng.uniform(0.1, 0.9), rng.uniform(0.6, 1.0))
        bsdf = {
            "type": "principled",
            "base_color": _rgb(base),
            "spec_trans": float(rng.uniform(0.7, 1.0)),
            "roughness": float(rng.uniform(0.02, 0.35)),
            "eta": 1.49,
        }
    elif body == "wood":
        light = _hsv(rng.uniform(0.05, 0.11), rng.uniform(0.3, 0.7), rng.uniform(0.4, 0.85))
        dark = light * rng.uniform(0.4, 0.75)
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        radial = np.linalg.norm(points - np.outer(points @ axis, axis), axis=1)
        rings = np.sin((radial * rng.uniform(20, 50) + 0.4 * _swirl(rng, points, 3)) * np.pi)
        t = 0.5 + 0.5 * rings
        colors = _srgb_to_linear(light[None] * (1 - t[:, None]) + dark[None] * t[:, None])
        base = (light + dark) / 2
        bsdf = {
            "type": "principled",
            "base_color": {"type": "mesh_attribute", "name": "vertex_color"},
            "roughness": float(rng.uniform(0.4, 0.8)),
        }
    else:  # metal
        base = [
            np.array([0.95, 0.78, 0.35]),  # gold, brass
            np.array([0.92, 0.92, 0.9]),  # silver, steel
            np.array([0.9, 0.55, 0.4]),  # copper
            np.array([0.35, 0.35, 0.38]),  # gunmetal
        ][int(rng.integers(0, 4))]
        bsdf = {
            "type": "principled",
            "base_color": _rgb(base),
            "metallic": 1.0,
            "roughness": float(rng.uniform(0.15, 0.5)),
        }

    pips = str(rng.choice(PIPS, p=(0.32, 0.28, 0.08, 0.07, 0.1, 0.15)))
    if pips == "bare":
        return Look(body, pips, bsdf, dict(bsdf), colors, 0)
    pip = {
        "black": np.full(3, 0.03),
        "white": np.full(3, 0.93),
        "red": np.array([0.75, 0.05, 0.05]),
        "gold": np.array([0.95, 0.75, 0.3]),
        "any": _hsv(rng.random(), rng.uniform(0.3, 1), rng.uniform(0.1, 1)),
    }[pips]
    # Pips that would vanish into their die are painted the other way.
    if abs(_luma(pip) - _luma(base)) < 0.3 and body != "metal":
        pip = np.full(3, 0.03) if _luma(base) > 0.5 else np.full(3, 0.93)
        pips = "black" if _luma(base) > 0.5 else "white"
    pip_bsdf = {"type": "principled", "base_color": _rgb(pip), "roughness": float(rng.uniform(0.3, 0.8))}
    if pips == "gold":
        pip_bsdf["metallic"] = 1.0
    contrast = 0 if body == "metal" or pips == "gold" else (1 if _luma(pip) > _luma(base) else -1)
    return Look(body, pips, bsdf, pip_bsdf, colors, contrast)
