"""TablePi vision."""
