"""One plotting style for the project: reports, notebooks and every ``plot_*`` use it.

- **Semantic colours** for outcome labels: bad outcomes warm, good ones cool, neutral
  grey, so ``failure`` is never green and ``success`` never red.
- **Ordered palettes** for ordinal labels (a wound ladder, outcome classes from worst to
  best): one sequential colour map, light to dark, so order reads as order.
- **A colour-blind-safe qualitative palette** (Okabe & Ito) for variants (weapons,
  skills, roll modes).
- **Human axis labels** (:func:`label_text`): a declared label and unit, else the
  project's word (``expected_damage`` → "expected damage"); :func:`critlab.analysis.params.axis_label`
  reads the declaration.
- **Legends that never clip**: :func:`legend_outside` places a legend beside the axes
  and lets constrained layout make room; :func:`legend_inside_figure` checks it.

>>> colours = outcome_colors(("failure", "success"), {"failure": -1, "success": 1})
>>> colours["failure"] != colours["success"]
True
>>> label_text("expected_damage")
'expected damage'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# Okabe & Ito (2008), the palette most used for colour-blind-safe categorical plots.
QUALITATIVE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
NEUTRAL = "#9a9a9a"
ORDERED_CMAP = "viridis"

# How good a label is, -2 worst .. +2 best, is the system's to declare
# (RuleSystem.polarity, read by RuleSystem.polarity_of); the style only draws it.
_WARM = {-2: "#B2182B", -1: "#EF8A62"}
_COOL = {1: "#67A9CF", 2: "#2166AC"}

# Axis labels that are not just the name with spaces, for the names every system shares
# (a system's own parameters carry theirs in their declarations).
_LABELS = {
    "hp": "hit points",
    "expected_damage": "expected damage",
    "mean_rounds": "mean rounds to defeat",
}


def outcome_colors(labels: Sequence[str], polarity: Mapping[str, int] | None = None) -> dict[str, str]:
    """A colour per outcome label by its ``polarity`` (label -> -2 worst .. +2 best, as
    the system declares it: ``system.polarity_of(labels)``): warm for bad, cool for
    good, grey for neutral or unknown labels (those get the qualitative palette if none
    is known at all).

    >>> c = outcome_colors(("miss", "hit"), {"miss": -1, "hit": 1})
    >>> c["miss"] == polar_colour(-1), c["hit"] == polar_colour(1)
    (True, True)
    """
    polarity = dict(polarity or {})
    known = [lab for lab in labels if lab in polarity]
    if not known:
        return {lab: QUALITATIVE[i % len(QUALITATIVE)] for i, lab in enumerate(labels)}
    out = {}
    for lab in labels:
        out[lab] = polar_colour(polarity.get(lab, 0))
    scores = [polarity[lab] for lab in labels if lab in polarity]
    if len(set(scores)) < len(scores) and scores == sorted(scores):
        return _ramp(labels, polarity)
    # labels sharing a score (hit and a fumble's reroll hit) get shades of its colour: the
    # stronger one (the earlier bad label, the later good one) keeps it, the others lighten
    for score in {s for s in scores if s}:
        group = [lab for lab in labels if polarity.get(lab) == score]
        if score > 0:
            group.reverse()
        for i, lab in enumerate(group[1:], start=1):
            out[lab] = _lighten(out[lab], 0.5 * i / (len(group) - 1))
    return out


def polar_colour(score: int) -> str:
    """The colour of a label ``score`` good or bad (-2 .. +2): warm, grey at 0, cool.

    >>> polar_colour(0) == NEUTRAL
    True
    """
    return NEUTRAL if not score else (_WARM if score < 0 else _COOL)[score]


def _ramp(labels: Sequence[str], polarity: Mapping[str, int]) -> dict[str, str]:
    """Outcome classes from worst to best (several sharing a score, in order): a
    diverging ramp, dark red through light to dark blue, a colour of its own for each;
    neutral labels grey."""
    import matplotlib
    from matplotlib import colors as mcolors

    cmap = matplotlib.colormaps["RdBu"]
    bad = [lab for lab in labels if polarity.get(lab, 0) < 0]
    good = [lab for lab in labels if polarity.get(lab, 0) > 0]
    out = {lab: NEUTRAL for lab in labels}
    for i, lab in enumerate(bad):
        out[lab] = mcolors.to_hex(cmap(0.02 + 0.3 * i / max(1, len(bad) - 1)))
    for i, lab in enumerate(good):
        out[lab] = mcolors.to_hex(cmap(0.68 + 0.3 * i / max(1, len(good) - 1)))
    return out


def _lighten(colour: str, amount: float) -> str:
    """``colour`` mixed with white by ``amount`` (0..1), as a hex string."""
    from matplotlib import colors as mcolors

    r, g, b = mcolors.to_rgb(colour)
    return mcolors.to_hex((r + (1 - r) * amount, g + (1 - g) * amount, b + (1 - b) * amount))


def ordered_colors(labels: Sequence[str], cmap: str = ORDERED_CMAP) -> dict[str, Any]:
    """Colours for ordinal labels in their order (first light, last dark)."""
    import matplotlib

    colormap = matplotlib.colormaps[cmap]
    n = max(1, len(labels) - 1)
    # 0.9 → 0.1 on viridis: yellow (mild) to dark violet (severe)
    return {lab: colormap(0.9 - 0.8 * i / n) for i, lab in enumerate(labels)}


def variant_colors(variants: Sequence[Any]) -> dict[Any, str]:
    """Colour-blind-safe colours for a few variants (weapons, skills, roll modes)."""
    return {v: QUALITATIVE[i % len(QUALITATIVE)] for i, v in enumerate(variants)}


def label_text(name: str, label: str | None = None, unit: str | None = None) -> str:
    """A human axis label for a parameter, metric or quantity name: its declared
    ``label`` when it has one (see :func:`critlab.analysis.params.axis_label`), else the
    project's word for it, with its ``unit`` when declared.

    >>> label_text("expected_damage"), label_text("hp", "hit points", "hp")
    ('expected damage', 'hit points (hp)')
    """
    text = label or _LABELS.get(name) or name.replace("_", " ")
    return f"{text} ({unit})" if unit else text


def legend_outside(ax: Any, **kwargs: Any) -> Any:
    """A legend to the right of ``ax``, outside the plotting area; with a figure made
    with ``layout="constrained"`` the figure grows room for it, so it never clips."""
    kwargs.setdefault("loc", "center left")
    kwargs.setdefault("bbox_to_anchor", (1.02, 0.5))
    kwargs.setdefault("fontsize", "small")
    kwargs.setdefault("frameon", False)
    return ax.legend(**kwargs)


def legend_inside_figure(fig: Any) -> bool:
    """Whether every legend of ``fig`` lies inside the figure once drawn (a clipped
    legend is one whose box leaves the canvas)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
    for legend in legends:
        if legend is None:
            continue
        box = legend.get_window_extent(renderer)
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
            return False
    return True


