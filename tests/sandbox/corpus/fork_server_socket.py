# expect: error
# stdout-lacks: REACHED
import os
import socket
import stat

# Any inherited socket (the fork server's, the web app's) would do.
for fd in range(3, 1024):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            socket.socket(fileno=fd).send(b"\0\0\0\2{}")
            print("REACHED via fd", fd)
    except OSError:
        pass
# Otherwise a unix socket that any process on the host has bound.
with open("/proc/net/unix") as f:
    names = [line.split()[-1] for line in f.readlines()[1:] if len(line.split()) > 7]
for name in names:
    s = socket.socket(socket.AF_UNIX)
    s.connect(name.replace("@", "\0", 1))
    s.send(b"\0\0\0\2{}")
    print("REACHED via", name)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # no known socket at all: still try
s.connect("\0codecloze")
