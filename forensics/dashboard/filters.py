"""The front page's filters: a form (kind, category, GPU model, runner, search) and what each filtered item carries.

The filtering itself is `assets/filters.js`: it reads the form's state from the page's query string
(`?kind=cause&gpu=NVIDIA+A10G&q=memory`), hides what does not match and writes the state back into the URL,
so a copied link opens the same view. Without the script the form stays hidden and every cause is listed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from forensics.dashboard.markup import Attribute, Html, tag
from forensics.dashboard.model import Cause

FILTER_SCRIPT = "assets/filters.js"
GPU_DIMENSION = "gpu_model"
RUNNER_DIMENSION = "runner"
NO_CATEGORY = "none"
_KINDS = (("cause", "root causes"), ("unexplained", "unexplained clusters"))


def _values(cause: Cause, dimension: str) -> list[str]:
    return sorted({share.value for share in cause.environment if share.dimension == dimension})


def filter_attributes(cause: Cause) -> dict[str, Attribute]:
    """The `data-*` attributes a row or item naming this cause carries, for the filter script to match on."""
    searchable = "\n".join([cause.title, cause.key, *cause.tests]).casefold()
    return {
        "data_filter": "cause",
        "data_kind": cause.kind,
        "data_category": cause.category or NO_CATEGORY,
        "data_gpus": json.dumps(_values(cause, GPU_DIMENSION), ensure_ascii=False),
        "data_runners": json.dumps(_values(cause, RUNNER_DIMENSION), ensure_ascii=False),
        "data_search": searchable,
    }


def filter_form(causes: Sequence[Cause]) -> Html:
    """The filter controls for these causes (hidden until the script shows them)."""
    categories = sorted({cause.category for cause in causes if cause.category})
    if any(not cause.category for cause in causes):
        categories.append(NO_CATEGORY)
    gpus = sorted({value for cause in causes for value in _values(cause, GPU_DIMENSION)})
    runners = sorted({value for cause in causes for value in _values(cause, RUNNER_DIMENSION)})
    return tag(
        "form",
        _select("kind", "Kind", _KINDS),
        _select("category", "Category", ((value, value) for value in categories)),
        _select("gpu", "GPU model", ((value, value) for value in gpus)),
        _select("runner", "Runner", ((value, value) for value in runners)),
        tag(
            "label",
            "Search tests and causes",
            tag(
                "input", type="search", name="q", placeholder="test name, cause, rule id", autocomplete="off"
            ),
        ),
        tag("button", "Clear", type="reset"),
        tag("output", name="shown", aria_live="polite"),
        class_="filters",
        id="filters",
        role="search",
        aria_label="Filter the causes",
        hidden=True,
    )


def _select(name: str, label: str, options: Iterable[tuple[str, str]]) -> Html:
    return tag(
        "label",
        label,
        tag(
            "select",
            tag("option", "all", value=""),
            [tag("option", text, value=value) for value, text in options],
            name=name,
        ),
    )
