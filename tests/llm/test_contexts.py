"""Two speakers taking turns on the real local model: with a context each (``llm.contexts``), each one's grown
dialogue is served from its own KV cache; with one context, each speaker's call evicts the other's. Either way
a context serves whole batches only, so the replies are the same."""

from __future__ import annotations

from pathlib import Path

from dialectica.sim.llm.backends import Request
from dialectica.sim.llm.llamacpp import LlamaCppBackend
from dialectica.sim.llm.settings import LLMSettings

MODELS = Path(__file__).resolve().parents[2] / "results" / "cache" / "models"
OPENINGS = {
    "ada": "You are Ada, a harbour pilot. Tell me, in detail, how a container ship is brought into a narrow port "
    "at night, what the pilot checks on boarding, and what can go wrong with tugs and tides. " * 3,
    "ben": "You are Ben, a beekeeper. Explain how a colony prepares for winter, how much honey it needs, why "
    "the bees cluster, and what a keeper checks on a mild day in January without opening the hive. " * 3,
}


def _turns(contexts: int) -> list[tuple[str, int, int, str]]:
    """(speaker, prompt tokens, cached tokens, reply) of ada, ben, ada, ben: each speaker's second prompt is its first
    one grown by its reply and a new question."""
    backend = LlamaCppBackend(LLMSettings(backend="llamacpp", model_dir=str(MODELS), contexts=contexts))
    dialogues = {name: [("user", text)] for name, text in OPENINGS.items()}
    seen = []
    for round_ in range(2):
        for name, turns in dialogues.items():
            reply = backend.complete(
                Request(
                    messages=(("system", f"You are {name}."), *turns),
                    seed=round_,
                    temperature=0.0,
                    top_p=1.0,
                    max_tokens=8,
                    timeout_s=300,
                )
            )
            seen.append((name, reply.prompt_tokens, reply.cached_tokens, reply.text))
            turns += [("assistant", reply.text), ("user", "And then? One sentence.")]
    return seen


def test_each_speaker_keeps_its_dialogue_in_a_context_of_its_own():
    own, one = _turns(contexts=2), _turns(contexts=1)
    batch = LLMSettings().n_batch
    for (name, prompt, cached, _), (_, _, evicted, _) in zip(own[2:], one[2:], strict=True):
        assert cached >= 0.6 * prompt, (name, prompt, cached)  # the first prompt, all but the speaker's tail
        assert evicted < 0.2 * prompt, (name, prompt, evicted)  # the other speaker's call came in between
        assert cached % batch == 0 and evicted % batch == 0  # whole batches only
    assert [turn[3] for turn in own] == [turn[3] for turn in one]  # what the contexts held changes no reply


def test_a_local_call_is_bounded_by_its_tokens_not_by_wall_time():
    # a deadline would cut this call short and retry it with the next seed: on a busy or paused machine the same
    # seed and config would then give another reply
    backend = LlamaCppBackend(LLMSettings(backend="llamacpp", model_dir=str(MODELS)))

    def reply(timeout_s: float) -> tuple[str, int]:
        out = backend.complete(
            Request(
                messages=(("user", OPENINGS["ben"]),),
                seed=3,
                temperature=0.8,
                top_p=0.95,
                max_tokens=12,
                timeout_s=timeout_s,
            )
        )
        return out.text, out.completion_tokens

    hurried, patient = reply(0.01), reply(300.0)
    assert hurried == patient and patient[1] == 12
