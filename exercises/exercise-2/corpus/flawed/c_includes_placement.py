# flaw: snippet C credited with input placement, though its inputs were placed before the timer
# expect-fail: answer-C
INTERVALS = {
    "A": {"dispatch"},
    "B": {"input placement", "compilation", "dispatch", "device execution", "output wait"},
    "C": {"input placement", "dispatch", "device execution", "output wait"},
    "D": {"dispatch", "device execution", "output wait", "host transfer"},
}
SYNC_POINT = "before stopping the timer"
