"""Calibrated scripted casts: behaviour statistics from records, a fit of the scripted personas' parameters
to an LLM reference run, and the calibrated sets that ``participants=calibrated`` plays."""
