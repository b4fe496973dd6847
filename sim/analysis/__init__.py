"""What is read back from finished runs: the LLM reference against the scripted cast (``validity``), the
scripted cast fitted to it (``calibration``), two runs compared (``compare``, ``ci_report``), a sweep's
notebook as HTML (``report``), and the harness's own performance figures (``bench``)."""
