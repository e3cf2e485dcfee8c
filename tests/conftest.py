"""Suite-wide settings, applied before any test module imports syncgrade.

``SYNCGRADE_WARM_POOL``: each test process (each xdist worker) grades with a pool of one
pre-started child that has imported jax but no learner code, used for one submission and
then discarded (issue 10): the ~1,000 grades of a run skip the 1-2 s jax import each.
Isolation is unchanged: every submission still runs in a fresh process. Set it to 0 in
the environment to grade cold.
"""

from __future__ import annotations

import os

os.environ.setdefault("SYNCGRADE_WARM_POOL", "1")
