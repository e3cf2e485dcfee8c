"""What the child observed, validated on the parent side.

The child sends plain dicts; the parent validates them into these immutable models before
any check looks at them, so a malformed or forged frame is rejected as data rather than
trusted. Every event carries ``seq`` from the child's single counter.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Site = tuple[str, int] | None


Cpu = Annotated[int, Field(ge=0, lt=2**63)]
Blocked = Annotated[int, Field(ge=-(2**63), lt=2**63)]
"""A stamp of the sending thread's blocked clock (ns; ``recorder.blocked_clock``: wall time
less CPU time less run-queue delay, plus a constant): only differences of one thread's
stamps mean anything."""


class _Event(BaseModel):
    """``cpu``: the sending thread's CPU time (ns) when the core recorded the event (for a
    call, when it was dispatched; for its return, when it returned); ``th``: which thread
    sent it (threads numbered in the order they first sent, 0 the first). CPU times of
    different threads are different clocks: only one thread's are compared. ``blk``: the
    same thread's blocked clock at ``cpu`` (:data:`Blocked`), on clock reads and on the
    operations whose blocking is credited (calls, waits, placements); ``None`` elsewhere
    and where schedstat cannot be read (gVisor)."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    seq: int
    cpu: Cpu | None = None
    th: int = 0
    blk: Blocked | None = None

    @property
    def cpu_span(self) -> tuple[int, int] | None:
        """The operation's own CPU-time span (ns, on thread ``th``): from its begin stamp
        to its end stamp, ``None`` for an event that is no timed operation (a clock read,
        a print) or lacks a stamp. The one place each kind says what its stamps mean
        (``cpu``/``cpu0``/``cpu_end``); interval accounting credits exactly this span
        (a call's span needs its return: :meth:`analysis.Interval.explained_cpu`)."""
        return None

    @property
    def blk_span(self) -> tuple[int, int] | None:
        """The operation's own span on its thread's blocked clock (``blk``/``blk0``/
        ``blk_end``, the same begin and end as :attr:`cpu_span`): the time it spent
        blocked is ``end - begin``. ``None`` where it has no such stamps (only waits and
        placements have: a call's span needs its return,
        :meth:`analysis.Interval.explained_blocked`)."""
        return None


class TimerRead(_Event):
    """One learner clock read. ``value`` is an exact int for the nanosecond clocks
    (``*_ns``; a float would round ``time_ns()`` to 256 ns) and a float otherwise."""

    kind: Literal["timer"]
    clock: str
    value: Annotated[int, Field(ge=-(2**63), lt=2**63)] | float
    site: Site = None
    vcs: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    """The reading thread's voluntary context switches so far (``getrusage``'s
    ``ru_nvcsw`` for the thread), read just before ``cpu``; ``None`` where unknown."""
    others: Cpu | None = None
    """The CPU time (ns) the threads the learner's code started have spent so far, all
    but the reading thread (``instrument._counted_thread``), read just before ``cpu``;
    ``None`` until the learner's code has started a thread (then 0 is exact)."""
    others_born: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    """With ``others``: how many of those threads had begun by then ..."""
    others_ended: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    """... and how many had ended (each one's CPU time then is what it said at its end)."""


class Pair(_Event):
    """The learner computed ``stop - start`` of these two reads."""

    kind: Literal["pair"]
    start: int
    stop: int


class Readiness(_Event):
    """Right after timer read ``read``: were call ``call``'s outputs ready?"""

    kind: Literal["ready"]
    read: int
    call: int
    ready: bool


