"""What a hosted app adds to the ratings package: uploads, Google Sheets, caching, recording games.

- :mod:`sources.uploads`: ``read_upload(contents, filename)`` reads what Dash's ``dcc.Upload`` sends (size checked
  before decoding).  Downloads are written by ``ratings.io`` (``write_csv``, ``write_rows``), the one CSV writer.
- :mod:`sources.sheets`: ``load_settings()`` (environment variables, listed in that module), ``parse_sheet_ref``
  (a pasted link or key), ``open_configured_source()`` -> ``SheetSource.read(force=...)`` -> ``SheetRead`` (history,
  rows, ``stale``, ``message``, ``fetched_at``); ``SheetError`` carries a message for the user.
- :mod:`sources.record`: ``new_game`` validates a form; ``add_game`` adds it to a session history (pure);
  ``record_game`` appends it to a writable sheet once per submission token.
- :mod:`sources.cache`: the per-process last-good-copy cache behind ``SheetSource``.
- :mod:`sources.answers`: the shared memo of callback answers (keys, what an answer read, compression); which
  callbacks use it is declared by the app (``answer_memo.py``).

``sources`` uses ``ratings``; ``ratings`` never imports ``sources``; neither imports Dash or plotly.
"""
