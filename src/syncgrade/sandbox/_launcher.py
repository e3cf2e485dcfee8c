"""Trusted launcher between the grader and the untrusted child (run as a script).

The grader starts ``python -I -S _launcher.py CONFIG`` in a new session. This file is
deliberately self-contained and stdlib-only: it runs with ``-I -S`` (no site, no user
paths, nothing a learner could have planted on ``sys.path``) and must not import
syncgrade. Process layout:

namespace mode (Linux, CAP_SYS_ADMIN)::

    grader ── launcher (host pid ns; forwards SIGUSR1/SIGTERM)
                 └─ init (pid 1 of a new pid ns; builds the jail, reaps, sweeps)
                      └─ target (rlimits, unprivileged uid, no_new_privs) ── exec argv

basic mode: the launcher applies rlimits and drops privileges if it can, then execs argv
itself, so the grader's child *is* the target.

A zygote (``_zygote_main.py``) imports this module and calls :func:`launch` in a fork of
itself with a ``become`` function: everything above happens the same way, except that
the target drops every capability and then runs its program in-process instead of exec.

Everything the launcher learns is reported as JSON lines on a private status fd that the
target never holds (close-on-exec): ``protections`` (written by the target just before
exec), ``exec_error``, ``exit`` (namespace mode: the target's wait status, the number of
leftover processes killed, its CPU time) and ``fatal``.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import platform
import resource
import signal
import socket
import stat
import struct
import sys
import traceback
from collections.abc import Callable
from typing import Any

LINUX = sys.platform.startswith("linux")

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
KEPT_MOUNT_FLAGS = {"noexec": MS_NOEXEC, "noatime": 1024, "nodiratime": 2048}

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522
CAPABILITY_SETS = ("CapInh", "CapPrm", "CapEff", "CapAmb")

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1

# pivot_root has no glibc wrapper; numbers per architecture (unknown -> chroot fallback).
PIVOT_ROOT_NR = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}

# Host directories every jail shows read-only: the dynamic loader, libc, /etc for
# ld.so.cache, passwd lookups, certificates and locale data.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/etc")
DEVICES = ("null", "zero", "full", "random", "urandom")
NAMESPACE_PROTECTIONS = ("pid-namespace", "filesystem-allowlist", "hidden-paths", "no-network",
                         "ipc-namespace", "uts-namespace")

_libc = ctypes.CDLL(None, use_errno=True)


class Protections:
    """Ordered record of (name, applied, detail); later records of a name replace it."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[bool, str]] = {}

    def add(self, name: str, applied: bool, detail: str) -> None:
        self.items[name] = (applied, detail)

    def applied(self, name: str) -> bool:
        return self.items.get(name, (False, ""))[0]

    def as_json(self) -> list[list[Any]]:
        return [[n, a, d] for n, (a, d) in self.items.items()]