class Call(_Event):
    """One jitted call. ``fn``: which callable the grader handed over for this call was
    called (1, 2, ... in argument order), 0 for any other (the learner's own jit, a
    re-wrapped ``jax.jit(fn)``, an AOT-compiled copy). ``static``: the values of its static
    arguments (``static_argnums`` then ``static_argnames``), ``None`` when it has none;
    ``jit_disabled``: jax's ``jax_disable_jit`` was on for it."""

    kind: Literal["call"]
    name: str
    site: Site = None
    inputs: list[int] = []
    numpy_args: int = 0
    fn: int = 0
    static: list[Any] | None = None
    jit_disabled: bool = False
    """jax's ``jax_disable_jit`` was on for this call: it ran op by op, nothing compiled."""
    jit: dict[str, Any] | None = None
    """The ``jax.jit`` options the called function was made with, those given only:
    ``static_argnums``/``donate_argnums`` (lists of ints), ``static_argnames``/
    ``donate_argnames`` (lists of names), ``keep_unused``/``inline`` (true); ``None``
    when it had none (or is no recorded jit)."""
    donated: list[bool] | None = None
    """For a jit with ``donate_argnums``/``donate_argnames``: for each of ``inputs``,
    whether the call consumed it (the array was deleted when the call returned: XLA took
    its buffer; a donation XLA could not use leaves it alive); ``None`` otherwise."""

    @property
    def declares_donation(self) -> bool:
        """The called jit was made with ``donate_argnums`` or ``donate_argnames``."""
        return bool(self.jit and (self.jit.get("donate_argnums")
                                  or self.jit.get("donate_argnames")))

    @property
    def donated_inputs(self) -> list[int]:
        """The input arrays (tokens) this call consumed."""
        if self.donated is None or len(self.donated) != len(self.inputs):
            return []
        return [a for a, gone in zip(self.inputs, self.donated, strict=True) if gone]


class Return(_Event):
    kind: Literal["return"]
    call: int
    outputs: list[int] = []


class Wait(_Event):
    """A wait (or host read) on ``arrays``. Recorded before it waited (``cpu``; its end
    ``cpu_end``) or, for NumPy's conversions, after it (``cpu0`` its start, ``cpu`` its
    end)."""

    kind: Literal["wait"]
    how: str
    arrays: list[int] = []
    site: Site = None
    cpu0: Cpu | None = None
    cpu_end: Cpu | None = None
    blk0: Blocked | None = None
    blk_end: Blocked | None = None
    pending: bool = False
    """Recorded before it waited while the latest call's outputs still ran: the code
    between that call's return and this wait overlapped the device's work."""
    holes: list[tuple[Cpu, Cpu]] = []
    """An ``is_ready()`` poll loop's gaps between polls (CPU ns, begin and end) that were
    longer than a bare loop's: work in the loop's body, no part of the wait."""

    @property
    def cpu_span(self) -> tuple[int, int] | None:
        """Recorded before waiting: ``cpu`` to ``cpu_end``; recorded after (NumPy's
        conversions, an ``is_ready()`` poll loop that ended ready): ``cpu0`` to ``cpu``
        (a poll loop's :attr:`holes` are inside it, not part of it)."""
        if self.cpu is None:
            return None
        if self.cpu_end is not None:
            return (self.cpu, self.cpu_end)
        return (self.cpu0, self.cpu) if self.cpu0 is not None else None

    @property
    def blk_span(self) -> tuple[int, int] | None:
        if self.blk is None:
            return None
        if self.blk_end is not None:
            return (self.blk, self.blk_end)
        return (self.blk0, self.blk) if self.blk0 is not None and self.cpu_end is None \
            else None


class Placement(_Event):
    """An explicit placement (``jax.device_put``, ``jnp.asarray`` of host data). ``host``:
    how many of its leaves came from host memory; 0 means it only re-placed arrays
    already on a device, which transfers nothing from the host. ``host_leaves``: the same
    leaf by leaf (see :attr:`host_arrays`)."""

    kind: Literal["placement"]
    arrays: list[int] = []
    site: Site = None
    host: int = 1
    cpu0: Cpu | None = None
    blk0: Blocked | None = None

    @property
    def cpu_span(self) -> tuple[int, int] | None:
        return _after(self.cpu0, self.cpu)

    @property
    def blk_span(self) -> tuple[int, int] | None:
        return _after(self.blk0, self.blk)
    host_leaves: list[bool] | None = None
    """For each of ``arrays``: whether that leaf came from host memory (``None``: not
    recorded leaf by leaf; then ``host`` alone decides, for every array)."""

    @property
    def host_arrays(self) -> list[int]:
        """The arrays this placement moved from the host, judged leaf by leaf: one
        ``device_put((x_host, w_placed))`` moves ``x`` only."""
        if self.host_leaves is not None and len(self.host_leaves) == len(self.arrays):
            return [a for a, moved in zip(self.arrays, self.host_leaves, strict=True) if moved]
        return list(self.arrays) if self.host > 0 else []


