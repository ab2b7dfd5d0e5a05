"""SVG bar charts for side_by_side.py, written by hand (no plotting stack).

Two panels: throughput (median req/s) and server CPU time per request (median
µs), one group of bars per workload, one bar per configuration. The floor
servers' bars sit in the same groups for the PING workloads, so the distance
of every configuration to the physical floor is visible at a glance.
"""
import statistics

COLORS = ["#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f", "#8cd17d", "#e15759",
          "#79706e", "#bab0ac"]


def _median(results, name, load, key):
    vals = [r[name]["workloads"][load][key] for r in results if load in r[name]["workloads"]]
    return statistics.median(vals) if vals else None


def _label(v):
    return f"{v / 1000:,.0f}k" if v >= 10_000 else f"{v:,.3g}"


def _panel(y0, title, results, groups, names, key, unit, width):
    values = {(g, n): _median(results, n, g, key) for g in groups for n in names}
    top = max((v for v in values.values() if v), default=1.0) * 1.1
    height, left, bar = 180, 70, max(3, (width - 90) // (len(groups) * (len(names) + 1)))
    out = [f'<text x="{left}" y="{y0 + 16}" font-size="14" font-weight="bold">{title}</text>']
    base = y0 + 30 + height
    out.append(f'<line x1="{left}" y1="{base}" x2="{width - 10}" y2="{base}" stroke="#333"/>')
    for tick in range(5):
        v = top * tick / 4
        y = base - height * tick / 4
        out.append(f'<text x="{left - 6}" y="{y + 4:.0f}" font-size="10" text-anchor="end">{_label(v)}</text>')
        out.append(f'<line x1="{left}" y1="{y:.0f}" x2="{width - 10}" y2="{y:.0f}" stroke="#eee"/>')
    x = left + bar // 2
    for g in groups:
        gx = x
        for i, n in enumerate(names):
            v = values[(g, n)]
            if v:
                h = height * v / top
                out.append(f'<rect x="{x}" y="{base - h:.1f}" width="{bar - 1}" height="{h:.1f}" '
                           f'fill="{COLORS[i % len(COLORS)]}"><title>{n} {g}: {v:,.3f} {unit}</title></rect>')
            x += bar
        out.append(f'<text x="{(gx + x) / 2:.0f}" y="{base + 14}" font-size="10" text-anchor="middle">{g}</text>')
        x += bar
    return out, base + 24


def write_svg(path, results, loads, names, width=1400):
    """Four panels: throughput and server CPU per request, at pipeline 1 and 16.
    In the PING groups the floor servers' bars show the kernel's share."""
    body, y = [], 0
    for key, title, unit in (("rps", "Throughput (median requests/s, higher is better)", "req/s"),
                             ("server_cpu_us_per_req", "Server CPU per request (median µs, lower is better)", "µs")):
        for pipeline in ("P1", "P16"):
            groups = [w[0] for w in loads if w[0].endswith(" " + pipeline)]
            if not groups:  # --workloads left this depth out
                continue
            panel, y = _panel(y + 10, f"{title}, pipeline {pipeline[1:]}", results, groups, names, key, unit, width)
            body += panel
    for i, n in enumerate(names):
        lx = 70 + (i % 5) * 240
        ly = y + 16 + (i // 5) * 18
        body.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{COLORS[i % len(COLORS)]}"/>')
        body.append(f'<text x="{lx + 18}" y="{ly}" font-size="12">{n}</text>')
    total = y + 30 + 18 * ((len(names) + 4) // 5)
    with open(path, "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total}" '
                f'font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n')
        f.write("\n".join(body))
        f.write("\n</svg>\n")
