"""Which episodes of a graph get a page: the first few, the best and worst by a metric, the first errors, and
any asked for by index."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from dialectica.metrics import Record
from dialectica.sim.view.markup import number


@dataclass(frozen=True)
class Selected:
    """An episode record and why it was picked (``first``, ``best by x``, ``worst by x``, ``error``, ``asked for``)."""

    record: Record
    why: tuple[str, ...]


def metric_value(record: Record, metric: str) -> float | None:
    """The record's value of ``metric`` (a leading ``-`` is ignored here), or None when it has none."""
    return number((record.get("metrics") or {}).get(metric.lstrip("-")))


def select_episodes(
    records: Sequence[Record],
    first: int,
    metric: str | None,
    errors: int,
    episodes: Collection[int] = (),
    every: bool = False,
    asked: str = "asked for",
) -> list[Selected]:
    """Picks episodes, each once with every reason it was picked, in episode order.

    Best is the highest value of ``metric``, or the lowest for ``-metric``; ties go to the earlier
    episode. Episodes without a finite value are not ranked. ``episodes``: episode indices (the records'
    ``episode``) that get a page whatever else is picked, for the reason ``asked``. ``every``: every episode is
    picked (those that nothing else picks with no reason).
    """
    why: dict[int, list[str]] = {i: [] for i in range(len(records))} if every else {}
    for i in range(min(first, len(records))):
        why.setdefault(i, []).append("first")
    if metric:
        name, sign = metric.lstrip("-"), -1.0 if metric.startswith("-") else 1.0
        ranked = [(sign * v, i) for i, r in enumerate(records) if (v := metric_value(r, metric)) is not None]
        if ranked:
            best = max(ranked, key=lambda p: (p[0], -p[1]))[1]
            worst = min(ranked, key=lambda p: (p[0], p[1]))[1]
            low = " (lowest)" if sign < 0 else ""  # lower is better: said, since "best by rounds" reads as the most
            why.setdefault(best, []).append(f"best by {name}{low}")
            if worst != best:
                why.setdefault(worst, []).append(f"worst by {name}{' (highest)' if low else ''}")
    failed = [i for i, r in enumerate(records) if r.get("error") or r.get("termination_reason") == "error"]
    for i in failed[:errors]:
        why.setdefault(i, []).append("error")
    if episodes:
        for i, r in enumerate(records):
            if r.get("episode") in episodes:
                why.setdefault(i, []).append(asked)
    picked = {i: records[i] for i in why}  # each record parsed once (records may be parsed on access)
    return [Selected(picked[i], tuple(why[i])) for i in sorted(why, key=lambda i: (picked[i].get("episode", i), i))]


def spans(indices: Iterable[int]) -> str:
    """Episode indices as short ranges: ``0-5``, ``0-2, 4, 6-9``; ``none`` when there are none."""
    out: list[tuple[int, int]] = []
    for i in sorted(set(indices)):
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out) or "none"
