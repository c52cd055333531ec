"""Bundled sample artifacts."""
