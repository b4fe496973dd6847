"""Pure metrics over episode records: a metric factory holds options, the function it returns maps
records to named numbers."""

from collections.abc import Callable, Sequence
from typing import Any

Record = dict[str, Any]
MetricFn = Callable[[Sequence[Record]], dict[str, float]]
Metric = Callable[[], MetricFn]
