"""Tools for developing the harness, not for running experiments: a fake OpenAI-compatible server with a
fixed latency (``latency_server``, for ``dialectica bench --server``) and the survey that chose the local
model presets (``survey``)."""
