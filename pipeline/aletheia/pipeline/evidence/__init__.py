"""Gathering evidence for one reference: the source gateway, the tiers, and the searches that settle
a minor note."""
