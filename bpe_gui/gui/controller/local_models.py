"""The search for the models already on this machine, as a job of the controller's one
job runner (its progress and Cancel in the status bar): the Open model dialog asks for
it and gets the engine's ``ModelScan`` back on the GUI thread.

A search only reads folder listings, manifests and file heads, and stops by itself at
the engine's time limit; Cancel drops it at once (it builds nothing the window keeps).
"""
from __future__ import annotations

from typing import Callable

from ...engine.formats import ModelScan, find_models
from .jobs import Job, JobEnd

LABEL = "Looking for models on this machine"


def find_models_job(on_done: Callable[[ModelScan], None],
                    on_end: Callable[[JobEnd], None]) -> Job:
    """A job that searches every folder ``model_roots()`` names (from the environment
    the window was started with)."""
    def run(progress, cancelled) -> ModelScan:
        return find_models(progress=progress, cancelled=cancelled)
    return Job(LABEL, run, on_done, on_end, unit="models", abandon=True,
               title="Looking for models")
