"""Commands for whoever hosts the app, in Flask's convention (``flask --app web.commands ...``), reading
``DATABASE_URL`` / ``RATINGS_DATA_DIR`` like the app:

- ``db upgrade``: bring the groups' database to the newest schema (the Procfile's ``release`` phase runs it);
- ``groups create SLUG [--name NAME] [--title TITLE ...]``: a new group; prints its organisers' passphrase once;
- ``groups import SLUG FILE --title NAME``: a file's games into a title (the readers and problem lists of an upload;
  the title is made if new);
- ``groups export SLUG DIR``: one long CSV per title (``<title>.csv``, the page's history CSV) and the change log
  (``changes.json``);
- ``groups restore SLUG DIR``: an export's titles into a group (made if new; a title that already has games is
  refused before anything is written);
- ``groups sheet SLUG --title NAME [URL] [--worksheet TAB]``: the title reads its games from the Google Sheet at URL
  (read first, as the page does, so one that cannot be read is refused with the reason), or from the database
  again without URL; as an organiser's setting on the group's page, it is in the change log and Undo takes it back.

Errors are one line on stderr and exit status 2, as the ``ratings`` command line does.

``--app web.commands`` finds :data:`host`, a Flask application holding only these commands: a command starts in
about 0.3 s of CPU instead of the 1.6-2 s of building the whole Dash app (``flask --app app ...``, which registers
the same commands, still works).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

import click
from flask import Flask
from flask.cli import AppGroup

from ratings.history import HistoryError
from ratings.io import read_file, write_csv

# The groups' modules (and SQLAlchemy, about 0.2 s to import) load when a command runs, not with the app: every web
# worker and the Celery worker import this module only to register the commands.

__all__ = ["host", "install"]

db = AppGroup("db", help="The groups' database.")
groups = AppGroup("groups", help="Groups and their games.")


def install(server: Flask) -> None:
    """Register the commands on ``server`` (``flask --app app --help`` lists them)."""
    server.cli.add_command(db)
    server.cli.add_command(groups)


#: The commands alone, for ``flask --app web.commands ...`` (the app itself is not built).
host = Flask("ratings-host")
install(host)


class _Refused(click.ClickException):
    exit_code = 2


def _fail(message: str) -> NoReturn:
    raise _Refused(message)


class _Session:
    """The database brought up to date, and a session on it, committed when the block succeeds."""

    def __enter__(self) -> Any:
        from sources.groups.database import database_url, engine_for, sessions, upgrade

        url = database_url()
        upgrade(url)
        self.engine = engine_for(url)
        self.session = sessions(self.engine)()
        return self.session

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        if exc_type is None:
            self.session.commit()
        self.session.close()
        self.engine.dispose()


def _group(session: Any, slug: str) -> Any:
    from sources.groups import service

    group = service.find_group(session, slug)
    if group is None:
        _fail(f"there is no group at /g/{slug}")
    return group


def _title(session: Any, group: Any, name: str) -> Any:
    from sources.groups import service

    for title in group.titles:
        if title.name == name.strip():
            return title
    return service.add_title(session, group, name)


def _read(path: Path) -> Any:
    try:
        return read_file(path).history
    except HistoryError as exc:
        shown = [str(p) for p in exc.problems[:100]]
        more = len(exc.problems) - len(shown)
        _fail("\n".join(shown + ([f"and {more} more problems"] if more > 0 else [])))


@db.command("upgrade")
def db_upgrade() -> None:
    """Bring the groups' database to the newest schema (creating it when empty)."""
    from sources.groups.database import database_url, upgrade

    upgrade(database_url())
    click.echo("the groups' database is up to date")


@groups.command("create")
@click.argument("slug")
@click.option("--name", default=None, help="the group's name (default: the slug)")
@click.option("--title", "titles", multiple=True, help="a game title the group plays (repeatable)")
def groups_create(slug: str, name: str | None, titles: tuple[str, ...]) -> None:
    """Create a group; its organisers' passphrase is printed once (only a hash of it is kept)."""
    from sources.groups import service

    try:
        with _Session() as session:
            group, passphrase = service.create_group(session, slug, name or slug, titles=titles or ("Games",))
    except service.GroupError as exc:
        _fail(str(exc))
    click.echo(f"group /g/{group.slug} created")
    click.echo(f"organisers' passphrase (shown once, keep it): {passphrase}")
    # the part after '#' stays in the browser: it never reaches a server's access log
    click.echo(
        f"organisers' link (signs in at once; add your site's address in front): /g/{group.slug}#admin={passphrase}"
    )


