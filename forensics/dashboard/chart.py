"""Failures per day as stacked bars in inline SVG, drawn here so the chart needs no script and no library."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from forensics.dashboard.markup import Html, tag
from forensics.dashboard.model import Dashboard, Day
from forensics.dashboard.wording import long_date, plural, short_date

# Tableau 10 without its grey: distinct, and readable on light and dark backgrounds alike.
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")
OTHER_COLOUR = "#c2c2c2"  # light: the fold of the rarest causes must not outweigh the causes drawn
UNEXPLAINED_COLOUR = "#8d8d8d"
NO_RUN_COLOUR = "#8d8d8d"
OTHER = "other"
UNEXPLAINED = "unexplained"
_WIDTH = 960
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 12, 14, 34
_MAX_LABELS = 10


@dataclass(frozen=True, slots=True)
class Series:
    """One colour in the stack: a cause, the unexplained clusters together, or the rest (`members` None)."""

    key: str
    label: str
    colour: str
    members: frozenset[str] | None
    hatched: bool = False

    def claims(self, key: str) -> bool:
        """Whether this series adds up the failures of a cause key (the rest series claims nothing)."""
        return self.members is not None and key in self.members


@dataclass(frozen=True, slots=True)
class Segment:
    """One series' part of one day's bar."""

    series: Series
    count: int
    parts: tuple[tuple[str, int], ...]


def plan_series(dashboard: Dashboard, *, limit: int = len(PALETTE) - 1) -> tuple[Series, ...]:
    """The chart's series, bottom to top: the `limit` most frequent causes, the rest folded into one labelled
    with how many causes it holds (a tail of one cause is drawn as itself), then the unexplained clusters."""
    in_window: dict[str, int] = {}
    for day in dashboard.days:
        for key, count in day.by_cause:
            in_window[key] = in_window.get(key, 0) + count
    explained = [cause for cause in dashboard.causes if cause.explained and in_window.get(cause.key, 0) > 0]
    explained.sort(key=lambda cause: (-in_window[cause.key], -cause.counts.total, cause.key))
    unexplained = frozenset(cause.key for cause in dashboard.unexplained_clusters)
    folded = {key for key, count in in_window.items() if count and key not in unexplained} - {
        cause.key for cause in explained[:limit]
    }
    shown = explained[: limit + 1] if len(folded) == 1 and len(explained) > limit else explained[:limit]
    series = [
        Series(key=cause.key, label=cause.title, colour=PALETTE[index], members=frozenset({cause.key}))
        for index, cause in enumerate(shown)
    ]
    folded -= {cause.key for cause in shown}
    label = f"Other causes ({len(folded)})" if folded else "Other causes"
    rest = Series(key=OTHER, label=label, colour=OTHER_COLOUR, members=None)
    clusters = Series(
        key=UNEXPLAINED, label="Unexplained", colour=UNEXPLAINED_COLOUR, members=unexplained, hatched=True
    )
    if any(_segment(day, rest, [*series, clusters]).count for day in dashboard.days):
        series.append(rest)
    if any(_segment(day, clusters, series).count for day in dashboard.days):
        series.append(clusters)
    return tuple(series)


def segments(day: Day, series: Sequence[Series]) -> list[Segment]:
    """The day's bar, bottom to top, without empty segments."""
    found = [_segment(day, one, series) for one in series]
    return [segment for segment in found if segment.count > 0]


def _segment(day: Day, series: Series, everything: Sequence[Series]) -> Segment:
    if series.members is not None:
        parts = tuple((key, count) for key, count in day.by_cause if series.claims(key) and count > 0)
        return Segment(series, sum(count for _, count in parts), parts)
    unclaimed = tuple(
        (key, count)
        for key, count in day.by_cause
        if count > 0 and not any(other.claims(key) for other in everything)
    )
    # Failures the store did not attribute to any key still belong in the day's bar.
    missing = max(0, day.failures - sum(count for _, count in day.by_cause))
    return Segment(series, sum(count for _, count in unclaimed) + missing, unclaimed)


