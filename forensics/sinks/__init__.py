"""Ticket sinks: Linear, GitHub issues and pull requests, Jira — each behind the `TicketSink` protocol."""
