"""Hypothesis profiles for the parser fuzz suite.

`make test` runs a modest number of examples per parser (the whole folder in well under a
minute); `make fuzz` sets HYPOTHESIS_PROFILE=fuzz for thousands. Each example has a deadline:
a parser that takes seconds on a small input is a bug here, like a traceback.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {
    "deadline": 5000,  # ms per example: "answered within 5 s"
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    "derandomize": False,
}
settings.register_profile("default", max_examples=60, **_COMMON)
settings.register_profile("fuzz", max_examples=10_000, **_COMMON)
settings.register_profile("ci", max_examples=60, **{**_COMMON, "derandomize": True})
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
