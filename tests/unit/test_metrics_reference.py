"""Each metric against an independent reference (sklearn, scipy, numpy) on seeded random inputs."""

from __future__ import annotations

import hashlib
import math
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import jaccard_score
from sklearn.metrics.pairwise import cosine_similarity
from sklearn.preprocessing import MultiLabelBinarizer

from dialectica.metrics.agreement import jaccard, majority, pairwise_cosine, pairwise_jaccard
from dialectica.metrics.embedding import embedding_agreement, with_embedding_agreement
from dialectica.metrics.stats import mean, percentile, wilson_interval
from dialectica.metrics.summary import (
    aggregate,
    by_scenario,
    convergence,
    episode_means,
    per_round_means,
    timings,
    undefined_agreement,
)
from dialectica.sim.authoring.termination import TerminationReason

SIZES = [1, 2, 5, 17]
VOCAB = [f"claim{i}" for i in range(12)]


def _random_sets(rng: np.random.Generator, n: int) -> list[set[str]]:
    return [{w for w in VOCAB if rng.random() < rng.uniform(0.1, 0.6)} for _ in range(n)]


def _sk_jaccard(a: set[str], b: set[str]) -> float:
    rows = MultiLabelBinarizer(classes=VOCAB).fit_transform([a, b])
    return float(jaccard_score(rows[0], rows[1], average="binary", zero_division=0.0))


# --- Jaccard ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_jaccard_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    for a, b in combinations(_random_sets(rng, 8), 2):
        assert jaccard(a, b) == pytest.approx(_sk_jaccard(a, b), abs=1e-12)


@pytest.mark.parametrize("n", SIZES)
def test_pairwise_jaccard_matches_sklearn_mean(n):
    rng = np.random.default_rng(100 + n)
    sets = _random_sets(rng, n)
    pairs = [_sk_jaccard(a, b) for a, b in combinations(sets, 2)]
    if not pairs:
        assert math.isnan(pairwise_jaccard(sets))
        return
    assert pairwise_jaccard(sets) == pytest.approx(float(np.mean(pairs)), abs=1e-12)


def test_jaccard_documented_empty_values():
    assert jaccard(set(), set()) == 0.0
    assert jaccard({"x"}, set()) == 0.0
    assert math.isnan(pairwise_jaccard([]))
    assert math.isnan(pairwise_jaccard([{"x", "y"}]))  # one voice agrees with no one: undefined, not 1.0
    assert pairwise_jaccard([set(), set()]) == 0.0


def test_agreement_below_quorum_is_undefined():
    sets = [{"a", "b"}, {"a", "b"}, {"a"}]
    assert math.isnan(pairwise_jaccard(sets[:2], quorum=3))
    assert pairwise_jaccard(sets, quorum=3) == pytest.approx(np.mean([1.0, 0.5, 0.5]))
    assert math.isnan(pairwise_cosine(np.eye(3)[:2], quorum=3))
    assert [majority(n) for n in (1, 2, 3, 4, 5, 12)] == [2, 2, 2, 3, 3, 7]


# --- cosine ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 7, 20])
@pytest.mark.parametrize("dim", [3, 16])
def test_pairwise_cosine_matches_sklearn_upper_triangle(n, dim):
    x = np.random.default_rng(n * 31 + dim).normal(size=(n, dim)) * np.random.default_rng(n).uniform(0.1, 9, (n, 1))
    sims = cosine_similarity(x)
    expected = sims[np.triu_indices(n, k=1)].mean()
    assert pairwise_cosine(x) == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("rows", [0, 1])
def test_pairwise_cosine_fewer_than_two_rows_is_nan(rows):
    assert math.isnan(pairwise_cosine(np.ones((rows, 4))))


# --- Wilson, percentile, mean ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 7, 30, 250])
def test_wilson_interval_matches_scipy(n):
    ks = sorted({0, n, *np.random.default_rng(n).integers(0, n + 1, size=5).tolist()})
    for k in ks:
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        low, high = wilson_interval(k, n)
        assert (low, high) == pytest.approx((ci.low, ci.high), abs=1e-9), (k, n)
        assert 0.0 <= low <= k / n <= high <= 1.0


def test_wilson_interval_no_trials_is_the_unit_interval():
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("n", [1, 2, 9, 100])
def test_percentile_and_mean_match_numpy(n):
    values = np.random.default_rng(n).exponential(size=n).tolist()
    for q in (0, 5, 50, 95, 100):
        assert percentile(values, q) == pytest.approx(np.percentile(values, q))
    assert mean(values) == pytest.approx(np.mean(values))


