"""Rules as data: the model, the TOML loader, safe derived values, summary templates, self-tests."""
