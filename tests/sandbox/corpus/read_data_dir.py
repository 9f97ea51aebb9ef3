# expect: error
# stdout-lacks: TOPSECRET
import os

print(os.listdir(os.path.dirname(DATA_FILE)))
print(open(DATA_FILE).read())
