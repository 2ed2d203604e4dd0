"""Groups' pages on the server: an address ``/g/<slug>`` naming no group is answered with one plain line (404)
before Dash serves its page, so a mistyped or deleted group's link says so instead of opening an empty page."""

from __future__ import annotations

from flask import Flask, Response, request

from sources.choosing import group_of_path

__all__ = ["install"]


def install(server: Flask) -> None:
    """Answer ``GET /g/<slug>`` for a slug that names no group with a plain 404."""

    @server.before_request
    def _no_such_group() -> Response | None:
        if request.method not in ("GET", "HEAD"):
            return None
        slug = group_of_path(request.path)
        if slug is None:
            return None
        from sources.groups.pages import group_info  # with SQLAlchemy, when a group's address is first asked for

        if group_info(slug) is not None:
            return None
        return Response(f"There is no group at /g/{slug} on this server.\n", status=404, mimetype="text/plain")
