"""NumPy references for the image ops (tests/ops/test_image_*.py), written from TensorFlow's
definitions: per-axis weight matrices for the resizes, loops for crops, boxes and patches,
Python's colorsys for the hue and saturation adjustments."""

from __future__ import annotations

import colorsys
import math

import numpy as np

F = np.float32


def _scale(i, o, ac):
    return F(i - 1) / F(o - 1) if ac and o > 1 else F(i) / F(o)


def _cubic_table(a):
    x = np.arange(1025, dtype=F) / F(1024)
    t0 = ((F(a) + 2) * x - (F(a) + 3)) * x * x + 1
    x1 = x + F(1)
    t1 = ((F(a) * x1 - 5 * F(a)) * x1 + 8 * F(a)) * x1 - 4 * F(a)
    return t0, t1


def _cubic_weights(out, inp, ac, hp):
    """[out, inp]: the bicubic taps of each output position (TensorFlow's table and bounds)."""
    t0, t1 = _cubic_table(-0.5 if hp else -0.75)
    s = _scale(inp, out, ac)
    w = np.zeros((out, inp), np.float64)
    for i in range(out):
        loc = (F(i) + F(0.5)) * s - F(0.5) if hp else F(i) * s
        base = math.floor(loc)
        off = int(np.rint(F(loc - F(base)) * F(1024)))
        ws = [t1[off], t0[off], t0[1024 - off], t1[1024 - off]]
        idx = [min(max(base - 1 + k, 0), inp - 1) for k in range(4)]
        if hp:
            ws = [wk if idx[k] == base - 1 + k else 0.0 for k, wk in enumerate(ws)]
            total = sum(ws)
            ws = [wk / total for wk in ws]
        for k in range(4):
            w[i, idx[k]] += ws[k]
    return w


def bicubic(x, size, ac=False, hp=False):
    wy = _cubic_weights(size[0], x.shape[1], ac, hp)
    wx = _cubic_weights(size[1], x.shape[2], ac, hp)
    return np.einsum("yi,xj,bijc->byxc", wy, wx, x.astype(np.float64)).astype(F)


def _area_weights(out, inp, ac):
    s = _scale(inp, out, ac)
    w = np.zeros((out, inp), np.float64)
    for i in range(out):
        lo, hi = F(i) * s, F(i + 1) * s
        for j in range(math.floor(lo), math.ceil(hi)):
            cover = min(j + 1, hi) - max(j, lo)
            w[i, min(max(j, 0), inp - 1)] += cover
    return w / float(s)


def area(x, size, ac=False):
    wy, wx = _area_weights(size[0], x.shape[1], ac), _area_weights(size[1], x.shape[2], ac)
    return np.einsum("yi,xj,bijc->byxc", wy, wx, x.astype(np.float64)).astype(F)


def crop_and_resize(image, boxes, ind, crop, method="bilinear", extrapolation=0.0):
    _, h, w, d = image.shape
    out = np.full((len(boxes), crop[0], crop[1], d), extrapolation, np.float64)

    def coords(lo, hi, extent, n):
        if n == 1:
            return [0.5 * (lo + hi) * (extent - 1)]
        return [lo * (extent - 1) + k * (hi - lo) * (extent - 1) / (n - 1) for k in range(n)]

    for b, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float64)):
        im = image[ind[b]].astype(np.float64)
        for i, yy in enumerate(coords(y1, y2, h, crop[0])):
            if yy < 0 or yy > h - 1:
                continue
            for j, xx in enumerate(coords(x1, x2, w, crop[1])):
                if xx < 0 or xx > w - 1:
                    continue
                if method == "nearest":
                    out[b, i, j] = im[int(math.floor(yy + 0.5)), int(math.floor(xx + 0.5))]
                    continue
                t, bt, ly = math.floor(yy), math.ceil(yy), yy - math.floor(yy)
                le, r, lx = math.floor(xx), math.ceil(xx), xx - math.floor(xx)
                top = im[t, le] + (im[t, r] - im[t, le]) * lx
                bot = im[bt, le] + (im[bt, r] - im[bt, le]) * lx
                out[b, i, j] = top + (bot - top) * ly
    return out.astype(F)


def rgb_to_hsv(x):
    x = x.astype(np.float64)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = x.max(-1)
    d = v - x.min(-1)
    s = np.where(v > 0, d / np.where(v > 0, v, 1), 0)
    safe = np.where(d > 0, d, 1)
    h = np.where(r == v, (g - b) / safe, np.where(g == v, (b - r) / safe + 2, (r - g) / safe + 4)) / 6
    h = np.where(d > 0, h, 0)
    h = np.where(h < 0, h + 1, h)
    return np.stack([h, s, v], -1)


def hsv_to_rgb(x):
    x = x.astype(np.float64)
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    dh = h * 6
    ch = [np.clip(np.abs(dh - 3) - 1, 0, 1), np.clip(2 - np.abs(dh - 2), 0, 1), np.clip(2 - np.abs(dh - 4), 0, 1)]
    return np.stack([((1 - s) + s * c) * v for c in ch], -1)


