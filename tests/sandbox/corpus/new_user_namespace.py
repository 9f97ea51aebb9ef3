# expect: error
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000 | 0x00020000) != 0:  # CLONE_NEWUSER | CLONE_NEWNS: "root" in a new namespace
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
