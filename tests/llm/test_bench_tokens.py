"""dialectica bench's token figures on the real local model (the default preset): one interview episode."""

from __future__ import annotations

from dialectica.sim.cli.bench import measure as main


def test_bench_token_figures_add_up_against_the_compute_bound(tmp_path, capsys):
    args = ["--tokens", "interview", "--tokens-preset", "smollm2-135m", "--only-tokens", "--out", str(tmp_path)]
    tokens = main(args)["tokens"]
    rates, interview = tokens["rates"], tokens["graphs"]["interview"]
    assert rates["prompt_tokens_per_second"] > rates["generated_tokens_per_second"] > 0  # reading outpaces writing
    assert interview["calls"] > 0 and interview["prompt_tokens"] > interview["generated_tokens"] > 0
    assert 0 <= interview["prompt_cached_share"] < 1  # a prompt's last token is always read again
    bound = (
        interview["prompt_tokens"] / rates["prompt_tokens_per_second"]
        + interview["generated_tokens"] / rates["generated_tokens_per_second"]
    )
    assert interview["bound_seconds"] == bound and interview["over_bound"] == interview["model_seconds"] / bound
    roles = interview["roles"]  # the per-role figures add up to the episode's
    assert set(roles) == {"interviewer", "interviewee"}
    assert sum(r["prompt_tokens"] for r in roles.values()) == interview["prompt_tokens"]
    assert sum(r["calls"] for r in roles.values()) == interview["calls"]
    assert all(0 <= r["cached_tokens"] < r["prompt_tokens"] for r in roles.values())
    out = capsys.readouterr().out
    assert "model seconds / compute bound" in out and "interview surrogate, interviewee: calls" in out
