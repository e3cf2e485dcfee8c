"""Production code reads no test-only setting (issue 36): a test that waits out one of the
service's intervals, or the cluster client's transfer allowance, passes a shorter one as a
parameter (``ServiceConfig.heartbeat_s``, ``stale_s``, ``self_test_retry_s``;
``cluster.grade(transfer_s=)``), so what the service is configured with lives in its
configuration, not in environment variables only the suite sets."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "syncgrade"
TEST_ONLY = "SYNCGRADE_TEST_"


def test_no_module_reads_a_test_only_variable() -> None:
    readers = [str(path.relative_to(SRC)) for path in sorted(SRC.rglob("*.py"))
               if TEST_ONLY in path.read_text(encoding="utf-8")]
    assert readers == [], f"{TEST_ONLY}* read in {readers}: make it a parameter the test passes"
