"""The audit trail: what each decision appends to a job's hash-chained log (a reference's:
`events.py`; a claim's: `claim_events.py`; the chain itself is `storage/audit_log.py`), and its
replay. Not the drift check of citation artifacts (`aletheia audit`: `artifact_checks/`), nor the
weekly audit job (`jobs/audit.py`, named, as every `jobs/KIND.py`, after its job kind `audit`)."""
