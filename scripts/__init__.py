"""Module entry points of the spec's benchmark harness (``python -m scripts.run_locomo``)."""
