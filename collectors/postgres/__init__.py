"""postgres collector."""
