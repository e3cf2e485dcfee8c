# flaw: wrong SYNC_POINT; synchronizing after the stop omits unfinished work
# expect-fail: answer-sync-point
INTERVALS = {
    "A": {"dispatch"},
    "B": {"input placement", "compilation", "dispatch", "device execution", "output wait"},
    "C": {"dispatch", "device execution", "output wait"},
    "D": {"dispatch", "device execution", "output wait", "host transfer"},
}
SYNC_POINT = "after stopping the timer"
