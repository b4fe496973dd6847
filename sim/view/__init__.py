"""Episode viewer: self-contained HTML pages for selected episodes of a run (``dialectica view``)."""
