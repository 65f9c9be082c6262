"""Aletheia workers layer."""
