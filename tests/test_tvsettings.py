"""The TV's settings file: a missing or damaged file counts as the defaults."""

from __future__ import annotations

from web import tvsettings


def test_settings_read_back_and_damage_counts_as_the_defaults(tmp_path):
    assert tvsettings.load(None) == {"odds": False}
    assert tvsettings.load(tmp_path) == {"odds": False}
    tvsettings._save(tmp_path, {"odds": True})
    assert tvsettings.load(tmp_path) == {"odds": True}
    for damaged in ("{not json", '["odds"]', '{"odds": "yes"}', ""):
        (tmp_path / tvsettings.FILE).write_text(damaged)
        assert tvsettings.load(tmp_path) == {"odds": False}
