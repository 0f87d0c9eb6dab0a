"""Secrets inside settings that are commands or connection strings are masked by rule.

Each row is a setting value a DBA may really have (archive_command, restore_command,
archive_cleanup_command, primary_conninfo, an Oracle archive destination) and the secret
it carries. After :func:`advisor.secrets.mask_settings` no run of 4+ letters and digits of
the secret survives, masking again changes nothing (a masked document passes the push's
check), and values without a secret's shape come out byte for byte.
"""

from __future__ import annotations

import re

import pytest

from advisor.secrets import SECRET_MARKERS, mask_by_rule, mask_settings, redact

HOSTILE = [
    ("archive_command", "PGPASSWORD=Sx9Leak4 psql -h backup -c \"select archive('%f')\"", "Sx9Leak4"),
    ("archive_command", "PGPASSWORD='Sx9 Leak4' psql -h backup -f /etc/arch.sql", "Sx9 Leak4"),
    ("archive_command", 'PGPASSWORD="Sx9\\"Leak4" psql -h b -c "copy"', 'Sx9\\"Leak4'),
    ("archive_command", "export PGPASSWORD=Sx9Leak4; psql -h backup", "Sx9Leak4"),
    ("archive_command", "curl -sf -u arch:Qq7Leak8 -T %p https://store.example/%f", "Qq7Leak8"),
    ("archive_command", "curl -sf --user 'arch:Qq7 Leak8' -T %p https://store.example/%f", "Qq7 Leak8"),
    ("archive_command", "curl -sf --user=arch:Qq7Leak8 -T %p https://store.example/%f", "Qq7Leak8"),
    ("archive_command", "curl -uarch:Qq7Leak8 -T %p https://store.example/%f", "Qq7Leak8"),
    ("archive_command", "curl -T %p https://arch:Qq7Leak8@store.example/%f", "Qq7Leak8"),
    ("archive_command", "AWS_SECRET_ACCESS_KEY=Ak3Leak5Ak3 aws s3 cp %p s3://wal/%f", "Ak3Leak5Ak3"),
    ("archive_command", "wget --password=Ww2Leak6 ftp://arch.example/%f", "Ww2Leak6"),
    ("archive_command", "sshpass -p Ss4Leak1 scp %p backup:/arch/%f", "Ss4Leak1"),
    ("restore_command", "barman-cloud-wal-restore --token Tk5Leak2 s3://wal main %f %p", "Tk5Leak2"),
    ("restore_command", "VAULT_TOKEN=Tk5Leak2 wal-g wal-fetch %f %p", "Tk5Leak2"),
    ("archive_cleanup_command", "mysql -uarch -pMy6Leak3 -e 'delete from wal'", "My6Leak3"),
    ("primary_conninfo", "host=primary port=5432 user=repl password=Rp8Leak7 application_name=s1", "Rp8Leak7"),
    ("primary_conninfo", "host=primary user=repl password='Rp8 Leak7' sslmode=require", "Rp8 Leak7"),
    ("primary_conninfo", "postgresql://repl:Rp8Leak7@primary:5432/postgres?application_name=s1", "Rp8Leak7"),
    ("log_archive_dest_2", "rman/Or9Leak1@//backup:1521/arch", "Or9Leak1"),
]

HARMLESS = [
    ("archive_command", "test ! -f /mnt/arch/%f && cp %p /mnt/arch/%f"),
    ("archive_command", "PGPASSFILE=/etc/advisor/pgpass rsync -a -u %p backup:/arch/%f"),
    ("archive_command", "pgbackrest --stanza=main --repo1-path=/var/lib/pgbackrest archive-push %p"),
    ("restore_command", "cp /mnt/server/archivedir/%f %p"),
    ("primary_conninfo", "host=primary port=5432 user=repl passfile=/var/lib/postgresql/.pgpass"),
    ("log_archive_dest_2", "SERVICE=stby ASYNC VALID_FOR=(ONLINE_LOGFILES,PRIMARY_ROLE) DB_UNIQUE_NAME=stby"),
    ("data_directory", "/var/lib/postgresql/17/main"),
    ("track_io_timing", "on"),
]


def fragments(secret: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]{4,}", secret)


@pytest.mark.parametrize(("name", "value", "secret"), HOSTILE)
def test_secret_in_a_command_or_conninfo_is_masked(name: str, value: str, secret: str) -> None:
    masked = mask_settings({name: value})[name]
    assert all(piece not in masked for piece in fragments(secret)), masked
    assert "***" in masked
    assert mask_by_rule(masked) == masked  # idempotent: the push's check sees nothing left
    assert redact(masked) == masked


@pytest.mark.parametrize(("name", "value", "secret"), HOSTILE)
def test_push_precheck_markers_see_every_hostile_value(name: str, value: str, secret: str) -> None:
    """The push skips its patterns when none of the markers occurs: every shape must carry one."""
    assert any(marker.decode() in value.lower() for marker in SECRET_MARKERS), value


@pytest.mark.parametrize(("name", "value"), HARMLESS)
def test_values_without_a_secret_are_kept_whole(name: str, value: str) -> None:
    assert mask_settings({name: value}) == {name: value}


def test_the_rules_are_applied_to_messages_too() -> None:
    line = redact("archive command failed: PGPASSWORD=Sx9Leak4 psql -h b; curl -u a:Qq7Leak8 x")
    assert "Sx9Leak4" not in line and "Qq7Leak8" not in line
