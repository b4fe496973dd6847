"""Scenarios, personas, corpora and schemas of the built-in graphs (data, read through importlib.resources)."""
