"""The triage dashboard: a static site (no server, works from a file) built from the history store's data.

`write_dashboard(data, out_dir)` takes the document `forensics.store.dashboard.dashboard_data()` returns
(or a saved `data.json`) and writes `index.html`, a page per cause, `data.json` and the assets.
Standard library only: the pages are rendered here, the chart is inline SVG, the script only sorts tables.
"""

from __future__ import annotations

from forensics.dashboard.model import Dashboard
from forensics.dashboard.parse import parse_dashboard, read_data_file
from forensics.dashboard.site import Site, build_site, write_dashboard

__all__ = ["Dashboard", "Site", "build_site", "parse_dashboard", "read_data_file", "write_dashboard"]
