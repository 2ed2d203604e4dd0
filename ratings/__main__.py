"""``python -m ratings``: the command line (see :mod:`ratings.cli`)."""

from __future__ import annotations

import os
import sys

from ratings.cli import main

if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``python -m ratings rate ... | head``): stop quietly, and keep
        # Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)
