"""Instructor tools: `grade new` scaffolds an exercise, `grade validate` proves it right.

Nothing here runs for learners. Submissions (solutions, stubs, mutants) are graded through
:func:`syncgrade.grade`, so they run in the sandboxed child like any learner file.
"""
