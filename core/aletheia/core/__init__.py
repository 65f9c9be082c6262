"""The pure domain core of Aletheia.

Identifiers, text normalisation, matching, triangulation, verdicts and citation artifacts.
Nothing in this package performs I/O or imports an I/O library; an import-linter contract
(`pyproject.toml`) and `tests/unit/test_core_purity.py` enforce it.
"""
