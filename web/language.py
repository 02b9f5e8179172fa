"""Which language each page speaks, and the catalogs the pages use.

The TV follows the table. A phone (and /setup, /stats, /device) follows its
own choice, kept in a cookie by the switch in the top bar, else the first
language of its browser's Accept-Language the table speaks, else the table's.
The table's language is set in the config (``[table] language``) and on
/setup. Errors of the JSON API keep their English ``error`` for developers and
carry the reader's words beside it as ``shown``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from babel.messages.pofile import read_po
from flask import Blueprint, Flask, Response, current_app, jsonify, request
from flask_babel import Babel, format_decimal, format_percent, get_locale

from tablepi.i18n import DEFAULT, LOCALE_DIR, N_, language_name, languages, number_pattern, words
from web.auth import check_json_change
from web.body import json_body
from web.errors import error_response

COOKIE = "tablepi_lang"
COOKIE_SECONDS = 365 * 24 * 3600
# The pages that follow the table, whoever looks at them.
TABLE_ENDPOINTS = ("pages.tv",)

bp = Blueprint("language", __name__)


def table_language() -> str:
    service = current_app.extensions.get("tablepi")
    lang = (
        getattr(service, "language", None)
        if service is not None
        else current_app.config.get("TABLEPI_LANGUAGE")
    )
    return lang if lang in languages() else DEFAULT


def choose() -> str:
    """The language of the current request (Flask-Babel's locale selector)."""
    table = table_language()
    if request.endpoint in TABLE_ENDPOINTS or (
        request.endpoint == "pages.part" and (request.view_args or {}).get("view") == "tv"
    ):
        return table
    chosen = request.cookies.get(COOKIE, "")
    if chosen in languages():
        return chosen
    return request.accept_languages.best_match(languages()) or table


def current() -> str:
    return str(get_locale() or DEFAULT)


def tr(text: Any) -> str:
    """A finished English message from the table (a note, an option, a
    refusal) in the reader's language."""
    return words(current()).text(str(text)) if text is not None else ""


def decimal(value: float, digits: int | None = None) -> str:
    """A number as the reader writes it (1,234.5 or 1.234,5); ``digits`` after the point."""
    if digits is None:
        return format_decimal(value)
    return format_decimal(value, format=number_pattern(current(), digits))


def percent(share: float, digits: int = 0) -> str:
    """A share (0..1) as a percentage ("42%", German "42 %")."""
    return format_percent(share, format=number_pattern(current(), digits, percent=True))


def significant(value: float) -> str:
    """A small probability with three significant digits, as "%.3g" writes it."""
    text = f"{value:.3g}"
    separator = get_locale().number_symbols["latn"]["decimal"] if get_locale() else "."
    return text.replace(".", separator)


@lru_cache(maxsize=8)
def script_catalog(lang: str) -> dict[str, str]:
    """The messages the page scripts say, in ``lang``: the entries of the
    catalog found in web/static/*.js, as {English: translation}."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    if lang == DEFAULT or not path.is_file():
        return {}
    with path.open("rb") as fh:
        catalog = read_po(fh)
    found = {}
    for message in catalog:
        if not message.id or not message.string or message.fuzzy or isinstance(message.id, tuple):
            continue
        if any(file.endswith(".js") for file, _ in message.locations):
            found[message.id] = message.string
    return found


def register(app: Flask, blueprint: bool = True) -> None:
    """Flask-Babel, the template helpers and (with ``blueprint``) the
    language routes and the "shown" words of API errors, for ``app``."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(LOCALE_DIR))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    Babel(app, locale_selector=choose)
    if blueprint:
        app.register_blueprint(bp)
    app.add_template_filter(tr, "tr")
    app.add_template_global(decimal, "decimal")
    app.add_template_global(percent, "percent")
    app.add_template_global(significant, "significant")

    @app.context_processor
    def language_context() -> dict[str, Any]:
        lang = current()
        return {
            "lang": lang,
            "languages": [(code, language_name(code)) for code in languages()],
            "table_language": table_language(),
            "script_words": script_catalog(lang),
        }

    @app.after_request
    def shown_errors(response: Response) -> Response:
        # The JSON error keeps its English for developers; the page shows "shown".
        if response.status_code < 400 or not response.is_json or current() == DEFAULT:
            return response
        try:
            data = json.loads(response.get_data())
        except ValueError:
            return response
        if isinstance(data, dict) and isinstance(data.get("error"), str) and "shown" not in data:
            data["shown"] = tr(data["error"])
            response.set_data(json.dumps(data))
        return response


@bp.post("/language")
def switch():
    """This browser's own language (the switch in the top bar), kept in a cookie."""
    lang = str(request.form.get("language") or request.args.get("language") or "")
    target = request.referrer or "/"
    if not target.startswith(request.host_url):
        target = "/"
    response = current_app.redirect(target, code=303)
    if lang in languages():
        response.set_cookie(COOKIE, lang, max_age=COOKIE_SECONDS, samesite="Lax", httponly=True)
    elif lang == "":
        response.delete_cookie(COOKIE)
    return response


@bp.get("/api/language")
def table_current():
    return jsonify({"language": table_language(), "languages": languages()})


@bp.post("/api/language")
def table_change():
    """The table's language (the TV, the OLED and phones that chose none)."""
    refused = check_json_change(N_("the language"))
    if refused is not None:
        return refused
    data = json_body()
    known = languages()
    if not isinstance(data, dict) or set(data) != {"language"} or data["language"] not in known:
        return error_response(400, 'send {"language": ...} with one of ' + ", ".join(known))
    service = current_app.extensions["tablepi"]
    try:
        service.set_language(data["language"])
    except OSError as exc:
        return error_response(503, f"the setting cannot be saved: {exc.strerror or exc}")
    return jsonify({"language": data["language"]})
