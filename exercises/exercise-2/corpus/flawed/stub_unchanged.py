# flaw: the stub's placeholders left as they are (empty sets, dispatch is enough)
# expect-fail: answer-A answer-B answer-C answer-D answer-sync-point
INTERVALS: dict[str, set[str]] = {
    "A": set(),
    "B": set(),
    "C": set(),
    "D": set(),
}
SYNC_POINT: str = "nowhere: dispatch is enough"
