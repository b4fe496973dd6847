"""``dialectica pairwise RUN_A RUN_B``: an LLM judge reads the two runs' versions of each episode side by side and
names the better one.

Episodes pair by seed and scenario (a replay and its original, or two configurations of a sweep run with the
same ``seed=``). Each pair is shown in an order drawn from its own seed, so neither run is always first; with
``both_orders`` it is judged twice, once each way. The judge answers ``{"reason", "better": "first" | "second" |
"tie"}`` at temperature 0 on the run's ``llm`` (the local model by default), seeded and cached like every call.
A reply that is not such a verdict is counted as unread and left out of every figure, not taken for a tie: a judge
whose replies cannot be read says nothing about the runs.

Reported per graph: B's win rate (ties count half) with a 95% bootstrap interval over the pairs, the exact
sign test over the decided pairs (scipy's ``binomtest``; a pair judged both ways counts once, by the mean of
its two judgments, so that judging twice does not double the evidence), and the position bias: how often the judge
picked whichever conversation it was shown first, with its own test. A judge that picks the first one far more
than half the time reads the order, not the conversations.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dialectica.sim import records as rec
from dialectica.sim.analysis.agreement import GraphRun, graph_runs
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.structured import instruction, read_json, response_format
from dialectica.sim.config.loader import chat_model
from dialectica.sim.llm.chat import LLMChatModel

SCHEMA = {
    "type": "object",
    "properties": {"reason": {"type": "string"}, "better": {"enum": ["first", "second", "tie"]}},
    "required": ["reason", "better"],
}
QUESTION = "Which conversation served the user better, given what the user asked for in it?"
FILE = "pairwise.json"
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Comparison:
    """One judgment of one pair: which run was shown first, and which the judge preferred (``a``, ``b``, ``tie``;
    ``unread`` when its reply was not a verdict)."""

    seed: int
    scenario: str
    first: str
    preferred: str
    reason: str


@dataclass
class GraphPairwise:
    """One graph's pairwise judgments and what they add up to. ``wins_a``, ``wins_b``, ``ties`` and ``unread`` count
    judgments (two a pair with ``both_orders``); ``unpaired`` counts the episodes of either run with no counterpart."""

    graph: str
    pairs: int
    comparisons: list[Comparison] = field(default_factory=list)
    wins_a: int = 0
    wins_b: int = 0
    ties: int = 0
    unread: int = 0
    unpaired: int = 0
    win_rate_b: float = float("nan")  # B's share, ties counting half
    ci95: tuple[float, float] = (float("nan"), float("nan"))
    sign_p: float = float("nan")  # the exact sign test over decided pairs (each pair once, whatever its judgments)
    first_picked: float = float("nan")  # of decided comparisons, the share that picked the one shown first
    position_p: float = float("nan")


def transcript(record: dict[str, Any]) -> str:
    """The conversation as the judge reads it, every turn: a graph used as it is has USER and ASSISTANT turns, a
    built-in graph its speakers (the panel's experts and moderator, the interviewer and the expert...)."""
    lines = []
    for turn in record.get("transcript") or []:
        who = turn["role"].upper() if turn["role"] in ("user", "assistant") else turn.get("speaker") or turn["role"]
        lines.append(f"{who}: {turn['text']}")
    return "\n".join(lines) or "(no conversation)"


def prompt(first: str, second: str, question: str) -> str:
    return (
        f"Two conversations between the same kind of user and two versions of an assistant.\n\n"
        f"<first>\n{first}\n</first>\n\n<second>\n{second}\n</second>\n\n"
        f"{question} Give a one-sentence reason, then better: first, second, or tie."
    )


Pairs = list[tuple[Hashable, dict[str, Any], dict[str, Any]]]


def _pairs(a: GraphRun, b: GraphRun) -> tuple[Pairs, int]:
    """The episodes of ``a`` and ``b`` with the same seed and scenario, and how many of either have no counterpart."""

    def full(run: GraphRun) -> dict[Hashable, dict[str, Any]]:
        return {(r["seed"], r["scenario"]): dict(r) for r in rec.read(run.run_dir / rec.FILE, run.graph)}

    left, right = full(a), full(b)
    shared = sorted(left.keys() & right.keys(), key=str)
    return [(key, left[key], right[key]) for key in shared], len(left) + len(right) - 2 * len(shared)


def summarise(result: GraphPairwise, resamples: int = 4000, seed: int = 0) -> GraphPairwise:
    """Fills the counts, B's win rate with its bootstrap interval over pairs, the sign test and position bias."""
    from scipy.stats import binomtest

    scores: dict[tuple[int, str], list[float]] = {}
    read = [c for c in result.comparisons if c.preferred != "unread"]
    for c in read:
        scores.setdefault((c.seed, c.scenario), []).append({"b": 1.0, "a": 0.0, "tie": 0.5}[c.preferred])
    result.wins_a = sum(c.preferred == "a" for c in read)
    result.wins_b = sum(c.preferred == "b" for c in read)
    result.ties = sum(c.preferred == "tie" for c in read)
    result.unread = len(result.comparisons) - len(read)
    per_pair = [sum(v) / len(v) for v in scores.values()]
    if per_pair:
        result.win_rate_b = sum(per_pair) / len(per_pair)
        rng = random.Random(seed)
        means = sorted(sum(rng.choices(per_pair, k=len(per_pair))) / len(per_pair) for _ in range(resamples))
        result.ci95 = (means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1])
    decided_pairs = [s for s in per_pair if s != 0.5]
    if decided_pairs:
        result.sign_p = float(binomtest(sum(s > 0.5 for s in decided_pairs), len(decided_pairs), 0.5).pvalue)
    decided = [c for c in read if c.preferred != "tie"]
    if decided:
        firsts = sum(c.preferred == c.first for c in decided)
        result.first_picked = firsts / len(decided)
        result.position_p = float(binomtest(firsts, len(decided), 0.5).pvalue)
    return result


