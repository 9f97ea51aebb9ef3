# expect: error
# The database file, wherever DATABASE_URL points (here outside the data dir), and its dir.
import os

print(os.listdir(os.path.dirname(DATABASE_FILE)))
print(open(DATABASE_FILE, "rb").read(100))
