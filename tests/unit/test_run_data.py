"""Reading runs back: a param's whole number written one way, and a store that is not there refused, never made."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.tracking.run_data import _existing_store, _number_text


@pytest.mark.parametrize(
    ("given", "read"),
    [
        ("6.0", "6"),
        ("6", "6"),
        ("-2.00", "-2"),
        ("0.0", "0"),
        ("0.5", "0.5"),
        ("12345678901234567.0", "12345678901234567"),  # exact, not through a float
        ("007", "007"),  # text that looks like a number stays text
        ("007.0", "007.0"),
        ("1e3", "1e3"),
        ("true", "true"),
        (None, None),
    ],
)
def test_only_a_whole_numbers_trailing_zeros_are_dropped(given, read):
    assert _number_text(given) == read


def test_a_store_on_disk_must_exist_and_a_file_path_reads_as_sqlite(tmp_path):
    db = tmp_path / "ml.db"
    for missing in (f"sqlite:///{db}", str(db), db, f"file://{tmp_path / 'mlruns'}", str(tmp_path / "mlruns")):
        with pytest.raises(ConfigError, match=r"no MLflow store at .*relative to the working directory"):
            _existing_store(missing)
    assert not any(tmp_path.iterdir())  # nothing created
    db.write_bytes(b"")
    assert _existing_store(db) == _existing_store(str(db)) == f"sqlite:///{db}"
    assert _existing_store(f"sqlite:///{db}?timeout=30") == f"sqlite:///{db}?timeout=30"
    (tmp_path / "mlruns").mkdir()
    assert _existing_store(f"file://{tmp_path / 'mlruns'}") == f"file://{tmp_path / 'mlruns'}"
    with pytest.raises(ConfigError, match="no MLflow store"):
        _existing_store(f"sqlite:///{tmp_path / 'mlruns'}")  # a folder is no SQLite file
    assert _existing_store("http://user:secret@host:5000") == "http://user:secret@host:5000"  # a server: MLflow's call


def test_a_missing_store_is_named_without_its_credentials():
    with pytest.raises(ConfigError) as err:
        _existing_store(f"sqlite:///{Path('/nonexistent/x.db')}")
    assert "/nonexistent/x.db" in str(err.value)
