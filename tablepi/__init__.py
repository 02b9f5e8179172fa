"""TablePi: a Raspberry Pi controller for physical games tables."""

__version__ = "0.1.0"
