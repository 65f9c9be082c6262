"""Benchmarks (issues 3 and 4): sources, HALLMARK accuracy, real bibliographies, speed.

Each module has a `run(...) -> dict` that returns its figures and a `format_report(figures)` that
prints them; `aletheia bench NAME` runs one. They are not part of `make test` (minutes, not
seconds); `tests/unit/test_bench_smoke.py` runs each harness on a few dozen references.
"""
