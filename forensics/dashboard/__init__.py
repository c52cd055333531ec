"""The triage dashboard: a static site (no server, works from a file) built from the history store's data.

`document.build(store)` gives the typed `Dashboard`, `document.to_json` the `data.json` it is written as and
`document.parse` reads such a document back; `write_dashboard(data, out_dir)` writes `index.html`, a page per
cause, `data.json` and the assets. Standard library only: the pages are rendered here, the chart is inline SVG,
the script only sorts tables.
"""

from __future__ import annotations

from forensics.dashboard.document import build, dashboard_data, parse, read_data_file, to_json
from forensics.dashboard.model import Dashboard
from forensics.dashboard.site import Site, build_site, write_dashboard

__all__ = [
    "Dashboard",
    "Site",
    "build",
    "build_site",
    "dashboard_data",
    "parse",
    "read_data_file",
    "to_json",
    "write_dashboard",
]
