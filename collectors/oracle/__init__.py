"""oracle collector."""
