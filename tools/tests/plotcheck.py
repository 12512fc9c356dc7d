#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the layout of iotracectl plot's SVG images with librsvg's own
geometry of each element (the boxes it renders them in, not where the
SVG's coordinates say they should be):

  - no two text elements' boxes overlap;
  - every legend swatch (id "sw-N") sits beside its label ("lg-N"): on
    its line, ending at most 12 px before it, no other label nearer;
  - no legend label, title or axis title lies on a plot area (the frames:
    <rect fill="none" stroke="#000">);
  - everything drawn is inside the canvas;
  - no text is in scientific notation (7e+04).

  plotcheck.py FILE.svg...   exit 0, or 1 with what is wrong on stderr

Needs Debian's python3-gi and gir1.2-rsvg-2.0 (exit 2 without them).
"""
import re
import sys
import xml.etree.ElementTree as ET

try:
    import gi
    gi.require_version("Rsvg", "2.0")
    from gi.repository import Rsvg
except (ImportError, ValueError) as e:
    print("plotcheck: no librsvg for python (python3-gi, "
          "gir1.2-rsvg-2.0): %s" % e, file=sys.stderr)
    sys.exit(2)

NS = "{http://www.w3.org/2000/svg}"
EPS = 0.5       # boxes that touch within this are not an overlap


def box(h, vp, eid, ink=True):
    """The box librsvg draws element @eid in: its ink, or (@ink false)
    its logical extents (2.54's ink box of a line is wrong: it takes in
    the origin of its group; its logical box is the line's)."""
    ok, i, lo = h.get_geometry_for_layer("#" + eid, vp)
    if not ok:
        return None
    r = i if ink else lo
    return (r.x, r.y, r.x + r.width, r.y + r.height)


def overlap(a, b):
    return (min(a[2], b[2]) - max(a[0], b[0]) > EPS and
            min(a[3], b[3]) - max(a[1], b[1]) > EPS)


def check(path):
    errs = []
    root = ET.parse(path).getroot()
    # the frames of the plot areas (<rect fill="none" stroke="#000">)
    # and any text without an id get one, in a copy that librsvg reads
    anon = 0
    for el in root.iter(NS + "text"):
        if not el.get("id"):
            anon += 1
            el.set("id", "anon-%d" % anon)
    if anon:
        errs.append("%d text elements without an id" % anon)
    nf = 0
    for el in root.iter(NS + "rect"):
        if el.get("fill") == "none" and el.get("stroke") == "#000":
            nf += 1
            el.set("id", "frame-%d" % nf)
    h = Rsvg.Handle.new_from_data(ET.tostring(root))
    ok, w, ht = h.get_intrinsic_size_in_pixels()
    vp = Rsvg.Rectangle()
    vp.x, vp.y, vp.width, vp.height = 0, 0, w, ht
    texts = {}
    for el in root.iter(NS + "text"):
        eid = el.get("id")
        content = "".join(el.itertext())
        b = box(h, vp, eid)
        if b is None:
            errs.append("%s: no geometry" % eid)
            continue
        texts[eid] = (b, content)
    frames = [box(h, vp, "frame-%d" % k) for k in range(1, nf + 1)]
    ids = sorted(texts)
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            if overlap(texts[a][0], texts[b][0]):
                errs.append("overlap: %s %r %s and %s %r %s" %
                            (a, texts[a][1], fmt(texts[a][0]),
                             b, texts[b][1], fmt(texts[b][0])))
    # legends
    labels = {k: v for k, v in texts.items() if k.startswith("lg-")}
    swatches = [el.get("id") for el in root.iter()
                if (el.get("id") or "").startswith("sw-")]
    for sw in swatches:
        lg = "lg-" + sw[3:]
        s = box(h, vp, sw, False)
        if lg not in labels:
            errs.append("%s: no label %s" % (sw, lg))
            continue
        lb = labels[lg][0]
        cy = (s[1] + s[3]) / 2
        gap = lb[0] - s[2]
        if not (lb[1] <= cy <= lb[3]) or not (0 <= gap <= 12):
            errs.append("%s %s not beside its label %s %r %s" %
                        (sw, fmt(s), lg, labels[lg][1], fmt(lb)))
        for k, (b, c) in labels.items():
            if k != lg and b[1] <= cy <= b[3] and \
               s[2] <= b[0] < lb[0]:
                errs.append("%s: %s %r between it and %s" % (sw, k, c, lg))
    # what is not data stays off the plot areas
    for k, (b, c) in texts.items():
        # (a text without an id too: what it is is not known)
        if k.split("-")[0] in ("lg", "title", "axis", "hdr", "tick",
                               "anon"):
            for f in frames:
                inner = (f[0] + 1, f[1] + 1, f[2] - 1, f[3] - 1)
                if overlap(b, inner):
                    errs.append("%s %r %s on the plot area %s" %
                                (k, c, fmt(b), fmt(f)))
        if re.search(r"\d[eE][-+]?\d", c):
            errs.append("%s %r: scientific notation" % (k, c))
    # the canvas
    ok, ink, logical = h.get_geometry_for_layer(None, vp)
    if ink.x < -EPS or ink.y < -EPS or ink.x + ink.width > w + EPS or \
       ink.y + ink.height > ht + EPS:
        errs.append("drawn outside the canvas %gx%g: %s" %
                    (w, ht, fmt((ink.x, ink.y, ink.x + ink.width,
                                 ink.y + ink.height))))
    for k, (b, c) in texts.items():
        if b[0] < -EPS or b[1] < -EPS or b[2] > w + EPS or b[3] > ht + EPS:
            errs.append("%s %r %s outside the canvas %gx%g" %
                        (k, c, fmt(b), w, ht))
    if not texts:
        errs.append("no text")
    return errs


def fmt(b):
    return "(%.0f,%.0f)-(%.0f,%.0f)" % tuple(b)


def main():
    bad = 0
    for path in sys.argv[1:]:
        errs = check(path)
        for e in errs[:30]:
            print("%s: %s" % (path, e), file=sys.stderr)
        if len(errs) > 30:
            print("%s: ... %d more" % (path, len(errs) - 30),
                  file=sys.stderr)
        bad |= bool(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
