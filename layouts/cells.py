"""How the grids show a change: the one formatter of a signed change and the one colour rule of up and down.

The grids' counterpart of :func:`figures.signed` (which writes changes into text on the server): the browser formats
the number the grid sorts by, with d3 (``+1,234``, ``−0.0412``; a change of exactly 0 reads ``0``, not ``+0``).
"""

from __future__ import annotations

__all__ = ["UP_DOWN", "signed_change"]

#: Green for a gain, red for a loss (AG Grid ``cellClassRules``).
UP_DOWN = {"text-success fw-semibold": "params.value > 0", "text-danger fw-semibold": "params.value < 0"}


def signed_change(digits: int) -> dict[str, str]:
    """AG Grid ``valueFormatter``: a change to ``digits`` significant digits with its sign, thousands separated."""
    return {
        "function": f"params.value == null ? '' : params.value === 0 ? '0' : d3.format('+,.{digits}~r')(params.value)"
    }
