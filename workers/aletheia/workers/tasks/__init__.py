"""Thin Celery tasks, one module per domain; each calls one function of one
aletheia.pipeline.jobs module (the job kind it runs).
"""