def uses_default_cycle(ax: Any) -> bool:
    """Whether any line or bar of ``ax`` is drawn in matplotlib's default colour cycle
    (the check that ordered and good/bad outcomes never are)."""
    from matplotlib import colors as mcolors

    default = {mcolors.to_hex(c) for c in ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9")}
    drawn = [line.get_color() for line in ax.get_lines()]
    drawn += [patch.get_facecolor() for patch in ax.patches]
    return any(mcolors.to_hex(c) in default for c in drawn)


# -- lines that read on white -------------------------------------------------------------
# WCAG's contrast for graphical objects: a line or point needs 3:1 against its background.
MIN_LINE_CONTRAST = 3.0
BACKGROUND = "#ffffff"
# Choices whose words say they help or hinder (a d20 roll mode): drawn in the good (cool)
# or bad (warm) line colour wherever they appear, never the other's.
_CHOICE_POLARITY = {"advantage": 1, "disadvantage": -1}
_POLAR_LINE = {1: "#2166AC", -1: "#B2182B"}


def contrast(colour: Any, background: Any = BACKGROUND) -> float:
    """The WCAG 2 contrast ratio of two colours (1 to 21).

    >>> round(contrast("#bddf26"), 2), round(contrast("#000000"), 1)
    (1.53, 21.0)
    """
    from matplotlib import colors as mcolors

    def luminance(c: Any) -> float:
        channels = [u / 12.92 if u <= 0.03928 else ((u + 0.055) / 1.055) ** 2.4 for u in mcolors.to_rgb(c)]
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]

    a, b = sorted((luminance(colour), luminance(background)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def for_lines(colour: Any, minimum: float = MIN_LINE_CONTRAST) -> str:
    """``colour`` darkened (mixed with black, hue kept) just enough for ``minimum``
    contrast on white; a colour that has it already is returned as it is.

    >>> for_lines("#0072B2"), contrast(for_lines("#F0E442")) >= 3
    ('#0072b2', True)
    """
    from matplotlib import colors as mcolors

    rgb = mcolors.to_rgb(colour)
    for step in range(101):
        shade = tuple(u * (1 - step / 100) for u in rgb)
        if contrast(shade) >= minimum:
            return mcolors.to_hex(shade)
    return "#000000"


# Okabe & Ito without its yellow, each colour darkened to 3:1 on white where it falls short.
LINE_QUALITATIVE = tuple(for_lines(c) for c in QUALITATIVE if c != "#F0E442")


# Line markers in order: every series of a figure has a colour and a marker, so series
# stay apart in grey print, for colour-blind readers and where two lines overlap.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")


def marker(i: int) -> str:
    """The ``i``-th series' marker (they repeat after :data:`MARKERS`).

    >>> marker(0), marker(1), marker(len(MARKERS))
    ('o', 's', 'o')
    """
    return MARKERS[i % len(MARKERS)]


def line_ordered_colors(values: Sequence[Any], cmap: str = ORDERED_CMAP) -> dict[Any, str]:
    """Colours for an ordered series of lines (THAC0 20, 15, 10): the dark part of the
    ordered map, every one at 3:1 on white (viridis's pale end draws no line)."""
    import matplotlib
    from matplotlib import colors as mcolors

    colormap = matplotlib.colormaps[cmap]
    n = max(1, len(values) - 1)
    return {v: for_lines(mcolors.to_hex(colormap(0.58 * i / n))) for i, v in enumerate(values)}


def line_variant_colors(values: Sequence[Any], order: Sequence[Any] | None = None) -> dict[Any, str]:
    """Line colours for choices or variants: the same colour for the same value in every
    figure (by its place in ``order``, the declared choices or the variant set, when
    given), and a helping choice cool, a hindering one warm (advantage, disadvantage)."""
    order = list(order) if order is not None else list(values)
    plain = [c for c in LINE_QUALITATIVE if c not in ("#0072b2",)]  # blue is the helping choice's
    polar = any(v in _CHOICE_POLARITY for v in order)
    palette = plain if polar else list(LINE_QUALITATIVE)
    out: dict[Any, str] = {}
    others = [v for v in order if v not in _CHOICE_POLARITY] + [v for v in values if v not in order]
    for v in values:
        if v in _CHOICE_POLARITY:
            out[v] = _POLAR_LINE[_CHOICE_POLARITY[v]]
        else:
            # warm vermillion would read as "hinders" beside a polar pair: black goes first
            pool = (
                ["#000000", *[c for c in palette if c != "#000000" and c != "#d55e00"]] if polar else palette
            )
            out[v] = pool[others.index(v) % len(pool)]
    return out
