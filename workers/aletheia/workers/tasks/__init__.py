"""Thin Celery tasks, one module per domain; each calls one function of aletheia.pipeline.service."""
