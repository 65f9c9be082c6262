"""The Celery tasks: one per step of the registry (pipeline/jobs/kinds.py), all registered by
`steps.py` and run by the one runner (pipeline/jobs/runner.py).
"""
