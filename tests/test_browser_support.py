"""The browser tests' own rule: without Chromium they fail on CI and skip,
loudly, elsewhere; they never pass silently."""

from __future__ import annotations

import browser_support
import pytest


def test_missing_browser_fails_on_ci(monkeypatch, tmp_path):
    monkeypatch.setattr(browser_support, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="cannot run on CI"):
        browser_support.require_browser()


def test_missing_browser_skips_loudly_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setattr(browser_support, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="BROWSER TESTS NOT RUN"):
        browser_support.require_browser()


def test_free_port_is_free():
    import socket

    port = browser_support.free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
