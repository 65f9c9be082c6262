"""A Celery worker with a step made to fail (`tests/step_faults.py`, from `ALETHEIA_TEST_STEP_FAULT`)
before it starts: `python -m tests.integration.faulty_worker -A aletheia.workers.app worker ...`,
run from the repository's root."""

from __future__ import annotations

import os
import sys

from tests.step_faults import install_from_env

if __name__ == "__main__":
    install_from_env(dict(os.environ))
    from celery.__main__ import main

    sys.argv[0] = "celery"
    sys.exit(main())
