"""Aletheia sources layer."""
