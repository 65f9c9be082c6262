"""The model client (`client.py`: the `LLM` interface, Claude through `anthropic`, imported
lazily) and its pacing under the global limiter (`paced.py`); used by the claim pipeline and by the
evidence's Tier 5."""
