"""Building the report: read inputs, scan each log once, decide verdicts, group them."""