class Status:
    """Writes JSON lines to the status fd; each line is one write (atomic under 4 KiB)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, event: str, **data: Any) -> None:
        line = (json.dumps({"event": event, **data}) + "\n").encode()
        with contextlib.suppress(OSError):  # grader gone: nobody left to report to
            os.write(self.fd, line)


# --- thin ctypes wrappers ------------------------------------------------------------


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int,
          data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (source, target, fstype, data)]
    ret = _libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3])
    _check(ret, f"mount {source} -> {target}")


def umount2(target: str, flags: int) -> None:
    _check(_libc.umount2(target.encode(), ctypes.c_int(flags)), f"umount {target}")


def prctl(option: int, arg: int) -> None:
    z = ctypes.c_ulong(0)
    _check(_libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), z, z, z), "prctl")


def drop_capabilities() -> None:
    """Clear the bounding, ambient, inheritable, permitted and effective capability sets,
    then verify that none is left (raises OSError if any is).

    Only needed where the target does not exec: ``execve`` by a non-root uid clears the
    capabilities a user namespace granted, but a zygote-forked target never execs (see
    ``_zygote_main.py``)."""
    z = ctypes.c_ulong(0)
    for cap in range(64):  # needs CAP_SETPCAP; EPERM once it is gone, EINVAL past the last
        _libc.prctl(ctypes.c_int(PR_CAPBSET_DROP), ctypes.c_ulong(cap), z, z, z)
    _libc.prctl(ctypes.c_int(PR_CAP_AMBIENT), ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL), z, z, z)
    header = ctypes.create_string_buffer(struct.pack("Ii", LINUX_CAPABILITY_VERSION_3, 0))
    data = ctypes.create_string_buffer(24)  # two all-zero __user_cap_data_struct
    _check(_libc.capset(header, data), "capset")
    with open("/proc/self/status") as f:
        left = [line.split()[0].rstrip(":") for line in f
                if line.split(":")[0] in CAPABILITY_SETS and int(line.split()[1], 16)]
    if left:
        raise OSError(0, f"capabilities left after capset: {', '.join(left)}")


def pivot_root(new_root: str) -> None:
    """Make ``new_root`` the root and detach the old one (the runc ``.``/``.`` trick)."""
    nr = PIVOT_ROOT_NR.get(platform.machine())
    os.chdir(new_root)
    if nr is None:
        os.chroot(".")
    else:
        _libc.syscall.restype = ctypes.c_long
        ret = _libc.syscall(ctypes.c_long(nr), b".", b".")
        _check(int(ret), "pivot_root")
        umount2(".", MNT_DETACH)
    os.chdir("/")


# --- jail construction (runs in init, as root, in a fresh mount namespace) -----------


def _decode_mount_path(raw: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as octal."""
    out, i = [], 0
    while i < len(raw):
        if raw[i] == "\\" and raw[i + 1 : i + 4].isdigit():
            out.append(chr(int(raw[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(raw[i])
            i += 1
    return "".join(out)


def _submounts(path: str) -> list[tuple[str, set[str]]]:
    """Mount points at or below ``path`` with their per-mount options, outermost first."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point = _decode_mount_path(fields[4])
            if point == path or point.startswith(path.rstrip("/") + "/"):
                found.append((point, set(fields[5].split(","))))
    return found


def _make_point(target: str, like: str) -> None:
    """Create an empty directory or file at ``target`` to mount ``like`` onto."""
    if os.path.isdir(like):
        os.makedirs(target, mode=0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        if not os.path.exists(target):
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))


def bind_readonly(source: str, target: str) -> None:
    """Bind ``source`` (recursively) at ``target`` and make every mount there read-only."""
    _make_point(target, source)
    mount(source, target, None, MS_BIND | MS_REC)
    for point, opts in _submounts(target):
        # Keep the existing per-mount flags: in a user namespace they are locked, and
        # a remount that would clear one fails with EPERM.
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV
        for opt, bit in KEPT_MOUNT_FLAGS.items():
            if opt in opts:
                flags |= bit
        mount(None, point, None, flags)


def _covered(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _expose_system(root: str) -> list[str]:
    """Show the system directories; top-level symlinks (/bin -> usr/bin) are recreated."""
    shown = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            os.symlink(os.readlink(path), root + path)
        elif os.path.isdir(path):
            bind_readonly(path, root + path)
            shown.append(path)
    return shown


def _expose_extra(root: str, paths: list[str], shown: list[str]) -> list[str]:
    """Bind each requested path read-only unless an already-shown path contains it."""
    for path in sorted({os.path.realpath(p) for p in paths}, key=len):
        if path == "/" or not os.path.exists(path) or _covered(path, shown):
            continue
        bind_readonly(path, root + path)
        shown.append(path)
    return shown


def _mount_private_tmp(root: str, tmp_bytes: int, exposed: list[str]) -> None:
    """A private, size-limited /tmp, unless /tmp (or /) itself is to be shown.

    Mounted before the extra exposures: one of them may live under /tmp, and a tmpfs
    mounted afterwards would cover it.
    """
    if any(p in ("/", "/tmp") for p in exposed):
        return
    os.makedirs(root + "/tmp", exist_ok=True)
    mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_bytes},mode=1777")


def _mount_workdir(root: str, workdir: str) -> None:
    """Bind the workdir read-write at its host path (creating the path if needed)."""
    target = root + workdir
    if not os.path.isdir(target):
        os.makedirs(target, mode=0o755)
    mount(workdir, target, None, MS_BIND)
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV)


def _mask_hidden(root: str, hidden: list[str]) -> list[str]:
    """Cover every hidden path that is visible in the jail; return those covered.

    A directory gets an empty read-only tmpfs of mode 000, a file an empty mode-000
    file, so reads fail with EACCES rather than returning plausible empty content.
    """
    masked = []
    empty = root + "/.syncgrade-empty"
    if not os.path.exists(empty):
        os.close(os.open(empty, os.O_CREAT | os.O_WRONLY, 0o000))
    for path in sorted({os.path.realpath(p) for p in hidden}, key=len):
        target = root + path
        if not os.path.lexists(target):
            continue  # not shown in the jail at all, already unreachable
        if os.path.isdir(target):
            mount("tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  "size=4k,mode=000")
        else:
            mount(empty, target, None, MS_BIND)
            mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        masked.append(path)
    return masked


def _mount_kernel_fs(root: str, tmp_bytes: int) -> list[str]:
    """Fresh /proc (this pid ns only), fresh read-only /sys, and a minimal /dev.

    Returns notes on what had to be left out.
    """
    notes: list[str] = []
    os.makedirs(root + "/proc", exist_ok=True)
    try:
        mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError as e:
        # In a user namespace the kernel refuses a fresh proc when the host's /proc has
        # masked parts (containers). Never fall back to the host's /proc: it would show
        # the grader's processes, and to a same-uid child their memory.
        notes.append(f"no /proc ({e.strerror})")
    os.makedirs(root + "/sys", exist_ok=True)
    try:
        mount("sysfs", root + "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        bind_readonly("/sys", root + "/sys")
    dev = root + "/dev"
    os.makedirs(dev, exist_ok=True)
    mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=755")
    for name in DEVICES:
        if os.path.exists("/dev/" + name):
            _make_point(f"{dev}/{name}", "/dev/null")
            mount("/dev/" + name, f"{dev}/{name}", None, MS_BIND)
    for name, link in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                       ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(link, f"{dev}/{name}")
    os.makedirs(dev + "/shm")
    mount("tmpfs", dev + "/shm", "tmpfs", MS_NOSUID | MS_NODEV, f"size={tmp_bytes},mode=1777")
    return notes


def build_jail(jail: dict[str, Any], prot: Protections) -> None:
    """Build the allowlisted root filesystem and pivot into it (raises on failure)."""
    root = jail["root"]
    # Private propagation first: nothing mounted below may leak back to the host.
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    shown = _expose_system(root)
    _mount_private_tmp(root, jail["tmp_bytes"], [os.path.realpath(p) for p in jail["expose"]])
    shown = _expose_extra(root, jail["expose"], shown)
    _mount_workdir(root, jail["workdir"])
    masked = _mask_hidden(root, jail["hidden"])
    notes = _mount_kernel_fs(root, jail["tmp_bytes"])
    pivot_root(root)
    mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    extra = [p for p in shown if p not in SYSTEM_PATHS]
    prot.add("filesystem-allowlist", True,
             "pivot_root into a tmpfs showing only system dirs and "
             + ", ".join(extra) + " (all read-only), the workdir, private /tmp, /proc, /dev"
             + "".join(f"; {n}" for n in notes))
    unseen = [p for p in jail["hidden"] if os.path.realpath(p) not in masked]
    prot.add("hidden-paths", True,
             f"masked (mode-000 tmpfs/file): {masked or 'none'}; "
             f"outside the allowlist, so not in the jail at all: {unseen or 'none'}")


def loopback_up() -> None:
    """Bring ``lo`` up in the fresh network namespace (it starts down)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(s, SIOCGIFFLAGS, req))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


def enter_namespaces(cfg: dict[str, Any], prot: Protections) -> bool:
    """In init: unshare mount/net/ipc/uts, build the jail. Returns whether it is built."""
    for flag, name, detail in (
        (CLONE_NEWNET, "no-network", "new network namespace: loopback only"),
        (CLONE_NEWIPC, "ipc-namespace", "new IPC namespace: no shared SysV IPC / mqueues"),
        (CLONE_NEWUTS, "uts-namespace", "new UTS namespace: hostname 'syncgrade'"),
    ):
        try:
            unshare(flag)
            prot.add(name, True, detail)
        except OSError as e:
            prot.add(name, False, f"unshare failed: {e.strerror}")
    if prot.applied("uts-namespace"):
        _libc.sethostname(b"syncgrade", ctypes.c_size_t(9))
    if prot.applied("no-network"):
        try:
            loopback_up()
        except OSError as e:
            prot.add("no-network", True, f"new network namespace, loopback down ({e})")
    try:
        unshare(CLONE_NEWNS)
        build_jail(cfg["jail"], prot)
        return True
    except OSError as e:
        prot.add("filesystem-allowlist", False, f"jail setup failed: {e}")
        prot.add("hidden-paths", False, f"no jail: {e}")
        return False


# --- the target: limits, privileges, exec --------------------------------------------


def apply_rlimits(limits: dict[str, Any], prot: Protections, own_uid: bool) -> None:
    """Set each limit (soft == hard except CPU, whose hard limit is one second later)."""
    table = [
        ("cpu-limit", resource.RLIMIT_CPU, limits["cpu"], "s of CPU time (SIGXCPU)"),
        ("address-space-limit", resource.RLIMIT_AS, limits["as"], "bytes of address space"),
        ("file-size-limit", resource.RLIMIT_FSIZE, limits["fsize"], "bytes per file"),
        ("no-core-dumps", resource.RLIMIT_CORE, 0, "bytes of core dump"),
    ]
    if limits.get("nproc") is not None:
        if own_uid:
            table.append(("process-limit", resource.RLIMIT_NPROC, limits["nproc"],
                          "processes+threads for the per-run uid"))
        else:
            prot.add("process-limit", False, "RLIMIT_NPROC counts every process of the "
                     "uid system-wide; only applied under a per-run uid")
    for name, which, value, unit in table:
        if value is None:  # the grader limits it another way (its resident watchdog)
            prot.add(name, False, "not set: the grader's resident-memory watchdog limits "
                     "memory instead (an accelerator runtime maps more than it uses)")
            continue
        try:
            soft = int(value) if which != resource.RLIMIT_CPU else max(1, int(value + 0.999))
            hard = soft + 1 if which == resource.RLIMIT_CPU else soft
            resource.setrlimit(which, (soft, hard))
            prot.add(name, True, f"{soft} {unit}")
        except (OSError, ValueError) as e:
            prot.add(name, False, f"setrlimit failed: {e}")


def _unreachable(paths: list[str], uid: int) -> str | None:
    """First path an unrelated uid cannot traverse (dirs o+x) and read, or None."""
    for path in paths:
        real = os.path.realpath(path)
        parts = real.split("/")
        for i in range(2, len(parts) + 1):
            sub = "/".join(parts[:i]) or "/"
            try:
                st = os.stat(sub)
            except OSError:
                break
            if st.st_uid == uid:
                continue
            need = stat.S_IXOTH if stat.S_ISDIR(st.st_mode) else stat.S_IROTH
            if not st.st_mode & need:
                return f"{sub} (mode {stat.S_IMODE(st.st_mode):o})"
    return None


NOBODY = 65534


def _switch_uid(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def _unprivileged_grader(prot: Protections) -> None:
    uid = os.geteuid()
    if prot.applied("user-namespace"):
        prot.add("drop-privileges", False,
                 f"not root: the child keeps the grader's uid {uid} (an unprivileged user can "
                 "map only itself) but has no capabilities, cannot see the grader (pid "
                 "namespace) and sees the grader's files only read-only (jail)")
    else:
        prot.add("drop-privileges", False,
                 f"not root and no user namespace: the child runs as the grader's uid {uid} "
                 "and can signal the grader and write whatever the grader can")


def drop_privileges(cfg: dict[str, Any], prot: Protections, jailed: bool) -> int | None:
    """As root, switch to the per-run uid (or ``nobody`` where that uid is not mapped,
    e.g. in a user-namespaced container). Returns the per-run uid if that is what the
    child now runs under, else None."""
    if os.geteuid() != 0:
        _unprivileged_grader(prot)
        return None
    uid = cfg.get("uid")
    if uid is None:
        prot.add("drop-privileges", False, "no uid configured; child runs as root")
        return None
    if not jailed:
        blocked = _unreachable(cfg["needed"], uid)
        if blocked:
            prot.add("drop-privileges", False, f"uid {uid} could not reach {blocked} without "
                     "a mount namespace to re-expose it; child runs as ROOT")
            return None
    errors = []
    for candidate in (uid, NOBODY):
        for path in (cfg["cwd"], os.path.join(cfg["cwd"], "tmp")):
            with contextlib.suppress(OSError):  # EINVAL for an unmapped uid: setuid says
                os.chown(path, candidate, candidate)
        for fd in (0, 1, 2, *cfg["keep_fds"]):
            with contextlib.suppress(OSError):  # lets the child reopen /dev/stdout etc.
                os.fchown(fd, candidate, candidate)
        try:
            _switch_uid(candidate)
        except OSError as e:
            errors.append(f"setuid({candidate}): {e.strerror}")
            continue
        kind = "per-run uid/gid" if candidate == uid else "shared uid/gid (nobody)"
        prot.add("drop-privileges", True, f"{kind} {candidate}, no supplementary groups, "
                 "no capabilities" + (f" ({errors[0]})" if errors else ""))
        return candidate if candidate == uid else None
    prot.add("drop-privileges", False, "; ".join(errors) + "; child runs as ROOT")
    return None


def _can_read(path: str) -> bool:
    """Whether this process can read ``path``: a file's bytes, or a directory's entries or
    anything inside it (by name: traversal is enough)."""
    if os.path.isdir(path):
        return os.access(path, os.R_OK) or os.access(path, os.X_OK)
    return os.access(path, os.R_OK)


def check_hidden_by_permissions(hidden: list[str], prot: Protections) -> None:
    """Basic mode, called as the child's own uid (after the switch): without a mount
    namespace nothing can be masked, so ``hidden-paths`` is applied only where file
    permissions already keep every hidden path from this uid (a course folder of mode
    0700 owned by root, which the container entry points arrange; docs/security.md).
    ``os.access`` checks with the real uid, which is the child's after ``setresuid``."""
    uid = os.getuid()
    if uid == 0:
        prot.add("hidden-paths", False, "no mount namespace and the child runs as ROOT: "
                 "every hidden path is readable to it")
        return
    readable = [p for p in hidden if _can_read(p)]
    if readable:
        prot.add("hidden-paths", False, f"no mount namespace, and uid {uid} can read "
                 f"{readable} (make them mode 0700, owned by root)")
    else:
        prot.add("hidden-paths", True, f"no mount namespace; file permissions keep uid {uid} "
                 f"out of every hidden path: {hidden or 'none'}")


Become = Callable[[dict[str, Any]], None]
"""Runs the target in this process instead of exec (a zygote's fork); never returns."""


def exec_target(cfg: dict[str, Any], prot: Protections, status: Status, jailed: bool,
                become: Become | None = None) -> None:
    """Become the child: limits, privileges, fds, then exec (or ``become``, with every
    capability dropped first). Never returns."""
    for sig in (signal.SIGUSR1, signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)  # ignored dispositions survive exec
    own_uid = drop_privileges(cfg, prot, jailed)
    if not jailed:
        check_hidden_by_permissions(cfg["jail"]["hidden"], prot)
    apply_rlimits(cfg["rlimits"], prot, own_uid is not None)
    if LINUX:
        try:
            prctl(PR_SET_NO_NEW_PRIVS, 1)
            prot.add("no-new-privileges", True, "PR_SET_NO_NEW_PRIVS: setuid binaries and "
                     "file capabilities grant nothing")
        except OSError as e:
            prot.add("no-new-privileges", False, str(e))
        if not jailed:
            # A uid change clears the parent-death signal; set it again so a crashed
            # grader does not leave the child running (and check it did not die already).
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            parent = cfg["grader_pid"]
            if not prot.applied("pid-namespace") and parent and os.getppid() != parent:
                os._exit(125)
    else:
        prot.add("no-new-privileges", False, "PR_SET_NO_NEW_PRIVS is Linux-only")
    os.chdir(cfg["cwd"])
    keep = sorted({0, 1, 2, status.fd, *cfg["keep_fds"]})
    _close_all_but(keep)
    for fd in cfg["keep_fds"]:
        os.set_inheritable(fd, True)
    os.set_inheritable(status.fd, False)
    if become is not None:
        drop_capabilities()  # raises (reported as fatal): never run a target that keeps any
    status.send("protections", items=prot.as_json(), uid=own_uid,
                isolation="namespaces" if prot.applied("pid-namespace") else "basic")
    if become is not None:
        os.close(status.fd)  # what close-on-exec would have done
        become(cfg)
        os._exit(127)  # become never returns; if it does, never run launcher code on
    try:
        os.execvpe(cfg["argv"][0], cfg["argv"], cfg["env"])
    except OSError as e:
        status.send("exec_error", error=f"{cfg['argv'][0]!r}: {e.strerror}")
        os._exit(127)


def _close_target_only(cfg: dict[str, Any]) -> None:
    """Close, in the launcher and init, the fds only the target may hold (the readiness
    pipe of a pre-started run), so the grader sees EOF on them the moment the target
    dies, not when the whole namespace has been torn down."""
    for fd in cfg.get("target_only_fds", []):
        with contextlib.suppress(OSError):
            os.close(fd)


def _close_all_but(keep: list[int]) -> None:
    """Close every fd not in ``keep`` (sorted), so the child inherits nothing else."""
    low = 0
    for fd in keep:
        if low < fd:  # closerange(n, n) would close *everything* (close_range(n, ~0))
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


# --- init: pid 1 of the new pid namespace --------------------------------------------


class Init:
    """Reaps everything, forwards SIGUSR1 to the target, SIGTERM kills the namespace."""

    def __init__(self) -> None:
        self.target = 0
        self.stop_requested = False

    def on_usr1(self, signum: int, frame: object) -> None:
        if self.target:
            _kill(self.target, signal.SIGUSR1)

    def on_term(self, signum: int, frame: object) -> None:
        self.stop_requested = True
        if self.target:
            _kill(self.target, signal.SIGKILL)

    def wait_target(self) -> tuple[int, float]:
        """Reap children until the target is reaped; its wait status and CPU seconds."""
        while True:
            try:
                pid, st, ru = os.wait4(-1, 0)
            except ChildProcessError:
                return 0, 0.0
            if pid == self.target:
                return st, ru.ru_utime + ru.ru_stime

    @staticmethod
    def kill_leftovers() -> int:
        """SIGKILL every other process of the namespace; count those the kill ended."""
        try:
            os.kill(-1, signal.SIGKILL)  # from pid 1: everyone in the namespace but us
        except ProcessLookupError:
            return 0
        killed = 0
        while True:
            try:
                _, st = os.waitpid(-1, 0)
            except ChildProcessError:
                return killed
            if os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGKILL:
                killed += 1


def _kill(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def run_init(cfg: dict[str, Any], prot: Protections, status: Status,
             become: Become | None = None) -> None:
    """Body of pid 1: jail, fork the target, wait, sweep, report. Never returns."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # launcher gone -> whole namespace gone
    init = Init()
    signal.signal(signal.SIGUSR1, init.on_usr1)
    signal.signal(signal.SIGTERM, init.on_term)
    jailed = enter_namespaces(cfg, prot)
    if cfg["isolation"] == "namespaces" and not jailed:
        status.send("fatal", error="namespace isolation required but the jail failed: "
                    + prot.items["filesystem-allowlist"][1])
        os._exit(125)
    pid = os.fork()
    if pid == 0:
        exec_target(cfg, prot, status, jailed, become)
    _close_target_only(cfg)
    init.target = pid
    if init.stop_requested:
        _kill(pid, signal.SIGKILL)
    st, cpu = init.wait_target()
    leftover = init.kill_leftovers()
    status.send("exit", status=st, leftover=leftover, cpu_s=cpu,
                stopped=init.stop_requested)
    os._exit(0)


# --- launcher --------------------------------------------------------------------------


class Forwarder:
    """In the launcher: pass the grader's SIGUSR1/SIGTERM on to init."""

    def __init__(self) -> None:
        self.child = 0
        self.pending: list[int] = []

    def handle(self, signum: int, frame: object) -> None:
        if self.child:
            _kill(self.child, signum)
        else:
            self.pending.append(signum)


def enter_user_namespace() -> None:
    """Become 'root of nothing': a user namespace that maps just our own uid and gid."""
    uid, gid = os.getuid(), os.getgid()
    unshare(CLONE_NEWUSER)
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def try_pid_namespace(cfg: dict[str, Any], prot: Protections) -> bool:
    """Unshare the pid namespace for our children when isolation allows it."""
    if cfg["isolation"] == "basic":
        for name in NAMESPACE_PROTECTIONS:
            prot.add(name, False, "isolation='basic' requested")
        return False
    if not LINUX:
        for name in NAMESPACE_PROTECTIONS:
            prot.add(name, False, f"Linux namespaces unavailable on {sys.platform}")
        return False
    if os.geteuid() != 0:
        try:
            enter_user_namespace()
            prot.add("user-namespace", True, "unprivileged user namespace mapping only the "
                     "grader's uid: capabilities inside it, none outside")
        except OSError as e:
            why = f"unprivileged user namespace unavailable: {e}"
            for name in (*NAMESPACE_PROTECTIONS, "user-namespace"):
                prot.add(name, False, why)
            return False
    try:
        unshare(CLONE_NEWPID)
    except OSError as e:
        why = f"unshare(CLONE_NEWPID) failed: {e.strerror} (needs CAP_SYS_ADMIN)"
        for name in NAMESPACE_PROTECTIONS:
            prot.add(name, False, why)
        return False
    prot.add("pid-namespace", True, "child is pid 2 of a new pid namespace; the grader is "
             "invisible to it; every process left is killed when init exits")
    return True


def namespaces_available() -> bool:
    """Whether a child started now would get the namespace jail: Linux, and ``unshare`` of
    a pid and a mount namespace works in this process (as root that takes
    ``CAP_SYS_ADMIN``; an unprivileged user needs a user namespace too). Tried in a forked
    process that exits at once, so nothing here changes; each run still decides on its own
    and records it. The container entry points ask before they grade (as root without
    the capability they lock the answers away by permissions; docs/security.md)."""
    if not LINUX:
        return False
    flags = CLONE_NEWPID | CLONE_NEWNS | (0 if os.geteuid() == 0 else CLONE_NEWUSER)
    pid = os.fork()
    if pid == 0:  # the probe: its exit status is the answer, and it must never return
        code = 1
        with contextlib.suppress(BaseException):
            unshare(flags)
            code = 0
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def hidden_paths_problem(hidden: list[str], needed: list[str], uid: int,
                         jail: bool | None = None) -> str | None:
    """Why a child started now could read a hidden path, or None when it could not: the
    namespace jail masks them; failing that (root without ``CAP_SYS_ADMIN``) a child
    switched to ``uid`` (or ``nobody``, as :func:`drop_privileges` falls back) must reach
    every ``needed`` path (else it would stay root) and read none of ``hidden``. Checked
    as that uid in a forked process, by the same rules the launcher uses, before any
    learner code runs: the container entry points refuse to grade when this says why
    (docs/security.md, "Fail closed"). One line. ``jail``: whether the jail can be built
    (default: :func:`namespaces_available` says)."""
    if not LINUX:
        return "not Linux: no namespaces and no per-run uid"
    if namespaces_available() if jail is None else jail:
        return None
    if os.geteuid() != 0:
        return (f"no namespaces, and the grader is not root, so learner code would run as "
                f"the grader's uid {os.geteuid()}, which reads the course")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the probe: as the child's uid, the launcher's own checks; never returns
        why = "the probe failed"
        with contextlib.suppress(BaseException):
            os.close(read_end)
            why = _as_child_uid(hidden, needed, uid) or ""
        with contextlib.suppress(BaseException):
            os.write(write_end, why.encode()[:4000])
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as answer:
        why = answer.read().decode(errors="replace")
    os.waitpid(pid, 0)
    return why or None


def _as_child_uid(hidden: list[str], needed: list[str], uid: int) -> str | None:
    """In the probe: switch to ``uid`` (else ``nobody``), then what would keep the child
    root, or the first hidden path it can read."""
    for candidate in (uid, NOBODY):
        try:
            _switch_uid(candidate)
            break
        except OSError:
            continue
    else:
        return "no uid to switch to (setuid failed): learner code would run as ROOT"
    for path in needed:
        if not (os.access(path, os.X_OK) if os.path.isdir(path) else os.access(path, os.R_OK)):
            return (f"an unprivileged uid cannot reach {path}, so learner code would run as "
                    "ROOT (install Python and the grader where other users can read them)")
    readable = [p for p in hidden if _can_read(p)]
    if readable:
        return (f"an unprivileged uid can read {readable[0]}"
                + (f" and {len(readable) - 1} more hidden path(s)" if len(readable) > 1 else "")
                + " (make them mode 0700, owned by root)")
    return None


def supervise(cfg: dict[str, Any], prot: Protections, status: Status,
              become: Become | None = None) -> None:
    """Fork init into the new pid namespace and mirror its exit. Never returns."""
    fwd = Forwarder()
    signal.signal(signal.SIGUSR1, fwd.handle)
    signal.signal(signal.SIGTERM, fwd.handle)
    pid = os.fork()
    if pid == 0:
        run_init(cfg, prot, status, become)
    _close_target_only(cfg)
    fwd.child = pid
    for sig in fwd.pending:
        _kill(pid, sig)
    while True:
        try:
            _, st = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            st = 0
            break
    os._exit(os.waitstatus_to_exitcode(st) & 0xFF if os.WIFEXITED(st) else 125)


def main(argv: list[str]) -> None:
    """Entry point: ``_launcher.py CONFIG_PATH`` (the file is deleted once read)."""
    with open(argv[1]) as f:
        cfg = json.load(f)
    os.unlink(argv[1])
    launch(cfg)


def launch(cfg: dict[str, Any], become: Become | None = None) -> None:
    """Set up the sandbox ``cfg`` describes and run its target: exec ``cfg["argv"]``, or
    ``become`` (in a zygote's fork). Never returns; every failure is reported on the
    status fd as ``fatal`` and exits 125."""
    status = Status(cfg["status_fd"])
    try:
        if LINUX:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if cfg["grader_pid"] is not None and os.getppid() != cfg["grader_pid"]:
                os._exit(125)  # the grader died before we could arm the death signal
        prot = Protections()
        if try_pid_namespace(cfg, prot):
            supervise(cfg, prot, status, become)
        if cfg["isolation"] == "namespaces":
            status.send("fatal", error="namespace isolation required: "
                        + prot.items["pid-namespace"][1])
            os._exit(125)
        exec_target(cfg, prot, status, jailed=False, become=become)
    except BaseException as e:  # report, never let a launcher bug look like learner output
        if isinstance(e, SystemExit):
            raise
        text = "".join(traceback.format_exception(e))
        status.send("fatal", error=text[-3000:])
        with contextlib.suppress(OSError):
            os.write(2, f"syncgrade sandbox launcher failed:\n{text}".encode())
        os._exit(125)


if __name__ == "__main__":
    main(sys.argv)
