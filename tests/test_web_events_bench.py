"""`tablepi bench web` with tiny numbers: the benchmark itself works (the
figures it prints are not checked here; speed is not a test)."""

from __future__ import annotations

import argparse

from web import bench


def test_bench_web_runs_end_to_end(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--clients", "3", "--rate", "10", "--seconds", "1", "--no-camera"])
    assert bench.run(args) == 0
    out = capsys.readouterr().out
    assert "events delivered: 30 of 30 (3 viewers)" in out
    assert "events lost:      0" in out
    assert "delay p99:" in out and "server memory:" in out


def test_bench_web_refuses_nonsense(capsys):
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.run(parser.parse_args(["--clients", "0"])) == 2