def test_percentile_and_mean_of_nothing_are_nan():
    assert math.isnan(percentile([], 50))
    assert math.isnan(mean([]))


# --- embedding agreement ---------------------------------------------------------------------------


class CountingEmbed:
    """Deterministic hash-to-vector embedding that records every batch it is given."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    @staticmethod
    def vector(text: str) -> np.ndarray:
        digest = hashlib.sha256(text.encode()).digest()
        return np.frombuffer(digest, dtype=np.uint8)[:12].astype(float) - 127.5

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return np.stack([self.vector(t) for t in texts]) if texts else np.zeros((0, 12))


def _transcript(rng: np.random.Generator, rounds: int, experts: int, shared: list[str]) -> list[dict]:
    turns = []
    for r in range(1, rounds + 1):
        turns.append({"round": r, "role": "moderator", "speaker": "moderator", "text": f"question {r} {rng.random()}"})
        for e in range(experts):
            text = shared[int(rng.integers(len(shared)))] if rng.random() < 0.3 else f"answer {r}-{e} {rng.random()}"
            turns.append(
                {"round": r, "role": "participant", "speaker": f"x{e}", "text": text, "fallback": bool(rng.random() < 0.15)}
            )
    return turns


def _reference_rounds(record: dict) -> list[float]:
    by_round: dict[int, list[str]] = {}
    for t in record.get("transcript", []):
        if t["role"] == "participant":
            texts = by_round.setdefault(t["round"], [])
            if not t.get("fallback"):
                texts.append(t["text"])
    out = []
    for r in sorted(by_round):
        if len(by_round[r]) < 2:
            out.append(float("nan"))
            continue
        sims = cosine_similarity(np.stack([CountingEmbed.vector(t) for t in by_round[r]]))
        out.append(float(sims[np.triu_indices(len(by_round[r]), k=1)].mean()))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_embedding_agreement_matches_hand_computation_and_encodes_each_text_once(seed):
    rng = np.random.default_rng(seed)
    shared = [f"shared answer {i}" for i in range(3)]
    records = [{"transcript": _transcript(rng, int(rng.integers(1, 5)), int(rng.integers(2, 5)), shared)} for _ in range(6)]
    records.append({"transcript": []})
    embed = CountingEmbed()
    result = embedding_agreement(records, embed)

    assert len(embed.batches) == 1
    batch = embed.batches[0]
    wanted = {t["text"] for r in records for t in r["transcript"] if t["role"] == "participant" and not t["fallback"]}
    assert len(batch) == len(set(batch)) and set(batch) == wanted
    assert len(result) == len(records) and result[-1] == []
    for record, values in zip(records, result, strict=True):
        np.testing.assert_allclose(values, _reference_rounds(record), rtol=1e-9, equal_nan=True)


def test_embedding_agreement_single_answer_round_is_nan_and_fallbacks_are_excluded():
    turns = [
        {"round": 1, "role": "participant", "speaker": "a", "text": "alpha", "fallback": False},
        {"round": 1, "role": "participant", "speaker": "b", "text": "[Expert B was unable]", "fallback": True},
        {"round": 2, "role": "participant", "speaker": "a", "text": "alpha", "fallback": False},
        {"round": 2, "role": "participant", "speaker": "b", "text": "beta", "fallback": False},
    ]
    embed = CountingEmbed()
    (values,) = embedding_agreement([{"transcript": turns}], embed)
    assert math.isnan(values[0])
    assert values[1] == pytest.approx(cosine_similarity(np.stack([embed.vector("alpha"), embed.vector("beta")]))[0, 1])
    assert "[Expert B was unable]" not in embed.batches[0]


def test_embedding_agreement_respects_each_rounds_quorum():
    turns = [
        {"round": r, "role": "participant", "speaker": s, "text": f"{s}{r}", "fallback": (r, s) == (2, "c")}
        for r in (1, 2)
        for s in "abc"
    ]
    record = {"transcript": turns, "per_round": [{"round": 1, "quorum": 3}, {"round": 2, "quorum": 3}]}
    (values,) = embedding_agreement([record], CountingEmbed())
    assert not math.isnan(values[0]) and math.isnan(values[1])  # round 2 has two voices of the three needed


def test_embedding_agreement_averages_each_answers_sentence_vectors():
    a, b = "First sentence here. Second sentence there.", "Second sentence there."
    turns = [{"round": 1, "role": "participant", "speaker": s, "text": t} for s, t in (("a", a), ("b", b))]
    embed = CountingEmbed()
    (values,) = embedding_agreement([{"transcript": turns}], embed)
    assert sorted(embed.batches[0]) == ["First sentence here.", "Second sentence there."]  # each sentence once
    va = (embed.vector("First sentence here.") + embed.vector("Second sentence there.")) / 2
    vb = embed.vector("Second sentence there.")
    assert values == pytest.approx([float(va @ vb / np.linalg.norm(va) / np.linalg.norm(vb))])


def test_embedding_agreement_without_answers_is_empty_and_encodes_nothing():
    embed = CountingEmbed()
    assert embedding_agreement([{"transcript": []}, {}], embed) == [[], []]
    assert embed.batches == []


def test_embedding_agreement_keeps_rounds_whose_answers_all_failed():
    turns = [
        {"round": r, "role": "participant", "speaker": s, "text": f"{s}{r}", "fallback": r == 2}
        for r in (1, 2, 3)
        for s in "ab"
    ]
    (values,) = embedding_agreement([{"transcript": turns}], CountingEmbed())
    assert len(values) == 3 and math.isnan(values[1])


def test_an_episode_whose_every_answer_failed_has_a_nan_round_each_and_keeps_its_other_metrics():
    # the tribunal on the 1.5B: every opinion of a two-round episode unparsed (this raised, losing the episode)
    turns = [{"round": r, "role": "participant", "speaker": s, "text": "", "fallback": True} for r in (1, 2) for s in "ab"]
    embed = CountingEmbed()
    (values,) = embedding_agreement([{"transcript": turns}], embed)
    assert len(values) == 2 and all(math.isnan(v) for v in values) and embed.batches == []
    per_round, metrics = with_embedding_agreement(turns, [{"round": 1}, {"round": 2}], {"rounds": 2}, embed)
    assert [math.isnan(e["embedding_agreement"]) for e in per_round] == [True, True]
    assert metrics["rounds"] == 2 and math.isnan(metrics["embedding_agreement"])


# --- summary metrics -------------------------------------------------------------------------------

NODES = ("formulate_question", "collect_responses", "check_convergence")


def _records(seed: int, n: int, with_errors: bool = True) -> list[dict]:
    """Records shaped like sim.engine.episode.run_episode's; errored ones carry misleading metrics on purpose."""
    rng = np.random.default_rng(seed)
    reasons = [TerminationReason.CONVERGED, TerminationReason.MAX_ROUNDS] + ([TerminationReason.ERROR] * with_errors)
    records = []
    for i in range(n):
        reason = reasons[int(rng.integers(len(reasons)))]
        rounds = int(rng.integers(1, 6))
        per_round = [
            {
                "round": j + 1,
                "question_type": "assumption",
                "depth": int(rng.integers(0, 6)),
                "jaccard_agreement": float(rng.random()),
                "converged": bool(rng.random() < 0.3),
                "unmet": "depth,agreement",
            }
            for j in range(rounds)
        ]
        records.append(
            {
                "graph": "g",
                "episode": i,
                "seed": int(rng.integers(1 << 30)),
                "termination_reason": reason.value,
                "scenario": f"s{i % 3}",
                "metrics": {
                    "rounds": 1000 if reason is TerminationReason.ERROR else rounds,
                    "depth": float(rng.integers(0, 8)) + (1000 if reason is TerminationReason.ERROR else 0),
                    "jaccard_agreement": float(rng.random()),
                },
                "per_round": per_round if reason is not TerminationReason.ERROR else [*per_round, {"depth": 1e6}],
                "transcript": [],
                "timings": {
                    "episode_seconds": float(rng.exponential()),
                    "node_seconds": {
                        node: rng.exponential(size=int(rng.integers(0, 4))).tolist() for node in NODES if rng.random() < 0.8
                    },
                },
                "usage": {"llm_calls": int(rng.integers(0, 50)), "tokens_total": int(rng.integers(0, 5000))},
            }
        )
    return records