class Compile(_Event):
    kind: Literal["compile"]
    event: str
    fun: str = ""
    site: Site = None
    seconds: float = 0.0
    """How long this phase of the compilation took (jax's monitoring duration: tracing,
    lowering or the backend's compile), as reported to the child's listener."""


class Write(_Event):
    """The learner's code wrote to its ``stream`` (``stdout``/``stderr``: a ``print``).

    One event per run of writes: ``count`` writes of one thread to one stream with no
    other event between them (a print is several writes; a loop of debug prints is one
    run), at the site of its first."""

    kind: Literal["write"]
    stream: str = ""
    site: Site = None
    count: int = Field(1, ge=1)


class Sleep(_Event):
    """A ``time.sleep(seconds)`` (recorded before it slept)."""

    kind: Literal["sleep"]
    seconds: float | None = None
    site: Site = None


class Eager(_Event):
    """An eager (not jitted) ``jax.numpy`` function or array operation ``fun``, recorded
    after it returned an array: ``arrays`` holds its first ``inputs`` array arguments,
    then its result; ``cpu0`` the CPU time before it ran, ``cpu`` after."""

    kind: Literal["eager"]
    fun: str = ""
    arrays: list[int] = []
    inputs: int = 0
    site: Site = None
    cpu0: Cpu | None = None

    @property
    def cpu_span(self) -> tuple[int, int] | None:
        return _after(self.cpu0, self.cpu)


class HostCallback(_Event):
    """One run of a host callback of a compiled program (``jax.pure_callback``,
    ``io_callback``, ``jax.debug.callback``/``print``...: every one lowers through jax's
    ``emit_python_callback``), recorded after it returned: ``cpu0`` to ``cpu`` on thread
    ``th`` (the dispatching thread when XLA ran it inline, else one of XLA's).
    ``line``: the learner's line that made the callback (from the lowering's traceback),
    ``None`` when not in the learner's file."""

    kind: Literal["callback"]
    line: int | None = None
    site: Site = None
    cpu0: Cpu | None = None

    @property
    def cpu_span(self) -> tuple[int, int] | None:
        return _after(self.cpu0, self.cpu)


class GcPause(_Event):
    """A garbage collection on thread ``th``, from CPU time ``cpu`` to ``cpu_end`` (its
    ``seq`` is no position: it is numbered when the call's frame is written)."""

    kind: Literal["gc"]
    cpu_end: Cpu = 0

    @property
    def cpu_span(self) -> tuple[int, int] | None:
        return _after(self.cpu, self.cpu_end)


def _after(begin: int | None, end: int | None) -> tuple[int, int] | None:
    return (begin, end) if begin is not None and end is not None else None


class Given(_Event):
    """Arrays the grader handed to the learner already complete (at the call's start)."""

    kind: Literal["given"]
    arrays: list[int] = []


Event = Annotated[
    TimerRead | Pair | Readiness | Call | Return | Wait | Placement | Compile | Given
    | Write | Sleep | Eager | GcPause | HostCallback,
    Field(discriminator="kind"),
]

READBACK_WAYS = frozenset(
    {"numpy.asarray", "numpy.array", "numpy.asanyarray", "host conversion", "item", "tolist"}
)


