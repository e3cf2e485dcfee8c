# flaw: SYNC_POINT is missing (misspelled SYNCPOINT), so a required name does not exist
# expect-fail: runs
INTERVALS = {
    "A": {"dispatch"},
    "B": {"input placement", "compilation", "dispatch", "device execution", "output wait"},
    "C": {"dispatch", "device execution", "output wait"},
    "D": {"dispatch", "device execution", "output wait", "host transfer"},
}
SYNCPOINT = "before stopping the timer"
