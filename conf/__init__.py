"""The Hydra config tree, shipped inside the package (read through importlib.resources)."""
