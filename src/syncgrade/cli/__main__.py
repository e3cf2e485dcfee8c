"""``python -m syncgrade.cli``."""

import sys

from syncgrade.cli import main

sys.exit(main())
