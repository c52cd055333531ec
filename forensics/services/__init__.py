"""The HTTP edge: the only place `requests` is imported (GitHub, Linear, Jira clients)."""
