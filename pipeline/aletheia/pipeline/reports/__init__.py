"""Reports: every format a verification result is written in (JSON, HTML, BibTeX, CSL-JSON, CI comments)."""
