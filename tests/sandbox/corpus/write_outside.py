# expect: error
# The job's own /tmp is private: this lands there, never in the host's /tmp.
with open(HOST_TMP_FILE, "w") as f:
    f.write("private")
# A world-writable directory of the host: must be out of reach.
with open(OUTSIDE_FILE, "w") as f:
    f.write("escaped")
