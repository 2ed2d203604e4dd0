"""What a hosted app adds to the ratings package: uploads, Google Sheets, caching, recording games."""
