"""TablePi web."""