def adjust_contrast(x, factor):
    x = x.astype(np.float64)
    mean = x.mean(axis=(-3, -2), keepdims=True)
    return (x - mean) * factor + mean


def _per_pixel(x, f):
    flat = x.reshape(-1, 3).astype(np.float64)
    return np.asarray([f(*p) for p in flat]).reshape(x.shape)


def adjust_hue(x, delta):
    def f(r, g, b):
        h, s, v = colorsys.rgb_to_hsv(r, g, b)
        return colorsys.hsv_to_rgb((h + delta) % 1.0, s, v)
    return _per_pixel(x, f)


def adjust_saturation(x, scale):
    def f(r, g, b):
        h, s, v = colorsys.rgb_to_hsv(r, g, b)
        return colorsys.hsv_to_rgb(h, min(1.0, max(0.0, s * scale)), v)
    return _per_pixel(x, f)


def iou(a, b):
    ay0, ay1, ax0, ax1 = min(a[0], a[2]), max(a[0], a[2]), min(a[1], a[3]), max(a[1], a[3])
    by0, by1, bx0, bx1 = min(b[0], b[2]), max(b[0], b[2]), min(b[1], b[3]), max(b[1], b[3])
    aa, ab = (ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0)
    if aa <= 0 or ab <= 0:
        return 0.0
    inter = max(min(ay1, by1) - max(ay0, by0), 0) * max(min(ax1, bx1) - max(ax0, bx0), 0)
    return inter / (aa + ab - inter)


def non_max_suppression(boxes, scores, max_out, iou_threshold, score_threshold=-np.inf, sigma=0.0, overlaps=None):
    """TensorFlow's greedy NMS (hard, or Soft-NMS with sigma > 0): (indices, scores at selection)."""
    sim = (lambda i, j: overlaps[i][j]) if overlaps is not None else (lambda i, j: iou(boxes[i], boxes[j]))
    queue = [(-float(scores[i]), i, float(scores[i]), 0) for i in range(len(scores)) if scores[i] > score_threshold]
    keep, kept_scores = [], []
    while queue and len(keep) < max_out:
        queue.sort()
        _, i, score, begin = queue.pop(0)
        original, hard = score, False
        for j in range(len(keep) - 1, begin - 1, -1):
            s = sim(i, keep[j])
            score *= np.float32(np.exp(np.float32(-0.5 / sigma) * s * s)) if sigma > 0 else (
                1.0 if s <= iou_threshold else 0.0)
            if sigma <= 0 and s > iou_threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            keep.append(i)
            kept_scores.append(score)
        elif score > score_threshold:
            queue.append((-score, i, score, len(keep)))
    return np.asarray(keep, np.int32), np.asarray(kept_scores, np.float32)


def extract_patches(x, k, s, r, padding):
    b, h, w, c = x.shape
    eh, ew = k[1] + (k[1] - 1) * (r[1] - 1), k[2] + (k[2] - 1) * (r[2] - 1)
    if padding == "SAME":
        oh, ow = -(-h // s[1]), -(-w // s[2])
        pt, pl = max(0, (oh - 1) * s[1] + eh - h) // 2, max(0, (ow - 1) * s[2] + ew - w) // 2
    else:
        oh, ow, pt, pl = (h - eh) // s[1] + 1, (w - ew) // s[2] + 1, 0, 0
    out = np.zeros((b, oh, ow, k[1] * k[2] * c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            cols = []
            for a in range(k[1]):
                for bb in range(k[2]):
                    y, xx = i * s[1] - pt + a * r[1], j * s[2] - pl + bb * r[2]
                    inside = 0 <= y < h and 0 <= xx < w
                    cols.append(x[:, y, xx] if inside else np.zeros((b, c), x.dtype))
            out[:, i, j] = np.concatenate(cols, -1)
    return out


def extract_volume_patches(x, k, s, padding):
    b, d, h, w, c = x.shape
    sizes = (d, h, w)
    if padding == "SAME":
        out = [-(-n // s[i + 1]) for i, n in enumerate(sizes)]
        pads = [max(0, (o - 1) * s[i + 1] + k[i + 1] - n) // 2 for i, (o, n) in enumerate(zip(out, sizes))]
    else:
        out = [(n - k[i + 1]) // s[i + 1] + 1 for i, n in enumerate(sizes)]
        pads = [0, 0, 0]
    padded = np.pad(x, [(0, 0)] + [(p, k[i + 1] + s[i + 1] * out[i]) for i, p in enumerate(pads)] + [(0, 0)])
    res = np.zeros((b, *out, k[1] * k[2] * k[3] * c), x.dtype)
    for z in range(out[0]):
        for y in range(out[1]):
            for xx in range(out[2]):
                z0, y0, x0 = z * s[1], y * s[2], xx * s[3]
                res[:, z, y, xx] = padded[:, z0:z0 + k[1], y0:y0 + k[2], x0:x0 + k[3]].reshape(b, -1)
    return res
