"""The HTML pages: phone mirror, TV scoreboard, device panel, set-up."""

from flask import Blueprint

bp = Blueprint("pages", __name__)
