"""syncgrade's version, in a module of its own: reports stamp it, and a module that needs it
should not import the package root (which imports the grading API)."""

__version__ = "0.1.0"
