"""syncgrade: grade learners' JAX benchmarking code by what their timers really measured."""
__version__ = "0.1.0"
