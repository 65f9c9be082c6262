"""Aletheia producers layer."""
