# The README's test command is `make test`; .ci/run calls exactly that.
PY ?= python

.PHONY: test lint typecheck contracts pytest bench

test: lint typecheck contracts pytest

lint:
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

typecheck:
	$(PY) -m mypy core config sources storage pipeline workers producers

contracts:
	lint-imports

pytest:
	$(PY) -m pytest -q -p no:cacheprovider
