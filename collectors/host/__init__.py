"""host collector."""
