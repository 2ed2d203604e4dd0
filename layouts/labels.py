"""Accessible names for controls whose Dash component takes no label (assets/labels.js applies them)."""

from __future__ import annotations

from typing import Any

from dash import html

__all__ = ["labelled"]


def labelled(text: str, child: Any, class_name: str = "") -> html.Div:
    """``child`` in a wrapper whose ``data-label`` names every control inside it for screen readers.

    dcc.Dropdown, dcc.Slider, dcc.Input and dcc.Upload take no ``aria-label``; the asset gives their inner
    input, slider thumb or search box this text as its accessible name.
    """
    attributes: dict[str, Any] = {"data-label": text}  # html components take any data-* attribute
    return html.Div(child, className=class_name or None, **attributes)
