"""Reading a request's JSON body."""

from __future__ import annotations

from typing import Any

from flask import request


def json_body() -> Any:
    """The request's JSON body, or None when there is none or it does not
    parse: bad JSON, or JSON nested too deeply for Python's parser (which
    raises RecursionError, not the ValueError Flask's ``silent`` catches)."""
    try:
        return request.get_json(silent=True)
    except RecursionError:
        return None
