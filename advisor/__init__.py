"""advisor: place Oracle and PostgreSQL files on spinning disks by evidence."""

__version__ = "0.1.0"
