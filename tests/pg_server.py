"""A throwaway PostgreSQL server for the tests and benchmarks: initdb into a temporary folder,
pg_ctl start on a unix socket in that folder (no port to collide on), stop and delete at the end.

The binaries are looked up on PATH, then in /usr/lib/postgresql/*/bin (Debian's place). As root
they run as the `postgres` system user (PostgreSQL refuses to run as root), and the folder is
given to that user.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

PORT = 5432  # only names the socket file inside our own folder


def find_bin_dir() -> Path | None:
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True):
        return Path(candidate).parent
    return None


class PgServer:
    def __init__(self, bin_dir: Path, *, durable: bool = False, password: str | None = None) -> None:
        self.bin_dir = bin_dir
        self.durable = durable
        self.password = password  # None: any login is trusted; else `postgres` needs this password
        self.root = Path(tempfile.mkdtemp(prefix="studybot-pg-"))
        self.data = self.root / "data"
        self._as_root = os.geteuid() == 0

    def _run(self, *args: str) -> None:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if self._as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({result.returncode}): {result.stderr or result.stdout}")

    def start(self) -> PgServer:
        if self._as_root:
            shutil.chown(self.root, "postgres", "postgres")
        auth = ["--auth=trust"]
        if self.password is not None:
            pwfile = self.root / "pwfile"
            pwfile.write_text(self.password + "\n")
            if self._as_root:
                shutil.chown(pwfile, "postgres", "postgres")
            auth = ["--auth=scram-sha-256", f"--pwfile={pwfile}"]
        self._run("initdb", "-D", str(self.data), "-U", "postgres", *auth,
                  "--locale=C", "--encoding=UTF8", "--no-sync")  # fmt: skip
        self._launch()
        return self

    def _launch(self) -> None:
        options = [f"-k {self.root}", "-c listen_addresses=''", f"-p {PORT}", "-c max_connections=200"]
        if not self.durable:  # test databases need no crash safety
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "60",
                  "-o", " ".join(options), "start")  # fmt: skip

    def halt(self) -> None:
        """Stop the server, keeping its data (every connection to it is cut): `resume()` it later."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        """Start a halted server again, on the same socket and data."""
        self._launch()

    def dsn(self, database: str = "postgres", *, password: str | None = None) -> str:
        login = "postgres" if password is None else f"postgres:{password}"
        return f"postgresql://{login}@/{database}?host={self.root}&port={PORT}"

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
