"""Functions that return component trees; no I/O at import time.  Component ids live in :mod:`layouts.ids`."""
