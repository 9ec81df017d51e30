"""caustica-farm: renders Caustica sequences and stills on a Ray cluster.

The farm splits a render into tasks (chunks of frames, or sample ranges of a still), runs
``caustica render`` for each on a worker with one GPU (or one CPU), and gathers the outputs under
their final names. It drives the ``caustica`` executable; it does not render itself.
"""

__version__ = "0.1"
