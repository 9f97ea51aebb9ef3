# expect: memory
import time

chunks = []
while True:
    chunks.append(bytearray(64 * 1024))
    if len(chunks) % 256 == 0:
        time.sleep(0.001)
