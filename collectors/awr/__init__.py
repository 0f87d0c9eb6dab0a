"""awr collector."""
