"""The local snapshot mirror (issue 32): loading the sources' dumps into it (`load.py`)."""