@groups.command("import")
@click.argument("slug")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--title", required=True, help="the game title the games belong to (made if new)")
def groups_import(slug: str, file: Path, title: str) -> None:
    """Add a file's games to one of the group's titles."""
    from sources.groups import service

    history = _read(file)
    try:
        with _Session() as session:
            group = _group(session, slug)
            count = service.import_history(session, _title(session, group, title), history, who="command line")
    except service.GroupError as exc:
        _fail(str(exc))
    click.echo(f"{count} games imported into /g/{slug}, title '{title.strip()}'")


@groups.command("export")
@click.argument("slug")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
def groups_export(slug: str, directory: Path) -> None:
    """Write each title's history as CSV and the change log as JSON into DIRECTORY."""
    from sources.groups import service

    directory.mkdir(parents=True, exist_ok=True)
    with _Session() as session:
        group = _group(session, slug)
        for title in group.titles:
            text = write_csv(service.history(session, title))
            (directory / f"{service.title_file(title.name)}.csv").write_text(text, encoding="utf-8")
        manifest = service.export_manifest(session, group)
        (directory / "changes.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    titles, log = manifest["titles"], manifest["changes"]
    click.echo(f"{len(titles)} titles and {len(log)} changes written to {directory}")


@groups.command("restore")
@click.argument("slug")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
def groups_restore(slug: str, directory: Path) -> None:
    """Bring an export's titles and games into a group (made if new; its passphrase is printed then)."""
    from sources.groups import service

    try:
        manifest = json.loads((directory / "changes.json").read_text(encoding="utf-8"))
        titles: dict[str, str] = dict(manifest["titles"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        _fail(f"{directory} is not an export of a group (changes.json: {exc})")
    histories = {name: _read(directory / file) for file, name in titles.items()}
    try:
        with _Session() as session:
            group = service.find_group(session, slug)
            passphrase = None
            if group is None:
                group, passphrase = service.create_group(session, slug, str(manifest.get("name") or slug))
            count = sum(
                service.import_history(session, _title(session, group, name), history, who="restore")
                for name, history in histories.items()
            )
            aliased = service.restore_aliases(session, group, manifest.get("aliases"), who="restore")
            sheets = service.restore_sheets(session, group, manifest.get("sheets"), who="restore")
    except service.GroupError as exc:
        _fail(str(exc))
    also = f", {aliased} aliases declared" if aliased else ""
    also += f", {sheets} titles reading their Google Sheet" if sheets else ""
    click.echo(f"{count} games in {len(histories)} titles restored into /g/{slug}{also}")
    if passphrase is not None:
        click.echo(f"organisers' passphrase (shown once, keep it): {passphrase}")


@groups.command("sheet")
@click.argument("slug")
@click.argument("url", required=False)
@click.option("--title", required=True, help="the game title that reads the Sheet")
@click.option("--worksheet", default=None, help="the Sheet's tab (its name or gid; default: the first)")
def groups_sheet(slug: str, url: str | None, title: str, worksheet: str | None) -> None:
    """Make a title read its games from the Google Sheet at URL, or from the group's database again without URL."""
    from sources.groups import pages, service

    address = (url or "").strip()
    tab = worksheet.strip() if worksheet and worksheet.strip() else None
    name = title.strip()

    def chosen(session: Any) -> Any:
        found = next((t for t in _group(session, slug).titles if t.name == name), None)
        if found is None:
            _fail(f"/g/{slug} has no title '{name}'")
        return found

    try:
        with _Session() as session:  # the group and title first: a mistyped name reads no Sheet
            chosen(session)
        if address:
            pages.check_sheet(address, tab)
        with _Session() as session:
            service.set_title_sheet(session, chosen(session), address or None, tab, who="command line")
    except service.GroupError as exc:
        _fail(str(exc))
    if address:
        click.echo(f"/g/{slug}, title '{name}', now reads its games from the Google Sheet")
    else:
        click.echo(f"/g/{slug}, title '{name}', reads its games from the group's database again")
