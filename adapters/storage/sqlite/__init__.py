"""What only the SQLite backend has: its `Database` (the execution interface on aiosqlite)."""
