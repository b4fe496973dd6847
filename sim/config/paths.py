"""Whether a file or folder can be made where the config says, asked before anything is written (kept
light: the entry point asks before Hydra starts)."""

from __future__ import annotations

import os
from pathlib import Path


def cannot_create(path: Path, folder: bool = False) -> str | None:
    """Why a file (``folder=False``) or a folder cannot be created, or opened, at ``path``; None when nothing
    stands in the way. Permissions are those ``os.access`` reports (the superuser passes them all)."""
    if path.exists():
        if folder and not path.is_dir():
            return f"{path} is a file, not a folder"
        if not folder and path.is_dir():
            return f"{path} is a folder, not a file"
        return None if os.access(path, os.W_OK) else f"{path} is not writable"
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is a file, not a folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{parent} is not writable"
    return None
