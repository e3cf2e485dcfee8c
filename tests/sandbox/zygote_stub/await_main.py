"""``python -m await_main``: what the sandbox tests' zygote serves.

A zygote's fork starts its module at once, before ``deliver`` has written the test's
files (the real pool's module, ``syncgrade.child``, waits on stdin instead). This one
waits until the last delivered file exists, then runs ``main.py`` as ``__main__``.
"""

import os
import runpy
import time

DELIVERED = "_delivered"  # written after every other file (sandbox_support.run_main)

while not os.path.exists(DELIVERED):
    time.sleep(0.001)
runpy.run_path("main.py", run_name="__main__")
