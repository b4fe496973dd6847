"""The real all-MiniLM-L6-v2 model, loaded offline from its PyPI package."""

from __future__ import annotations

import numpy as np

from dialectica.sim.engine import embedding
from tests.integration.test_support_bot_example import _dialectica


def test_offline_model_separates_paraphrase_from_unrelated(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    vectors = embedding.embed(
        [
            "Payers in Germany will accept a premium price for the pill.",
            "German insurers are willing to pay a higher price for the oral drug.",
            "The bakery should open on Sundays.",
        ]
    )
    assert vectors.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3


def test_each_distinct_text_is_encoded_once_per_process(monkeypatch):
    model = embedding._model()
    seen: list[list[str]] = []
    original = model.encode
    monkeypatch.setattr(model, "encode", lambda texts, **kw: seen.append(list(texts)) or original(texts, **kw))
    embedder = embedding.Embedder()
    first = embedder(["alpha unique sentence one", "beta unique sentence two", "alpha unique sentence one"])
    second = embedder(["beta unique sentence two", "gamma unique sentence three"])
    assert seen == [["alpha unique sentence one", "beta unique sentence two"], ["gamma unique sentence three"]]
    np.testing.assert_array_equal(first[1], second[0])
    assert embedding._model() is model  # loaded once


def test_disk_cache_serves_a_new_process_without_encoding(tmp_path, monkeypatch):
    texts = ["the cache keeps this vector", "and this one too"]
    warm = embedding.Embedder(tmp_path / "cache.sqlite")
    vectors = warm(texts)
    assert warm.encoded == 2
    cold = embedding.Embedder(tmp_path / "cache.sqlite")
    monkeypatch.setattr(embedding, "_model", lambda: (_ for _ in ()).throw(AssertionError("model was loaded")))
    np.testing.assert_array_equal(cold(texts), vectors)
    assert cold.encoded == 0


def test_a_cold_cache_loads_the_model_before_the_first_episode_and_a_warm_one_not_at_all(tmp_path):
    cache = tmp_path / "e.sqlite"
    args = ["graph=committee", "episodes=1", f"embedding_cache={cache}", "tracking=none", "progress=false"]
    cold = _dialectica(tmp_path, *args, f"hydra.run.dir={tmp_path / 'cold'}")
    assert cold.returncode == 0, cold.stderr[-3000:]
    lines = cold.stdout.splitlines()
    loaded = next(i for i, line in enumerate(lines) if line.startswith("embedding model loaded in"))
    assert loaded < next(i for i, line in enumerate(lines) if line.startswith("committee:"))  # before the graph ran
    warm = _dialectica(tmp_path, *args, f"hydra.run.dir={tmp_path / 'warm'}")
    assert warm.returncode == 0, warm.stderr[-3000:]
    assert "embedding model loaded" not in warm.stdout  # the same texts: the cache serves them


def test_load_says_when_the_process_has_the_model_already():
    embedding._model()
    assert embedding.Embedder().load() is None
