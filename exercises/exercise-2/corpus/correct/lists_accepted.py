# style: lists instead of sets, in a different order (order and container type don't matter)
# expect: pass
INTERVALS = {
    "A": ["dispatch"],
    "B": ["compilation", "input placement", "output wait", "device execution", "dispatch"],
    "C": ["output wait", "dispatch", "device execution"],
    "D": ["host transfer", "output wait", "device execution", "dispatch"],
}
SYNC_POINT = "before stopping the timer"
