"""`advisor sql list|show`: the exact SQL advisor runs, per database kind and version.

``show`` prints the file the loader would pick for that server version, header comment
included, so a DBA can review or run it by hand. Exit codes: 0; 2 a ``--version`` below 1 (no
server has it: bad input, checked while parsing); 6 unknown query or dbms; 7 no variant for
that version.
"""

from __future__ import annotations

import typer

from advisor.errors import BadInput

sql_app = typer.Typer(help="List or show the SQL advisor runs.", no_args_is_help=True)
DBMS = ("postgres", "oracle")


@sql_app.command("list")
def list_queries(dbms: str = typer.Option("", "--dbms", help="postgres or oracle (default both).")) -> None:
    """List every query with the versions it has a variant for."""
    from advisor.collect.sqlfiles import available

    kinds = _kinds(dbms)
    for kind in kinds:
        versions: dict[str, list[int]] = {}
        for file in available(kind):
            versions.setdefault(file.query, []).append(file.min_major)
        for query, majors in sorted(versions.items()):
            since = ", ".join(f"{m}+" for m in majors)
            typer.echo(f"{kind:<9} {query:<26} {since}")


@sql_app.command("show")
def show(
    query: str = typer.Argument(..., help="Query name, as in `advisor sql list`."),
    dbms: str = typer.Option("postgres", "--dbms", help="postgres or oracle."),
    version: int | None = typer.Option(None, "--version", min=1,
                                       help="Server major version (default: the newest variant)."),
) -> None:
    """Print the SQL that would run against a server of that version."""
    from advisor.collect.sqlfiles import available, pick

    (kind,) = _kinds(dbms)
    variants = [f for f in available(kind) if f.query == query]
    if not variants:
        raise BadInput(f"no {kind} query named {query!r}; see `advisor sql list --dbms {kind}`")
    chosen = pick(kind, query, version) if version else max(variants, key=lambda f: f.min_major)
    typer.echo(f"-- {chosen.path} (for {kind} {chosen.min_major} and later)")
    typer.echo(chosen.header)
    typer.echo(chosen.text + ";")


def _kinds(dbms: str) -> tuple[str, ...]:
    if not dbms:
        return DBMS
    if dbms not in DBMS:
        raise BadInput(f"--dbms {dbms!r}: use postgres or oracle")
    return (dbms,)


def register(app: typer.Typer) -> None:
    """Add the ``sql`` group to the root app."""
    app.add_typer(sql_app, name="sql")
