"""The plots of a balance batch, as PNG files (matplotlib, no display).

    winrate.png     win rate of each side with its Wilson 95% interval,
                    per sweep value (a designer reads off the fair bid)
    vp.png          the distribution of each side's final VP
    vp_by_turn.png  mean VP standing at the end of each turn: what each
                    side would score if the game ended then
    awards.png      each side's mean VP a game from each award of the
                    victory rules, with the share of games it paid in (a
                    bonus no game earns stands out as an empty row)
"""
from __future__ import annotations

from pathlib import Path

from .balance import BatchSpec, batch_title, vp_by_turn, wilson

PLOTS = ("winrate.png", "vp.png", "vp_by_turn.png", "awards.png")
COLOURS = ("#b03a2e", "#2e6fb0", "#3a8f4a", "#8a5cb0", "#c08a1e")
MAX_BARS = 200  # the VP histogram: a bar per VP value up to this many values, else 100 bars over the spread


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")  # files only: never a window, works without a display
    import matplotlib.pyplot as plt
    return plt


def write_plots(out: Path, spec: BatchSpec, summary: dict, rows: list[dict]) -> list[Path]:
    """Write the plots into ``out``; returns their paths."""
    plt = _pyplot()
    title = batch_title(summary)
    paths = [out / name for name in PLOTS]
    for path, draw in zip(paths, (_winrate, _vp, _vp_by_turn)):
        fig, ax = plt.subplots(figsize=(7, 4.2), dpi=100)
        draw(ax, spec, summary, rows)
        ax.set_title(title, fontsize=10)
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
    _awards(plt, paths[3], spec, summary, title)
    return paths