def test_by_scenario_rates_match_pandas_groupby():
    import pandas as pd

    records = _records(5, 40)
    frame = pd.DataFrame(
        {
            "scenario": [r["scenario"] for r in records],
            "converged": [r["termination_reason"] == "converged" for r in records],
        }
    )
    expected = frame.groupby("scenario")["converged"].mean()
    got = aggregate(records, [by_scenario])
    assert got == pytest.approx({f"scenario/{k}/convergence_rate": v for k, v in expected.items()})


@pytest.mark.parametrize(("seed", "n"), [(0, 1), (1, 4), (2, 25), (3, 60)])
def test_convergence_termination_and_episode_means(seed, n):
    records = _records(seed, n)
    values = aggregate(records)
    reasons = [r["termination_reason"] for r in records]
    k = reasons.count("converged")
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")

    assert values["episodes"] == n
    assert values["convergence_rate"] == pytest.approx(k / n)
    assert (values["convergence_rate_ci95_low"], values["convergence_rate_ci95_high"]) == pytest.approx((ci.low, ci.high))
    assert values["error_rate"] == pytest.approx(reasons.count("error") / n)
    shares = {k: v for k, v in values.items() if k.startswith("termination/")}
    assert set(shares) == {f"termination/{r.value}" for r in TerminationReason}
    assert sum(shares.values()) == pytest.approx(1.0)
    for reason in TerminationReason:
        assert shares[f"termination/{reason.value}"] == pytest.approx(reasons.count(reason.value) / n)

    ok = [r for r in records if r["termination_reason"] != "error"]
    for key, name in (("rounds", "rounds_mean"), ("depth", "depth_mean"), ("jaccard_agreement", "jaccard_agreement_mean")):
        if ok:
            assert values[name] == pytest.approx(np.mean([r["metrics"][key] for r in ok]))
        else:
            assert math.isnan(values.get(name, float("nan")))
    assert values["llm_calls_mean"] == pytest.approx(np.mean([r["usage"]["llm_calls"] for r in records]))
    assert values["tokens_total_mean"] == pytest.approx(np.mean([r["usage"]["tokens_total"] for r in records]))


