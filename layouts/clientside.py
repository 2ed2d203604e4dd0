"""Clientside code shared by several features' callbacks (statements spliced into a clientside callback's body).

Kept here, beside the layouts, so that a feature's callbacks can use it without importing another feature's
callbacks.
"""

from __future__ import annotations

__all__ = ["JOIN_QUERY_JS"]

#: ``joinQuery(settingsPart, viewPart)`` in the browser (a statement for a clientside callback's body): the shareable
#: query (with ``?``, or ``""``) from the two parts, ``null`` while either is not known yet (the address bar is then
#: left as it is).  The same pairs in the same order as :func:`sources.links.build_query`.
JOIN_QUERY_JS = """var joinQuery = function (settingsPart, viewPart) {
            if (typeof settingsPart !== "string" || !viewPart || typeof viewPart.head !== "string") { return null; }
            var parts = [viewPart.head, settingsPart, viewPart.tail].filter(function (p) { return !!p; });
            return parts.length ? "?" + parts.join("&") : "";
        };"""
