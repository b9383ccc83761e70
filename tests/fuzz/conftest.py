"""Hypothesis profiles for the parser fuzz suite.

`make test` runs a modest number of examples per parser, derandomised: the same examples on
every run and every machine, so a red run can be reproduced and a green one means the same
thing everywhere. `make fuzz` sets HYPOTHESIS_PROFILE=fuzz for thousands of random examples
with a deadline per example (a parser that takes seconds on a small input is a bug there);
the test profile has no deadline, because a busy machine must not fail a correct parser.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {"suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
_FIXED = {**_COMMON, "deadline": None, "derandomize": True, "database": None}
settings.register_profile("default", max_examples=60, **_FIXED)
settings.register_profile("ci", max_examples=60, **_FIXED)
# ms per example: "answered within 5 s"
settings.register_profile("fuzz", max_examples=10_000, deadline=5000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
