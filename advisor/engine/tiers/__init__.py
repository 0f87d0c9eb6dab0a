"""Tiered plans: which device of an inventory, and which zone on it, each area gets.

``fit`` says which devices may take an area at all (``AREA_EXCEEDS_DEVICE``); ``targets``
builds the items and the cached per-device evaluator; ``search`` runs the local search seeded
by the IO-density knapsack baseline; ``plan`` states the result as a ``Plan`` with a tier
section; ``findings`` are the tier findings of a report.
"""
