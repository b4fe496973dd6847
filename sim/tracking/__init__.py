"""MLflow: the store (``store``: opened, checked, named safely), one run per graph (``runs``), sweeps'
parent runs and tables (``sweep``), a sweep read back as a DataFrame (``sweep_data``), and an experiment's runs
read back (``run_data``)."""
