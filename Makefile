# The README's test command is `make test`; .ci/run calls exactly that.
PY ?= python

.PHONY: test lint typecheck contracts pytest bench

test: lint typecheck contracts pytest

lint:
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck:
	$(PY) -m mypy core config sources storage pipeline workers producers bench/aletheia

contracts:
	lint-imports

pytest:
	$(PY) -m pytest -q -p no:cacheprovider

# The benchmarks (minutes, not part of `make test`); figures go to docs/benchmarks.md.
bench:
	aletheia bench sources
	aletheia bench hallmark
	aletheia bench realbib
	aletheia bench realrecords
	aletheia bench speed
	aletheia bench claims
