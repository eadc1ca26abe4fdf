"""The application shell: configuration, bootstrap and the studybot command."""

__version__ = "0.1.0"
