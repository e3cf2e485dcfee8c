# flaw: snippet D's np.asarray treated as a wait only, missing the host transfer
# expect-fail: answer-D
INTERVALS = {
    "A": {"dispatch"},
    "B": {"input placement", "compilation", "dispatch", "device execution", "output wait"},
    "C": {"dispatch", "device execution", "output wait"},
    "D": {"dispatch", "device execution", "output wait"},
}
SYNC_POINT = "before stopping the timer"
