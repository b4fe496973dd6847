"""Real language models behind system roles and surrogate participants.

``settings`` is the typed ``llm`` config; ``backends`` turns it into a backend (llama.cpp in
process, or any OpenAI-compatible server); ``chat`` wraps a backend as a langchain-core chat model
with a call cache, timeouts, retries, structured output and per-role accounting; ``casting`` decides,
per role, whether the scripted voice or the LLM speaks.
"""
