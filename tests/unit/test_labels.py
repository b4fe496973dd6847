"""People's labels from files, their consensus, the agreement report over a run's records, and which episodes
the labeling queue chooses."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from dialectica.sim.analysis.agreement import agreement, graph_runs, markdown, pooled, sweep_markdown, verdict_values
from dialectica.sim.analysis.labeling import RANDOM, TARGETED, choose, queue_name, requeued
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.tracking.labels import Label, consensus, dated, merged, read_file


def _record(i: int, scenario: str, converged: bool, judge: bool | None = None) -> dict:
    metrics = {} if judge is None else {"judge_passed": float(judge)}
    reason = "converged" if converged else "user_stopped"
    return {"graph": "bot", "episode": i, "scenario": scenario, "termination_reason": reason, "converged": converged,
            "metrics": metrics}  # fmt: skip


def test_a_csv_and_a_jsonl_file_give_the_same_labels(tmp_path):
    (tmp_path / "a.csv").write_text("episode,label,note,labeler\n0,yes,fine,ann\n1,FALSE,,ann\n2,,,\n3,pass,,\n")
    (tmp_path / "a.jsonl").write_text(
        '{"episode": 0, "label": true, "note": "fine", "labeler": "ann"}\n{"episode": 1, "label": 0, "labeler": "ann"}\n'
        '{"episode": 3, "label": "pass"}\n'
    )
    from_csv = [(lab.episode, lab.value, lab.labeler, lab.note) for lab in read_file(tmp_path / "a.csv", ["bot"])]
    from_jsonl = [(lab.episode, lab.value, lab.labeler, lab.note) for lab in read_file(tmp_path / "a.jsonl", ["bot"])]
    assert from_csv == [(0, True, "ann", "fine"), (1, False, "ann", ""), (3, True, "a", "")]  # row 2: not labeled yet
    assert from_jsonl == from_csv


@pytest.mark.parametrize(
    ("text", "graphs", "words"),
    [
        ("episode,label\n0,maybe\n", ["bot"], ["line 2", "label='maybe'", "true/false"]),
        ("episode,label\nx,true\n", ["bot"], ["line 2", "episode='x'"]),
        ("label\ntrue\n", ["bot"], ["line 2", "no episode"]),
        ("episode,label\n0,true\n", ["bot", "other"], ["several graphs", "graph column", "bot, other"]),
        ("episode,label,graph\n0,true,nope\n", ["bot"], ["graph='nope'", "valid values: bot"]),
        ("episode,converged\n7,yes\n", ["bot"], ["no label column", "it has converged, episode"]),
        ("episode,label,labeler\n2,true,dave\n2,false,dave\n", ["bot"], ["lines 2 and 3", "episode 2 by dave"]),
    ],
)
def test_a_bad_labels_file_is_one_line_naming_the_line(tmp_path, text, graphs, words):
    path = tmp_path / "labels.csv"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        read_file(path, graphs)
    assert all(w in str(err.value) for w in [str(path), *words]), err.value
    assert "\n" not in str(err.value)


def test_two_labelers_are_kept_apart_and_a_split_has_no_consensus():
    labels = merged(
        [
            Label("bot", 1, True, "ann"),
            Label("bot", 1, False, "ann"),  # ann changed her mind: the last one holds
            Label("bot", 1, False, "bob"),
            Label("bot", 2, True, "ann"),
            Label("bot", 2, False, "bob"),
            Label("bot", 3, True, "ann"),
            Label("bot", 3, True, "bob"),
            Label("bot", 3, False, "cy"),
        ]
    )
    assert len(labels) == 7
    assert consensus(labels) == {("bot", 1): False, ("bot", 3): True}  # episode 2 is split


def test_agreement_over_a_small_labeled_run_by_hand():
    records = [_record(i, "a" if i < 10 else "b", converged=i % 3 != 0, judge=i % 3 != 0) for i in range(20)]
    # the verdict passes episodes 1,2,4,5,7,8,10,11,13,14,16,17,19 (13 of 20); people label six of them
    labels = [
        Label("bot", 1, True, "ann"),
        Label("bot", 2, False, "ann", note="the bot refused"),
        Label("bot", 3, False, "ann"),
        Label("bot", 6, True, "ann", note="it did book"),
        Label("bot", 10, True, "ann"),
        Label("bot", 12, False, "ann"),
        Label("bot", 13, False, "ann"),  # targeted: listed, not counted
    ]
    result = agreement(records, labels, targeted=[13], pages={2: "view/episode_2.html"})
    assert result["labels"] == 6 and result["targeted"] == [13]
    assert result["confusion"] == {"tp": 2, "fp": 1, "fn": 1, "tn": 2}
    assert result["accuracy"] == pytest.approx(4 / 6)
    assert result["kappa"] == pytest.approx((4 / 6 - 0.5) / 0.5)
    corrected = result["corrected_convergence_rate"]
    assert corrected["estimate"] == pytest.approx(13 / 20 * 2 / 3 + 7 / 20 * 1 / 3, abs=0.03)  # posterior median
    assert corrected["ci95_low"] < corrected["estimate"] < corrected["ci95_high"]
    assert result["labels_to_halve"] is None  # 13 episodes are left to label, too few to halve the interval
    assert result["convergence_rate"]["estimate"] == pytest.approx(13 / 20)
    assert set(result["verdicts"]) == {"converged", "judge"}
    assert result["verdicts"]["converged"]["by_scenario"]["a"]["n"] == 4
    assert result["verdicts"]["converged"]["by_ending"]["user_stopped"]["confusion"] == {"tp": 0, "fp": 0, "fn": 1, "tn": 2}
    wrong = {d["episode"]: d for d in result["verdicts"]["converged"]["disagreements"]}
    assert set(wrong) == {2, 6, 13}
    assert wrong[2]["notes"] == ["ann: the bot refused"] and wrong[2]["page"] == "view/episode_2.html"
    assert wrong[13]["targeted"] is True
    text = markdown("bot", result)
    assert "episode 2 (a, converged): verdict pass, people fail: ann: the bot refused [page](view/episode_2.html)" in text
    json.dumps(result, allow_nan=False)  # strict JSON


def test_a_verdict_that_never_varied_gets_no_kappa_and_its_label_sources_are_named():
    records = [_record(i, "a", converged=True, judge=True) for i in range(8)]
    labels = [Label("bot", i, i != 3, "ann", source="mine.csv") for i in range(5)]
    result = agreement(records, labels)
    assert result["sources"] == ["mine.csv"]
    assert result["kappa"] == 0.0  # by construction: the verdict passed every labeled episode
    text = markdown("bot", result)
    assert "No kappa for converged, judge: the verdict was the same on every labeled episode" in text
    row = next(line for line in text.splitlines() if line.startswith("| converged |"))
    assert row.split(" | ")[-2] == "-" and "read from mine.csv" in text


def test_labels_of_episodes_the_run_does_not_hold_are_refused():
    with pytest.raises(ConfigError, match="episode 99"):
        agreement([_record(0, "a", True)], [Label("bot", 99, True, "ann")])


def test_the_queue_spreads_over_scenarios_and_endings_and_skips_the_labeled():
    records = [_record(i, "a" if i < 60 else "b", converged=i % 2 == 0, judge=i % 2 == 0 or i % 7 == 0) for i in range(80)]
    chosen = choose(records, 16, seed=3, labeled={0, 2, 4})
    assert len(chosen) == 16 and set(chosen.values()) == {RANDOM}
    assert not chosen.keys() & {0, 2, 4}
    strata = Counter((records[i]["scenario"], records[i]["converged"]) for i in chosen)
    pool = {("a", True): 27, ("a", False): 30, ("b", True): 10, ("b", False): 10}  # less the 3 labeled
    assert all(abs(strata[k] - 16 * n / 77) < 1 for k, n in pool.items()), strata  # in proportion, to the episode
    assert choose(records, 16, seed=3, labeled={0, 2, 4}) == chosen
    assert choose(records, 16, seed=4, labeled={0, 2, 4}) != chosen
    more = choose(records, 4, seed=3, labeled=set(), targeted=3)
    split = [i for i, why in more.items() if why == TARGETED]
    assert len(split) == 3 and all(i % 2 == 1 and i % 7 == 0 for i in split)  # the judge passed, the ending did not
    assert len(choose(records, 500, seed=0, labeled=set())) == 80


def test_judge_examples_are_the_disagreements_with_both_labels_and_their_conversations(tmp_path):
    from dialectica.sim.analysis.agreement import judge_examples

    run = tmp_path / "run"
    (run / "bot").mkdir(parents=True)
    records = [_record(i, "a", converged=i < 6, judge=i < 6) | {"transcript": [
        {"round": 1, "role": "user", "speaker": "user", "text": f"refund {i}"},
        {"round": 1, "role": "tool", "speaker": "tool", "text": "looked up"},
        {"round": 1, "role": "assistant", "speaker": "bot", "text": "done" if i < 6 else "no"},
    ]} for i in range(10)]  # fmt: skip
    (run / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (run / "summary.json").write_text(json.dumps({"graphs": {"bot": {"metrics": {}, "mlflow_run_id": None}}}))
    # people fail episodes 1, 2, 3 (the judge passed them), pass 7 (failed), and agree on 0 and 8
    labels = tmp_path / "labels.csv"
    labels.write_text("episode,label,note\n0,true,\n1,false,refused\n2,false,\n3,false,\n7,true,\n8,false,\n")
    examples = judge_examples(run, labels=[labels], k=3)
    assert [e.episode for e in examples] == [1, 2, 7]  # two disagreements, then one of the other label
    assert [e.passed for e in examples] == [False, False, True] and examples[0].reason == "refused"
    assert examples[0].transcript == "USER: refund 1\nASSISTANT: done"  # tool turns left out, as the judge reads
    assert [e.episode for e in judge_examples(run, labels=[labels], k=5)] == [1, 2, 3, 7, 0]


def test_a_runs_queue_is_named_after_its_folder_and_a_sweep_job_after_its_sweep(tmp_path):
    assert queue_name(tmp_path / "runs" / "trial-bot") == "trial-bot"
    assert queue_name(tmp_path / "multirun" / "sweep-a" / "3") == "sweep-a-3"


def test_labeling_a_sweep_names_its_jobs(tmp_path):
    for job in ("0", "1"):
        (tmp_path / job).mkdir()
        (tmp_path / job / "summary.json").write_text(json.dumps({"overrides": [f"seed={job}"], "graphs": {}}))
    with pytest.raises(ConfigError, match=r"is a sweep; give one of its jobs' folders: .*0, .*1$"):
        graph_runs(tmp_path)


def test_a_sweeps_configurations_are_named_by_what_tells_them_apart(tmp_path):
    from dialectica.sim.analysis.agreement import sweep_jobs

    def job(number: int, *overrides: str) -> None:
        (tmp_path / str(number)).mkdir()
        (tmp_path / str(number) / "summary.json").write_text(json.dumps({"overrides": list(overrides)}))

    job(0, "graph.x=5", "episodes=6", "seed=0")
    job(1, "graph.x=5", "episodes=6", "seed=1")
    assert sweep_jobs(tmp_path) == {"graph.x=5 episodes=6": [tmp_path / "0", tmp_path / "1"]}  # one configuration
    job(2, "graph.x=7", "episodes=6", "seed=0")
    assert set(sweep_jobs(tmp_path)) == {"graph.x=5", "graph.x=7"}


def test_a_file_found_in_the_runs_folder_without_a_label_column_holds_no_labels(tmp_path):
    path = tmp_path / "labels_notes.csv"
    path.write_text("episode,note\n3,check the refund\n")
    assert read_file(path, ["bot"], given=False) == []
    with pytest.raises(ConfigError, match="no label column"):
        read_file(path, ["bot"])


def test_the_newest_label_of_a_labeler_wins_wherever_it_was_given():
    posted_from_file = Label("bot", 8, False, "alice", source="labels.csv", at=100.0)
    later_in_mlflow = Label("bot", 8, True, "alice", at=200.0)
    assert merged([later_in_mlflow, posted_from_file]) == [later_in_mlflow]  # the file, read last, is older
    edited_file = Label("bot", 8, False, "alice", source="labels.csv", at=300.0)
    assert merged([later_in_mlflow, edited_file]) == [edited_file]


def test_a_count_named_passed_is_no_verdict():
    record = _record(0, "a", converged=False, judge=True) | {"metrics": {"judge_passed": 1.0, "criteria_passed": 3}}
    assert verdict_values(record) == {"converged": False, "judge": True}


def test_a_verdict_that_never_varied_has_no_kappa_interval_nor_a_kappa_in_a_sweeps_table():
    records = [_record(i, "a", converged=True) for i in range(6)]
    result = agreement(records, [Label("bot", i, i != 3, "ann") for i in range(4)])
    assert result["verdicts"]["converged"]["kappa_ci95"] == [None, None]
    assert result["verdicts"]["converged"]["by_scenario"]["a"]["kappa_ci95"] == [None, None]
    row = next(line for line in sweep_markdown("bot", {"x=1": pooled([result])}).splitlines() if line.startswith("| x=1"))
    assert row.endswith("| - |")


def test_an_episode_drawn_at_random_stays_random_when_a_later_draw_targets_it():
    queued = {"4": RANDOM, "5": TARGETED}
    assert requeued(queued, {4: TARGETED, 5: RANDOM, 6: TARGETED}) == {"4": RANDOM, "5": RANDOM, "6": TARGETED}


def test_a_file_row_unchanged_since_it_was_posted_loses_to_a_later_label_in_mlflow():
    copy = Label("bot", 3, False, "alice", at=100.0, posted_from="labels.csv")  # what `agreement` posted
    later = Label("bot", 3, True, "alice", at=200.0)  # alice relabels in MLflow's UI
    row = Label("bot", 3, False, "alice", source="/x/labels.csv", at=300.0)  # the file, since edited elsewhere
    assert merged([copy, later, *dated([row], [copy, later])]) == [later]
    edited = Label("bot", 9, True, "alice", source="/x/labels.csv", at=300.0)  # a row changed since: no copy
    assert dated([edited], [copy, later]) == [edited]


def test_a_random_draw_may_choose_an_episode_labeled_because_a_draw_targeted_it_but_never_retargets_it():
    records = [_record(i, "a", converged=i % 2 == 0, judge=i % 3 == 0) for i in range(12)]
    split = [i for i in range(12) if (i % 2 == 0) != (i % 3 == 0)]
    labeled = set(split)  # every split episode was targeted, and labeled
    assert not any(why == TARGETED for why in choose(records, 0, 0, labeled, targeted=5, redraw=labeled).values())
    drawn = choose(records, 12, 0, labeled, redraw=labeled)
    assert set(drawn) == set(range(12)) and set(drawn.values()) == {RANDOM}  # every episode can be drawn at random
    assert set(choose(records, 12, 0, labeled)) == set(range(12)) - labeled
