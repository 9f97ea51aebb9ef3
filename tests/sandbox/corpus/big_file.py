# expect: error
block = b"\0" * (1 << 20)
with open("big.bin", "wb") as f:
    for _ in range(10 * 1024):  # 10 GB
        f.write(block)
