"""Every private JAX name the grading child uses, in one place (issue 34, item 8).

JAX keeps no promise about ``jax._src``: a release may move or rename any of these. They
are imported here and nowhere else, so a JAX that lacks one fails here, at the child's
import, with the name in the traceback (a grader fault before the hello frame), and
supporting another JAX is a change to this file. Tested against the JAX that
``pyproject.toml`` declares (docs/accelerators.md, "The JAX the project declares").

- ``jax_config.disable_jit``: the instrumentation's view of ``jax.disable_jit``;
- ``stages``: ``Compiled.__call__`` and ``Lowered.compile``, hooked for AOT calls (and
  ``Compiled``, which the grader's own timing of an AOT call recognises);
- ``jax_callback``: ``emit_python_callback``, through which every host callback is
  lowered (the instrumentation records each run);
- ``xc`` (``jaxlib``'s ``xla_client``): ``ArrayImpl`` (its ``is_ready``,
  ``is_deleted``, ``block_until_ready``) and ``batched_block_until_ready``;
- ``mlir``, ``hlo`` and ``tanh_p``: exercise-4's ``bfloat16-tanh`` device fault,
  a lowering of ``tanh`` registered per platform;
- ``compilation_cache`` (its ``_cache`` slot, ``reset_cache``) and ``CacheInterface``:
  the probe's spin compiled once per zygote and loaded by each of its children
  (``spin_executable``).
"""

from __future__ import annotations

from jax._src import callback as jax_callback
from jax._src import compilation_cache, stages
from jax._src import config as jax_config
from jax._src.compilation_cache_interface import CacheInterface
from jax._src.interpreters import mlir
from jax._src.lax.lax import tanh_p
from jax._src.lib import xla_client as xc
from jax._src.lib.mlir.dialects import hlo

__all__ = ["CacheInterface", "compilation_cache", "hlo", "jax_callback", "jax_config", "mlir",
           "stages", "tanh_p", "xc"]