def _awards(plt, path: Path, spec: BatchSpec, summary: dict, title: str) -> None:
    """One horizontal bar a side's award and sweep value: its mean VP a game,
    labelled with the share of games it paid in; the sides one above the
    other, their awards in the rules' order."""
    key = summary["sweep"]
    rows = summary["rows"]
    titles = {s: [a["award"] for a in rows[0]["sides"][s].get("awards", [])] for s in spec.sides}
    sides = [s for s in spec.sides if titles[s]] or list(spec.sides[:1])
    heights = [max(1, len(titles[s])) * (0.32 + 0.16 * (len(rows) - 1)) + 0.9 for s in sides]
    fig, axes = plt.subplots(len(sides), 1, figsize=(8, sum(heights) + 0.6), dpi=100, squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, side in zip(axes[:, 0], sides):
        names = titles[side]
        i = spec.sides.index(side)
        width = 0.8 / len(rows)
        for j, row in enumerate(rows):
            got = {a["award"]: a for a in row["sides"][side].get("awards", [])}
            ys = [y + (j - (len(rows) - 1) / 2) * width for y in range(len(names))]
            means = [got[t]["mean"] if t in got else 0.0 for t in names]
            label = f"{key}={row[key]}" if key else None
            ax.barh(ys, means, width * 0.9, color=COLOURS[(i + j) % len(COLOURS)], alpha=0.8 - 0.15 * (j % 3),
                    label=label)
            for y, t, m in zip(ys, names, means):
                paid = got[t]["paid"] if t in got else 0.0
                ax.annotate("never" if not paid else f"{paid * 100:.0f}% of games", (m, y),
                            xytext=(3 if m >= 0 else -3, 0), textcoords="offset points",
                            ha="left" if m >= 0 else "right", va="center", fontsize=7, color="#333333")
        ax.set_yticks(range(len(names)), [_short(t) for t in names], fontsize=7)
        ax.invert_yaxis()
        ax.axvline(0, color="#444444", linewidth=0.8)
        ax.margins(x=0.25)
        ax.set_title(f"{side}: mean VP a game from each award", fontsize=9)
        if key:
            ax.legend(fontsize=7, loc="lower right", framealpha=0.9)
    fig.suptitle(title, fontsize=10)
    # (a band of 0.3 inch kept for the title: tight_layout alone set the first panel's title over it)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / fig.get_figheight()))
    fig.savefig(path)
    plt.close(fig)


def _short(title: str, most: int = 60) -> str:
    return title if len(title) <= most else title[:most - 1] + "…"


def _labels(spec: BatchSpec, summary: dict) -> list[str]:
    key = summary["sweep"]
    return [f"{key}={r[key]}" if key else f"{r['games']} games" for r in summary["rows"]]


def _winrate(ax, spec: BatchSpec, summary: dict, rows: list[dict]) -> None:
    labels = _labels(spec, summary)
    series = []  # (label, colour, rates, errors below, errors above)
    for i, side in enumerate(list(spec.sides) + ["draw"]):
        rates, lo, hi = [], [], []
        for r in summary["rows"]:
            if side == "draw":
                p, (a, b) = r["draw_rate"], wilson(r["draws"], r["games"])
            else:
                d = r["sides"][side]
                p, (a, b) = d["win_rate"], d["wilson95"]
            rates.append(p * 100)
            lo.append(max(0.0, p - a) * 100)  # (rounding: an interval always holds its rate)
            hi.append(max(0.0, b - p) * 100)
        if side == "draw" and not any(rates):
            continue
        colour = "#999999" if side == "draw" else COLOURS[i % len(COLOURS)]
        series.append((f"{side} wins" if side != "draw" else "draws", colour, rates, lo, hi))
    width = 0.8 / len(series)
    for j, (label, colour, rates, lo, hi) in enumerate(series):
        pos = [x + (j - (len(series) - 1) / 2) * width for x in range(len(labels))]
        ax.bar(pos, rates, width * 0.95, yerr=[lo, hi], capsize=4, color=colour, alpha=0.85, label=label)
        for x, r, h in zip(pos, rates, hi):
            ax.annotate(f"{r:.1f}%", (x, r + h), xytext=(0, 3), textcoords="offset points", ha="center",
                        va="bottom", fontsize=8)
    ax.axhline(50, color="#444444", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlim(-0.6, len(labels) - 0.4)
    # (the legend in a band of its own above 100%: in a corner it hid the labels of tall bars)
    ax.set_ylim(0, 118)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("% of games (bars: Wilson 95% interval)")
    ax.legend(fontsize=8, loc="upper center", ncol=len(series), framealpha=0.9)


def _scoring(spec: BatchSpec, rows: list[dict]) -> list[str]:
    """The sides that scored VP in some game (a side that never scores
    would only flatten the plots)."""
    return [s for s in spec.sides if any(r[f"vp_{s}"] for r in rows)] or list(spec.sides)


def _vp(ax, spec: BatchSpec, summary: dict, rows: list[dict]) -> None:
    key = summary["sweep"]
    sides = _scoring(spec, rows)
    if len(sides) < len(spec.sides):  # said in the legend
        ax.plot([], [], " ", label="no VP in any game: " + ", ".join(s for s in spec.sides if s not in sides))
    if key:  # a box per side and sweep value
        labels = _labels(spec, summary)
        values = [str(r[key]) for r in summary["rows"]]
        n = len(sides)
        width = 0.8 / n
        for j, side in enumerate(sides):
            i = spec.sides.index(side)
            data = [[float(r[f"vp_{side}"]) for r in rows if r["sweep"] == v] for v in values]
            pos = [x + (j - (n - 1) / 2) * width for x in range(len(values))]
            b = ax.boxplot(data, positions=pos, widths=width * 0.9, patch_artist=True, manage_ticks=False)
            for patch in b["boxes"]:
                patch.set_facecolor(COLOURS[i % len(COLOURS)])
                patch.set_alpha(0.6)
            ax.plot([], [], color=COLOURS[i % len(COLOURS)], linewidth=6, alpha=0.6, label=f"{side} VP")
        ax.set_xticks(range(len(values)), labels)
        ax.set_ylabel("final VP")
    else:
        lo = min(min(r[f"vp_{s}"] for r in rows) for s in sides)
        hi = max(max(r[f"vp_{s}"] for r in rows) for s in sides)
        # a bar per VP value, or (a wide spread: say, VP counted in thousands) 100 bars over it
        bins = [x - 0.5 for x in range(lo, hi + 2)] if hi - lo < MAX_BARS else MAX_BARS // 2
        for side in sides:
            i = spec.sides.index(side)
            ax.hist([float(r[f"vp_{side}"]) for r in rows], bins=bins, alpha=0.55, color=COLOURS[i % len(COLOURS)],
                    label=f"{side} (mean {summary['rows'][0]['sides'][side]['vp']['mean']:.2f})")
        ax.set_xlabel("final VP")
        ax.set_ylabel("games")
    ax.legend(fontsize=8, loc="best", framealpha=0.9)


def _vp_by_turn(ax, spec: BatchSpec, summary: dict, rows: list[dict]) -> None:
    from matplotlib.ticker import MaxNLocator
    curves = vp_by_turn(spec, rows)
    key = summary["sweep"]
    sides = _scoring(spec, rows)
    values = [str(r[key]) for r in summary["rows"]] if key else [""]
    styles = ("-", "--", ":", "-.")
    for j, v in enumerate(values):
        for side in sides:
            i = spec.sides.index(side)
            pts = curves.get(v, {}).get(side, {})
            if not pts:
                continue
            label = side + (f", {key}={v}" if key else "")
            ax.plot(list(pts), list(pts.values()), styles[j % len(styles)], marker="o", markersize=3,
                    color=COLOURS[i % len(COLOURS)], label=label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("turn")
    ax.set_ylabel("mean VP if the game ended\nafter the turn (games still going)")
    ax.legend(fontsize=8, loc="best", ncol=2 if len(values) > 3 else 1, framealpha=0.9)
