# flaw: snippet A credited with execution and wait, though its wait comes after the stop
# expect-fail: answer-A
INTERVALS = {
    "A": {"dispatch", "device execution", "output wait"},
    "B": {"input placement", "compilation", "dispatch", "device execution", "output wait"},
    "C": {"dispatch", "device execution", "output wait"},
    "D": {"dispatch", "device execution", "output wait", "host transfer"},
}
SYNC_POINT = "before stopping the timer"
