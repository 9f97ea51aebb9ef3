# expect: error|timeout
import os

while True:
    os.fork()
