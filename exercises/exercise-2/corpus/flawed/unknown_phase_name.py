# flaw: unknown phase name "execution" (the vocabulary says "device execution") in C
# expect-fail: answer-C
INTERVALS = {
    "A": {"dispatch"},
    "B": {"input placement", "compilation", "dispatch", "device execution", "output wait"},
    "C": {"dispatch", "execution", "output wait"},
    "D": {"dispatch", "device execution", "output wait", "host transfer"},
}
SYNC_POINT = "before stopping the timer"
