"""Use cases: what the CLI (or a library caller) asks for, built from the layers below."""