class LearnerError(BaseModel):
    """An exception of the learner's code. ``workload``/``workload_line``: set when it was
    the mistake of a workload the rubric declared as source (the child's
    ``harness.describe_error``): an exercise setup error, not the learner's."""

    model_config = ConfigDict(frozen=True)
    type: str
    message: str
    line: int | None = None
    traceback: str = ""
    workload: str | None = None
    workload_line: int | None = None


class ReferenceTiming(BaseModel):
    """The grader's own timing of the call one list of samples times (the child's
    ``reference`` module): ``seconds`` of each run, or why there is none (``missing``).
    ``samples``: where the list is in the call's return value."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    samples: list[int | str]
    seconds: list[float] = []
    starts: list[float] = []
    """Each run's start read (``perf_counter`` seconds, the stall watch's clock), in the
    order of ``seconds``; empty where unknown."""
    missing: str | None = None
    runnable_per_cpu: float | None = None
    """The machine's one-minute load average per CPU when the grader timed the call."""
    calls: list[int] = []
    """The event numbers of the latest calls with the arguments the grader timed: a list
    may have several entries, one per argument signature of the timed callable (in the
    child's order, ``reference._candidates``); ``sample-duration`` uses the one its
    intervals' calls are among."""


class CallFrame(BaseModel):
    """One grader call of a learner function (or read of a learner constant)."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    type: Literal["call"]
    id: str
    ok: bool
    value: dict[str, Any] | None = None
    error: LearnerError | None = None
    grader_error: str | None = None
    events: list[Event] = []
    probe_seconds: float | None = None
    wall_s: float | None = None
    reference: list[ReferenceTiming] = []
    stalls: list[tuple[float, float, float]] = []
    """``(slept, woke, late)`` in ``perf_counter`` seconds: the child's stall watch
    (``reference.StallWatch``) slept from ``slept`` and woke at ``woke``, ``late`` seconds
    past its time: somewhere in that sleep the child could not run Python for that long,
    during the learner's call or the grader's timing of it."""
    latest_wake_s: float | None = None
    """The latest any of the watch's wake-ups came past its time over the same span
    (``None``: no wake-up): how long a woken thread waited for a CPU in this run."""
    holds: list[tuple[float, float, float]] = []
    """``(start, end, held)`` in ``perf_counter`` seconds: the windows in which the stall
    watch held the interpreter lock for ``held`` seconds, longer than a few us (preempted
    while holding it: ``reference.watch_stalls``). A thread blocked on the lock then is
    paused by the grader, not by the learner (``interval-clean``'s unrecorded blocking)."""
    realtime_offset: float | None = None
    """``time.time() - time.perf_counter()`` in the child when the watch started."""
    cpu_waits: list[tuple[float, float, float]] | None = None
    """``(start, end, waited)`` in ``perf_counter`` seconds: between ``start`` and ``end``
    one of the grader's and jax's threads (the timing thread, XLA's device threads) spent
    ``waited`` seconds runnable but waiting for a CPU (the watch's sweeps of
    ``/proc/self/task/*/schedstat``, ``reference.RunQueue``); ``None`` where that could
    not be read (gVisor), ``[]`` also when nothing waited."""


class Hello(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    type: Literal["hello"]
    jax_version: str
    jaxlib_version: str
    numpy_version: str
    python_version: str
    backend: str
    device: str
    platform: str
    cpu_clock_step_ns: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    """How far the child's thread CPU clock moves at a time (``child.__main__.
    cpu_clock_step_ns``): an event's ``cpu`` stamp is known to within it; ``None`` where
    not measured (a child that never started)."""


class NameProblem(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str
    problem: Literal["missing", "signature"]
    detail: str = ""


class Load(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    type: Literal["load"]
    ok: bool
    error: LearnerError | None = None
    problems: list[NameProblem] = []
    tampered: list[str] = []


class End(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    type: Literal["end"]
    tampered: list[str] = []


Frame = Annotated[Hello | Load | CallFrame | End, Field(discriminator="type")]
