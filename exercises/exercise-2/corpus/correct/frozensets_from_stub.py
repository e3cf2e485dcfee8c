# style: the stub's vocabulary tuples kept, answers as frozensets indexed from PHASES/choices
# expect: pass
PHASES = (
    "input placement",
    "compilation",
    "dispatch",
    "device execution",
    "output wait",
    "host transfer",
)
SYNC_POINT_CHOICES = (
    "before starting the timer",
    "before stopping the timer",
    "after stopping the timer",
    "nowhere: dispatch is enough",
)

INTERVALS = {
    "A": frozenset(PHASES[2:3]),
    "B": frozenset(PHASES[:5]),
    "C": frozenset(PHASES[2:5]),
    "D": frozenset(PHASES[2:]),
}
SYNC_POINT = SYNC_POINT_CHOICES[1]
