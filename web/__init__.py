"""What hosting the app adds around Dash: the request guard (who is asking, from where, how often).

:mod:`web.guard` is installed first (``app.py``), so its checks run before any answer is given, memoised or not.
"""
