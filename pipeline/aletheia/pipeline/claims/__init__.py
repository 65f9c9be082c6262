"""Claims: grounding a research claim in a paper's own words, judging it, and writing its
citation artifact."""
