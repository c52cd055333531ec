"""Helpers the tests share (scenario runs, rule tables, dashboard data, the fetch scenario); not tests."""
