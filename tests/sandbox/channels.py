"""Two jobs that try to talk while they run at the same time: a sender that leaves a mark on
every channel a job could share, and a receiver that looks for each mark. Used directly and
through HTTP (tests/test_channels_http.py)."""

SENDER = r"""
import ctypes, fcntl, os, socket, sys, time
libc = ctypes.CDLL(None, use_errno=True)
NAME = "codecloze-channel"
held = []
for path in ("/etc/ld.so.cache", sys.executable, os.path.realpath(sys.executable)):
    for lock in (lambda fd: fcntl.flock(fd, fcntl.LOCK_EX), lambda fd: fcntl.lockf(fd, fcntl.LOCK_SH)):
        try:
            fd = os.open(path, os.O_RDONLY)
            held.append(fd)
            lock(fd)
        except OSError:
            pass
for directory in ("/", "/tmp", "/dev", "/etc", "/proc", sys.prefix, "/dev/shm", "/var/tmp", "/run"):
    try:
        open(os.path.join(directory, NAME), "w").write("mark")
    except OSError:
        pass
try:
    s = socket.socket(socket.AF_UNIX)
    s.bind("\0" + NAME)
    s.listen()
    held.append(s)
except OSError:
    pass
for _ in range(20):
    try:
        held.append(socket.socketpair())
    except OSError:
        break
libc.shmget(0xC0DE, 4096, 0o1666)
libc.semget(0xC0DE, 1, 0o1666)
libc.msgget(0xC0DE, 0o1666)
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
libc.mq_open(b"/" + NAME.encode(), os.O_CREAT | os.O_RDWR, 0o666, None)
libc.sethostname(NAME.encode(), len(NAME))
time.sleep(SECONDS)
"""

RECEIVER = r"""
import ctypes, errno, fcntl, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
NAME = "codecloze-channel"
learned = []
for path in ("/etc/ld.so.cache", sys.executable, os.path.realpath(sys.executable)):
    try:
        fcntl.flock(os.open(path, os.O_RDONLY), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            learned.append(f"lock on {path}")
for directory in ("/", "/tmp", "/dev", "/etc", "/proc", sys.prefix, "/dev/shm", "/var/tmp", "/run"):
    try:
        if NAME in os.listdir(directory):
            learned.append(f"file in {directory}")
    except OSError:
        pass
try:
    socket.socket(socket.AF_UNIX).connect("\0" + NAME)
    learned.append("abstract socket")
except OSError:
    pass
try:
    unix = open("/proc/net/unix").read().splitlines()[1:]
    if unix:
        learned.append(f"{len(unix)} unix sockets in /proc/net/unix")
except OSError:
    pass
for kind in ("shm", "sem", "msg"):
    try:
        if len(open(f"/proc/sysvipc/{kind}").read().splitlines()) > 1:
            learned.append(f"sysv {kind}")
    except OSError:
        pass
if libc.shmget(0xC0DE, 0, 0) >= 0 or libc.semget(0xC0DE, 0, 0) >= 0 or libc.msgget(0xC0DE, 0) >= 0:
    learned.append("sysv key")
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
if libc.mq_open(b"/" + NAME.encode(), os.O_RDONLY) >= 0:
    learned.append("posix message queue")
if os.uname().nodename == NAME:
    learned.append("hostname")
print(learned)
"""
NOTHING_LEARNED = "assert learned == [], learned"
