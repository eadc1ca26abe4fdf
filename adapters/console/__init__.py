"""Console adapter: a line-based chat over the same core and database, no token needed."""

from adapters.console.adapter import ConsoleAdapter

__all__ = ["ConsoleAdapter"]
