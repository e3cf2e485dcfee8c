# flaw: snippet B's first call is not credited with compilation
# expect-fail: answer-B
INTERVALS = {
    "A": {"dispatch"},
    "B": {"input placement", "dispatch", "device execution", "output wait"},
    "C": {"dispatch", "device execution", "output wait"},
    "D": {"dispatch", "device execution", "output wait", "host transfer"},
}
SYNC_POINT = "before stopping the timer"
