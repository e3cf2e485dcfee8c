# style: plain set literals
# expect: pass
INTERVALS = {
    "A": {"dispatch"},
    "B": {"input placement", "compilation", "dispatch", "device execution", "output wait"},
    "C": {"dispatch", "device execution", "output wait"},
    "D": {"dispatch", "device execution", "output wait", "host transfer"},
}
SYNC_POINT = "before stopping the timer"
