"""Test helpers shared across test areas (real servers, devices)."""
