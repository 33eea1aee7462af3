"""``dpk.random``: Philox-4x32-10 random numbers, the same for a seed on every device
(docs/primitives.md). Re-exports dpk.primitives.random."""

from .primitives.random import (Generator, default_rng, integers, normal, random, random_raw,
                                seed, standard_normal, uniform)

__all__ = ["Generator", "default_rng", "integers", "normal", "random", "random_raw", "seed",
           "standard_normal", "uniform"]
