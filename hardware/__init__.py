"""TablePi hardware."""
