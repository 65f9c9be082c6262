"""Checks of the citation artifacts already written under `docs/citations/`: the link check
(`aletheia check`, `link_check.py`: no network) and the drift check against the sources (`aletheia
audit`, `drift_check.py`; also run by the weekly audit job, `jobs/audit.py`)."""
