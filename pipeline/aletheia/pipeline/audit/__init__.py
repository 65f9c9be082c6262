"""The audit trail of decisions, its replay, and the drift audit of citation artifacts."""
