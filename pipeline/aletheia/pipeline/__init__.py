"""Aletheia pipeline layer."""
