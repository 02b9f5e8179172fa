"""Scoring dice readings against labelled photos.

The same figures as the dataset's own scoring tool: a reading matches a
labelled die when its centre lies inside the label's box grown by 25% on each
side; each label matches at most one reading, nearest centre first.
"""

from __future__ import annotations

from collections import Counter
from typing import Any


def _centre(d: dict[str, Any]) -> tuple[float, float]:
    if "center" in d:
        return float(d["center"][0]), float(d["center"][1])
    x0, y0, x1, y1 = d["box"]
    return (x0 + x1) / 2, (y0 + y1) / 2


def score(labels: dict[str, Any], preds: dict[str, Any]) -> dict[str, Any]:
    """Score predictions ``{name: [{"value", "box"}, ...]}`` against labels."""
    n_gt = n_pred = matched = right = img_ok = 0
    per_value: Counter[int] = Counter()
    per_value_ok: Counter[int] = Counter()
    failures = []
    misread = []
    for name, lab in sorted(labels.items()):
        p = preds.get(name, [])
        if isinstance(p, dict):
            p = p.get("dice", [])
        pv = Counter(int(d["value"]) for d in p)
        if "dice" in lab:
            gt = lab["dice"]
            gv = Counter(int(d["value"]) for d in gt)
            n_gt += len(gt)
            n_pred += len(p)
            pairs = []
            for i, g in enumerate(gt):
                x0, y0, x1, y1 = g["box"]
                mx, my = (x1 - x0) * 0.25, (y1 - y0) * 0.25
                gx, gy = _centre(g)
                for j, d in enumerate(p):
                    cx, cy = _centre(d)
                    if x0 - mx <= cx <= x1 + mx and y0 - my <= cy <= y1 + my:
                        pairs.append(((cx - gx) ** 2 + (cy - gy) ** 2, i, j))
            used_g: set[int] = set()
            used_p: set[int] = set()
            for _, i, j in sorted(pairs):
                if i in used_g or j in used_p:
                    continue
                used_g.add(i)
                used_p.add(j)
                matched += 1
                v = int(gt[i]["value"])
                per_value[v] += 1
                if int(p[j]["value"]) == v:
                    right += 1
                    per_value_ok[v] += 1
                else:
                    misread.append((name, v, int(p[j]["value"]), list(gt[i]["box"])))
            for i, g in enumerate(gt):
                if i not in used_g:
                    misread.append((name, int(g["value"]), None, list(g["box"])))
            for j, d in enumerate(p):
                if j not in used_p:
                    misread.append((name, None, int(d["value"]), list(d.get("box", d.get("center", [])))))
        else:
            gv = Counter(int(v) for v in lab["values"])
            n_gt += sum(gv.values())
            n_pred += sum(pv.values())
            common = sum((gv & pv).values())
            matched += min(sum(gv.values()), sum(pv.values()))
            right += common
            for v, c in gv.items():
                per_value[v] += c
                per_value_ok[v] += min(c, pv[v])
        if gv == pv:
            img_ok += 1
        else:
            failures.append((name, sorted(gv.elements()), sorted(pv.elements())))
    return {
        "images": len(labels),
        "labelled_dice": n_gt,
        "predicted_dice": n_pred,
        "recall": matched / n_gt if n_gt else 1.0,
        "precision": matched / n_pred if n_pred else 1.0,
        "value_accuracy": right / matched if matched else 0.0,
        "die_accuracy": right / n_gt if n_gt else 1.0,
        "image_accuracy": img_ok / len(labels) if labels else 1.0,
        "per_value_accuracy": {v: per_value_ok[v] / per_value[v] for v in sorted(per_value)},
        "failures": failures,
        "misread": misread,
    }


def summary_line(r: dict[str, Any]) -> str:
    """The one-line summary, worded as the dataset's scoring tool words it."""
    return (
        f"images {r['images']} dice {r['labelled_dice']} predicted {r['predicted_dice']} | "
        f"recall {r['recall']:.3f} precision {r['precision']:.3f} value_acc {r['value_accuracy']:.3f} "
        f"die_acc {r['die_accuracy']:.3f} image_acc {r['image_accuracy']:.3f}"
    )
