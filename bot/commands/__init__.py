"""The command catalog and the reading of command arguments, shared by every platform."""