@pytest.mark.parametrize(("seed", "n"), [(5, 1), (6, 8), (7, 40)])
def test_timings_match_numpy_and_pool_node_invocations(seed, n):
    records = _records(seed, n, with_errors=False)
    values = aggregate(records, [timings])
    seconds = [r["timings"]["episode_seconds"] for r in records]
    assert values["episode_seconds_p50"] == pytest.approx(np.percentile(seconds, 50))
    assert values["episode_seconds_p95"] == pytest.approx(np.percentile(seconds, 95))
    for node in NODES:
        pooled = [s for r in records for s in r["timings"]["node_seconds"].get(node, [])]
        key = f"node_seconds_p50/{node}"
        if pooled:
            assert values[key] == pytest.approx(np.median(pooled))
        else:
            assert key not in values or math.isnan(values[key])


def test_convergence_of_no_episodes_has_documented_values():
    values = aggregate([], [convergence])
    assert values["episodes"] == 0
    assert math.isnan(values["convergence_rate"]) and math.isnan(values["error_rate"])
    assert (values["convergence_rate_ci95_low"], values["convergence_rate_ci95_high"]) == (0.0, 1.0)


@pytest.mark.parametrize(("seed", "n"), [(8, 3), (9, 30)])
def test_per_round_means_match_hand_computation(seed, n):
    records = _records(seed, n)
    ok = [r for r in records if r["termination_reason"] != "error"]
    longest = max((len(r["per_round"]) for r in ok), default=0)
    expected = []
    for i in range(longest):
        reached = [r["per_round"][i] for r in ok if len(r["per_round"]) > i]
        expected.append(
            {
                "depth": np.mean([e["depth"] for e in reached]),
                "jaccard_agreement": np.mean([e["jaccard_agreement"] for e in reached]),
                "converged": np.mean([float(e["converged"]) for e in reached]),
                "episodes": len(reached),
            }
        )
    got = per_round_means(records)
    assert [set(row) for row in got] == [set(row) for row in expected]
    for row, ref in zip(got, expected, strict=True):
        assert row == pytest.approx(ref)


def test_per_round_means_episode_count_ignores_nan_in_first_key():
    base = {"termination_reason": "max_rounds"}
    records = [
        base | {"per_round": [{"embedding_agreement": 0.4, "depth": 1}]},
        base | {"per_round": [{"embedding_agreement": float("nan"), "depth": 3}]},
    ]
    (row,) = per_round_means(records)
    assert row["depth"] == pytest.approx(2.0) and row["embedding_agreement"] == pytest.approx(0.4)
    assert row["episodes"] == 2


def test_undefined_agreement_is_its_own_rate_and_left_out_of_the_mean():
    values = [0.5, None, float("nan"), 1.0, None]
    records = [{"termination_reason": "max_rounds", "metrics": {"jaccard_agreement": v}} for v in values]
    records.append({"termination_reason": "error", "metrics": {"jaccard_agreement": None}})
    out = aggregate(records, [episode_means, undefined_agreement])
    assert out["jaccard_agreement_undefined_rate"] == pytest.approx(3 / 5)
    assert out["jaccard_agreement_mean"] == pytest.approx(0.75)
    assert "embedding_agreement_undefined_rate" not in out
