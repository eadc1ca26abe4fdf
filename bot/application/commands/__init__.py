"""The command catalog (every command declared once, with its typed handler key), the reading of
command arguments, and the help built from the catalog, shared by every platform.

Part of the application layer: may import every package of the core (see bot/application).
"""
