"""MLflow: the store (``store``: opened, checked, named safely), one run per graph (``runs``), sweeps'
parent runs and tables (``sweep``), and a sweep read back as a DataFrame (``sweep_data``)."""
