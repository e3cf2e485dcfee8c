# style: phase names bound to constants, answers built with set unions, annotated like the stub
# expect: pass
PLACEMENT = "input placement"
COMPILATION = "compilation"
DISPATCH = "dispatch"
EXECUTION = "device execution"
WAIT = "output wait"
TRANSFER = "host transfer"

COMPLETED = {DISPATCH, EXECUTION, WAIT}

INTERVALS: dict[str, set[str]] = {
    "A": {DISPATCH},
    "B": {PLACEMENT, COMPILATION} | COMPLETED,
    "C": set(COMPLETED),
    "D": COMPLETED | {TRANSFER},
}
SYNC_POINT: str = "before stopping the timer"
