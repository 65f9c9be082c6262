"""Polite HTTP to the sources: global rate limits, send pacing, circuit breakers, retries, redaction."""