def render_chart(
    days: Sequence[Day],
    series: Sequence[Series],
    *,
    titles: Mapping[str, str],
    label: str,
    height: int = 280,
    id_prefix: str = "chart",
) -> Html:
    """The stacked bar chart; every bar carries `data-count` and a `<title>` tooltip."""
    bars = [segments(day, series) for day in days]
    totals = [sum(segment.count for segment in bar) for bar in bars]
    top, step = _scale(max(totals, default=0))
    plot_width = _WIDTH - _LEFT - _RIGHT
    plot_height = height - _TOP - _BOTTOM
    slot = plot_width / max(1, len(days))
    bar_width = max(1.0, slot * 0.72)
    baseline = _TOP + plot_height
    grid = []
    for tick in range(0, top + 1, step):
        y = baseline - tick / top * plot_height
        grid.append(tag("line", x1=_LEFT, x2=_WIDTH - _RIGHT, y1=_num(y), y2=_num(y), class_="grid"))
        grid.append(tag("text", str(tick), x=_LEFT - 6, y=_num(y + 4), class_="axis y"))
    columns = []
    label_every = max(1, math.ceil(len(days) / _MAX_LABELS))
    for index, (day, bar, total) in enumerate(zip(days, bars, totals, strict=True)):
        x = _LEFT + index * slot + (slot - bar_width) / 2
        y = baseline
        rects = []
        for segment in bar:
            bar_height = segment.count / top * plot_height
            y -= bar_height
            rects.append(
                tag(
                    "rect",
                    tag("title", _tooltip(day, segment, total, titles)),
                    x=_num(x),
                    y=_num(y),
                    width=_num(bar_width),
                    height=_num(bar_height),
                    fill=f"url(#{id_prefix}-hatch)" if segment.series.hatched else segment.series.colour,
                    class_="bar",
                    data_series=segment.series.key,
                    data_count=segment.count,
                )
            )
        if day.no_run:  # shaded, so a day nothing ran never reads as a clean day
            rects.append(
                tag(
                    "rect",
                    tag("title", f"{long_date(day.date)}: no run"),
                    x=_num(x),
                    y=_TOP,
                    width=_num(bar_width),
                    height=_num(plot_height),
                    fill=f"url(#{id_prefix}-no-run)",
                    class_="no-run",
                )
            )
        day_label = None
        if (len(days) - 1 - index) % label_every == 0:
            day_label = tag(
                "text", short_date(day.date), x=_num(x + bar_width / 2), y=height - 12, class_="axis x"
            )
        columns.append(
            tag(
                "g",
                rects,
                day_label,
                class_="day",
                data_date=day.date.isoformat(),
                data_total=total,
                data_no_run=day.no_run or None,
            )
        )
    empty = None
    if not any(totals):
        empty = tag(
            "text", "No failures in this window", x=_WIDTH / 2, y=_TOP + plot_height / 2, class_="empty"
        )
    return tag(
        "svg",
        tag("title", label, id=f"{id_prefix}-title"),
        tag("defs", _hatch(f"{id_prefix}-hatch"), _no_run(f"{id_prefix}-no-run")),
        grid,
        tag("line", x1=_LEFT, x2=_WIDTH - _RIGHT, y1=baseline, y2=baseline, class_="baseline"),
        columns,
        empty,
        xmlns="http://www.w3.org/2000/svg",
        viewBox=f"0 0 {_WIDTH} {height}",
        role="img",
        aria_labelledby=f"{id_prefix}-title",
        class_="chart",
        id=id_prefix,
    )


def _tooltip(day: Day, segment: Segment, total: int, titles: Mapping[str, str]) -> str:
    head = f"{long_date(day.date)} · {segment.series.label}: {plural(segment.count, 'failure')} of {total}"
    if day.ran is not None and day.ran.executed:
        head += f" ({plural(day.ran.executed, 'test')} run)"
    if segment.series.members is not None and len(segment.series.members) == 1:
        return head
    lines = [head, *(f"  {titles.get(key, key)}: {count}" for key, count in segment.parts)]
    attributed = sum(count for _, count in segment.parts)
    if segment.count > attributed:
        lines.append(f"  not attributed to a cause: {segment.count - attributed}")
    return "\n".join(lines)


def _no_run(pattern_id: str) -> Html:
    """Sparse dots for a day without a run: visibly not a bar, readable in light and dark mode."""
    return tag(
        "pattern",
        tag("circle", cx=2, cy=2, r=1, fill=NO_RUN_COLOUR),
        id=pattern_id,
        patternUnits="userSpaceOnUse",
        width=6,
        height=6,
    )


def _hatch(pattern_id: str) -> Html:
    """Diagonal stripes for unexplained failures: visibly not a cause, also without colour vision."""
    return tag(
        "pattern",
        tag("path", d="M0 0h6v6h-6z", fill="#c4c4c4"),
        tag("path", d="M0 0v6", stroke="#5f5f5f", stroke_width="3"),
        id=pattern_id,
        patternUnits="userSpaceOnUse",
        width=6,
        height=6,
        patternTransform="rotate(45)",
    )


def _scale(maximum: int) -> tuple[int, int]:
    """A round top for the y axis and a round step (1, 2 or 5 × 10^k) giving about four grid lines."""
    if maximum <= 0:
        return 1, 1
    raw = maximum / 4
    magnitude = 10 ** math.floor(math.log10(raw)) if raw >= 1 else 1
    step = next(factor * magnitude for factor in (1, 2, 5, 10) if factor * magnitude >= raw)
    return math.ceil(maximum / step) * step, int(step)


def _num(value: float) -> str:
    """Coordinates with at most two decimals: smaller pages, stable output."""
    return f"{value:.2f}".rstrip("0").rstrip(".")
