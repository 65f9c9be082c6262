"""Aletheia storage layer."""
