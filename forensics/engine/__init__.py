"""Matching: line normalisation, the literal pre-filter, the log scanner, the root-cause verdict."""
