"""Typed settings, read lazily from the environment (and an optional `.env`)."""

from aletheia.config.settings import Settings, SourceLimits, get_settings, reset_settings_cache

__all__ = ["Settings", "SourceLimits", "get_settings", "reset_settings_cache"]
