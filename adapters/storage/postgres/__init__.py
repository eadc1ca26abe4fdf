"""The PostgreSQL storage backend, on asyncpg: the same aggregates and rules as the SQLite one
(adapters/storage), with PostgreSQL's own means — ON CONFLICT, arrays unnested into set-based
inserts, RETURNING, row locks — and the schema from the shared list of migrations."""