def pairwise(
    run_a: str | Path,
    run_b: str | Path,
    *,
    model: Any = None,
    overrides: Sequence[str] = (),
    question: str = QUESTION,
    both_orders: bool = False,
    seed: int = 0,
    graphs: Sequence[str] = (),
) -> list[GraphPairwise]:
    """Judges each pair of episodes of two runs; writes ``pairwise.json`` into run B (once every pair is judged).

    Args:
        model: A langchain-core chat model; None: the ``llm`` config with ``overrides`` (``llm=llamacpp`` unless
            they name another), as role ``judge`` at temperature 0.
        question: What the judge decides.
        both_orders: Judge each pair twice, once in each order (the position bias is then tested over twice the
            judgments).
        seed: Draws each pair's order.

    Raises:
        ConfigError: a path that is not a run, the same run twice, runs that share no graph or no episode.
    """
    if Path(run_a).resolve() == Path(run_b).resolve():
        raise ConfigError(
            f"{run_a} and {run_b} are the same run; give two runs (a replay of A, or A's graph under other settings)"
        )
    matched = _matched(Path(run_a), Path(run_b), graphs)  # every refusal before a model is built
    judge = model if model is not None else chat_model(list(overrides), "judge", seed)
    results = []
    for name, (pairs, unpaired) in matched.items():
        result = GraphPairwise(name, len(pairs), unpaired=unpaired)
        for key, left, right in pairs:
            drawn = random.Random(f"{seed}:{key}").random() < 0.5
            orders = ["a", "b"] if both_orders else (["b"] if drawn else ["a"])
            for first in orders:
                shown = (left, right) if first == "a" else (right, left)
                text = prompt(transcript(shown[0]), transcript(shown[1]), question)
                better, reason = _ask(judge, text)
                preferred = (
                    better
                    if better in ("tie", "unread")
                    else (first if better == "first" else ("b" if first == "a" else "a"))
                )
                result.comparisons.append(Comparison(left["seed"], left["scenario"], first, preferred, reason))
        results.append(summarise(result, seed=seed))
        if result.unread:
            example = next(c.reason for c in result.comparisons if c.preferred == "unread")
            _log.warning("%s: %d of %d judgments were not a verdict and are left out; the first: %s",
                         name, result.unread, len(result.comparisons), example)  # fmt: skip
    settings = {"judge": type(model).__name__ if model is not None else [*overrides] or ["llm=llamacpp"],
                "question": question, "both_orders": both_orders, "seed": seed}  # fmt: skip
    paths = {"run_a": str(Path(run_a).resolve()), "run_b": str(Path(run_b).resolve())}
    (Path(run_b) / FILE).write_text(json.dumps({**paths, **settings, "graphs": [asdict(r) for r in results]}, indent=1))
    return results


def _matched(run_a: Path, run_b: Path, graphs: Sequence[str]) -> dict[str, tuple[Pairs, int]]:
    """Per graph both runs played, its pairs of episodes and how many episodes have no counterpart.

    Raises:
        ConfigError: runs that share no graph, or a graph whose episodes share no seed and scenario.
    """
    runs_a, runs_b = graph_runs(run_a), graph_runs(run_b)
    names = [g for g in (graphs or [r.graph for r in runs_a]) if any(r.graph == g for r in runs_b)]
    if not names and len(runs_a) == len(runs_b) == 1:
        names = [runs_a[0].graph]  # two versions of one bot under two names
    if not names:
        raise ConfigError(f"{run_a} and {run_b} share no graph; give runs of the same graph")
    matched = {}
    for name in names:
        a = next((r for r in runs_a if r.graph == name), runs_a[0])
        b = next((r for r in runs_b if r.graph == name), runs_b[0])
        pairs, unpaired = _pairs(a, b)
        if not pairs and a.graph != b.graph:
            raise ConfigError(
                f"{run_a} played {a.graph} and {run_b} played {b.graph}: no episode pairs; give runs of the same graph"
            )
        if not pairs:
            raise ConfigError(
                f"{name}: no episode of {run_a} has a counterpart in {run_b} (same seed and scenario); run both "
                "with the same seed=, or replay one from the other"
            )
        matched[name] = (pairs, unpaired)
    return matched


def _ask(model: Any, text: str) -> tuple[str, str]:
    from langchain_core.messages import HumanMessage

    if isinstance(model, LLMChatModel):
        reply = model.invoke([HumanMessage(text)], response_format=response_format(SCHEMA), temperature=0.0)
    else:  # a model of the researcher's: the schema in the prompt
        reply = model.invoke([HumanMessage(f"{text}\n{instruction(SCHEMA)}")])
    content = str(reply.content)
    value = read_json(content[content.find("{") : content.rfind("}") + 1] or content, SCHEMA)
    if value is None:
        return "unread", f"the judge's reply was not a verdict: {content[:200]!r}"
    return str(value["better"]), str(value["reason"])
