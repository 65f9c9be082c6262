"""`python -m aletheia.producers` is the `aletheia` command."""

from aletheia.producers.cli import main

main()
