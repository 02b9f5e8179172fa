"""JSON error answers: every failure of an API route is a small JSON object
``{"error": message, "rule": name}``, never an HTML page or a traceback."""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

log = logging.getLogger("tablepi.web")


def error_response(status: int, message: str, rule: str = "request", **headers: str) -> Response:
    response = jsonify({"error": message, "rule": rule})
    response.status_code = status
    for name, value in headers.items():
        response.headers[name.replace("_", "-")] = value
    return response


def register(app: Flask) -> None:
    @app.after_request
    def safety_headers(response: Response) -> Response:
        # Responses are what they say they are, and no other site may frame the
        # pages a signed-in phone uses to change the game.
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if not _wants_json():
            return exc
        response = error_response(exc.code or 500, exc.description or exc.name, rule="http")
        if exc.code == 405 and exc.valid_methods:  # type: ignore[attr-defined]
            response.headers["Allow"] = ", ".join(exc.valid_methods)  # type: ignore[attr-defined]
        return response

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        # The details go to the log for the maintainer; the client learns only that it failed.
        log.exception("unexpected error in %s %s", request.method, request.path)
        if not _wants_json():
            return Response(
                "Something went wrong on the table; it keeps running. Reload the page.",
                status=500,
                mimetype="text/plain",
            )
        return error_response(500, "internal error; the table keeps running", rule="internal")


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/healthz"
