"""Deterministic, seeded, offline stand-ins for participants and system roles."""
