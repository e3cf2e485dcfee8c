#!/usr/bin/env bash
# syncgrade as an Exercism test runner: bin/run.sh SLUG INPUT_DIR OUTPUT_DIR
#
# Grades the solution in INPUT_DIR (read only) for the exercise SLUG (or the one
# INPUT_DIR/.meta/syncgrade.json names) into OUTPUT_DIR/results.json, Exercism's
# results format version 3, and exits 0 whatever the verdict, as Exercism requires.
# SYNCGRADE_PYTHON picks the interpreter (default: python3). If it cannot even start, an
# `error` results.json says so, so Exercism never shows a bare runner failure.
set -uo pipefail
if [ "$#" -lt 3 ]; then
  echo "usage: bin/run.sh SLUG INPUT_DIR OUTPUT_DIR" >&2
  exit 2
fi
slug="$1"
input_dir="${2%/}"
output_dir="${3%/}"
python="${SYNCGRADE_PYTHON:-python3}"
mkdir -p "$output_dir"
rm -f "$output_dir/results.json"
"$python" -m syncgrade.platforms.entry exercism "$slug" "$input_dir" "$output_dir"
status=$?
if [ ! -s "$output_dir/results.json" ]; then
  echo "syncgrade: no results from the grader (exit $status)" >&2
  printf '%s\n' '{"version": 3, "status": "error", "message": "The grader itself failed while grading this submission; this is not your fault and says nothing about your code. Please submit again, or tell your mentor if it happens twice.", "tests": []}' \
    > "$output_dir/results.json"
fi
exit 0
